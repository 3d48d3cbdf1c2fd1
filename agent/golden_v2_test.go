package agent_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/agent"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitape"
)

// goldenV2 runs a golden scenario on an ACP v2 connection: the same CLI
// conversation, in v2's shapes (prompt answered on insertion, state
// updates, messageIds), compared with testdata/golden/v2/<name>.jsonl. The
// v2 harness checks every line, both ways, against the v2 schema.
//
// The CLI is the tape of the scenario's v1 run (TestGoldenTranscripts,
// its parent test) played back in memory (clifake.Replay): v2 is a
// variant of the client, not of the CLI, so the real CLI runs each
// scenario once, and the v2 agent reads exactly the frames it wrote,
// initialize answer (commands, models) included, in their order. The
// replay also fails the test where the v2 agent writes the CLI anything
// the v1 agent did not (another prompt, request or command line), since
// the CLI's answers would then not be the tape's.
//
// The tape is made afresh by every run, not committed: whatever CLI the
// tests pin, both goldens are its output, and no recording can fall behind
// it (a new CLI changes the v1 golden, and the v2 golden with it, in the
// same run). What only the real CLI's timing decides stays in the v1 run:
// the cancel scenario's interrupt lands where the v1 agent sent it, and
// its tape holds what the CLI wrote after it.
func goldenV2(t *testing.T, sc goldenScenario, tape *clitape.Tape) {
	h := agenttest.StartV2(t, agenttest.Options{Config: func(c *agent.Config) { c.Launch = clifake.Replay(tape, t) }})
	sid := h.NewSession(h.Sandbox.WorkDir)
	waitCLIUp(t, h)
	for i, p := range sc.prompts {
		if _, err := h.Prompt(sid, p); err != nil {
			t.Fatalf("prompt %d: %v", i+1, err)
		}
		if sc.cancel {
			h.WaitFor("streamed text", 30*time.Second, func() bool { return h.AgentText(sid) != "" })
			h.Cancel(sid)
		}
		h.WaitIdle(sid, i+1)
	}
	compareGolden(t, filepath.Join("testdata", "golden", "v2", sc.name+".jsonl"), h.Wire(), h.Sandbox.WorkDir, sid, false)
}
