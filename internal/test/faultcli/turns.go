package faultcli

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// worker runs the queued user messages as turns, one after another, until
// stdin is closed and the queue is empty.
func (f *fake) worker() {
	for {
		f.mu.Lock()
		for len(f.queue) == 0 && !f.eof {
			f.cond.Wait()
		}
		if len(f.queue) == 0 {
			f.mu.Unlock()
			return
		}
		m := f.queue[0]
		f.queue = f.queue[1:]
		f.current = m
		f.mu.Unlock()

		f.turn(m)

		f.mu.Lock()
		f.current = nil
		f.cond.Broadcast()
		f.mu.Unlock()
	}
}

// turnState is the output of one turn so far.
type turnState struct {
	f        *fake
	m        *userMsg
	msgID    string
	text     strings.Builder
	answered bool // a delta was streamed (traced once: "answer")
}

func (f *fake) turn(m *userMsg) {
	f.lifecycle(m.uuid, "started")
	content := m.content
	if len(content) > 1<<20 {
		// The agent needs only the uuid; echoing tens of megabytes would
		// only slow the huge-prompt tests down.
		content = json.RawMessage(`"[long prompt]"`)
	}
	f.send(map[string]any{"type": "user", "isReplay": true, "uuid": m.uuid, "session_id": f.session,
		"parent_tool_use_id": nil, "message": map[string]any{"role": "user", "content": content}})
	f.send(map[string]any{"type": "system", "subtype": "init", "session_id": f.session, "model": "fake-model",
		"permissionMode": "default", "cwd": ".", "tools": []string{"Bash"}})
	t := &turnState{f: f, m: m}
	t.newMessage()
	head := m.text
	if len(head) > 256 {
		head = head[:256] // the directive is at the start; prompts can be huge
	}
	words := strings.Fields(head)
	word := ""
	if len(words) > 0 {
		word = words[0]
	}
	arg := func(i, def int) int {
		if i < len(words) {
			if n, err := strconv.Atoi(words[i]); err == nil {
				return n
			}
		}
		return def
	}
	switch word {
	case "hang":
		t.stream("working on it")
		select {
		case <-m.interrupt:
			t.aborted()
		case <-f.eofCh:
			t.finish()
		}
	case "slow":
		deadline := time.Now().Add(time.Duration(arg(1, 100)) * time.Millisecond)
		chunk := "."
		if len(words) > 2 {
			chunk = words[2] // a tag, so a test can tell whose output it sees
		}
		for time.Now().Before(deadline) {
			t.stream(chunk)
			select {
			case <-m.interrupt:
				t.aborted()
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
		t.finish()
	case "chunks":
		n, size, every := arg(1, 10), arg(2, 100), time.Duration(arg(3, 0))*time.Microsecond
		start := time.Now()
		for i := range n {
			if every > 0 {
				if d := time.Until(start.Add(time.Duration(i) * every)); d > 0 {
					time.Sleep(d)
				}
			}
			c := fmt.Sprintf("[%d]", i)
			if len(c) < size {
				c += strings.Repeat("x", size-len(c))
			}
			t.streamLikeCLI(c)
			if i%50 == 0 {
				trace("progress", fmt.Sprint(i))
			}
			if interrupted(m) {
				t.aborted()
				return
			}
		}
		t.finish()
	case "size":
		t.stream(fmt.Sprintf("size %d", len(m.text)))
		t.finish()
	case "crash":
		t.stream("about to crash")
		trace("exit", "SIGKILL self")
		killPID(os.Getpid())
		time.Sleep(time.Hour)
	case "exit":
		t.stream("about to exit")
		code := arg(1, 3)
		fmt.Fprintf(os.Stderr, "fatal: injected exit %d (faultcli)\n", code)
		trace("exit", fmt.Sprint(code))
		os.Exit(code)
	case "garbage", "garbage-exit":
		t.stream("before garbage")
		for _, g := range garbageLines {
			f.raw(g)
		}
		if word == "garbage-exit" {
			fmt.Fprintln(os.Stderr, "fatal: injected garbage then exit (faultcli)")
			trace("exit", "1")
			os.Exit(1)
		}
		t.stream(" after garbage")
		t.finish()
	case "leak-exit":
		leakStderr()
		trace("exit", "1")
		os.Exit(1)
	case "flood-stderr":
		t.stream("flooding stderr")
		floodStderr()
		trace("exit", "2")
		os.Exit(2)
	case "late": // late <ms>: prepare the answer for a while (a model request), then stream it
		select {
		case <-m.interrupt:
			t.aborted()
			return
		case <-time.After(time.Duration(arg(1, 100)) * time.Millisecond):
		}
		t.stream("late")
		t.finish()
	case "ask":
		t.askTool(false)
	case "ask-after": // ask-after <ms>: stream for a while, then ask
		deadline := time.Now().Add(time.Duration(arg(1, 100)) * time.Millisecond)
		for time.Now().Before(deadline) {
			t.stream(".")
			time.Sleep(5 * time.Millisecond)
		}
		t.askTool(false)
	case "tool-after-cancel":
		t.askTool(true)
	default:
		t.stream("echo: " + m.text)
		t.finish()
	}
}

// garbageLines are what a broken CLI (or a stray console.log) might print.
var garbageLines = []string{
	"this is not json",
	`{"type":"assistant",broken`,
	"\x1b[31mcolour\x1b[0m",
	"\xff\xfe invalid utf-8",
	`[1,2,3]`,
	`{"type":"brand_new_kind","x":1}`,
	`{"type":"result"}`[:10],
	`{"type":"stream_event","event":"not an object"}`,
	`{"type":"control_response","response":{"request_id":"nobody","subtype":"success"}}`,
	strings.Repeat("z", 1<<20),
}

func interrupted(m *userMsg) bool {
	select {
	case <-m.interrupt:
		return true
	default:
		return false
	}
}

func (f *fake) lifecycle(uuid, state string) {
	if uuid == "" {
		return
	}
	f.send(map[string]any{"type": "command_lifecycle", "command_uuid": uuid, "state": state, "session_id": f.session})
}

func (t *turnState) newMessage() {
	t.f.mu.Lock()
	t.f.msgN++
	t.msgID = fmt.Sprintf("msg_fake_%d_%d", os.Getpid(), t.f.msgN)
	t.f.mu.Unlock()
	t.text.Reset()
	t.event(map[string]any{"type": "message_start", "message": map[string]any{"id": t.msgID, "type": "message",
		"role": "assistant", "model": "fake-model", "content": []any{}, "usage": usage()}})
	t.event(map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
}

func (t *turnState) event(ev map[string]any) {
	t.f.send(map[string]any{"type": "stream_event", "event": ev, "session_id": t.f.session, "parent_tool_use_id": nil})
}

func usage() map[string]any { return map[string]any{"input_tokens": 10, "output_tokens": 1} }

// streamLikeCLI sends a text delta as the real CLI writes it (its member
// order, which the agent's fast path for deltas expects), for the
// relaying benchmarks.
func (t *turnState) streamLikeCLI(s string) {
	t.text.WriteString(s)
	text, _ := json.Marshal(s)
	t.f.raw(`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":` +
		string(text) + `}},"session_id":"` + t.f.session + `","parent_tool_use_id":null,"uuid":"782cc1bc-b48e-40eb-99a1-3c1c1d0f6a5e","api_message_id":"` + t.msgID + `"}`)
}

// stream sends a text delta of the current message.
func (t *turnState) stream(s string) {
	if !t.answered {
		t.answered = true
		trace("answer", t.m.uuid)
	}
	t.text.WriteString(s)
	t.event(map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": s}})
}

// assistant sends the consolidated frame of the current message.
func (t *turnState) assistant(content []any, aborted bool) {
	msg := map[string]any{"type": "assistant", "session_id": t.f.session, "parent_tool_use_id": nil,
		"message": map[string]any{"id": t.msgID, "type": "message", "role": "assistant", "model": "fake-model",
			"content": content, "stop_reason": nil, "usage": usage()}}
	if aborted {
		msg["aborted"] = true
	}
	t.f.send(msg)
}

// finish ends the turn normally.
func (t *turnState) finish() {
	t.assistant([]any{map[string]any{"type": "text", "text": t.text.String()}}, false)
	t.event(map[string]any{"type": "content_block_stop", "index": 0})
	t.event(map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn"}, "usage": map[string]any{"output_tokens": 5}})
	t.event(map[string]any{"type": "message_stop"})
	t.f.send(map[string]any{"type": "result", "subtype": "success", "is_error": false, "result": t.text.String(),
		"stop_reason": "end_turn", "session_id": t.f.session, "num_turns": 1, "total_cost_usd": 0.001, "usage": usage()})
	t.f.lifecycle(t.m.uuid, "completed")
}

// aborted ends the turn the way the CLI does after an interrupt.
func (t *turnState) aborted() {
	if t.text.Len() > 0 {
		t.assistant([]any{map[string]any{"type": "text", "text": t.text.String()}}, true)
	}
	t.f.send(map[string]any{"type": "user", "session_id": t.f.session, "parent_tool_use_id": nil,
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "[Request interrupted by user]"}}}})
	t.event(map[string]any{"type": "message_stop"})
	t.f.send(map[string]any{"type": "result", "subtype": "error_during_execution", "is_error": true,
		"terminal_reason": "aborted_streaming", "stop_reason": nil, "session_id": t.f.session, "num_turns": 1,
		"errors": []string{"[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=null"}})
	t.f.lifecycle(t.m.uuid, "cancelled")
	trace("interrupted", t.m.uuid)
}

// askTool starts a Bash tool call and asks can_use_tool for it. With
// afterCancel the question comes only after the turn was interrupted.
func (t *turnState) askTool(afterCancel bool) {
	t.f.mu.Lock()
	t.f.nextID++
	toolID := fmt.Sprintf("toolu_fake_%d_%d", os.Getpid(), t.f.nextID)
	t.f.mu.Unlock()
	input := map[string]any{"command": "touch faultcli-ran"}
	t.stream("let me run a command")
	t.event(map[string]any{"type": "content_block_start", "index": 1,
		"content_block": map[string]any{"type": "tool_use", "id": toolID, "name": "Bash", "input": map[string]any{}}})
	t.assistant([]any{map[string]any{"type": "tool_use", "id": toolID, "name": "Bash", "input": input}}, false)
	req := map[string]any{"subtype": "can_use_tool", "tool_name": "Bash", "display_name": "Bash", "input": input,
		"tool_use_id": toolID, "permission_suggestions": []any{}}
	if afterCancel {
		select {
		case <-t.m.interrupt:
		case <-time.After(time.Minute):
		}
		resp, ok := t.f.ask(req, 3*time.Second, nil)
		trace("permission", behavior(resp, ok))
		t.aborted()
		return
	}
	resp, ok := t.f.ask(req, time.Minute, t.m.interrupt)
	if interrupted(t.m) {
		trace("permission", "withdrawn")
		t.aborted()
		return
	}
	b := behavior(resp, ok)
	trace("permission", b)
	t.f.send(map[string]any{"type": "user", "session_id": t.f.session, "parent_tool_use_id": nil,
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result",
			"tool_use_id": toolID, "content": "ran: " + b, "is_error": b != "allow"}}}})
	t.newMessage()
	t.stream("asked: " + b)
	t.finish()
}

// behavior extracts allow/deny from a control_response, "error" for an
// error answer and "none" when nothing came.
func behavior(resp json.RawMessage, ok bool) string {
	if !ok {
		return "none"
	}
	var r struct {
		Subtype  string `json:"subtype"`
		Response struct {
			Behavior string `json:"behavior"`
		} `json:"response"`
	}
	_ = json.Unmarshal(resp, &r)
	if r.Subtype != "success" {
		return "error"
	}
	return r.Response.Behavior
}

// leakStderr writes a crash report that prints what it should not: the API
// key, a URL with it, a header and private paths.
func leakStderr() {
	key := os.Getenv("ANTHROPIC_API_KEY")
	fmt.Fprintf(os.Stderr, "fatal: request to https://gateway.internal.example/v1?key=%s failed\n", key)
	fmt.Fprintf(os.Stderr, "  x-api-key: %s\n  ANTHROPIC_API_KEY=%s\n  at /home/alice/.claude/creds.json\n", key, key)
}
