package agent_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent"
	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
)

// Hibernation and the live-session cap, with fake CLIs in memory
// (internal/test/clifake) under testing/synctest: idle timeouts pass in fake
// time. hibernate_e2e_test.go has the rest: on the real CLI, always-allow
// rules across a resume and no hibernation with a background command; on
// the fake CLI in real time, the idle timeout's resume (history, mode,
// model) and MCP servers across it.

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

// lastRequests remembers, per session, the model request made last.
type lastRequests struct {
	mu   sync.Mutex
	last map[string]clifake.Request
	text func(clifake.Request) string
}

func (l *lastRequests) model(r clifake.Request) clifake.Reply {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.last == nil {
		l.last = map[string]clifake.Request{}
	}
	l.last[r.Session] = r
	text := "ok"
	if l.text != nil {
		text = l.text(r)
	}
	return clifake.Reply{Delay: 100 * time.Millisecond, Chunks: []string{text}}
}

func (l *lastRequests) of(sid string) clifake.Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last[sid]
}

// TestHibernationCap: with a cap of two live CLIs, five sessions each get
// a prompt in turn; never more than two CLIs run once things settle (three
// for the moment between a start and the close of the CLI it displaces),
// and every session answers a follow-up resumed with --resume, its model
// request carrying the earlier prompt.
func TestHibernationCap(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		reqs := &lastRequests{}
		s := newSim(t, &clifake.World{Model: reqs.model}, func(c *agent.Config) { c.MaxLiveSessions = 2 })
		s.initialize()
		peak := 0
		watch := func() bool { peak = max(peak, s.live()); return s.live() <= 2 }
		var sids []string
		for i := range 5 {
			sid := s.newSessionIn(t.TempDir())
			sids = append(sids, sid)
			s.wantEndTurn(sid, fmt.Sprintf("remember the word apple-%d", i))
			watch()
			s.until("at most two live CLIs", watch)
		}
		for i, sid := range sids {
			s.wantEndTurn(sid, "what word did I give you?")
			if h := reqs.of(sid).History; !slices.Contains(h, fmt.Sprintf("remember the word apple-%d", i)) {
				t.Errorf("session %d resumed without its history: %q", i, h)
			}
			s.until("at most two live CLIs", watch)
		}
		if peak > 3 {
			t.Errorf("%d CLIs at once with a cap of 2", peak)
		}
		resumed := 0
		for _, c := range s.world.CLIs() {
			if c.Flag("resume") != "" {
				resumed++
			}
		}
		if resumed < 3 {
			t.Errorf("%d CLIs resumed a session; the cap hibernated at least three", resumed)
		}
		s.eof()
	})
}

// TestHibernationNeverWhileBusy: a session with a permission request open
// keeps its CLI however long the idle timeout has passed.
func TestHibernationNeverWhileBusy(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		w := &clifake.World{Model: func(r clifake.Request) clifake.Reply {
			return clifake.Reply{Chunks: []string{"writing"}, Tool: "touch x.txt"}
		}}
		s := newSim(t, w, func(c *agent.Config) { c.IdleTimeout = 200 * time.Millisecond })
		s.initialize()
		withdrawn := s.holdPermissions()
		sid := s.newSession()
		done := s.promptAsync(sid, "write x.txt")
		s.until("the permission request", func() bool { return len(s.permissions()) == 1 })
		s.advance(time.Second) // five idle timeouts
		if s.live() == 0 {
			t.Fatal("a session with a permission request open hibernated")
		}
		s.cancelSession(sid)
		if a := <-done; a.err != nil || a.r.StopReason != acp.StopReasonCancelled {
			t.Fatalf("cancelled prompt: %+v %v", a.r, a.err)
		}
		<-withdrawn
		s.eof()
	})
}

// TestHibernationNeverDuringATurn: a turn waiting on the model keeps its
// session's CLI past the idle timeout.
func TestHibernationNeverDuringATurn(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		w := &clifake.World{Model: func(r clifake.Request) clifake.Reply { return clifake.Reply{Delay: 24 * time.Hour} }}
		s := newSim(t, w, func(c *agent.Config) { c.IdleTimeout = 200 * time.Millisecond })
		s.initialize()
		sid := s.newSession()
		done := s.promptAsync(sid, "think hard")
		s.until("the model request", func() bool { return len(s.requests()) == 1 })
		s.advance(time.Second) // five idle timeouts
		if s.live() == 0 {
			t.Fatal("a session with a turn running hibernated")
		}
		s.cancelSession(sid)
		if a := <-done; a.err != nil {
			t.Fatal(a.err)
		}
		s.eof()
	})
}

