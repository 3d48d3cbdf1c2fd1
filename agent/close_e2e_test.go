package agent_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/acp/acpv2"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// TestNothingOfATurnRunsAfterClose closes a session (session/close, or the
// editor's stdin EOF) while its turn waits for a model reply that calls a
// tool, with the real CLI: the agent's abort (interrupt, SIGTERM, SIGKILL)
// must stop the real process before the reply comes. The tool must never
// run and no second model request may be made; the prompt ends cancelled,
// and no CLI is left. Every combination of v1 and v2, close and EOF,
// bypassPermissions (the tool would run at once) and default mode (the
// client would allow it) runs on the fake CLI in
// TestNothingOfATurnRunsAfterCloseSim; here two cases between them cover
// each once. CLAUDE_AGENT_ACP_CLOSE_ROUNDS=20 runs all eight cases, each 20
// times, and logs the median time to the close's answer and to the last
// CLI gone (docs/reliability.md).
func TestNothingOfATurnRunsAfterClose(t *testing.T) {
	t.Parallel()
	rounds, all := 1, false
	if n, err := strconv.Atoi(os.Getenv("CLAUDE_AGENT_ACP_CLOSE_ROUNDS")); err == nil && n > 0 {
		rounds, all = n, true
	}
	for _, proto := range []string{"v1", "v2"} {
		for _, how := range []string{"close", "eof"} {
			for _, mode := range []string{"bypassPermissions", "default"} {
				if !all && !(proto == "v1" && how == "close" && mode == "bypassPermissions" || proto == "v2" && how == "eof" && mode == "default") {
					continue
				}
				t.Run(proto+"/"+how+"/"+mode, func(t *testing.T) {
					t.Parallel()
					var answers, gone []time.Duration
					for range rounds {
						a, g := closeMidTurn(t, proto, how, mode)
						answers, gone = append(answers, a), append(gone, g)
					}
					slices.Sort(answers)
					slices.Sort(gone)
					t.Logf("%s %s %s: close to answer median %v (max %v); to last CLI gone median %v (max %v); %d rounds",
						proto, how, mode, answers[len(answers)/2], answers[len(answers)-1], gone[len(gone)/2], gone[len(gone)-1], rounds)
				})
			}
		}
	}
}

// replyDelay is how long the model takes to answer with the tool call:
// the close comes in between.
const replyDelay = 1500 * time.Millisecond

func closeMidTurn(t *testing.T, proto, how, mode string) (answer, gone time.Duration) {
	marker := filepath.Join(t.TempDir(), "tool-ran")
	step := fakeapi.ToolUse("toolu_marker", "Bash", map[string]any{"command": "touch " + marker, "description": "mark"})
	step.DelayMS = int(replyDelay / time.Millisecond)

	var api *fakeapi.Server
	var waitFor func(what string, d time.Duration, cond func() bool)
	var closeSession func() error // session/close, or EOF
	var ended func() bool         // the prompt has its cancelled end
	switch proto {
	case "v1":
		h := agenttest.Start(t)
		api, waitFor = h.API(), h.WaitFor
		api.Script(step, fakeapi.Text("done"))
		sid := h.NewSession(h.Sandbox.WorkDir)
		if mode != "default" {
			if err := h.Client.Call(h.Ctx(), acp.MethodSessionSetMode, &acp.SetSessionModeRequest{SessionID: acp.SessionID(sid), ModeID: acp.SessionModeID(mode)}, &acp.SetSessionModeResponse{}); err != nil {
				t.Fatalf("set_mode: %v", err)
			}
		}
		done := promptAsync(h, sid, "mark the file")
		var got *promptResult
		ended = func() bool {
			if got == nil {
				select {
				case r := <-done:
					got = &r
				case <-time.After(10 * time.Second):
					return false
				}
			}
			return got.err == nil && got.resp.StopReason == acp.StopReasonCancelled
		}
		closeSession = func() error {
			if how == "eof" {
				h.Close()
				return nil
			}
			return h.Client.Call(h.Ctx(), acp.MethodSessionClose, &acp.CloseSessionRequest{SessionID: acp.SessionID(sid)}, &acp.CloseSessionResponse{})
		}
	case "v2":
		h := agenttest.StartV2(t)
		api, waitFor = h.API(), h.WaitFor
		api.Script(step, fakeapi.Text("done"))
		sid := h.NewSession(h.Sandbox.WorkDir)
		if mode != "default" {
			var r acpv2.SetSessionConfigOptionResponse
			if err := h.Call(acpv2.MethodSessionSetConfigOption, json.RawMessage(`{"sessionId":"`+sid+`","configId":"mode","type":"id","value":"`+mode+`"}`), &r); err != nil {
				t.Fatalf("set mode: %v", err)
			}
		}
		if _, err := h.Prompt(sid, "mark the file"); err != nil {
			t.Fatal(err)
		}
		ended = func() bool {
			for _, u := range h.Idles(sid) {
				if agenttest.StopReasonOf(u) == "cancelled" {
					return true
				}
			}
			return false
		}
		closeSession = func() error {
			if how == "eof" {
				h.Close()
				return nil
			}
			var r json.RawMessage
			return h.Call(acpv2.MethodSessionClose, json.RawMessage(`{"sessionId":"`+sid+`"}`), &r)
		}
	}

	waitFor("the model request", 60*time.Second, func() bool { return len(api.MainRequests()) > 0 })
	if len(clitest.LivePIDs(t)) == 0 {
		t.Fatal("no claude process before the close")
	}
	start := time.Now()
	if err := closeSession(); err != nil {
		t.Fatalf("%s: %v", how, err)
	}
	answer = time.Since(start)
	clitest.NoOrphans(t) // waits (up to seconds) for every claude process to be gone
	gone = time.Since(start)
	// (A v2 prompt was answered when it was inserted; after EOF there is
	// nobody left to tell that its turn ended.)
	if !(proto == "v2" && how == "eof") && !ended() {
		t.Errorf("the prompt did not end cancelled")
	}
	// No claude process is left, so nothing can run the tool or ask the
	// model later: what has not happened by now never will.
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the tool ran after the %s", how)
	}
	if n := len(api.MainRequests()); n != 1 {
		t.Errorf("%d model requests, want 1 (none after the %s)", n, how)
	}
	return answer, gone
}
