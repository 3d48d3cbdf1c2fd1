package agent_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// TestOpenToolCardsSettle: a turn ends while its Bash command runs (the
// user cancels, closes the session, or the CLI dies). The command's card
// must end failed, before the turn's answer on the wire, instead of
// staying pending or in progress in the editor for good. It runs on the
// in-process fake CLI, whose command runs for an hour unless the turn
// ends; that the real CLI's frames for a cancel with a real command
// running settle the card is proven by TestOpenToolCardSettlesRealCLI.
func TestOpenToolCardsSettle(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"cancel", "close", "cli-dies"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			for _, terminals := range []bool{false, true} {
				w := &clifake.World{Model: func(r clifake.Request) clifake.Reply {
					if r.FollowUp {
						return clifake.Reply{Chunks: []string{"never"}}
					}
					return clifake.Reply{Delay: modelLatency, Tool: "echo started; sleep 30", ToolID: "toolu_sleep", ToolTime: time.Hour}
				}}
				h := fakeHarness(t, w)
				running := func() bool {
					for _, e := range w.Events() {
						if e.Kind == "tool" && e.Detail == "toolu_sleep" {
							return true
						}
					}
					return false
				}
				kill := func() {
					live := w.Live()
					if len(live) != 1 {
						t.Fatalf("want one CLI, found %d", len(live))
					}
					w.Kill(live[0].N())
				}
				settleOpenCard(t, h, how, terminals, running, kill)
			}
		})
	}
}

// TestOpenToolCardSettlesRealCLI is TestOpenToolCardsSettle's cancel with
// the real CLI and a real command running: the frames the real CLI sends
// when it is interrupted in the middle of a Bash command settle its card.
// (Close and a dying CLI end the turn without the CLI's help: the fake
// CLI proves those.)
func TestOpenToolCardSettlesRealCLI(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.API().Script(toolUse("toolu_sleep", "Bash", map[string]any{"command": "echo started; sleep 30", "description": "wait"}), fakeapi.Text("never"))
	settleOpenCard(t, h, "cancel", false, func() bool { return sleepRunning(h.Sandbox.WorkDir) }, func() { killTheCLI(t) })
}

// modelLatency is how long the fake model takes to call the tool: none.
// The call and its can_use_tool then come right behind the turn's start;
// the agent takes those frames before the request (agent/catchup.go), so
// the call's card belongs to the turn and a cancel settles it. (It used
// to overtake them about once in ten runs, a race the real API's latency
// hid; the test then gave the model 100 ms.)
const modelLatency = 0

// settleOpenCard runs one case of the settle tests in a new session of h,
// whose CLI's model calls Bash with toolu_sleep: running reports the
// command runs; kill kills the CLI.
func settleOpenCard(t *testing.T, h *agenttest.Harness, how string, terminals bool, running func() bool, kill func()) {
	t.Helper()
	h.Initialize(acp.ClientCapabilities{Terminal: terminals})
	sid := h.NewSession(h.Sandbox.WorkDir)
	done := promptAsync(h, sid, "wait a while")
	h.WaitFor("the command to run", 60*time.Second, running)
	switch how {
	case "cancel":
		h.Cancel(sid)
	case "close":
		if err := h.Client.Call(h.Ctx(), acp.MethodSessionClose, &acp.CloseSessionRequest{SessionID: acp.SessionID(sid)}, &acp.CloseSessionResponse{}); err != nil {
			t.Fatal(err)
		}
	case "cli-dies":
		kill()
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
