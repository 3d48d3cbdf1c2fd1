package agent

import (
	"context"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// The CLI's permission requests (can_use_tool) are answered on goroutines
// of their own (claude.Process), so one can reach the session before
// frames the CLI wrote ahead of it: the tool call it is about, the start
// of its turn. Handled first, the request belonged to no turn: a v2 client
// got no requires_action for it and no running after the answer. It takes
// a model that answers at once, or a session goroutine held up (a client
// that reads slowly): TestV2PermissionBash met it about once in ten runs
// with the in-process fake CLI. So the session counts the frames it takes
// from its CLI, and before it handles a request it takes those the CLI
// wrote before asking (claude.CanUseToolRequest.FramesBefore), after
// waiting for the CLI to be its own if the request came while it started.

// takenFrames is the session's reader of its CLI's frames: what it takes
// from the Messages channel (run) and with TryMessage (burst), counted.
type takenFrames struct {
	p *claude.Process
	n uint64
}

func (r *takenFrames) Backlog() int { return r.p.Backlog() }
func (r *takenFrames) Pacing() bool { return r.p.Pacing() }

func (r *takenFrames) TryMessage() (claude.Message, bool) {
	m, ok := r.p.TryMessage()
	if ok {
		r.n++
	}
	return m, ok
}

// catchUpLimit bounds the wait for the frames a request follows. They are
// in the CLI's reader already, so this only guards the session against a
// bug there: it must never hang.
const catchUpLimit = 2 * time.Second

// catchUp takes and handles the frames req's CLI wrote before it asked,
// those the session has not taken yet. On the session goroutine; not
// while a load replays (the history goes first, and canUseTool waits for
// it).
func (s *session) catchUp(req claude.CanUseToolRequest) {
	r := s.cli.taken
	if r == nil || req.From == nil || r.p != req.From || s.cli.proc != req.From || r.n >= req.FramesBefore || s.q.replays > 0 {
		return
	}
	var limit <-chan time.Time // made when a frame is not there at once
	for s.cli.taken == r && s.cli.proc == r.p && r.n < req.FramesBefore && !s.closed {
		var m claude.Message
		var ok bool
		select {
		case m, ok = <-s.cli.msgs:
		default:
			if limit == nil {
				t := time.NewTimer(catchUpLimit)
				defer t.Stop()
				limit = t.C
			}
			select {
			case m, ok = <-s.cli.msgs:
			case <-limit:
				s.log.Warn("frames the CLI wrote before a permission request did not come", "taken", r.n, "before", req.FramesBefore)
				return
			}
		}
		if !ok {
			return // the CLI ended: run handles that
		}
		r.n++
		s.handleFrame(m)
	}
}

// waitAdopted waits, when req comes from a CLI still starting (the first
// prompts go to it right behind its handshake), until the session has
// taken that CLI on, so that catchUp can take what it wrote first. It
// reports false if the session ended meanwhile.
func (s *session) waitAdopted(ctx context.Context, req claude.CanUseToolRequest) bool {
	if req.From == nil {
		return true
	}
	started := make(chan error, 1) // tellStarted sends without waiting
	wait := false
	if !s.do(func() {
		if s.cli.early == req.From && s.cli.proc != req.From {
			wait = true
			s.cli.startWaiters = append(s.cli.startWaiters, started)
		}
	}) {
		return false
	}
	if !wait {
		return true
	}
	select {
	case <-started:
	case <-ctx.Done(): // withdrawn, or the CLI ended: canUseTool finds out
	case <-s.quit:
		return false
	}
	return true
}
