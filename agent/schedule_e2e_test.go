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
