package fakeapi

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTextStreamShape checks the §14 event sequence of a text answer, word-sized deltas,
// the echoed model, usage and the request-id header.
func TestTextStreamShape(t *testing.T) {
	s := New(t)
	c := client(t)
	s.Script(Text("Hello from the fake API."))
	resp := post(t, c, s, msgBody{Stream: true, Model: "claude-sonnet-4-5"})
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, content-type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if id := resp.Header.Get("request-id"); !strings.HasPrefix(id, "req_fake_") {
		t.Errorf("request-id header = %q", id)
	}
	evs := readSSE(t, resp.Body)
	want := []string{"message_start", "ping", "content_block_start", "delta*", "content_block_stop", "message_delta", "message_stop"}
	if diff := cmp.Diff(want, names(evs)); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	msg := evs[0].Data["message"].(map[string]any)
	if msg["model"] != "claude-sonnet-4-5" || !strings.HasPrefix(msg["id"].(string), "msg_fake_") || msg["stop_reason"] != nil {
		t.Errorf("message_start.message = %v", msg)
	}
	if u := msg["usage"].(map[string]any); u["input_tokens"] != 10.0 || u["output_tokens"] != 1.0 {
		t.Errorf("usage = %v", u)
	}
	if got := joinDeltas(evs, 0, "text"); got != "Hello from the fake API." {
		t.Errorf("text = %q", got)
	}
	if n := len(deltas(evs, 0)); n != 5 {
		t.Errorf("%d text deltas, want one per word (5)", n)
	}
	md := messageDelta(t, evs)
	if d := md["delta"].(map[string]any); d["stop_reason"] != "end_turn" || d["stop_sequence"] != nil {
		t.Errorf("message_delta = %v", md)
	}
}

// TestThinkingTextToolUseStream checks all three block kinds in one answer: indexes,
// delta types, the signature, and that a tool input split over several input_json_delta
// events reassembles to the scripted input.
func TestThinkingTextToolUseStream(t *testing.T) {
	s := New(t)
	c := client(t)
	input := map[string]any{"todos": []any{map[string]any{"content": "Say hi ✓", "status": "completed"}}}
	s.Script(Step{Kind: KindBlocks, Blocks: []Block{
		{Type: "thinking", Thinking: "Plan the todos.", Signature: "sig_1"},
		{Type: "text", Text: "Tracking."},
		{Type: "tool_use", ID: "toolu_1", Name: "TodoWrite", Input: input},
	}})
	resp := post(t, c, s, msgBody{Stream: true, Tools: []string{"TodoWrite"}})
	defer resp.Body.Close()
	evs := readSSE(t, resp.Body)
	var starts []map[string]any
	for _, e := range evs {
		if e.Name == "content_block_start" {
			starts = append(starts, e.Data["content_block"].(map[string]any))
		}
	}
	wantStarts := []map[string]any{
		{"type": "thinking", "thinking": "", "signature": ""},
		{"type": "text", "text": ""},
		{"type": "tool_use", "id": "toolu_1", "name": "TodoWrite", "input": map[string]any{}},
	}
	if diff := cmp.Diff(wantStarts, starts); diff != "" {
		t.Fatalf("content_block_start (-want +got):\n%s", diff)
	}
	if got := joinDeltas(evs, 0, "thinking"); got != "Plan the todos." {
		t.Errorf("thinking = %q", got)
	}
	th := deltas(evs, 0)
	if last := th[len(th)-1]; last["type"] != "signature_delta" || last["signature"] != "sig_1" {
		t.Errorf("last thinking delta = %v", last)
	}
	if got := joinDeltas(evs, 1, "text"); got != "Tracking." {
		t.Errorf("text = %q", got)
	}
	tool := deltas(evs, 2)
	if len(tool) < 2 {
		t.Errorf("tool input sent in %d delta(s), want it split", len(tool))
	}
	for _, d := range tool {
		if d["type"] != "input_json_delta" {
			t.Errorf("tool delta type %v", d["type"])
		}
	}
	var got any
	if err := json.Unmarshal([]byte(joinDeltas(evs, 2, "partial_json")), &got); err != nil {
		t.Fatalf("reassembled input: %v", err)
	}
	var want any
	data, _ := json.Marshal(input)
	_ = json.Unmarshal(data, &want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("input (-want +got):\n%s", diff)
	}
	if d := messageDelta(t, evs)["delta"].(map[string]any); d["stop_reason"] != "tool_use" {
		t.Errorf("stop_reason = %v, want tool_use", d["stop_reason"])
	}
}

