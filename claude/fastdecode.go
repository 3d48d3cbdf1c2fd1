package claude

import (
	"bytes"
	"unsafe"

	"github.com/claude-agent-acp/claude-agent-acp/internal/jsonfast"
)

// streamEventPrefix starts every stream_event frame the CLI writes.
var streamEventPrefix = []byte(`{"type":"stream_event",`)

// decodeStreamEvent is the fast path of DecodeMessage for the frames a
// streamed answer is made of: content_block_delta (one per text, thinking
// or tool-input delta) and content_block_stop. It decodes the frame in one
// validating pass without reflection. Any other shape (a message_start with
// its message, a content_block_start, usage, a member of an unexpected JSON
// type, a duplicate member, a member name encoding/json would match without
// regard to case) gives up, and DecodeMessage decodes the line with
// encoding/json, so both always agree (TestStreamEventFastPath,
// FuzzStreamEventFastPath).
func decodeStreamEvent(line []byte) (*StreamEvent, bool) {
	if !bytes.HasPrefix(line, streamEventPrefix) {
		return nil, false
	}
	both := new(decodedStreamEvent) // one allocation for the frame and its delta
	if !decodeStreamEventInto(line, &both.ev, &both.dl) {
		return nil, false
	}
	return &both.ev, true
}

// decodedStreamEvent is the storage of a decoded stream_event frame.
type decodedStreamEvent struct {
	ev StreamEvent
	dl Delta
}

// A frame768 or frame1024 holds a stream_event line the reader read
// together with its decoded frame, whose strings share the line's bytes:
// one allocation per streamed delta instead of one for the line and one
// for the frame (issue 16: allocations were a tenth of the adapter's CPU
// per relayed chunk). Their sizes are size classes of the Go runtime's
// allocator, so no space is rounded away; a delta's line is about 300
// bytes and takes a frame768, which is no more than the line and the
// frame took apart. A line too long for either is copied on its own.
type (
	frame768 struct {
		decodedStreamEvent
		line [768 - unsafe.Sizeof(decodedStreamEvent{})]byte
	}
	frame1024 struct {
		decodedStreamEvent
		line [1024 - unsafe.Sizeof(decodedStreamEvent{})]byte
	}
)

// decodeStreamFrame is decodeStreamEvent for a line the caller does not
// own (the reader's buffer): it copies the line (giving back the copy, to
// be the frame's Raw) and decodes the copy. ok is false if the line is not
// a stream_event the fast path takes; line may then still be a copy,
// which the caller may keep. storage is the frame768 or frame1024 that
// holds the frame and its line when ok, for Recycle; it may be one that
// Recycle gave back.
func decodeStreamFrame(buf []byte) (ev *StreamEvent, line []byte, storage any, ok bool) {
	if !bytes.HasPrefix(buf, streamEventPrefix) {
		return nil, nil, nil, false
	}
	var f *decodedStreamEvent
	switch n := len(buf); {
	case n <= len(frame768{}.line):
		x := getFrame768()
		f, line, storage = &x.decodedStreamEvent, x.line[:n:n], x
	case n <= len(frame1024{}.line):
		x := getFrame1024()
		f, line, storage = &x.decodedStreamEvent, x.line[:n:n], x
	default:
		line = bytes.Clone(buf)
		ev, ok = decodeStreamEvent(line)
		return ev, line, nil, ok
	}
	copy(line, buf)
	if !decodeStreamEventInto(line, &f.ev, &f.dl) {
		// The caller keeps line as a frame of another kind: the storage
		// is its, never given back.
		return nil, line, nil, false
	}
	return &f.ev, line, storage, true
}

// decodeStreamEventInto is decodeStreamEvent into ev, with dl as the
// storage of its delta, if it has one. On false ev is garbage.
func decodeStreamEventInto(line []byte, ev *StreamEvent, dl *Delta) bool {
	var d jsonfast.Dec
	d.Reset(line)
	d.Object()
	var mask uint64
	for key, esc, more := d.FirstKey(); more; key, esc, more = d.NextKey() {
		if esc {
			return false
		}
		var bit uint
		switch string(key) {
		case "type":
			bit = 0
			ev.Type = frameType(&d)
		case "subtype":
			bit = 1
			ev.Subtype = str(&d)
		case "uuid":
			bit = 2
			ev.UUID = str(&d)
		case "session_id":
			bit = 3
			ev.SessionID = str(&d)
		case "event":
			bit = 4
			if d.Object() {
				decodeAPIEvent(&d, &ev.Event, dl)
			}
		case "parent_tool_use_id":
			bit = 5
			ev.ParentToolUseID = str(&d)
		case "api_message_id":
			bit = 6
			ev.APIMessageID = str(&d)
		case "ttft_ms":
			bit = 7
			if n, ok := d.Int(); ok {
				ev.TTFTMS = &n
			}
		case "thinking_display":
			bit = 8
			ev.ThinkingDisplay = str(&d)
		case "user_message_uuid":
			bit = 9
			ev.UserMessageUUID = str(&d)
		case "user_message_uuids":
			bit = 10
			ev.UserMessageUUIDs = decodeStrings(&d)
		default:
			if jsonfast.FoldKey(key, streamEventKeys...) {
				return false
			}
			d.Skip()
			continue
		}
		if mask&(1<<bit) != 0 {
			return false
		}
		mask |= 1 << bit
	}
	return d.End()
}

