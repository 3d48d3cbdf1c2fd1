package claude

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// The test binary doubles as a fake `claude`: when CLAUDE_FAKE_SCENARIO is
// set, TestMain runs that scenario instead of the tests. The fake speaks the
// stream-json protocol on stdin/stdout like the real CLI and, like it, dies
// on a stdin line that is not JSON, so every test also checks that the
// driver only ever writes whole lines.
func TestMain(m *testing.M) {
	ReaperMain()
	if sc := os.Getenv("CLAUDE_FAKE_SCENARIO"); sc != "" {
		os.Exit(runFake(sc))
	}
	goleak.VerifyTestMain(m)
}

// fake is the state of a fake CLI process.
type fake struct {
	mu  sync.Mutex
	out *bufio.Writer
	in  chan frame
}

// frame is one stdin line as the fake saw it.
type frame struct {
	m   map[string]any
	raw string
}

func (f frame) typ() string { s, _ := f.m["type"].(string); return s }

func (f frame) reqID() string { s, _ := f.m["request_id"].(string); return s }

func (f frame) sub() string {
	r, _ := f.m["request"].(map[string]any)
	s, _ := r["subtype"].(string)
	return s
}

func (f frame) text() string {
	msg, _ := f.m["message"].(map[string]any)
	blocks, _ := msg["content"].([]any)
	var sb strings.Builder
	for _, b := range blocks {
		if bm, ok := b.(map[string]any); ok {
			s, _ := bm["text"].(string)
			sb.WriteString(s)
		}
	}
	return sb.String()
}

func runFake(scenario string) int {
	f := &fake{out: bufio.NewWriterSize(os.Stdout, 1<<16), in: make(chan frame, 64)}
	go f.readStdin()
	fn, ok := scenarios[scenario]
	if !ok {
		fmt.Fprintf(os.Stderr, "fake claude: unknown scenario %q\n", scenario)
		return 2
	}
	return fn(f)
}

// readStdin parses stdin like the CLI: a line that is not JSON is fatal.
func (f *fake) readStdin() {
	br := bufio.NewReaderSize(os.Stdin, 1<<16)
	for {
		line, err := br.ReadString('\n')
		if strings.TrimSpace(line) != "" {
			var m map[string]any
			if jerr := json.Unmarshal([]byte(line), &m); jerr != nil || !strings.HasSuffix(line, "\n") {
				fmt.Fprintf(os.Stderr, "Error parsing streaming input line (%d chars): %v\n", len(line), jerr)
				os.Exit(1)
			}
			f.in <- frame{m, strings.TrimSuffix(line, "\n")}
		}
		if err != nil {
			close(f.in)
			return
		}
	}
}

// send writes one frame (a string is written as is) and flushes.
func (f *fake) send(v any) {
	var b []byte
	if s, ok := v.(string); ok {
		b = []byte(s)
	} else {
		b, _ = json.Marshal(v)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.out.Write(b)
	f.out.WriteByte('\n')
	f.out.Flush()
}

// next returns the next stdin frame; ok is false at EOF or after d.
func (f *fake) next(d time.Duration) (frame, bool) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case fr, ok := <-f.in:
		return fr, ok
	case <-t.C:
		return frame{}, false
	}
}

// handshake waits for initialize and answers it.
func (f *fake) handshake() bool {
	fr, ok := f.next(time.Minute)
	if !ok || fr.typ() != "control_request" || fr.sub() != "initialize" {
		fmt.Fprintf(os.Stderr, "fake: expected initialize, got %q\n", fr.raw)
		return false
	}
	f.respond(fr.reqID(), map[string]any{
		"claude_code_version": "9.9.9-fake", "pid": os.Getpid(),
		"models":  []any{map[string]any{"value": "default", "displayName": "Default"}},
		"account": map[string]any{"apiKeySource": "none"},
		"echo":    fr.m["request"],
	})
	return true
}

func (f *fake) respond(id string, resp any) {
	f.send(map[string]any{"type": "control_response", "response": map[string]any{
		"subtype": "success", "request_id": id, "response": resp}})
}

