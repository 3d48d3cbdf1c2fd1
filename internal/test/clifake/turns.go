package clifake

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// worker runs the queued messages as turns, one after another, until
// stdin is closed and the queue is empty (then the CLI exits 0, as the
// real one does).
func (c *CLI) worker() {
	for {
		c.mu.Lock()
		for len(c.queue) == 0 && !c.eof && !c.dead() {
			c.cond.Wait()
		}
		if c.dead() || len(c.queue) == 0 {
			c.mu.Unlock()
			c.exit(0, 0)
			return
		}
		m := c.queue[0]
		c.queue = c.queue[1:]
		c.current = m
		c.mu.Unlock()

		c.turn(m)

		c.mu.Lock()
		c.current = nil
		c.mu.Unlock()
	}
}

// turnState is the output of one turn so far.
type turnState struct {
	c      *CLI
	m      *message
	msgID  string
	text   string
	n      int    // messages of the turn
	result string // what the model was told of the tool
	failed bool   // the tool did not run
	toolID string // the id of the tool call in progress (asked for or running)
	lastID string // the id of the last tool call, for the follow-up request
	// abortText, when set, is what an abort tells Claude of the call in
	// progress (sdkmcp.go: a call stopped while it ran).
	abortText string
	sdkCall   bool // the last tool call was an SDK MCP server's
	sdkFailed bool // and it failed (its text is what the model is told)
}

// wait waits d, and reports false if the turn was interrupted or the CLI
// died meanwhile.
func (t *turnState) wait(d time.Duration) bool {
	if d <= 0 {
		select {
		case <-t.m.interrupt:
			return false
		default:
			return !t.c.dead()
		}
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return !t.c.dead()
	case <-t.m.interrupt:
		return false
	case <-t.c.done:
		return false
	}
}

func (c *CLI) turn(m *message) {
	c.state("running")
	c.lifecycle(m.uuid, "started")
	c.send(map[string]any{"type": "user", "isReplay": true, "uuid": m.uuid, "session_id": c.session,
		"parent_tool_use_id": nil, "message": map[string]any{"role": "user", "content": m.text}})
	c.mu.Lock()
	mode := c.mode
	c.mu.Unlock()
	c.send(map[string]any{"type": "system", "subtype": "init", "session_id": c.session, "model": "fake-model",
		"permissionMode": mode, "cwd": c.dir, "tools": []string{"Bash"}})
	c.recordPrompt(m)
	t := &turnState{c: c, m: m}
	r := c.request(t, false)
	c.mu.Lock()
	c.history = append(c.history, m.text)
	c.mu.Unlock()
	if r.APIError != nil {
		t.apiError(r.APIError)
		return
	}
	if r.Frames != nil {
		t.play(r)
		return
	}
	if !t.reply(r) {
		t.aborted()
		return
	}
	end := r.End
	for r.Tool != "" {
		ran, ok := t.tool(r)
		if !ok {
			t.aborted()
			return
		}
		t.result, t.failed = ran, ran == "" || strings.HasPrefix(ran, "denied: ") || t.sdkFailed
		r2 := c.request(t, true)
		if r2.APIError != nil {
			t.apiError(r2.APIError)
			return
		}
		t.text = ""
		t.newMessage()
		if ran != "" && !t.sdkCall {
			t.stream(ran + " ")
		}
		if !t.reply(r2) {
			t.aborted()
			return
		}
		end = r2.End
		if _, _, _, sdk := c.sdkTool(r2.ToolName); !sdk || r2.Tool == "" {
			break // only SDK MCP calls chain (the Reply's doc)
		}
		r = r2
	}
	t.finish(end)
}

// request is one model request: logged, then answered by the World's model.
func (c *CLI) request(t *turnState, followUp bool) Reply {
	c.w.log(c, "request", t.m.text)
	c.send(map[string]any{"type": "system", "subtype": "status", "status": "requesting", "session_id": c.session})
	c.mu.Lock()
	r := Request{CLI: c.n, Session: c.session, Prompt: t.m.text, FollowUp: followUp,
		History: slices.Clone(c.history), Model: c.model, Mode: c.mode}
	if followUp {
		r.ToolResult, r.ToolFailed, r.ToolID = t.result, t.failed, t.lastID
	}
	c.mu.Unlock()
	return c.w.ask(r)
}

