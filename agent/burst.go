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

// handleFrame handles a frame from the CLI, then the frames its reader
// queued meanwhile: the session is behind the CLI (the client reads
// slower than the model streams, or the machine is busy). Those are
// handled as one burst, whose notifications go out in one write
// (acp.Conn.Hold), and when many queued up (mergeBacklog), consecutive
// text or thinking deltas of one message become one chunk (canMerge).
// Nothing waits for frames to come, so when the session keeps up every
// chunk goes out as it came. The frame itself goes out on its own, at
// once, unless it continues the text the session handled last and frames
// wait behind it: then it joins their burst and its one write. A
// message's first chunk, or any other first frame, never waits for the
// frames behind it; a continuing delta waits only for the translation of
// what has already arrived (a burst is bounded, see maxBurst), which
// costs less than the write and the client's wake-up it spares.
func (s *session) handleFrame(m claude.Message) {
	p := s.cli.proc
	if p == nil {
		s.handleDelta(m)
		return
	}
	s.handleFrameFrom(m, s.cli.taken, func() bool { return !s.closed && s.cli.proc == p })
}

// frameQueue is what handleFrame takes queued frames from: the CLI's
// reader (claude.Process).
type frameQueue interface {
	Backlog() int
	TryMessage() (claude.Message, bool)
	// Pacing says the reader paces a streamed block (claude's
	// DeltaPace): what queued up waited on purpose, so its deltas are
	// merged however few they are.
	Pacing() bool
}

// merges reports whether a burst from q merges deltas: many queued up
// (mergeBacklog), or the reader paces them.
func merges(q frameQueue) bool { return q.Backlog() >= mergeBacklog || q.Pacing() }

// handleFrameFrom is handleFrame for the frames q holds, while same says
// the session still takes them from it.
func (s *session) handleFrameFrom(m claude.Message, q frameQueue, same func() bool) {
	if k := deltaKeyOf(m); k.ok && k == s.lastDelta {
		if q.Backlog() > 0 {
			s.burst(prepend(m, q.TryMessage), merges(q), same)
			return
		}
	}
	s.handleDelta(m)
	if same() { // m may have ended the session or replaced its CLI
		s.burst(q.TryMessage, merges(q), same)
	}
}

// prepend gives m, then what next gives.
func prepend(m claude.Message, next func() (claude.Message, bool)) func() (claude.Message, bool) {
	first := true
	return func() (claude.Message, bool) {
		if first {
			first = false
			return m, true
		}
		return next()
	}
}

// handleDelta is handle for a frame from the CLI; it remembers whether
// the frame was a text delta, which the next one may continue, and gives
// a delta's storage back to the CLI's reader (claude.Recycle): the
// session relays a delta and keeps nothing of it but the key, which
// keepKey copies.
func (s *session) handleDelta(m claude.Message) {
	s.handle(m)
	k := deltaKeyOf(m)
	s.lastDelta = s.lastDelta.keepKey(k)
	if k.ok {
		claude.Recycle(m)
	}
}

// deltaKey names the block a text or thinking delta belongs to (ok is
// false for any other frame).
type deltaKey struct {
	ok                   bool
	kind, msgID, session string
	index                int
}

// keepKey is k made safe to keep past its frame: its strings share the
// frame's bytes, which claude.Recycle lets the next frame overwrite. The
// strings of last are kept where k repeats them (a turn's deltas share
// one message and session), so only a new message costs a copy.
func (last deltaKey) keepKey(k deltaKey) deltaKey {
	if !k.ok {
		return deltaKey{}
	}
	k.kind = keepString(k.kind, last.kind)
	k.msgID = keepString(k.msgID, last.msgID)
	k.session = keepString(k.session, last.session)
	return k
}

// keepString is s, as the kept string old if they are equal, else as a
// copy.
func keepString(s, old string) string {
	if s == old {
		return old
	}
	return strings.Clone(s)
}

func deltaKeyOf(m claude.Message) deltaKey {
	se, ok := m.Body.(*claude.StreamEvent)
	if !ok || se.ParentToolUseID != "" || se.Event.Type != "content_block_delta" || se.Event.Delta == nil {
		return deltaKey{}
	}
	d := se.Event.Delta
	if d.Type != "text_delta" && d.Type != "thinking_delta" {
		return deltaKey{}
	}
	return deltaKey{ok: true, kind: d.Type, msgID: se.APIMessageID, session: se.SessionID, index: se.Event.Index}
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
		// The frames merged into m, m first, in the session's scratch
		// list, which is nil while in use: nothing handled here should
		// start another burst, but one that did would take a list of its
		// own instead of this one's frames, which are still to recycle.
		merged := s.merged[:0]
		s.merged = nil
		for merge && more && canMerge(m, after) {
			if len(merged) == 0 {
				merged = append(merged, m)
			}
			merged = append(merged, after)
			after, more = next()
		}
		if len(merged) > 0 {
			m = mergedDelta(merged)
		}
		s.handleDelta(m)
		for i := range merged {
			claude.Recycle(merged[i]) // their text went out in m's
			merged[i] = claude.Message{}
		}
		s.merged = merged
		if !more {
			return
		}
		if !same() || n >= maxBurst {
			// after was taken: handle it as the run loop would have.
			if same() {
				s.handleDelta(after)
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
	if k := deltaKeyOf(m); !k.ok || deltaKeyOf(next) != k {
		return false
	}
	da, db := m.Body.(*claude.StreamEvent).Event.Delta, next.Body.(*claude.StreamEvent).Event.Delta
	return da.Citation == nil && db.Citation == nil && da.Signature == "" && db.Signature == ""
}

func deltaText(m claude.Message) string {
	d := m.Body.(*claude.StreamEvent).Event.Delta
	if d.Type == "thinking_delta" {
		return d.Thinking
	}
	return d.Text
}

// mergedDelta is the first of frames, two or more consecutive deltas of
// one block (canMerge), with the text of them all (frames are not changed).
func mergedDelta(frames []claude.Message) claude.Message {
	m := frames[0]
	n := 0
	for _, f := range frames {
		n += len(deltaText(f))
	}
	var b strings.Builder
	b.Grow(n)
	for _, f := range frames {
		b.WriteString(deltaText(f))
	}
	ev := *m.Body.(*claude.StreamEvent)
	d := *ev.Event.Delta
	if d.Type == "thinking_delta" {
		d.Thinking = b.String()
	} else {
		d.Text = b.String()
	}
	ev.Event.Delta = &d
	// A new Message: no longer one frame of the CLI's (no Raw), nor
	// storage of the reader's to give back (its frames are given back
	// by burst).
	return claude.Message{Type: m.Type, Subtype: m.Subtype, Body: &ev}
}
