package fakeapi

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"time"
)

// answer writes the reply to one Messages request according to a step.
type answer struct {
	w     http.ResponseWriter
	r     *http.Request
	done  <-chan struct{} // the server is closing
	step  Step
	req   *Request
	reqID string
	msgID string
}

// serve dispatches on the step kind. Write errors mean the client left; they end the
// answer silently because there is nobody to report them to.
func (a *answer) serve() {
	h := a.w.Header()
	h.Set("request-id", a.reqID)
	for k, v := range a.step.Headers {
		h.Set(k, v)
	}
	if a.sleep(time.Duration(a.step.DelayMS)*time.Millisecond) != nil {
		return
	}
	a.msgID = newID("msg_fake_", 8)
	switch a.step.Kind {
	case "", KindText, KindBlocks, KindRefusal:
		if a.req.Stream {
			_ = a.stream(a.blocks(), a.stopReason())
		} else {
			a.message(a.blocks(), a.stopReason())
		}
	case KindError:
		a.httpError(a.step)
	case KindSSEError:
		a.sseError()
	case KindHang:
		a.hang()
	default:
		a.httpError(Step{Status: http.StatusInternalServerError, Type: "api_error",
			Message: fmt.Sprintf("fakeapi: unknown step kind %q", a.step.Kind)})
	}
}

// blocks returns the content blocks a text, blocks or refusal step answers with.
func (a *answer) blocks() []Block {
	switch a.step.Kind {
	case KindBlocks:
		return a.step.Blocks
	case KindRefusal:
		if a.step.Text == "" {
			return nil
		}
	}
	return []Block{{Type: "text", Text: a.step.Text}}
}

func (a *answer) stopReason() string {
	if a.step.StopReason != "" {
		return a.step.StopReason
	}
	switch a.step.Kind {
	case KindRefusal:
		return "refusal"
	case KindBlocks:
		for _, b := range a.step.Blocks {
			if b.Type == "tool_use" {
				return "tool_use"
			}
		}
	}
	return "end_turn"
}

// stopDetails is non-nil for refusals only.
func (a *answer) stopDetails() map[string]any {
	if a.stopReason() != "refusal" {
		return nil
	}
	return map[string]any{"type": "refusal", "category": nullable(a.step.Category),
		"explanation": nullable(a.step.Explanation)}
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (a *answer) model() string {
	switch {
	case a.step.Model != "":
		return a.step.Model
	case a.req.Model != "":
		return a.req.Model
	}
	return "claude-opus-5-5"
}

// usage returns the message_start usage and the final output token count.
func (a *answer) usage() (map[string]any, any) {
	u := map[string]any{"input_tokens": 10, "output_tokens": 1,
		"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	maps.Copy(u, a.step.Usage)
	out := any(5)
	if v, ok := a.step.Usage["output_tokens"]; ok {
		out = v
	}
	return u, out
}

// message writes a complete non-stream JSON message.
func (a *answer) message(blocks []Block, stop string) {
	content := make([]any, 0, len(blocks))
	for _, b := range blocks {
		content = append(content, a.fullBlock(b))
	}
	u, out := a.usage()
	u["output_tokens"] = out
	msg := map[string]any{"id": a.msgID, "type": "message", "role": "assistant",
		"model": a.model(), "content": content, "stop_reason": stop, "stop_sequence": nil, "usage": u}
	if d := a.stopDetails(); d != nil {
		msg["stop_details"] = d
	}
	writeJSON(a.w, http.StatusOK, msg)
}

// fullBlock is the non-stream form of a block.
func (a *answer) fullBlock(b Block) map[string]any {
	switch b.Type {
	case "thinking":
		return map[string]any{"type": "thinking", "thinking": b.Thinking, "signature": signature(b)}
	case "tool_use":
		return map[string]any{"type": "tool_use", "id": toolID(b), "name": b.Name,
			"input": json.RawMessage(inputJSON(b.Input))}
	}
	return map[string]any{"type": "text", "text": b.Text}
}

func signature(b Block) string {
	if b.Signature == "" {
		return "sig_fake"
	}
	return b.Signature
}

func toolID(b Block) string {
	if b.ID == "" {
		return newID("toolu_fake_", 8)
	}
	return b.ID
}

// httpError writes an Anthropic error body with the step's status.
func (a *answer) httpError(st Step) {
	typ, msg := st.Type, st.Message
	if typ == "" {
		typ = errorType(st.Status)
	}
	if msg == "" {
		msg = "fake " + typ
		if st.Status == 529 {
			msg = "Overloaded"
		}
	}
	writeJSON(a.w, st.Status, map[string]any{"type": "error",
		"error": map[string]string{"type": typ, "message": msg}, "request_id": a.reqID})
}

// errorType is the Anthropic error type the real API uses for a status.
func errorType(status int) string {
	switch status {
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 402:
		return "billing_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 413:
		return "request_too_large"
	case 429:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	}
	return "api_error"
}

// sseError fails a stream after message_start, or a non-stream request with a status.
func (a *answer) sseError() {
	if !a.req.Stream {
		status := a.step.NonstreamStatus
		if status == 0 {
			status = 529
		}
		if status == http.StatusOK {
			var blocks []Block
			if a.step.Text != "" {
				blocks = []Block{{Type: "text", Text: a.step.Text}}
			}
			a.message(blocks, "end_turn")
			return
		}
		a.httpError(Step{Status: status})
		return
	}
	typ, msg := a.step.Type, a.step.Message
	if typ == "" {
		typ = "overloaded_error"
	}
	if msg == "" {
		msg = "Overloaded"
	}
	a.startSSE()
	if a.event("message_start", a.messageStart()) != nil {
		return
	}
	_ = a.event("error", map[string]any{"type": "error",
		"error": map[string]string{"type": typ, "message": msg}})
}

// hang opens a text block and holds the stream, pinging, until hang_s passes, the client
// disconnects or the server closes.
func (a *answer) hang() {
	text := a.step.Text
	if text == "" {
		text = "…"
	}
	if !a.req.Stream {
		if a.wait() == nil {
			a.message([]Block{{Type: "text", Text: text}}, "end_turn")
		}
		return
	}
	a.startSSE()
	if a.event("message_start", a.messageStart()) != nil ||
		a.event("content_block_start", blockStart(0, "text", map[string]any{"text": ""})) != nil ||
		a.event("content_block_delta", delta(0, deltaBody{Type: "text_delta", Text: &text})) != nil ||
		a.flush() != nil {
		return
	}
	if a.wait() != nil || a.event("content_block_stop", blockStop(0)) != nil {
		return
	}
	_ = a.finish("end_turn")
}

// wait pings every 0.5 s (on streams) until hang_s passes or the connection ends.
func (a *answer) wait() error {
	var deadline <-chan time.Time
	if a.step.HangS > 0 {
		t := time.NewTimer(time.Duration(a.step.HangS * float64(time.Second)))
		defer t.Stop()
		deadline = t.C
	}
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-deadline:
			return nil
		case <-a.r.Context().Done():
			return errClosed
		case <-a.done:
			return errClosed
		case <-tick.C:
			if a.req.Stream {
				if err := a.event("ping", map[string]string{"type": "ping"}); err != nil {
					return err
				}
			}
		}
	}
}

// sleep waits d unless the client leaves or the server closes first.
func (a *answer) sleep(d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-a.r.Context().Done():
		return errClosed
	case <-a.done:
		return errClosed
	}
}

func newID(prefix string, n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return prefix + hex.EncodeToString(b)
}