// TestNonStreamMessage checks the JSON answer used for the set_model probe and for the
// CLI's fallback after failed streams.
func TestNonStreamMessage(t *testing.T) {
	s := New(t)
	c := client(t)
	s.Script(ToolUse("toolu_9", "Bash", `{"command":"echo hi"}`).When(Match{}))
	resp := post(t, c, s, msgBody{})
	defer resp.Body.Close()
	m := decodeJSON(t, resp.Body)
	want := map[string]any{"type": "tool_use", "id": "toolu_9", "name": "Bash", "input": map[string]any{"command": "echo hi"}}
	if diff := cmp.Diff([]any{want}, m["content"]); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	if m["stop_reason"] != "tool_use" || m["type"] != "message" || m["role"] != "assistant" {
		t.Errorf("message = %v", m)
	}
	if u := m["usage"].(map[string]any); u["output_tokens"] != 5.0 {
		t.Errorf("usage = %v", u)
	}
}

// TestChunking checks the throughput options: exactly N deltas with chunks (text repeated
// when short), and fixed-size deltas with chunk_size.
func TestChunking(t *testing.T) {
	s := New(t)
	c := client(t)
	s.Script(
		Step{Kind: KindText, Text: "ab", Chunks: 20000},
		Step{Kind: KindText, Text: "abcdefg", ChunkSize: 3},
	)
	resp := post(t, c, s, msgBody{Stream: true})
	evs := readSSE(t, resp.Body)
	resp.Body.Close()
	if n := len(deltas(evs, 0)); n != 20000 {
		t.Errorf("chunks: %d deltas, want 20000", n)
	}
	if got := joinDeltas(evs, 0, "text"); got != strings.Repeat("ab", 10000) {
		t.Errorf("chunks: text of %d bytes", len(got))
	}
	resp = post(t, c, s, msgBody{Stream: true})
	evs = readSSE(t, resp.Body)
	resp.Body.Close()
	var pieces []string
	for _, d := range deltas(evs, 0) {
		pieces = append(pieces, d["text"].(string))
	}
	if !slices.Equal(pieces, []string{"abc", "def", "g"}) {
		t.Errorf("chunk_size pieces = %q", pieces)
	}
}

// TestRefusal checks the refusal stop reason and stop_details, with null for empty fields.
func TestRefusal(t *testing.T) {
	s := New(t)
	c := client(t)
	s.Script(Refusal("I can't", "cyber", ""), Refusal("", "", ""))
	resp := post(t, c, s, msgBody{Stream: true})
	evs := readSSE(t, resp.Body)
	resp.Body.Close()
	if got := joinDeltas(evs, 0, "text"); got != "I can't" {
		t.Errorf("partial text = %q", got)
	}
	d := messageDelta(t, evs)["delta"].(map[string]any)
	want := map[string]any{"stop_reason": "refusal", "stop_sequence": nil,
		"stop_details": map[string]any{"type": "refusal", "category": "cyber", "explanation": nil}}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("message_delta.delta (-want +got):\n%s", diff)
	}

	resp = post(t, c, s, msgBody{Stream: true})
	evs = readSSE(t, resp.Body)
	resp.Body.Close()
	wantNames := []string{"message_start", "ping", "message_delta", "message_stop"}
	if diff := cmp.Diff(wantNames, names(evs)); diff != "" {
		t.Errorf("empty refusal events (-want +got):\n%s", diff)
	}
}

// TestUsageAndModelOverride checks that usage is merged and model replaced.
func TestUsageAndModelOverride(t *testing.T) {
	s := New(t)
	c := client(t)
	s.Script(Step{Kind: KindText, Text: "x", Model: "claude-opus-4-8",
		Usage: map[string]any{"input_tokens": 100000, "output_tokens": 7}})
	resp := post(t, c, s, msgBody{Stream: true})
	evs := readSSE(t, resp.Body)
	resp.Body.Close()
	msg := evs[0].Data["message"].(map[string]any)
	if msg["model"] != "claude-opus-4-8" || msg["usage"].(map[string]any)["input_tokens"] != 100000.0 {
		t.Errorf("message_start = %v", msg)
	}
	if u := messageDelta(t, evs)["usage"].(map[string]any); u["output_tokens"] != 7.0 {
		t.Errorf("message_delta usage = %v", u)
	}
}
