package agenttest

import (
	"context"
	"encoding/json"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
)

// Elicitations returns the elicitation/create requests the client got,
// as sent, in order.
func (h *Harness) Elicitations() []json.RawMessage {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]json.RawMessage(nil), h.elicitations...)
}

// onElicitation records an elicitation/create and answers it with
// h.Elicit (the default declines: a client with no one to answer).
func (h *Harness) onElicitation(ctx context.Context, req *json.RawMessage) (json.RawMessage, error) {
	h.mu.Lock()
	h.elicitations = append(h.elicitations, *req)
	answer := h.Elicit
	h.mu.Unlock()
	h.poke()
	acp.Async(ctx)
	if answer == nil {
		return json.RawMessage(`{"action":"decline"}`), nil
	}
	return answer(ctx, *req)
}
