package clifake

import (
	"fmt"
)

// An APIError is an error answer of the Messages API that the CLI gives
// up on (after its retries): Reply.APIError.
type APIError struct {
	Status int    // the HTTP status: 429
	Type   string // the API's error type: "rate_limit_error"
	Kind   string // the CLI's kind of it (SDKAssistantMessageError): "rate_limit"
	Text   string // what the CLI says of it: "API Error: Request rejected (429) · slow down please"
}

// RateLimited is the API's 429 with message, as the real CLI reports it
// (claude-cli-protocol.md §9).
func RateLimited(message string) *APIError {
	return &APIError{Status: 429, Type: "rate_limit_error", Kind: "rate_limit",
		Text: "API Error: Request rejected (429) · " + message}
}

// apiError ends the turn as the real CLI does once the API's error is
// final: a synthetic assistant message with the error's text (model
// "<synthetic>", is_api_error_message), then a result that is_error with
// the API's status and terminal_reason api_error; the CLI stays up.
func (t *turnState) apiError(e *APIError) {
	c := t.c
	id := fmt.Sprintf("%08x-0000-4000-9000-%012x", c.n, c.w.records.Add(1))
	zero := map[string]any{"input_tokens": 0, "output_tokens": 0}
	c.send(map[string]any{"type": "assistant", "session_id": c.session, "parent_tool_use_id": nil, "uuid": id,
		"message": map[string]any{"id": id, "type": "message", "role": "assistant", "model": "<synthetic>",
			"content": []any{map[string]any{"type": "text", "text": e.Text}}, "stop_reason": "stop_sequence", "usage": zero},
		"error": e.Kind, "is_api_error_message": true, "api_error_status": e.Status, "api_error_type": e.Type})
	c.send(map[string]any{"type": "result", "subtype": "success", "is_error": true, "result": e.Text,
		"stop_reason": "stop_sequence", "terminal_reason": "api_error", "api_error_status": e.Status, "api_error_type": e.Type,
		"session_id": c.session, "num_turns": 1, "total_cost_usd": 0, "usage": zero,
		"user_message_uuids": []string{t.m.uuid}})
	c.lifecycle(t.m.uuid, "completed")
	c.idleIfDone()
}

// recordPrompt stores the turn's prompt in the transcript: with
// RichTranscript under the uuid the host sent it with, as the real CLI
// does (claude-cli-protocol.md §12), else under an id of the fake's own.
func (c *CLI) recordPrompt(m *message) {
	if !c.w.RichTranscript || m.uuid == "" {
		c.record("user", m.text)
		return
	}
	c.recordRich("user", m.uuid, m.text, nil)
}

// recordTool stores a tool call and its result (RichTranscript only): the
// assistant's tool_use, then the user's tool_result with the CLI's
// toolUseResult, as the real CLI's transcript has them.
func (c *CLI) recordTool(id string, input map[string]any, result string, isError bool) {
	c.recordToolNamed("Bash", id, input, result, isError)
}

// recordToolNamed is recordTool for a call of the named tool.
func (c *CLI) recordToolNamed(name, id string, input map[string]any, result string, isError bool) {
	if !c.w.RichTranscript {
		return
	}
	c.recordRich("assistant", "", []any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}}, nil)
	c.recordRich("user", "", []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": result, "is_error": isError}},
		map[string]any{"toolUseResult": map[string]any{"stdout": result, "stderr": "", "interrupted": false}})
}

// recordRich is record with the line's uuid (a new one when "") and more
// members.
func (c *CLI) recordRich(typ, id string, content any, extra map[string]any) {
	if id == "" {
		id = fmt.Sprintf("%08x-0000-4000-8000-%012x", c.n, c.w.records.Add(1))
	}
	c.writeRecord(typ, id, content, "msg_fake_rec_"+id[len(id)-12:], "tool_use", extra)
}
