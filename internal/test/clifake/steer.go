package clifake

import "fmt"

// Steering, as the real CLI does it (2.1.332, seen in the frames it wrote
// for agent/steering_e2e_test.go): a user message sent with priority "now"
// while a turn streams aborts that turn's cycle and runs next, ahead of
// anything queued. The aborted turn ends without the interrupt marker: its
// partial assistant message, message_stop naming the abandoned blocks, a
// result that is a success (is_error false) with terminal_reason
// aborted_streaming, no stop_reason and the partial text as its result,
// then command_lifecycle cancelled, and no idle (the steer runs at once).
// A "now" message with no turn running, and any other priority, is queued
// as usual. A steer during a tool call (the real CLI aborts the tool) is
// not modelled: the fake panics rather than play frames the real CLI does
// not write.

// steer takes a user message sent with priority: a "now" message while a
// turn runs goes first in the queue and aborts the running cycle (true);
// otherwise nothing is done (false) and the message is queued as usual.
func (c *CLI) steer(m *message, priority string) bool {
	if priority != "now" {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	cur := c.current
	if cur == nil {
		return false
	}
	c.queue = append([]*message{m}, c.queue...)
	cur.steered = true
	cur.stop()
	c.cond.Broadcast()
	return true
}

// steeredAbort ends a turn whose cycle a steer aborted, as the real CLI
// does (see above); false when the turn was not steered (an interrupt).
func (t *turnState) steeredAbort() bool {
	c := t.c
	c.mu.Lock()
	steered := t.m.steered
	c.mu.Unlock()
	if !steered {
		return false
	}
	if t.toolID != "" {
		panic(fmt.Sprintf("clifake: a steer (priority now) during tool call %s is not modelled", t.toolID))
	}
	if t.text != "" {
		t.assistant([]any{map[string]any{"type": "text", "text": t.text}})
		c.record("assistant", []any{map[string]any{"type": "text", "text": t.text}})
	}
	stop := map[string]any{"type": "message_stop"}
	if t.msgID != "" {
		t.c.send(map[string]any{"type": "stream_event", "event": stop, "session_id": c.session, "parent_tool_use_id": nil,
			"api_message_id": t.msgID, "abandoned_blocks": map[string]any{"api_message_id": t.msgID, "from_block_index": 1}})
	}
	c.send(map[string]any{"type": "result", "subtype": "success", "is_error": false, "result": t.text,
		"terminal_reason": "aborted_streaming", "stop_reason": nil, "session_id": c.session, "num_turns": 1,
		"total_cost_usd": 0.001, "usage": usage(), "permission_denials": []any{},
		"user_message_uuid": t.m.uuid, "user_message_uuids": []string{t.m.uuid}})
	c.lifecycle(t.m.uuid, "cancelled")
	c.idleIfDone()
	return true
}
