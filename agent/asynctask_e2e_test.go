package agent_test

import (
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// TestStopOneBackgroundTask: _session/async_task/stop stops a background
// command alone (named by its tool call) while the turn runs: its card
// ends failed, the turn goes on; stopping it again is {stopped: false}.
func TestStopOneBackgroundTask(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.API().Script(
		toolUse("toolu_sleep", "Bash", map[string]any{"command": "echo sleeping; sleep 60", "description": "Sleep", "run_in_background": true}),
		fakeapi.Step{Kind: fakeapi.KindHang, Text: "still working", HangS: 60},
	)
	sid := h.NewSession(h.Sandbox.WorkDir)
	done := promptAsync(h, sid, "start it")
	h.WaitFor("the turn to go on after the start", 60*time.Second, func() bool { return strings.Contains(h.AgentText(sid), "still working") })
	stop := func() bool {
		var r struct{ Stopped bool }
		if err := h.Client.Call(h.Ctx(), "_session/async_task/stop", map[string]string{"sessionId": sid, "asyncTaskId": "toolu_sleep"}, &r); err != nil {
			t.Fatalf("stop: %v", err)
		}
		return r.Stopped
	}
	if !stop() {
		t.Fatal("the running task was not stopped")
	}
	h.WaitFor("the stopped command's card to end", 30*time.Second, func() bool {
		c, _ := toolCalls(t, h, sid)
		return c["toolu_sleep"].status == acp.ToolCallStatusFailed
	})
	select {
	case r := <-done:
		t.Fatalf("the turn ended with the task: %+v %v", r.resp, r.err)
	default:
	}
	if stop() {
		t.Error("a stopped task was stopped again")
	}
	h.Cancel(sid)
	if r := <-done; r.err != nil || r.resp.StopReason != acp.StopReasonCancelled {
		t.Fatalf("prompt: %+v %v", r.resp, r.err)
	}
}
