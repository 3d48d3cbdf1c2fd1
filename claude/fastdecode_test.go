package claude

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"
)

// checkStreamEvent fails when the fast path accepts line but decodes it
// differently from encoding/json, or accepts a line that is not JSON. It
// reports whether the fast path applied.
func checkStreamEvent(t *testing.T, line []byte) bool {
	t.Helper()
	ev, ok := decodeStreamEvent(line)
	if !ok {
		return false
	}
	if !json.Valid(line) {
		t.Fatalf("fast path accepted invalid JSON %q", line)
	}
	slow, err := decodeMessage(line)
	if err != nil || slow.DecodeErr != nil {
		t.Fatalf("fast path accepted %q; encoding/json: %v %v", line, err, slow.DecodeErr)
	}
	fast := Message{Type: "stream_event", Subtype: ev.Event.Type, Raw: line, Body: ev}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("fast and encoding/json differ on %s:\nfast %#v\nslow %#v", line, fast.Body, slow.Body)
	}
	return true
}

// TestStreamEventFastPath: the fast path takes the CLI's delta and stop
// frames and agrees with encoding/json on them and on edge cases, and
// leaves other frames to encoding/json.
func TestStreamEventFastPath(t *testing.T) {
	took := 0
	for _, fx := range loadFixtures(t) {
		if checkStreamEvent(t, fx.Frame) {
			took++
		}
	}
	if took == 0 {
		t.Error("the fast path took none of the fixture frames")
	}
	for i, l := range []string{
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"word ` + strconv.Itoa(7) + ` "}},"session_id":"af4e284c","parent_tool_use_id":null,"uuid":"782cc1bc","api_message_id":"msg_x"}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"h\u00e9\n\"q\""}},"session_id":"s","parent_tool_use_id":"toolu_1","uuid":"u","ttft_ms":12,"user_message_uuids":["a","b"],"user_message_uuid":"a"}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}},"session_id":"s","uuid":"u","user_message_uuids":[]}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig"}},"ttft_ms":null,"user_message_uuids":null}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{"x":[1,2]}}}}`,
		`{"type":"stream_event","event":{"type":"content_block_stop","index":3},"session_id":"s","uuid":"u","parent_tool_use_id":null}`,
		`{"type":"stream_event","event":{"type":"message_stop","abandoned_blocks":[0]},"session_id":"s","message":null,"usage":null}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","message":null,"content_block":null,"usage":null,"delta":null},"x":{"y":[true,false,null,-1.5e3]}}`,
		"{\"type\":\"stream_event\",\"event\":{\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\",\"text\":\"bad \xff\"}}}",
		`{"type":"stream_event","subtype":"x","thinking_display":"summarized","event":null}`,
	} {
		if !checkStreamEvent(t, []byte(l)) {
			t.Errorf("%d: fast path gave up on %s", i, l)
		}
	}
	for _, l := range []string{
		`{"type":"stream_event","event":{"type":"message_start","message":{"id":"m"}}}`,
		`{"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}}`,
		`{"type":"stream_event","event":{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":5}}}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":1.5}}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","Index":1}}`,
		`{"type":"stream_event","Event":{}}`,
		`{"type":"stream_event","uuid":"a","uuid":"b"}`,
		`{"type":"stream_event","event":{"delta":{"text":1}}}`,
		`{"type":"stream_event","user_message_uuids":[null]}`,
		`{"type":"stream_event","ttft_ms":"5"}`,
		`{"type":"stream_event","event":{}} x`,
		`{"type":"stream_event","event":{},}`,
		`{"type":"stream_event","session_id":"\q"}`,
		`{"type":"stream_event","s\u0065ssion_id":"s"}`,
	} {
		if _, ok := decodeStreamEvent([]byte(l)); ok {
			t.Errorf("fast path took %s", l)
		}
		m, err := DecodeMessage([]byte(l))
		slow, serr := decodeMessage([]byte(l))
		if (err == nil) != (serr == nil) || !reflect.DeepEqual(m, slow) {
			t.Errorf("DecodeMessage differs from encoding/json on %s", l)
		}
	}
}

// FuzzStreamEventFastPath: whatever the line, the fast path never accepts
// what encoding/json rejects and never decodes differently.
func FuzzStreamEventFastPath(f *testing.F) {
	f.Add([]byte(`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"word "}},"session_id":"af4e284c","parent_tool_use_id":null,"uuid":"782cc1bc","api_message_id":"msg_x"}`))
	f.Add([]byte(`{"type":"stream_event","event":{"type":"content_block_stop","index":3},"ttft_ms":5,"user_message_uuids":["a"]}`))
	f.Add([]byte(`{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"input_json_delta","partial_json":"{\"a\\u00e9"}}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		checkStreamEvent(t, line)
	})
}

// textDeltaFrame is a stream_event line as the CLI 2.1.332 writes one per
// text delta with --include-partial-messages.
func textDeltaFrame(i int) []byte {
	return []byte(`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"word ` +
		strconv.Itoa(i) + ` "}},"session_id":"af4e284c-4a56-4b26-a654-212e9b2deb86","parent_tool_use_id":null,` +
		`"uuid":"782cc1bc-b48e-40eb-99a1-3c1c1d0f6a5e","api_message_id":"msg_fake_de91dc00d120e499"}`)
}

// BenchmarkDecodeTextDeltaJSON is BenchmarkDecodeTextDelta through
// encoding/json, the path before the fast one, for comparison.
func BenchmarkDecodeTextDeltaJSON(b *testing.B) {
	f := textDeltaFrame(7)
	b.SetBytes(int64(len(f)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeMessage(f); err != nil {
			b.Fatal(err)
		}
	}
}

// TestStreamEventFastPathRefusesASecondType: handleLine skips the envelope
// scan for a line the stream_event fast path takes, which is right only
// if such a line has no other "type": encoding/json, and peekEnvelope,
// take the last one, so a second type (a control request) must send the
// line the slow way.
func TestStreamEventFastPathRefusesASecondType(t *testing.T) {
	line := []byte(`{"type":"stream_event","event":{"type":"message_stop"},"type":"control_request","request_id":"r","request":{"subtype":"can_use_tool"}}`)
	if _, ok := decodeStreamEvent(line); ok {
		t.Fatal("the fast path took a line with two types")
	}
	if typ, _, ok := peekEnvelope(line); !ok || typ != "control_request" {
		t.Fatalf("peekEnvelope = %q, %v; want the last type, control_request", typ, ok)
	}
}