var streamEventKeys = []string{"type", "subtype", "uuid", "session_id", "event", "parent_tool_use_id",
	"api_message_id", "ttft_ms", "thinking_display", "user_message_uuid", "user_message_uuids"}

// frameType returns the common type names without allocating.
func frameType(d *jsonfast.Dec) string {
	raw, esc, ok := d.StrRaw()
	if !ok {
		return ""
	}
	if !esc {
		switch string(raw) {
		case "stream_event":
			return "stream_event"
		case "content_block_delta":
			return "content_block_delta"
		case "content_block_stop":
			return "content_block_stop"
		case "text_delta":
			return "text_delta"
		case "thinking_delta":
			return "thinking_delta"
		case "input_json_delta":
			return "input_json_delta"
		case "signature_delta":
			return "signature_delta"
		}
	}
	return jsonfast.String(raw, esc)
}

// decodeStrings decodes an array of strings; null is nil. Anything else
// sets Odd.
func decodeStrings(d *jsonfast.Dec) []string {
	if !d.Array() {
		return nil
	}
	out := []string{}
	for more := d.FirstElem(); more; more = d.NextElem() {
		if d.Kind() != '"' {
			d.SetOdd() // null items and other kinds: encoding/json's business
			d.Skip()
			continue
		}
		out = append(out, str(d))
	}
	return out
}

var apiEventKeys = []string{"type", "index", "message", "content_block", "delta", "usage", "abandoned_blocks"}

// decodeAPIEvent decodes the members of an entered event object. Members
// the fast path does not cover set Odd.
func decodeAPIEvent(d *jsonfast.Dec, e *APIEvent, dl *Delta) {
	var mask uint64
	for key, esc, more := d.FirstKey(); more; key, esc, more = d.NextKey() {
		if esc {
			d.SetOdd()
			d.Skip()
			continue
		}
		var bit uint
		switch string(key) {
		case "type":
			bit = 0
			e.Type = frameType(d)
		case "index":
			bit = 1
			n, _ := d.Int()
			e.Index = int(n)
		case "delta":
			bit = 2
			if d.Object() {
				e.Delta = dl
				decodeDelta(d, dl)
			}
		case "abandoned_blocks":
			bit = 3
			e.AbandonedBlocks = append([]byte(nil), d.Raw()...)
		case "message", "content_block", "usage":
			if !d.Null() {
				d.SetOdd() // not a delta; encoding/json decodes it
				d.Skip()
			}
			continue
		default:
			if jsonfast.FoldKey(key, apiEventKeys...) {
				d.SetOdd()
			}
			d.Skip()
			continue
		}
		if mask&(1<<bit) != 0 {
			d.SetOdd()
		}
		mask |= 1 << bit
	}
}

var deltaKeys = []string{"type", "text", "thinking", "signature", "partial_json", "citation",
	"stop_reason", "stop_sequence", "stop_details"}

func decodeDelta(d *jsonfast.Dec, dl *Delta) {
	var mask uint64
	for key, esc, more := d.FirstKey(); more; key, esc, more = d.NextKey() {
		if esc {
			d.SetOdd()
			d.Skip()
			continue
		}
		var bit uint
		switch string(key) {
		case "type":
			bit = 0
			dl.Type = frameType(d)
		case "text":
			bit = 1
			dl.Text = str(d)
		case "thinking":
			bit = 2
			dl.Thinking = str(d)
		case "signature":
			bit = 3
			dl.Signature = str(d)
		case "partial_json":
			bit = 4
			dl.PartialJSON = str(d)
		case "citation":
			bit = 5
			dl.Citation = append([]byte(nil), d.Raw()...)
		case "stop_reason":
			bit = 6
			dl.StopReason = str(d)
		case "stop_sequence":
			bit = 7
			dl.StopSequence = str(d)
		case "stop_details":
			bit = 8
			dl.StopDetails = append([]byte(nil), d.Raw()...)
		default:
			if jsonfast.FoldKey(key, deltaKeys...) {
				d.SetOdd()
			}
			d.Skip()
			continue
		}
		if mask&(1<<bit) != 0 {
			d.SetOdd()
		}
		mask |= 1 << bit
	}
}

// str decodes a string member. A string without escapes, the rule, is not
// copied: it shares the line's memory, which DecodeMessage's caller may not
// modify (the Message keeps it as Raw anyway). Frames on this path are
// small, so a string kept longer than its Message keeps little alive.
func str(d *jsonfast.Dec) string {
	raw, esc, ok := d.StrRaw()
	if !ok || len(raw) == 0 {
		return ""
	}
	if esc || !d.ValidUTF8(raw) {
		return jsonfast.String(raw, esc)
	}
	return unsafe.String(unsafe.SliceData(raw), len(raw))
}