func (f *fake) respondError(id, msg, code string) {
	f.send(map[string]any{"type": "control_response", "response": map[string]any{
		"subtype": "error", "request_id": id, "error": msg, "error_code": code}})
}

func (f *fake) assistant(text string) {
	f.send(map[string]any{"type": "assistant", "session_id": "fake-session", "uuid": "u-a",
		"parent_tool_use_id": nil,
		"message": map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": "fake-model",
			"content": []any{map[string]any{"type": "text", "text": text}}, "stop_reason": nil}})
}

func (f *fake) result(text string, isError bool) {
	// Field order like the real CLI: "type" in the middle.
	f.send(map[string]any{"duration_ms": 1, "is_error": isError, "num_turns": 1, "result": text,
		"type": "result", "subtype": "success", "session_id": "fake-session", "total_cost_usd": 0.0})
}

// controlRequest sends a CLI-originated request.
func (f *fake) controlRequest(id string, req map[string]any) {
	f.send(map[string]any{"type": "control_request", "request_id": id, "request": req})
}

// awaitResponse waits for the host's answer to request id and returns its
// "response" object.
func (f *fake) awaitResponse(id string, d time.Duration) (map[string]any, bool) {
	deadline := time.Now().Add(d)
	for {
		fr, ok := f.next(time.Until(deadline))
		if !ok {
			return nil, false
		}
		if fr.typ() == "control_response" {
			r, _ := fr.m["response"].(map[string]any)
			if r["request_id"] == id {
				return r, true
			}
		}
	}
}

// serve is the main loop of the ordinary scenarios: it answers user
// messages and the host's control requests until stdin closes.
func (f *fake) serve(onUser func(fr frame)) int {
	for fr := range f.in {
		switch fr.typ() {
		case "user":
			onUser(fr)
		case "control_request":
			f.serveControl(fr)
		case "control_cancel_request":
			f.send(map[string]any{"type": "fake_cancel_seen", "request_id": fr.m["request_id"]})
		}
	}
	return 0
}

