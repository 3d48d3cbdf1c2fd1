package agent

import (
	"fmt"
	"runtime/debug"
	"slices"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// A panic on a session's goroutine (a bug of ours in handling a frame, a
// poll or a request) ends that session, not the agent: without this the
// whole process, every other session and the editor's connection with it,
// would go down. The session's open prompts are answered with an internal
// error that says what to do, its CLI is stopped, and what was queued for
// the goroutine is dropped as if the session had been closed.

// crashedMessage is what the prompts of a session stopped by a panic get.
const crashedMessage = "internal error in the agent: this session was stopped (the agent's log has the details); load the session again to continue"

// guard runs fn, one step of the session goroutine. It reports false when
// fn panicked; the session is then stopped (crashed).
func (s *session) guard(fn func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("internal error: the session is stopped", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			s.crashed()
			ok = false
		}
	}()
	fn()
	return true
}

// crashed stops the session after a panic. Its state may be half updated,
// so each step is best effort and guarded on its own: the prompts are
// answered first, then the CLI stopped, then the tool cards settled.
func (s *session) crashed() {
	s.closed = true // run ends after this step; later mail finds the session gone
	bestEffort := func(step func()) {
		defer func() { _ = recover() }()
		step()
	}
	err := &acp.Error{Code: acp.CodeInternalError, Message: crashedMessage}
	bestEffort(func() {
		for _, t := range slices.Clone(s.q.turns) { // settle edits s.q.turns
			bestEffort(func() { s.q.cancelOpenRequests(&t.Turn) }) // the editor's open permission prompts, as shutdown does
			bestEffort(func() { s.q.settle(t, nil, err) })
		}
	})
	var p, retired *claude.Process
	bestEffort(func() { p, retired = s.detachCLIs() }) // session.go
	if p != nil || retired != nil {
		s.starts.Add(1) // close and the agent's shutdown wait for it
		go func() {
			defer s.starts.Done()
			if p != nil {
				_ = p.Abort()
			}
			if retired != nil {
				_ = retired.Close()
			}
		}()
	}
	bestEffort(func() { s.tr.SettleOpen(nil, "the session was stopped by an internal error") })
}
