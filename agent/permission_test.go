package agent_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
)

// Permission requests the user answers otherwise than allow or reject
// (cancelled, dismissed, an editor error), on the in-memory fake CLI: what
// the agent does with the answer does not depend on the CLI. What the real
// CLI asks and suggests is in permission_e2e_test.go.

// toolWorld is a model that runs "touch x.txt" in the first turn, and
// answers follow-ups and later turns with text; it remembers the requests.
type toolWorld struct {
	clifake.World
	mu   sync.Mutex
	reqs []clifake.Request
}

func newToolWorld() *toolWorld {
	w := &toolWorld{}
	w.Model = func(r clifake.Request) clifake.Reply {
		w.mu.Lock()
		w.reqs = append(w.reqs, r)
		w.mu.Unlock()
		switch {
		case r.FollowUp && r.ToolFailed:
			return clifake.Reply{Chunks: []string{"I could not write it."}}
		case r.FollowUp:
			return clifake.Reply{Chunks: []string{"wrote it"}}
		case strings.HasPrefix(r.Prompt, "write"):
			return clifake.Reply{Tool: "touch x.txt", ToolID: "toolu_w"}
		}
		return clifake.Reply{Chunks: []string{"still here"}}
	}
	return w
}

func (w *toolWorld) ran() bool {
	for _, e := range w.Events() {
		if e.Kind == "tool" {
			return true
		}
	}
	return false
}

func (w *toolWorld) last() clifake.Request {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.reqs[len(w.reqs)-1]
}

// TestPermissionCancelPending: cancelling the prompt while a permission
// request is open withdraws the request ($/cancel_request), answers the
// prompt "cancelled", runs nothing, and the session goes on.
func TestPermissionCancelPending(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		w := newToolWorld()
		s := newSim(t, &w.World, nil)
		s.initialize()
		withdrawn := s.holdPermissions()
		sid := s.newSession()
		done := s.promptAsync(sid, "write x.txt")
		s.until("the permission request", func() bool { return len(s.permissions()) == 1 })
		s.cancelSession(sid)
		if a := <-done; a.err != nil || a.r.StopReason != acp.StopReasonCancelled {
			t.Fatalf("prompt answered %+v %v, want cancelled", a.r, a.err)
		}
		<-withdrawn
		if !s.wired(true, `"method":"$/cancel_request"`) {
			t.Errorf("no $/cancel_request on the wire")
		}
		s.wantEndTurn(sid, "hello?")
		synctest.Wait()
		if w.ran() {
			t.Fatal("the tool ran after cancel")
		}
		s.eof()
	})
}

// TestPermissionClientCancels: a client that answers a permission request
// "cancelled" (the user dismissed it) stops the turn: the call does not
// run and the prompt ends as cancelled.
func TestPermissionClientCancels(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		w := newToolWorld()
		s := newSim(t, &w.World, nil)
		s.permission = func(ctx context.Context, req *simPermission) (*simOutcome, error) {
			var out simOutcome
			out.Outcome.Outcome = "cancelled"
			return &out, nil
		}
		s.initialize()
		sid := s.newSession()
		if r, err := s.prompt(t.Context(), sid, "write x.txt"); err != nil || r.StopReason != acp.StopReasonCancelled {
			t.Fatalf("prompt: %+v %v", r, err)
		}
		s.wantEndTurn(sid, "again")
		synctest.Wait()
		if w.ran() {
			t.Fatal("the tool ran")
		}
		s.eof()
	})
}

// TestPermissionErrorAnswerDenies: a client that answers a permission
// request with a JSON-RPC error (a broken editor plugin) denies that call
// only: the tool does not run, Claude is told, and the turn goes on to
// end_turn; the user cancelled nothing (docs/tools.md, decision table).
func TestPermissionErrorAnswerDenies(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		w := newToolWorld()
		s := newSim(t, &w.World, nil)
		s.permission = func(ctx context.Context, req *simPermission) (*simOutcome, error) {
			return nil, acp.NewInternalError("the permission dialog crashed")
		}
		s.initialize()
		sid := s.newSession()
		if r, err := s.prompt(t.Context(), sid, "write x.txt"); err != nil || r.StopReason != acp.StopReasonEndTurn {
			t.Fatalf("prompt: %+v %v, want end_turn", r, err)
		}
		if w.ran() {
			t.Fatal("the tool ran")
		}
		if r := w.last(); !r.FollowUp || !r.ToolFailed {
			t.Errorf("Claude was told %+v", r)
		}
		if got := s.agentText(sid); !strings.Contains(got, "I could not write it.") {
			t.Errorf("the turn did not go on: %q", got)
		}
		s.eof()
	})
}
