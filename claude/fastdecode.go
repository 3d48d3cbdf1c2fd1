package claude

import (
	"bytes"
	"unicode/utf8"
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
	var d jsonfast.Dec
	d.Reset(line)
	d.Object()
	// One allocation for the frame and its delta.
	both := new(struct {
		ev StreamEvent
		dl Delta
	})
	ev := &both.ev
	var mask uint64
	for key, esc, more := d.FirstKey(); more; key, esc, more = d.NextKey() {
		if esc {
			return nil, false
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
				decodeAPIEvent(&d, &ev.Event, &both.dl)
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
				return nil, false
			}
			d.Skip()
			continue
		}
		if mask&(1<<bit) != 0 {
			return nil, false
		}
		mask |= 1 << bit
	}
	if !d.End() {
		return nil, false
	}
	return ev, true
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
	if esc || !utf8.Valid(raw) {
		return jsonfast.String(raw, esc)
	}
	return unsafe.String(unsafe.SliceData(raw), len(raw))
}
