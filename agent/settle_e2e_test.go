package agent_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// TestOpenToolCardsSettle: a turn ends while its Bash command runs (the
// user cancels, closes the session, or the CLI dies), with the real CLI.
// The command's card must end failed, before the turn's answer on the
// wire, instead of staying pending or in progress in the editor for good.
func TestOpenToolCardsSettle(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"cancel", "close", "cli-dies"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			for _, terminals := range []bool{false, true} {
				h := agenttest.Start(t)
				h.Initialize(acp.ClientCapabilities{Terminal: terminals})
				h.API().Script(toolUse("toolu_sleep", "Bash", map[string]any{"command": "echo started; sleep 30", "description": "wait"}), fakeapi.Text("never"))
				sid := h.NewSession(h.Sandbox.WorkDir)
				done := promptAsync(h, sid, "wait a while")
				h.WaitFor("the command to run", 60*time.Second, func() bool { return sleepRunning(h.Sandbox.WorkDir) })
				switch how {
				case "cancel":
					h.Cancel(sid)
				case "close":
					if err := h.Client.Call(h.Ctx(), acp.MethodSessionClose, &acp.CloseSessionRequest{SessionID: acp.SessionID(sid)}, &acp.CloseSessionResponse{}); err != nil {
						t.Fatal(err)
					}
				case "cli-dies":
					killTheCLI(t)
				}
				r := <-done
				if how != "cli-dies" && (r.err != nil || r.resp.StopReason != acp.StopReasonCancelled) {
					t.Fatalf("terminals %v: prompt %+v %v", terminals, r.resp, r.err)
				}
				calls, _ := toolCalls(t, h, sid)
				if c := calls["toolu_sleep"]; c == nil || c.status != acp.ToolCallStatusFailed {
					t.Fatalf("terminals %v: the command's card: %+v", terminals, c)
				}
				// The card's end comes before the prompt's answer.
				end := wireIndex(h, `"toolu_sleep"`, `"status":"failed"`)
				answer := wireIndex(h, `"stopReason"`)
				if how == "cli-dies" {
					answer = wireIndex(h, `"error"`, `exited unexpectedly`)
				}
				if end < 0 || answer < 0 || end > answer {
					t.Errorf("terminals %v: the card ended at wire line %d, the prompt's answer at %d", terminals, end, answer)
				}
				h.Close()
			}
		})
	}
}

// sleepRunning reports whether a "sleep 30" runs in dir: the command of
// the test has started.
func sleepRunning(dir string) bool {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd")); err == nil && cwd == dir {
			if cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); string(cmd) == "sleep\x0030\x00" {
				return true
			}
		}
	}
	return false
}
