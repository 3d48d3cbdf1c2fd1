package claude

//go:generate go run ../internal/tools/shapegen

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
	var f streamEventFields
	for f.Next(&d) {
		switch f.I {
		case streamEventType:
			ev.Type = frameType(&d)
		case streamEventSubtype:
			ev.Subtype = str(&d)
		case streamEventUUID:
			ev.UUID = str(&d)
		case streamEventSessionID:
			ev.SessionID = str(&d)
		case streamEventEvent:
			if d.Object() {
				decodeAPIEvent(&d, &ev.Event, dl)
			}
		case streamEventParentToolUseID:
			ev.ParentToolUseID = str(&d)
		case streamEventAPIMessageID:
			ev.APIMessageID = str(&d)
		case streamEventTTFTMS:
			if n, ok := d.Int(); ok {
				ev.TTFTMS = &n
			}
		case streamEventThinkingDisplay:
			ev.ThinkingDisplay = str(&d)
		case streamEventUserMessageUUID:
			ev.UserMessageUUID = str(&d)
		case streamEventUserMessageUUIDs:
			ev.UserMessageUUIDs = decodeStrings(&d)
		}
	}
	return d.End()
}

//jsonfast:shape streamEvent type subtype uuid session_id event parent_tool_use_id api_message_id ttft_ms thinking_display user_message_uuid user_message_uuids

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

//jsonfast:shape apiEvent type index delta abandoned_blocks message content_block usage

// decodeAPIEvent decodes the members of an entered event object. Members
// the fast path does not cover set Odd.
func decodeAPIEvent(d *jsonfast.Dec, e *APIEvent, dl *Delta) {
	var f apiEventFields
	for f.Next(d) {
		switch f.I {
		case apiEventType:
			e.Type = frameType(d)
		case apiEventIndex:
			n, _ := d.Int()
			e.Index = int(n)
		case apiEventDelta:
			if d.Object() {
				e.Delta = dl
				decodeDelta(d, dl)
			}
		case apiEventAbandonedBlocks:
			e.AbandonedBlocks = append([]byte(nil), d.Raw()...)
		case apiEventMessage, apiEventContentBlock, apiEventUsage:
			if !d.Null() {
				d.SetOdd() // not a delta; encoding/json decodes it
				d.Skip()
			}
		}
	}
}

//jsonfast:shape delta type text thinking signature partial_json citation stop_reason stop_sequence stop_details

func decodeDelta(d *jsonfast.Dec, dl *Delta) {
	var f deltaFields
	for f.Next(d) {
		switch f.I {
		case deltaType:
			dl.Type = frameType(d)
		case deltaText:
			dl.Text = str(d)
		case deltaThinking:
			dl.Thinking = str(d)
		case deltaSignature:
			dl.Signature = str(d)
		case deltaPartialJSON:
			dl.PartialJSON = str(d)
		case deltaCitation:
			dl.Citation = append([]byte(nil), d.Raw()...)
		case deltaStopReason:
			dl.StopReason = str(d)
		case deltaStopSequence:
			dl.StopSequence = str(d)
		case deltaStopDetails:
			dl.StopDetails = append([]byte(nil), d.Raw()...)
		}
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