func (t *turnState) newMessage() {
	t.n++
	t.msgID = fmt.Sprintf("msg_fake_%d_%s_%d", t.c.n, t.m.uuid, t.n)
	t.event(map[string]any{"type": "message_start", "message": map[string]any{"id": t.msgID, "type": "message",
		"role": "assistant", "model": "fake-model", "content": []any{}, "usage": usage()}})
	t.event(map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
}

// reply plays the model's answer: a wait, then the text chunk by chunk.
// False if the turn was interrupted (or the CLI died) meanwhile.
func (t *turnState) reply(r Reply) bool {
	if !t.wait(r.Delay) {
		return false
	}
	if t.msgID == "" {
		t.newMessage()
	}
	for i, ch := range r.Chunks {
		if i > 0 && !t.wait(r.Every) {
			return false
		}
		t.stream(ch)
	}
	return t.wait(0)
}

func (t *turnState) stream(s string) {
	t.text += s
	t.event(map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": s}})
}

func (t *turnState) event(ev map[string]any) {
	t.c.send(map[string]any{"type": "stream_event", "event": ev, "session_id": t.c.session, "parent_tool_use_id": nil})
}

func usage() map[string]any { return map[string]any{"input_tokens": 10, "output_tokens": 5} }

func (t *turnState) assistant(content []any) { t.assistantAs("", content) }

// assistantAs is an assistant frame with uuid id ("": none), the uuid of
// the transcript record that stores it.
func (t *turnState) assistantAs(id string, content []any) {
	f := map[string]any{"type": "assistant", "session_id": t.c.session, "parent_tool_use_id": nil,
		"message": map[string]any{"id": t.msgID, "type": "message", "role": "assistant", "model": "fake-model",
			"content": content, "stop_reason": nil, "usage": usage()}}
	if id != "" {
		f["uuid"] = id
	}
	t.c.send(f)
}

// tool calls the reply's Bash command: announced, asked for where the mode
// asks, run (logged) for its time, its result sent. It returns what the
// model is told (for a denied call, "denied: " and the reason) and false
// when the turn was interrupted, or the answer was a denial that
// interrupts (the user cancelled the request), as the real CLI ends it.
func (t *turnState) tool(r Reply) (string, bool) {
	c := t.c
	id := r.ToolID
	if id == "" {
		id = fmt.Sprintf("toolu_fake_%d_%d", c.n, c.w.records.Add(1))
	}
	name, input := r.toolCall() // tools.go
	t.lastID = id
	_, _, _, t.sdkCall = c.sdkTool(name)
	t.sdkFailed = false
	if t.sdkCall {
		return t.mcpCall(name, id, input) // sdkmcp.go
	}
	if t.text != "" {
		t.assistant([]any{map[string]any{"type": "text", "text": t.text}})
	}
	t.event(map[string]any{"type": "content_block_start", "index": 1,
		"content_block": map[string]any{"type": "tool_use", "id": id, "name": name, "input": map[string]any{}}})
	raw, _ := json.Marshal(input)
	t.event(map[string]any{"type": "content_block_delta", "index": 1, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(raw)}})
	t.event(map[string]any{"type": "content_block_stop", "index": 1})
	t.assistant([]any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}})
	t.toolID = id // until its result is sent; an abort before rejects it
	c.mu.Lock()
	mode := c.mode
	c.mu.Unlock()
	allowed := mode == claude.PermissionBypass
	denial := ""
	if !allowed {
		p, ok := c.askPermission(canUseTool(name, id, input), t.m.interrupt) // tools.go, clifake.go
		if !ok {
			return "", false
		}
		allowed, denial = p.allowed, p.denial
	}
	if !t.wait(0) {
		return "", false
	}
	result, isError := "", false
	if allowed {
		c.w.log(c, "tool", id)
		if !t.wait(r.ToolTime) {
			return "", false
		}
		result = "ran " + r.Tool
		if r.ToolOutput != "" {
			result = r.ToolOutput
		}
	} else {
		result, isError = "denied: "+denial, true
	}
	c.send(map[string]any{"type": "user", "session_id": c.session, "parent_tool_use_id": nil,
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result",
			"tool_use_id": id, "content": result, "is_error": isError}}},
		"tool_use_result": map[string]any{"stdout": result, "stderr": "", "interrupted": false}})
	c.recordToolNamed(name, id, input, result, isError)
	t.toolID = ""
	return result, true
}

