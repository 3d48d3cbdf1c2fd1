package claude

import (
	"bufio"
	"fmt"
	"strings"
	"testing"
)

// The reader decodes most lines in its own buffer and copies only what it
// keeps (readLine, decodeStreamFrame). The "sizes" CLI writes stream_event
// lines of every size, each many times over: ones that fit beside their
// frame in one allocation of either size, ones too long for that, and
// ones longer than the reader's 64 KiB buffer; and lines that take the
// general decoder.
func init() {
	scenarios["sizes"] = func(f *fake) int {
		if !f.handshake() {
			return 1
		}
		return f.serve(func(fr frame) {
			for i := range sizedLines {
				f.send(sizedLine(i))
			}
			f.result("sized", false)
		})
	}
}

const sizedLines = 600

// sizedLine is the i-th line of the "sizes" scenario.
func sizedLine(i int) string {
	text := fmt.Sprintf("%d:", i)
	switch i % 4 {
	case 0:
		text += "short"
	case 1:
		text += strings.Repeat("m", 300+i%500) // frame768, frame1024 and a copy of its own
	case 2:
		text += strings.Repeat("l", 70<<10)
	case 3: // a content_block_start: the general decoder's
		return fmt.Sprintf(`{"type":"stream_event","event":{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":"%s"}},"session_id":"s"}`, i, text)
	}
	return fmt.Sprintf(`{"type":"stream_event","event":{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":"%s"}},"session_id":"s"}`, i, text)
}

// TestQueuedFramesKeepTheirBytes: frames that wait in the queue while the
// reader reads on keep their own bytes (Raw) and decoded text, whatever
// their size, so the reader's buffer is never shared with a frame.
func TestQueuedFramesKeepTheirBytes(t *testing.T) {
	t.Parallel()
	p := startFake(t, "sizes", Options{})
	sendText(t, p, "go")
	got := until(t, p, isType("result"))
	var frames []Message
	for _, m := range got {
		if m.Type == "stream_event" {
			frames = append(frames, m)
		}
	}
	if len(frames) != sizedLines {
		t.Fatalf("%d stream events, want %d", len(frames), sizedLines)
	}
	for i, m := range frames {
		if string(m.Raw) != sizedLine(i) {
			t.Fatalf("frame %d: Raw is %.80q…, want %.80q…", i, m.Raw, sizedLine(i))
		}
		ev := m.Body.(*StreamEvent)
		var text string
		if ev.Event.Delta != nil {
			text = ev.Event.Delta.Text
		} else if ev.Event.ContentBlock != nil {
			text = ev.Event.ContentBlock.Text
		}
		if want := fmt.Sprintf("%d:", i); !strings.HasPrefix(text, want) || !strings.Contains(sizedLine(i), text) {
			t.Fatalf("frame %d: text %.40q…, want it to start with %q", i, text, want)
		}
	}
	// An append to one frame's Raw must not write into another's.
	for _, m := range frames {
		_ = append(m.Raw, "!!!!"...)
	}
	for i, m := range frames {
		if string(m.Raw) != sizedLine(i) {
			t.Fatalf("frame %d changed after appends to the others' Raw: %.80q…", i, m.Raw)
		}
	}
}

// TestStreamedDeltaIsOneAllocation: reading and decoding a streamed text
// delta's line takes one allocation, the frame with its line
// (frame768); it took two, the line and then the frame.
func TestStreamedDeltaIsOneAllocation(t *testing.T) {
	line := `{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"word "}},` +
		`"session_id":"af4e284c-4a56-4b26-a654-212e9b2deb86","parent_tool_use_id":null,` +
		`"uuid":"782cc1bc-b48e-40eb-99a1-3c1c1d0f6a5e","api_message_id":"msg_fake_de91dc00d120e499"}` + "\n"
	br := bufio.NewReaderSize(strings.NewReader(strings.Repeat(line, 300)), 64<<10)
	var ev *StreamEvent
	allocs := testing.AllocsPerRun(200, func() {
		l, owned, err := readLine(br)
		if err != nil || owned {
			t.Fatalf("readLine: owned %v, %v", owned, err)
		}
		var ok bool
		if ev, _, _, ok = decodeStreamFrame(l); !ok {
			t.Fatal("the fast path refused a text delta")
		}
	})
	if ev.Event.Delta.Text != "word " {
		t.Fatalf("decoded %q", ev.Event.Delta.Text)
	}
	if allocs != 1 {
		t.Errorf("%v allocations per delta, want 1", allocs)
	}
}
