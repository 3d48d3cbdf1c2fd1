package agent

import (
	"strings"

	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// maxBurst bounds the queued CLI frames one burst handles before the
// session looks at its inbox again.
const maxBurst = 64

// mergeBacklog is how many frames must have queued up for a burst to
// merge deltas: the session is then well behind (the client reads slower
// than the model streams). A short answer whose few deltas happen to
// arrive in one read keeps one chunk per delta, as it would have if the
// session had been quicker.
const mergeBacklog = 16

// handleQueued handles, after a frame from the CLI, the frames its reader
// queued meanwhile: the session is behind the CLI (the client reads
// slower than the model streams, or the machine is busy). They are
// handled as one burst, whose notifications go out in one write
// (acp.Conn.Hold), and when many queued up (mergeBacklog), consecutive
// text or thinking deltas of one message become one chunk (canMerge).
// Nothing waits for frames to come: the
// frame before the burst was written on its own, so when the session
// keeps up every chunk goes out as it came, and the first chunk of a
// message is never held back.
func (s *session) handleQueued() {
	p := s.cli.proc
	if p == nil {
		return
	}
	merge := p.Backlog() >= mergeBacklog
	s.burst(p.TryMessage, merge, func() bool { return !s.closed && s.cli.proc == p })
}

// burst handles the frames next gives without waiting (merging deltas if
// merge), while same says the session still takes them from that CLI.
func (s *session) burst(next func() (claude.Message, bool), merge bool, same func() bool) {
	m, ok := next()
	if !ok {
		return
	}
	release := s.a.editor().Hold()
	defer release()
	for n := 1; ; n++ {
		after, more := next()
		var texts []string
		for merge && more && canMerge(m, after) {
			if texts == nil {
				texts = []string{deltaText(m)}
			}
			texts = append(texts, deltaText(after))
			after, more = next()
		}
		if texts != nil {
			m = mergedDelta(m, strings.Join(texts, ""))
		}
		s.handle(m)
		if !more {
			return
		}
		if !same() || n >= maxBurst {
			// after was taken: handle it as the run loop would have.
			if same() {
				s.handle(after)
			}
			return
		}
		m = after
	}
}

// canMerge reports whether next continues m's text or thinking: both are
// top-level content_block_delta frames of the same kind, block and API
// message, with nothing else (citations, signatures) to keep apart.
func canMerge(m, next claude.Message) bool {
	a, ok1 := m.Body.(*claude.StreamEvent)
	b, ok2 := next.Body.(*claude.StreamEvent)
	if !ok1 || !ok2 || a.ParentToolUseID != "" || b.ParentToolUseID != "" ||
		a.Event.Type != "content_block_delta" || b.Event.Type != "content_block_delta" ||
		a.Event.Delta == nil || b.Event.Delta == nil || a.Event.Index != b.Event.Index ||
		a.APIMessageID != b.APIMessageID || a.SessionID != b.SessionID {
		return false
	}
	da, db := a.Event.Delta, b.Event.Delta
	if da.Type != db.Type || da.Citation != nil || db.Citation != nil || da.Signature != "" || db.Signature != "" {
		return false
	}
	return da.Type == "text_delta" || da.Type == "thinking_delta"
}

func deltaText(m claude.Message) string {
	d := m.Body.(*claude.StreamEvent).Event.Delta
	if d.Type == "thinking_delta" {
		return d.Thinking
	}
	return d.Text
}

// mergedDelta is m with its delta's text replaced (m is not changed).
func mergedDelta(m claude.Message, text string) claude.Message {
	ev := *m.Body.(*claude.StreamEvent)
	d := *ev.Event.Delta
	if d.Type == "thinking_delta" {
		d.Thinking = text
	} else {
		d.Text = text
	}
	ev.Event.Delta = &d
	m.Body = &ev
	m.Raw = nil // no longer one frame of the CLI's
	return m
}