// finish ends the turn as end says.
func (t *turnState) finish(end End) {
	c := t.c
	if end == Die {
		fmt.Fprintln(c.errW, "fatal: the fake CLI died mid-turn")
		c.exit(1, 0)
		return
	}
	id := c.recordID() // the frame's uuid is its record's, as with the real CLI
	t.assistantAs(id, []any{map[string]any{"type": "text", "text": t.text}})
	t.event(map[string]any{"type": "content_block_stop", "index": 0})
	t.event(map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn"}, "usage": map[string]any{"output_tokens": 5}})
	t.event(map[string]any{"type": "message_stop"})
	c.recordAs(id, "assistant", []any{map[string]any{"type": "text", "text": t.text}})
	result := map[string]any{"type": "result", "subtype": "success", "is_error": false, "result": t.text,
		"stop_reason": "end_turn", "session_id": c.session, "num_turns": 1, "total_cost_usd": 0.001, "usage": usage(),
		"user_message_uuids": []string{t.m.uuid}}
	switch end {
	case Result:
		c.send(result)
	case DupResult:
		c.send(result)
		c.send(result)
	case LostResult:
	}
	c.lifecycle(t.m.uuid, "completed")
	c.idleIfDone()
}

// aborted ends the turn as the CLI does after an interrupt: while it
// streams (aborted_streaming), or during a tool call, asked for or running,
// which an interrupt or a denial that interrupts rejects (aborted_tools).
func (t *turnState) aborted() {
	c := t.c
	if c.dead() || t.steeredAbort() { // steer.go
		return
	}
	if t.text != "" && t.toolID == "" {
		t.assistant([]any{map[string]any{"type": "text", "text": t.text}})
	}
	marker := "[Request interrupted by user]"
	if t.toolID != "" {
		marker = "[Request interrupted by user for tool use]"
		text := "The user doesn't want to proceed with this tool use. The tool use was rejected."
		if t.abortText != "" {
			text = t.abortText
		}
		c.send(map[string]any{"type": "user", "session_id": c.session, "parent_tool_use_id": nil,
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result",
				"tool_use_id": t.toolID, "is_error": true, "content": text}}}})
	}
	c.send(map[string]any{"type": "user", "session_id": c.session, "parent_tool_use_id": nil,
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": marker}}}})
	c.record("user", marker)
	if t.toolID != "" {
		c.send(map[string]any{"type": "result", "subtype": "error_during_execution", "is_error": true,
			"terminal_reason": "aborted_tools", "stop_reason": "tool_use", "session_id": c.session, "num_turns": 1,
			"user_message_uuids": []string{t.m.uuid}})
	} else {
		t.event(map[string]any{"type": "message_stop"})
		c.send(map[string]any{"type": "result", "subtype": "error_during_execution", "is_error": true,
			"terminal_reason": "aborted_streaming", "stop_reason": nil, "session_id": c.session, "num_turns": 1,
			"user_message_uuids": []string{t.m.uuid},
			"errors":             []string{"[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=null"}})
	}
	c.lifecycle(t.m.uuid, "cancelled")
	c.idleIfDone()
}

// idleIfDone reports the session idle when nothing is queued.
func (c *CLI) idleIfDone() {
	c.mu.Lock()
	queued := len(c.queue)
	c.mu.Unlock()
	if queued == 0 {
		c.state("idle")
	}
}