// TestHibernationTranscriptDeleted: the transcript of a hibernated session
// is deleted; the next prompt fails with a clear error rather than starting
// a CLI that has forgotten the conversation.
func TestHibernationTranscriptDeleted(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := newSim(t, &clifake.World{}, func(c *agent.Config) { c.IdleTimeout = 300 * time.Millisecond })
		s.initialize()
		sid := s.newSession()
		s.wantEndTurn(sid, "remember cherry")
		s.until("the idle CLI to close", func() bool { return s.live() == 0 })
		path, err := transcript.Find(filepath.Join(s.home, ".claude"), sid)
		if err != nil {
			t.Fatalf("transcript: %v", err)
		}
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		_, err = s.prompt(t.Context(), sid, "which fruit?")
		var ae *acp.Error
		if !errors.As(err, &ae) || !strings.Contains(ae.Message+string(ae.Data), "transcript was deleted") {
			t.Fatalf("want a clear error about the deleted transcript, got %v", err)
		}
		if n := len(s.requests()); n != 1 {
			t.Errorf("%d model requests: a CLI without the history answered", n)
		}
		s.eof()
	})
}

// TestHibernationResumeCrash: the CLI that resumes a hibernated session
// fails to start; the prompt gets the reason, and the next one, once the
// CLI can start again, goes on with the session.
func TestHibernationResumeCrash(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		broken := false
		w := &clifake.World{StartFails: func(int) bool { mu.Lock(); defer mu.Unlock(); return broken }}
		s := newSim(t, w, func(c *agent.Config) { c.IdleTimeout = 200 * time.Millisecond })
		s.initialize()
		sid := s.newSession()
		s.wantEndTurn(sid, "first")
		s.until("the idle CLI to close", func() bool { return s.live() == 0 })
		mu.Lock()
		broken = true
		mu.Unlock()
		if _, err := s.prompt(t.Context(), sid, "second"); err == nil || !strings.Contains(err.Error(), "could not start") || strings.Contains(err.Error(), "transcript") {
			t.Fatalf("want the start failure, got %v", err)
		}
		mu.Lock()
		broken = false
		mu.Unlock()
		s.wantEndTurn(sid, "third")
		if c := s.world.CLIs(); c[len(c)-1].Flag("resume") != sid {
			t.Errorf("the session went on without --resume: %q", c[len(c)-1].Flag("resume"))
		}
		s.eof()
	})
}

// TestHibernationThenClose: closing a hibernated session answers at once
// and leaves no CLI behind.
func TestHibernationThenClose(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := newSim(t, &clifake.World{}, func(c *agent.Config) { c.IdleTimeout = 200 * time.Millisecond })
		s.initialize()
		sid := s.newSession()
		s.wantEndTurn(sid, "hello")
		s.until("the idle CLI to close", func() bool { return s.live() == 0 })
		started := len(s.world.CLIs())
		if err := s.close(sid); err != nil {
			t.Fatalf("close: %v", err)
		}
		if _, err := s.prompt(t.Context(), sid, "still there?"); err == nil {
			t.Fatal("a closed session answered")
		}
		synctest.Wait()
		if n := s.live(); n != 0 || len(s.world.CLIs()) != started {
			t.Fatalf("%d CLIs live, %d started by the close of a hibernated session", n, len(s.world.CLIs())-started)
		}
		s.eof()
	})
}

// TestHibernationCapExceededWhenAllBusy: with the cap reached and every
// live session busy, a new session's prompt is not held: its CLI starts
// anyway (the cap is exceeded for that while, and the log says so).
func TestHibernationCapExceededWhenAllBusy(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var w *clifake.World
		liveAtAnswer := 0
		w = &clifake.World{Model: func(r clifake.Request) clifake.Reply {
			if r.Prompt == "think forever" {
				return clifake.Reply{Delay: 24 * time.Hour}
			}
			liveAtAnswer = len(w.Live())
			return clifake.Reply{Chunks: []string{"answered"}}
		}}
		rec := &logRecorder{}
		s := newSim(t, w, func(c *agent.Config) { c.MaxLiveSessions = 1; c.Logger = slog.New(rec) })
		s.initialize()
		busy := s.newSessionIn(t.TempDir())
		done := s.promptAsync(busy, "think forever")
		s.until("the busy session's model request", func() bool { return len(s.requests()) == 1 })
		other := s.newSessionIn(t.TempDir())
		s.wantEndTurn(other, "quick question")
		if liveAtAnswer != 2 {
			t.Errorf("%d live CLIs while the second session was answered, want 2 (the busy one kept, the cap exceeded)", liveAtAnswer)
		}
		for _, c := range w.CLIs()[:1] {
			if !slices.Contains(w.Live(), c) {
				t.Error("the busy session's CLI was closed")
			}
		}
		s.cancelSession(busy)
		if a := <-done; a.err != nil {
			t.Fatal(a.err)
		}
		s.eof()
	})
}

