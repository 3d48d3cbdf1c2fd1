package translate

import (
	"strings"

	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/scrub"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// Streamed text and the secrets the agent knows (issue 35). Every frame the
// agent writes loses the known secret values (scrub.Known.RedactJSON on the
// connection), but a secret that Claude streams across two text deltas is
// in neither frame whole. So the end of a delta that could begin a known
// secret is held back (scrub.Stream) until the next delta shows whether
// the secret follows; the secret then goes out whole, redacted. Only such
// an end waits, for one delta at most: a delta that ends in ordinary text,
// the first one included, goes out as it came, and with no known secrets
// nothing is ever held.
//
// What is held goes out before anything else is shown: translate flushes
// it for every frame that is not a delta of the main stream (the block's
// content_block_stop, the assistant frame, tool calls), and the session
// flushes it before a result and when the CLI exits. A turn that ends
// otherwise (cancelled) drops it with the rest of the turn's output
// state.

// heldText is the streamed text held back, with what it is (text or
// thinking, of which message) so that it goes out as such.
type heldText struct {
	stream    scrub.Stream
	thought   bool
	messageID string
}

// streamChunk is chunk for a streamed delta: what may be a secret's start
// waits for the next delta.
func (tr *Translator) streamChunk(thought bool, text, messageID string) {
	h := &tr.out.heldText
	if h.stream.Holding() && (h.thought != thought || h.messageID != messageID) {
		tr.FlushHeld()
	}
	out := h.stream.Next(text)
	if h.stream.Holding() && (h.thought != thought || h.messageID != messageID) {
		h.thought, h.messageID = thought, strings.Clone(messageID) // the frame's bytes are recycled
	}
	tr.Chunk(thought, out, messageID)
}

// FlushHeld sends the streamed text held back, if any.
func (tr *Translator) FlushHeld() {
	h := &tr.out.heldText
	if !h.stream.Holding() {
		return
	}
	tr.Chunk(h.thought, h.stream.Flush(), h.messageID)
}

// continuesStream reports whether m is a text or thinking delta of the
// main stream: the only frames that do not flush held text.
func continuesStream(m claude.Message) bool {
	e, ok := m.Body.(*claude.StreamEvent)
	return ok && e.ParentToolUseID == "" && e.Event.Type == "content_block_delta"
}