func (f *fake) serveControl(fr frame) {
	req, _ := fr.m["request"].(map[string]any)
	switch fr.sub() {
	case "interrupt":
		f.respond(fr.reqID(), map[string]any{"still_queued": []any{}})
	case "set_model":
		if req["model"] == "bad-model" {
			f.respondError(fr.reqID(), "Model bad-model is not available", "")
			return
		}
		f.respond(fr.reqID(), map[string]any{"model": req["model"]})
	case "set_permission_mode":
		f.respond(fr.reqID(), map[string]any{"mode": req["mode"]})
	case "set_max_thinking_tokens":
		f.send(map[string]any{"type": "fake_echo", "request": req})
		f.send(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success", "request_id": fr.reqID()}})
	case "mcp_status":
		f.respond(fr.reqID(), map[string]any{"mcpServers": []any{map[string]any{"name": "srv", "status": "connected"}}})
	case "never_answer":
	default:
		f.respondError(fr.reqID(), "Unsupported control request subtype: "+fr.sub(), "unsupported_request")
	}
}

func echoTurn(f *fake) func(frame) {
	return func(fr frame) {
		f.send(map[string]any{"type": "system", "subtype": "init", "session_id": "fake-session", "model": "fake-model"})
		f.assistant("echo: " + fr.text())
		f.result("echo: "+fr.text(), false)
	}
}

var scenarios = map[string]func(f *fake) int{
	"echo": func(f *fake) int {
		if !f.handshake() {
			return 1
		}
		return f.serve(echoTurn(f))
	},

	"args": func(f *fake) int {
		// Read as the CLI reads it: at start, before the handshake.
		var mcpConfig, mcpMode string
		for i, a := range os.Args {
			if a == "--mcp-config" && i+1 < len(os.Args) {
				b, _ := os.ReadFile(os.Args[i+1])
				mcpConfig = string(b)
				if fi, err := os.Stat(os.Args[i+1]); err == nil {
					mcpMode = fi.Mode().Perm().String()
				}
			}
		}
		if !f.handshake() {
			return 1
		}
		wd, _ := os.Getwd()
		env := map[string]string{}
		for _, k := range []string{"CLAUDE_CODE_ENTRYPOINT", "CLAUDE_CODE_SDK_READS_SESSION_STATE", "NODE_OPTIONS", "DEBUG", "KEEP_ME", "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING"} {
			if v, ok := os.LookupEnv(k); ok {
				env[k] = v
			}
		}
		f.send(map[string]any{"type": "fake_args", "args": os.Args[1:], "env": env, "cwd": wd, "mcpConfig": mcpConfig, "mcpMode": mcpMode})
		return f.serve(echoTurn(f))
	},

	"garbage": func(f *fake) int {
		if !f.handshake() {
			return 1
		}
		return f.serve(func(fr frame) {
			f.send("this is not json")
			f.send(`{"type":"assistant",broken`)
			f.send("")
			f.send("\x1b[31mcolour\x1b[0m")
			f.send(`{"payload":{"a":[1,"}"]},"type":"brand_new_kind"}`)
			f.send(`{"type":"system","subtype":"brand_new_subtype","x":1}`)
			f.result("done", false)
		})
	},

	"crash": func(f *fake) int {
		if !f.handshake() {
			return 1
		}
		<-f.in
		f.send(map[string]any{"type": "stream_event", "event": map[string]any{"type": "message_start"}})
		fmt.Fprintln(os.Stderr, "fatal: something broke mid-turn")
		return 3
	},

	"hang": func(f *fake) int {
		time.Sleep(time.Hour)
		return 0
	},

	"session_in_use": func(f *fake) int {
		fmt.Fprintln(os.Stderr, "Error: Session ID 11111111-2222-3333-4444-555555555555 is already in use.")
		return 1
	},

	"resume_missing": func(f *fake) int {
		f.send(`{"type":"result","subtype":"error_during_execution","is_error":true,"num_turns":0,"session_id":"7e5","errors":["No conversation found with session ID: 7e5"]}`)
		fmt.Fprintln(os.Stderr, "No conversation found with session ID: 7e5")
		return 1
	},

	"root_bypass": func(f *fake) int {
		fmt.Fprintln(os.Stderr, "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons")
		return 1
	},

	"init_error": func(f *fake) int {
		fr, _ := f.next(time.Minute)
		f.respondError(fr.reqID(), "bad initialize", "")
		return f.serve(echoTurn(f))
	},

	"exit0_early": func(f *fake) int { return 0 },

	"stderr_flood": func(f *fake) int {
		chunk := []byte(strings.Repeat("flood flood flood flood flood flood flood\n", 1500)) // ~64 KiB
		for i := 0; i < 512; i++ {                                                           // ~32 MiB
			os.Stderr.Write(chunk)
		}
		fmt.Fprintln(os.Stderr, "FLOOD-END")
		if !f.handshake() {
			return 1
		}
		<-f.in
		return 2
	},

	"big_line": func(f *fake) int {
		if !f.handshake() {
			return 1
		}
		return f.serve(func(fr frame) {
			// Built by hand: json.Marshal of 20 MB is slow under -race.
			f.send(`{"type":"assistant","message":{"role":"assistant","model":"fake-model","content":[{"type":"text","text":"` +
				strings.Repeat("x", 20<<20) + `"}]},"session_id":"fake-session"}`)
			f.result("big", false)
		})
	},

	"can_use_tool": func(f *fake) int {
		if !f.handshake() {
			return 1
		}
		n := 0
		return f.serve(func(fr frame) {
			n++
			id := fmt.Sprintf("perm-%d", n)
			f.controlRequest(id, map[string]any{"subtype": "can_use_tool", "tool_name": "Bash", "display_name": "Bash",
				"input": map[string]any{"command": "touch x"}, "tool_use_id": "toolu_" + fr.text(),
				"permission_suggestions": []any{map[string]any{"type": "setMode", "mode": "acceptEdits", "destination": "session"}}})
			resp, ok := f.awaitResponse(id, time.Minute)
			if !ok {
				return
			}
			f.send(map[string]any{"type": "fake_permission", "response": resp})
			f.result("ok", false)
		})
	},

	"cli_cancel": func(f *fake) int {
		if !f.handshake() {
			return 1
		}
		return f.serve(func(fr frame) {
			f.controlRequest("perm-c", map[string]any{"subtype": "can_use_tool", "tool_name": "Bash",
				"input": map[string]any{}, "tool_use_id": "toolu_c"})
			time.Sleep(100 * time.Millisecond)
			f.send(map[string]any{"type": "control_cancel_request", "request_id": "perm-c"})
			_, answered := f.awaitResponse("perm-c", 500*time.Millisecond)
			f.result(fmt.Sprintf("answered=%v", answered), false)
		})
	},

	"cli_request": func(f *fake) int {
		if !f.handshake() {
			return 1
		}
		return f.serve(func(fr frame) {
			sub := fr.text()
			f.controlRequest("req-1", map[string]any{"subtype": sub, "server_name": "srv",
				"callback_id": "hook_0", "input": map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash"},
				"message": map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}})
			resp, _ := f.awaitResponse("req-1", time.Minute)
			f.send(map[string]any{"type": "fake_answer", "response": resp})
			f.result("ok", false)
		})
	},

	"flood": func(f *fake) int {
		if !f.handshake() {
			return 1
		}
		return f.serve(func(fr frame) {
			for i := 0; i < 5000; i++ {
				f.send(fmt.Sprintf(`{"type":"stream_event","event":{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":"%s"}},"session_id":"s"}`, i, strings.Repeat("y", 200)))
			}
			f.result("flooded", false)
		})
	},

	"ignore_eof": func(f *fake) int {
		if !f.handshake() {
			return 1
		}
		for range f.in {
		}
		time.Sleep(time.Hour)
		return 0
	},

	// interruptible runs a turn until an interrupt (then it ends it, as
	// the CLI does, and notes the interrupt in $CLAUDE_FAKE_MARK); stdin
	// EOF does not end a running turn, as with the CLI.
	"interruptible": func(f *fake) int {
		if !f.handshake() {
			return 1
		}
		for fr := range f.in {
			switch {
			case fr.typ() == "user":
				f.send(map[string]any{"type": "system", "subtype": "init", "session_id": "fake-session", "model": "fake-model"})
			case fr.typ() == "control_request" && fr.sub() == "interrupt":
				f.respond(fr.reqID(), map[string]any{"still_queued": []any{}})
				_ = os.WriteFile(os.Getenv("CLAUDE_FAKE_MARK"), []byte("interrupted"), 0o600)
				f.result("[Request interrupted by user]", true)
			}
		}
		time.Sleep(time.Hour) // a turn that was not interrupted runs on
		return 0
	},

	"ignore_term": func(f *fake) int {
		signal.Ignore(syscall.SIGTERM)
		if !f.handshake() {
			return 1
		}
		for range f.in {
		}
		time.Sleep(time.Hour)
		return 0
	},

	// grandchild starts a process in the fake's group and reports its pid;
	// it must not outlive the fake.
	"grandchild": func(f *fake) int {
		if !f.handshake() {
			return 1
		}
		cmd := exec.Command("sleep", "300")
		if err := cmd.Start(); err != nil {
			return 1
		}
		f.send(map[string]any{"type": "fake_child", "pid": cmd.Process.Pid})
		return f.serve(echoTurn(f))
	},

	// escaped starts a process in its own session that keeps the fake's
	// stdout open, then exits: the driver must still finish.
	"escaped": func(f *fake) int {
		if !f.handshake() {
			return 1
		}
		cmd := exec.Command("sleep", "30")
		cmd.Stdout = os.Stdout
		cmd.Stderr = os.Stderr
		newSession(cmd)
		if err := cmd.Start(); err != nil {
			return 1
		}
		f.send(map[string]any{"type": "fake_child", "pid": cmd.Process.Pid})
		<-f.in
		return 0
	},
}
