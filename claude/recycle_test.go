package claude

import (
	"strings"
	"testing"
)

// deltaLine is a text delta's line as the CLI writes it; extra adds
// members before the uuid.
func deltaLine(text, extra string) []byte {
	return []byte(`{"type":"stream_event","event":{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"` + text + `"}},` +
		`"session_id":"af4e284c-4a56-4b26-a654-212e9b2deb86","parent_tool_use_id":` + extra +
		`"uuid":"782cc1bc-b48e-40eb-99a1-3c1c1d0f6a5e","api_message_id":"msg_fake_de91dc00d120e499"}`)
}

// readFrame is what the reader makes of line: a Message with its storage.
func readFrame(t testing.TB, line []byte) Message {
	t.Helper()
	ev, kept, storage, ok := decodeStreamFrame(line)
	if !ok || storage == nil {
		t.Fatalf("the fast path refused %s", line)
	}
	m := streamEventMessage(kept, ev)
	m.storage = storage
	return m
}

// A recycled frame holds the next delta, and nothing of the frame it held
// before leaks into it: the fields the new line lacks are empty, not the
// old line's.
func TestRecycledFrameDecodesClean(t *testing.T) {
	reused := false
	for range 50 { // a pool may drop what it is given (always under -race, at times)
		old := readFrame(t, deltaLine("first", `"toolu_01",`+`"ttft_ms":12,"thinking_display":"full","user_message_uuids":["a","b"],`))
		oldStorage := old.storage
		Recycle(old)
		m := readFrame(t, deltaLine("second", "null,"))
		reused = reused || m.storage == oldStorage
		ev := m.Body.(*StreamEvent)
		if ev.ParentToolUseID != "" || ev.TTFTMS != nil || ev.ThinkingDisplay != "" || ev.UserMessageUUIDs != nil {
			t.Fatalf("the recycled frame kept the old one's fields: %+v", ev)
		}
		if ev.Event.Delta.Text != "second" || ev.Event.Index != 3 || ev.APIMessageID != "msg_fake_de91dc00d120e499" || string(m.Raw) != string(deltaLine("second", "null,")) {
			t.Fatalf("decoded %+v %+v from %s", ev, ev.Event.Delta, m.Raw)
		}
		Recycle(m)
	}
	if !reused {
		t.Error("no recycled frame was reused in 50 deltas")
	}
}

// Recycle does nothing to a frame without storage: DecodeMessage's, a
// frame of another kind, a Message made by hand.
func TestRecycleLeavesOtherFramesAlone(t *testing.T) {
	line := deltaLine("kept", "null,")
	m, err := DecodeMessage(line)
	if err != nil {
		t.Fatal(err)
	}
	Recycle(m)
	Recycle(Message{Type: "result", Body: &ResultMessage{}})
	if got := m.Body.(*StreamEvent).Event.Delta.Text; got != "kept" || string(m.Raw) != string(line) {
		t.Fatalf("after Recycle: %q, %s", got, m.Raw)
	}
}

// Under the race detector (make test) a recycled frame is scribbled over,
// so that a consumer that keeps a string of a frame it recycled reads
// garbage in tests.
func TestRecycledFrameIsScribbledUnderRace(t *testing.T) {
	if !scribbleRecycled {
		t.Skip("only with -race")
	}
	m := readFrame(t, deltaLine("mine", "null,"))
	text := m.Body.(*StreamEvent).Event.Delta.Text
	Recycle(m)
	if text != strings.Repeat("#", len("mine")) {
		t.Fatalf("a string kept past Recycle reads %q", text)
	}
}

// Reading a delta into a recycled frame allocates nothing: the reader's
// copy of the line and its decoded frame were the one allocation per
// relayed delta (TestStreamedDeltaIsOneAllocation).
func TestRecycledDeltaAllocatesNothing(t *testing.T) {
	if scribbleRecycled {
		t.Skip("the race detector's pools drop items at random")
	}
	line := deltaLine("word ", "null,")
	allocs := testing.AllocsPerRun(500, func() {
		Recycle(readFrame(t, line))
	})
	if allocs != 0 {
		t.Errorf("%v allocations per recycled delta, want 0", allocs)
	}
}