// TestLiveCapHoldsHoweverStarted: with a cap of two live CLIs, five
// sessions created and prompted together (an editor restoring its
// threads). While all five turns run the cap is exceeded (every live
// session is busy; the log says so once); once they are idle, at most two
// CLIs are left, and every session still answers with its history.
func TestLiveCapHoldsHoweverStarted(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		reqs := &lastRequests{}
		rec := &logRecorder{}
		w := &clifake.World{Model: func(r clifake.Request) clifake.Reply {
			rep := reqs.model(r)
			if strings.HasPrefix(r.Prompt, "remember") {
				rep.Delay = 10 * time.Second // the five turns run together
			}
			return rep
		}, StartDelay: time.Second} // as the real CLI: the five start together
		s := newSim(t, w, func(c *agent.Config) {
			c.MaxLiveSessions = 2
			c.Logger = slog.New(rec)
		})
		s.initialize()
		const n = 5
		sids := make([]string, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { sids[i] = s.newSession() })
		}
		wg.Wait()
		var answers []<-chan simAnswer
		for i, sid := range sids {
			answers = append(answers, s.promptAsync(sid, fmt.Sprintf("remember pear-%d", i)))
		}
		for i, ch := range answers {
			if a := <-ch; a.err != nil || a.r.StopReason != acp.StopReasonEndTurn {
				t.Fatalf("prompt %d: %+v %v", i, a.r, a.err)
			}
		}
		s.until("at most two live CLIs once idle", func() bool { return s.live() <= 2 })
		if got := rec.count("live session cap exceeded"); got > 1 {
			t.Errorf("the cap warning was logged %d times for one excess", got)
		}
		for i, sid := range sids {
			s.wantEndTurn(sid, "what did I ask you to remember?")
			if h := reqs.of(sid).History; !slices.Contains(h, fmt.Sprintf("remember pear-%d", i)) {
				t.Errorf("session %d resumed without its history: %q", i, h)
			}
		}
		s.until("at most two live CLIs once idle", func() bool { return s.live() <= 2 })
		s.eof()
	})
}

// TestCapHibernatesASessionBeforeItsFirstPrompt: with a cap of one, a
// second session's CLI displaces the first session's before that one was
// ever prompted. The first session has no transcript to resume: its prompt
// starts it afresh with its own id and works (it used to fail with "the
// session's transcript was deleted"). A hibernation that made room logs no
// warning.
func TestCapHibernatesASessionBeforeItsFirstPrompt(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		rec := &logRecorder{}
		w := &clifake.World{Model: func(r clifake.Request) clifake.Reply {
			return clifake.Reply{Chunks: []string{"answer to " + r.Prompt}}
		}}
		s := newSim(t, w, func(c *agent.Config) {
			c.MaxLiveSessions = 1
			c.Logger = slog.New(rec)
		})
		s.initialize()
		first := s.newSession()
		s.until("the first session's CLI", func() bool { return s.live() == 1 })
		second := s.newSession()
		s.wantEndTurn(second, "hello from the second")
		s.until("one live CLI", func() bool { return s.live() == 1 })
		s.wantEndTurn(first, "hello from the first")
		if got := s.agentText(first); !strings.Contains(got, "answer to hello from the first") {
			t.Errorf("first session's text: %q", got)
		}
		last := s.world.CLIs()[len(s.world.CLIs())-1]
		if last.Session() != first || last.Flag("resume") != "" {
			t.Errorf("the first session started again as %q resume %q, want afresh with its own id", last.Session(), last.Flag("resume"))
		}
		s.until("one live CLI", func() bool { return s.live() == 1 })
		if got := rec.count("live session cap exceeded"); got != 0 {
			t.Errorf("the cap warning was logged %d times, though every hibernation made room", got)
		}
		s.eof()
	})
}
