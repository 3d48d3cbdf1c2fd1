package agent_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
)

// TestGoldenTranscriptsV2 runs the golden scenarios on an ACP v2
// connection: the same CLI conversations, in v2's shapes (prompt answered
// on insertion, state updates, messageIds), compared with
// testdata/golden/v2/<name>.jsonl. The v2 harness checks every line, both
// ways, against the v2 schema.
func TestGoldenTranscriptsV2(t *testing.T) {
	t.Parallel()
	for _, sc := range goldenScenarios() {
		t.Run(sc.name, func(t *testing.T) {
			h := agenttest.StartV2(t)
			h.API().Script(sc.steps...)
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
		})
	}
}
