package fakeapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// startSSE sends the status line and headers of an event stream.
func (a *answer) startSSE() {
	h := a.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	a.w.WriteHeader(http.StatusOK)
}

// event writes one SSE event, flushes it, then waits chunk_delay_ms. Without a chunk
// delay, content_block_delta events are left in the response buffer (flushed when it fills
// or at the block's stop): flushing each of 20,000 deltas would make the fake, not the
// program under test, dominate throughput benchmarks. Set chunk_delay_ms to get one
// flush per event.
func (a *answer) event(name string, data any) error {
	select {
	case <-a.done:
		return errClosed
	default:
	}
	payload, err := json.Marshal(data)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	buf.Grow(len(name) + len(payload) + 16)
	buf.WriteString("event: ")
	buf.WriteString(name)
	buf.WriteString("\ndata: ")
	buf.Write(payload)
	buf.WriteString("\n\n")
	if _, err := a.w.Write(buf.Bytes()); err != nil {
		return err
	}
	if a.step.ChunkDelayMS == 0 && name == "content_block_delta" {
		return nil
	}
	if err := a.flush(); err != nil {
		return err
	}
	return a.sleep(time.Duration(a.step.ChunkDelayMS) * time.Millisecond)
}

func (a *answer) flush() error { return http.NewResponseController(a.w).Flush() }

func (a *answer) messageStart() map[string]any {
	u, _ := a.usage()
	return map[string]any{"type": "message_start", "message": map[string]any{
		"id": a.msgID, "type": "message", "role": "assistant", "model": a.model(),
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": u}}
}

func blockStart(index int, typ string, fields map[string]any) map[string]any {
	block := map[string]any{"type": typ}
	for k, v := range fields {
		block[k] = v
	}
	return map[string]any{"type": "content_block_start", "index": index, "content_block": block}
}

// deltaEvent is a content_block_delta. It is a struct, not a map, because it is by far
// the most frequent event and maps are slow to encode.
type deltaEvent struct {
	Type  string `json:"type"`
	Index int    `json:"index"`
	Delta any    `json:"delta"`
}

// deltaBody is the delta of a content_block_delta; exactly one payload field is set.
type deltaBody struct {
	Type        string  `json:"type"`
	Text        *string `json:"text,omitempty"`
	Thinking    *string `json:"thinking,omitempty"`
	Signature   *string `json:"signature,omitempty"`
	PartialJSON *string `json:"partial_json,omitempty"`
}

func delta(index int, d deltaBody) deltaEvent {
	return deltaEvent{Type: "content_block_delta", Index: index, Delta: d}
}

// stream writes the whole SSE sequence of a message: message_start, ping, each block's
// start/deltas/stop, message_delta and message_stop.
func (a *answer) stream(blocks []Block, stop string) error {
	a.startSSE()
	if err := a.event("message_start", a.messageStart()); err != nil {
		return err
	}
	if err := a.event("ping", map[string]string{"type": "ping"}); err != nil {
		return err
	}
	for i, b := range blocks {
		if err := a.streamBlock(i, b); err != nil {
			return err
		}
	}
	return a.finish(stop)
}

// streamBlock writes one content block: start, deltas, stop.
func (a *answer) streamBlock(i int, b Block) error {
	var start map[string]any
	var deltas []deltaBody
	switch b.Type {
	case "thinking":
		start = blockStart(i, "thinking", map[string]any{"thinking": "", "signature": ""})
		for _, piece := range splitWords(b.Thinking) {
			deltas = append(deltas, deltaBody{Type: "thinking_delta", Thinking: &piece})
		}
		sig := signature(b)
		deltas = append(deltas, deltaBody{Type: "signature_delta", Signature: &sig})
	case "tool_use":
		start = blockStart(i, "tool_use", map[string]any{"id": toolID(b), "name": b.Name, "input": map[string]any{}})
		for _, piece := range splitN(inputJSON(b.Input), 3) {
			deltas = append(deltas, deltaBody{Type: "input_json_delta", PartialJSON: &piece})
		}
	default:
		start = blockStart(i, "text", map[string]any{"text": ""})
		for _, piece := range a.splitText(b.Text) {
			deltas = append(deltas, deltaBody{Type: "text_delta", Text: &piece})
		}
	}
	if err := a.event("content_block_start", start); err != nil {
		return err
	}
	for _, d := range deltas {
		if err := a.event("content_block_delta", delta(i, d)); err != nil {
			return err
		}
	}
	return a.event("content_block_stop", blockStop(i))
}

func blockStop(index int) map[string]any {
	return map[string]any{"type": "content_block_stop", "index": index}
}

// finish closes the message with message_delta and message_stop.
func (a *answer) finish(stop string) error {
	_, out := a.usage()
	d := map[string]any{"stop_reason": stop, "stop_sequence": nil}
	if sd := a.stopDetails(); sd != nil {
		d["stop_details"] = sd
	}
	if err := a.event("message_delta", map[string]any{"type": "message_delta", "delta": d,
		"usage": map[string]any{"output_tokens": out}}); err != nil {
		return err
	}
	return a.event("message_stop", map[string]string{"type": "message_stop"})
}

// splitText splits answer text into text_delta pieces per the step's chunking options.
func (a *answer) splitText(s string) []string {
	switch {
	case a.step.Chunks > 0:
		n := a.step.Chunks
		if s == "" {
			s = "x"
		}
		if c := utf8.RuneCountInString(s); c < n {
			s = strings.Repeat(s, (n+c-1)/c)
		}
		return splitN(s, n)
	case a.step.ChunkSize > 0:
		return splitSize(s, a.step.ChunkSize)
	}
	return splitWords(s)
}

// splitWords cuts s after each run of spaces, so "Hello from x" gives "Hello ", "from ", "x",
// which is how the real API tends to stream short text.
func splitWords(s string) []string {
	var out []string
	start, inSpace := 0, false
	for i, r := range s {
		sp := unicode.IsSpace(r)
		if inSpace && !sp {
			out = append(out, s[start:i])
			start = i
		}
		inSpace = sp
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// splitN cuts s into at most n pieces of nearly equal rune counts, never inside a rune.
func splitN(s string, n int) []string {
	runes := utf8.RuneCountInString(s)
	if runes == 0 {
		return nil
	}
	n = min(n, runes)
	out := make([]string, 0, n)
	start, count, k := 0, 0, 1
	for i := range s {
		if count == k*runes/n && count > 0 {
			out = append(out, s[start:i])
			start = i
			k++
		}
		count++
	}
	return append(out, s[start:])
}

// splitSize cuts s into pieces of size runes (the last may be shorter).
func splitSize(s string, size int) []string {
	var out []string
	start, count := 0, 0
	for i := range s {
		if count == size {
			out = append(out, s[start:i])
			start, count = i, 0
		}
		count++
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// inputJSON renders a tool input as compact JSON. Raw JSON (json.RawMessage, []byte, or a
// string holding JSON) is used as is; nil becomes {}.
func inputJSON(in any) string {
	var raw []byte
	switch v := in.(type) {
	case nil:
		return "{}"
	case json.RawMessage:
		raw = v
	case []byte:
		raw = v
	case string:
		raw = []byte(v)
	}
	if raw != nil {
		var buf bytes.Buffer
		if json.Compact(&buf, raw) == nil {
			return buf.String()
		}
		if _, ok := in.(string); !ok {
			return "{}"
		}
	}
	data, err := json.Marshal(in)
	if err != nil {
		return "{}"
	}
	return string(data)
}
