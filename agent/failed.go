package agent

import (
	"errors"
	"log/slog"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/failure"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/scrub"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// How a session answers a turn that failed: with a typed record for a
// client that negotiated the session failure extension (agent/failure
// builds it), with a JSON-RPC error for the others. The session settles;
// the failure model only says what the answer is.

// newFailures is session id's failure bookkeeping and advisor, bound to
// the connection's client as it negotiated at initialize. The advisor
// keeps a pointer to *f, which must not move afterwards.
func newFailures(a *connection, id string, log *slog.Logger, f *failure.State) failure.Advisor {
	a.mu.Lock()
	typed, c := a.client.sessionFailure, a.client.raw.Session
	a.mu.Unlock()
	*f = failure.New(id, log, typed, a.send)
	return failure.NewAdvisor(id, c != nil && c.Notices != nil, f, a.notify)
}

// settleStartFailure answers a turn whose CLI could not start.
func (s *session) settleStartFailure(t *turn, err error) {
	if !s.fail.On() {
		s.q.settle(t, nil, startError(err))
		return
	}
	s.q.settle(t, s.fail.StartFailed(t.UUID, err, openElsewhereText), nil) // sessionlock.go
}

// settleLost answers a turn whose CLI went away (it exited, or a write to
// it failed).
func (s *session) settleLost(t *turn, err error) {
	if !s.fail.On() {
		s.q.settle(t, nil, exitError(err))
		return
	}
	s.q.settle(t, s.fail.Lost(t.UUID), nil)
}

// settleNoResult answers a turn whose result never came although the CLI
// finished it (it went idle): for capable clients a service failure the
// user can retry; for legacy clients a JSON-RPC error saying what happened.
func (s *session) settleNoResult(t *turn) {
	if !s.fail.On() {
		s.q.settle(t, nil, acp.NewInternalError(failure.NoResultText+"; its answer may be incomplete. Send your prompt again to continue."))
		return
	}
	s.q.settle(t, s.fail.NoResult(t.UUID), nil)
}

// failureBoundary runs at every result, before the turn settles (t nil:
// work no prompt asked for).
func (s *session) failureBoundary(t *turn, r *claude.ResultMessage) {
	if s.fail.On() {
		s.fail.Boundary(t.id(), r)
		return
	}
	if t != nil || r.StopReason == "refusal" {
		return
	}
	// A client without the extension sees a failed result of work no
	// prompt asked for (Claude woken by a background task that finished,
	// a scheduled wake-up) as Claude's error text in agent text, as
	// session/load replays it from the transcript and as a failed prompt
	// shows it before its JSON-RPC error. There is no request to answer
	// with an error. Login prompts are left out, as everywhere for these
	// clients.
	idleText, idleID := s.tr.IdleError()
	_, text, failed := failure.ClassifyTerminal("", idleText, r)
	if !failed || text == "" || failure.LoginHint().MatchString(text) {
		return
	}
	s.log.Warn("failure with no open turn", "error", r.APIError)
	s.tr.Chunk(false, scrub.Text(text), idleID)
}

// startError and exitError turn CLI failures into errors a person can act
// on, using Claude's own words (the stderr tail) where it gave some, less
// what must not be shown (scrub: keys, URLs, headers, private paths).
func startError(err error) error {
	if errors.Is(err, claude.ErrSessionLocked) {
		return sessionOpenElsewhere() // sessionlock.go
	}
	var se *claude.StartupError
	if errors.As(err, &se) {
		return acp.NewInternalError("Claude Code could not start: " + scrub.Text(se.Error()))
	}
	if errors.Is(err, claude.ErrNotFound) {
		return acp.NewInternalError(err.Error())
	}
	return acp.NewInternalError("Claude Code could not start: " + scrub.Text(err.Error()))
}

func exitError(err error) error {
	msg := "The Claude Code process exited unexpectedly"
	var ee *claude.ExitError
	if errors.As(err, &ee) {
		msg += ": " + scrub.Text(ee.Error())
	} else if err != nil && !errors.Is(err, claude.ErrClosed) {
		msg += ": " + scrub.Text(err.Error())
	}
	return acp.NewInternalError(msg + ". Send your prompt again to continue the session.")
}
