package agent_test

import (
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
)

// Subagent variants over the in-process fake CLI: where a test's variants
// differ only in the client's capabilities, the agent's rendering of the
// same frames, one variant keeps the real CLI (the proof of the frames it
// writes for a subagent) and the others play what the real CLI wrote for
// that scenario (clifake.Recorded: subagent_flat, subagent_sessions,
// subagent_thinking), the subagent's permission request included, without
// starting it. TestBashOutput does the same for its console variant.

// recordedInit is what the agent asked the CLI for in the initialize
// request of each recording: what the CLI writes of a subagent depends
// on it (subagents.go).
var recordedInit = map[string]map[string]any{
	"bash_exit_3":       {},
	"bash_live_short":   {},
	"bash_live_gate":    {},
	"subagent_flat":     {},
	"subagent_sessions": {"forwardSubagentText": true, "perTaskStopAffordance": true},
	"subagent_thinking": {"forwardSubagentText": true, "perTaskStopAffordance": true},
}

// recordedHarness starts the harness over a fake CLI that answers prompt
// with the named recording of the real CLI's turn. At the end of the test
// it checks that the agent asked every CLI for what the recording's agent
// asked (recordedInit), so that the frames played are those the real CLI
// would have written for this agent. opts are fakeHarness's (a Sandbox to
// share).
func recordedHarness(t *testing.T, prompt, recording string, opts ...agenttest.Options) *agenttest.Harness {
	t.Helper()
	w := fakeFailureWorld(map[string]clifake.Reply{prompt: realFrames(recording)})
	want, ok := recordedInit[recording]
	if !ok {
		t.Fatalf("recordedInit has no %s", recording)
	}
	h := fakeHarness(t, w, opts...)
	t.Cleanup(func() {
		for _, c := range w.CLIs() {
			init := c.Initialize()
			for _, key := range []string{"forwardSubagentText", "perTaskStopAffordance"} {
				if init[key] != want[key] {
					t.Errorf("CLI %d was initialized with %s=%v; the recording %s was made with %v", c.N(), key, init[key], recording, want[key])
				}
			}
		}
	})
	return h
}
