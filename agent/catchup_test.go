package agent_test

import (
	"fmt"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
)

// TestPermissionAfterWhatTheCLIWroteFirst: a permission request the CLI
// makes right behind the frames of its turn (a model that answers at
// once, the prompt written while the CLI starts) is handled after them:
// it belongs to the turn, so a v2 client sees requires_action before it
// and running after the answer. Its callback runs on a goroutine of its
// own and used to overtake those frames about once in ten runs; thirty
// rounds on the in-process fake CLI take well under a second
// (agent/catchup.go).
func TestPermissionAfterWhatTheCLIWroteFirst(t *testing.T) {
	t.Parallel()
	for i := range 30 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			w, _ := cfScripted(
				clifake.Reply{Tool: "echo asked", ToolID: "toolu_now", ToolOutput: "asked"},
				cfText("Done."),
			)
			h := startV2CF(t, w)
			sid := h.NewSession(h.Sandbox.WorkDir)
			if r := promptTurn(t, h, sid, "ask at once", 1); r != "end_turn" {
				t.Fatalf("stop reason %q", r)
			}
			perms := h.Permissions()
			if len(perms) != 1 {
				t.Fatalf("%d permission requests", len(perms))
			}
			us := h.Updates(sid)
			ra := firstOf(us, 0, "state_update", "requires_action")
			if ra < 0 || us[ra].Wire > perms[0].Wire {
				t.Fatalf("no requires_action before the request (wire %d): %s", perms[0].Wire, v2Kinds(us))
			}
			answer := responseIndex(t, h, perms[0].Wire)
			for _, u := range us[ra:] {
				if agenttest.StateOf(u) == "running" && u.Wire > answer {
					return
				}
			}
			t.Fatalf("no running after the answer (wire %d): %s", answer, v2Kinds(us))
		})
	}
}
