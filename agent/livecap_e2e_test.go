package agent_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// logRecorder keeps the agent's log messages at warn level and above.
type logRecorder struct {
	mu   sync.Mutex
	msgs []string
}

func (r *logRecorder) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (r *logRecorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	r.msgs = append(r.msgs, rec.Message)
	r.mu.Unlock()
	return nil
}
func (r *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *logRecorder) WithGroup(string) slog.Handler      { return r }

func (r *logRecorder) count(sub string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, m := range r.msgs {
		if strings.Contains(m, sub) {
			n++
		}
	}
	return n
}

// TestLiveCapHoldsHoweverStarted: with a cap of two live CLIs, five
// sessions created and prompted together (an editor restoring its
// threads), real CLI. While all five turns run the cap is exceeded (every
// live session is busy; the log says so once); once they are idle, at
// most two CLIs are left within seconds, and every session still answers
// with its history.
func TestLiveCapHoldsHoweverStarted(t *testing.T) {
	rec := &logRecorder{}
	h := agenttest.Start(t, agenttest.Options{Config: func(c *agent.Config) {
		c.MaxLiveSessions = 2
		c.Logger = slog.New(rec)
	}})
	h.Initialize(acp.ClientCapabilities{})
	const n = 5
	sids := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { sids[i] = h.NewSession(h.Sandbox.WorkDir) })
	}
	wg.Wait()
	for i := range n {
		h.API().Append(fakeapi.Text(fmt.Sprintf("noted %d", i)).When(fakeapi.Match{LastUserContains: fmt.Sprintf("pear-%d", i)}))
	}
	errs := make([]error, n)
	for i, sid := range sids {
		wg.Go(func() {
			r, err := h.Prompt(sid, fmt.Sprintf("remember pear-%d", i))
			if err == nil && r.StopReason != acp.StopReasonEndTurn {
				err = fmt.Errorf("stop reason %s", r.StopReason)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("prompt %d: %v", i, err)
		}
	}
	h.WaitFor("at most two live CLIs once idle", 20*time.Second, func() bool { return len(clitest.LivePIDs(t)) <= 2 })
	if got := rec.count("live session cap exceeded"); got > 1 {
		t.Errorf("the cap warning was logged %d times for one excess", got)
	}
	for i, sid := range sids {
		h.API().Script(fakeapi.Text(fmt.Sprintf("you said pear-%d", i)))
		if r, err := h.Prompt(sid, "what did I ask you to remember?"); err != nil || r.StopReason != acp.StopReasonEndTurn {
			t.Fatalf("follow-up %d: %+v %v", i, r, err)
		}
		reqs := h.API().MainRequests()
		if !strings.Contains(string(reqs[len(reqs)-1].Body), fmt.Sprintf("pear-%d", i)) {
			t.Errorf("session %d resumed without its history", i)
		}
	}
	h.WaitFor("at most two live CLIs once idle", 20*time.Second, func() bool { return len(clitest.LivePIDs(t)) <= 2 })
}

// TestCapHibernatesASessionBeforeItsFirstPrompt: with a cap of one, a
// second session's CLI displaces the first session's before that one was
// ever prompted. The first session has no transcript to resume: its prompt
// starts it afresh with its own id and works (it used to fail with "the
// session's transcript was deleted"). A hibernation that made room logs no
// warning.
func TestCapHibernatesASessionBeforeItsFirstPrompt(t *testing.T) {
	rec := &logRecorder{}
	h := agenttest.Start(t, agenttest.Options{Config: func(c *agent.Config) {
		c.MaxLiveSessions = 1
		c.Logger = slog.New(rec)
	}})
	first := h.NewSession(h.Sandbox.WorkDir)
	// Up, not only running: its command list comes once it answered.
	h.WaitFor("the first session's CLI", 60*time.Second, func() bool {
		for _, u := range h.Updates(first) {
			if u.AvailableCommandsUpdate != nil {
				return true
			}
		}
		return false
	})
	second := h.NewSession(h.Sandbox.WorkDir)
	h.API().Script(fakeapi.Text("second answer"))
	if r, err := h.Prompt(second, "hello from the second"); err != nil || r.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("second: %+v %v", r, err)
	}
	h.WaitFor("one live CLI", 20*time.Second, func() bool { return len(clitest.LivePIDs(t)) == 1 })
	h.API().Script(fakeapi.Text("first answer"))
	if r, err := h.Prompt(first, "hello from the first"); err != nil || r.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("first, hibernated before its first prompt: %+v %v", r, err)
	}
	if !strings.Contains(h.AgentText(first), "first answer") {
		t.Errorf("first session's text: %q", h.AgentText(first))
	}
	h.WaitFor("one live CLI", 20*time.Second, func() bool { return len(clitest.LivePIDs(t)) == 1 })
	if got := rec.count("live session cap exceeded"); got != 0 {
		t.Errorf("the cap warning was logged %d times, though every hibernation made room", got)
	}
}
