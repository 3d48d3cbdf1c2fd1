package agent_test

import (
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// TestScheduledJobKeepsTheSessionAwake: Claude schedules an every-minute
// job (CronCreate, session-only) in a session whose idle timeout is 3 s,
// real CLI. The job lives in the CLI process, so the session must not
// hibernate: the job fires (the model gets its prompt) within the minute
// and a half the CLI allows a minutely job, with the same CLI still up.
// It used to hibernate after 3 s and never fire again.
//
// It waits for the CLI's real clock, up to 71 s, with nothing to do: it is
// the first test of this file, which sorts early, so that it runs beside
// the others from the start instead of alone at the package's end.
func TestScheduledJobKeepsTheSessionAwake(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t, agenttest.Options{Config: func(c *agent.Config) { c.IdleTimeout = 3 * time.Second }})
	h.API().Script(
		toolUse("toolu_cron", "CronCreate", map[string]any{"cron": "*/1 * * * *", "prompt": "cron tick please", "recurring": true}),
		fakeapi.Text("scheduled"),
		fakeapi.Text("tick done").When(fakeapi.Match{LastUserContains: "cron tick please"}),
	)
	sid := h.NewSession(h.Sandbox.WorkDir)
	if r, err := h.Prompt(sid, "check every minute"); err != nil || r.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", r, err)
	}
	before := clitest.LivePIDs(t)
	fired := func() bool {
		for _, r := range h.API().MainRequests() {
			if strings.Contains(r.LastUserText, "cron tick please") {
				return true
			}
		}
		return false
	}
	h.WaitFor("the scheduled job to fire", 150*time.Second, fired)
	if after := clitest.LivePIDs(t); len(before) != 1 || len(after) != 1 || before[0] != after[0] {
		t.Errorf("the CLI changed while the job was scheduled: %v, then %v", before, after)
	}
}

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
