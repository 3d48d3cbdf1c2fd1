package faultcli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// fake is the state of one fake CLI process. The main goroutine reads
// stdin and answers control requests; one worker runs the queued user
// messages as turns, one after another.
type fake struct {
	session string

	wmu sync.Mutex
	out *bufio.Writer

	mu      sync.Mutex
	cond    *sync.Cond
	queue   []*userMsg
	eof     bool
	current *userMsg
	waiting map[string]chan json.RawMessage // our control requests by id
	nextID  int
	msgN    int
	eofCh   chan struct{} // closed when stdin reaches EOF
}

// userMsg is one user message and its turn's interrupt signal.
type userMsg struct {
	uuid      string
	text      string
	content   json.RawMessage
	interrupt chan struct{}
	once      sync.Once
}

func (u *userMsg) stop() { u.once.Do(func() { close(u.interrupt) }) }

// frame is one stdin line.
type frame struct {
	Type      string          `json:"type"`
	RequestID string          `json:"request_id"`
	Request   json.RawMessage `json:"request"`
	Response  json.RawMessage `json:"response"`
	UUID      string          `json:"uuid"`
	Message   struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

func run() int {
	if len(os.Args) == 2 && os.Args[1] == "--version" {
		fmt.Println("9.9.9 (Claude Code; faultcli)")
		return 0
	}
	if exe := os.Getenv(EnvProxy); exe != "" {
		return proxy(exe) // proxy.go: the real CLI, with faults
	}
	trace("start", strings.Join(os.Args[1:], " "))
	stubborn := os.Getenv(EnvStubborn) == "1"
	if stubborn {
		signal.Ignore(syscall.SIGTERM)
	}
	f := &fake{
		session: sessionArg(os.Args[1:]),
		out:     bufio.NewWriterSize(os.Stdout, 64<<10),
		waiting: map[string]chan json.RawMessage{},
		eofCh:   make(chan struct{}),
	}
	f.cond = sync.NewCond(&f.mu)
	if code, stop := f.startFault(); stop {
		trace("exit", fmt.Sprint(code))
		return code
	}
	go f.worker()
	f.readStdin()
	if stubborn {
		trace("stubborn", "ignoring stdin EOF")
		for {
			time.Sleep(time.Hour) // not select{}: the runtime would call that a deadlock
		}
	}
	f.mu.Lock()
	f.eof = true
	close(f.eofCh)
	f.cond.Broadcast()
	for f.current != nil || len(f.queue) > 0 {
		f.cond.Wait()
	}
	f.mu.Unlock()
	trace("exit", "0")
	return 0
}

// sessionArg finds the session id the agent gave (--session-id or --resume).
func sessionArg(args []string) string {
	for i, a := range args {
		for _, flag := range []string{"--session-id", "--resume"} {
			if v, ok := strings.CutPrefix(a, flag+"="); ok {
				return v
			}
			if a == flag && i+1 < len(args) {
				return args[i+1]
			}
		}
	}
	return "fake-session"
}

// startFault applies EnvStart; stop reports whether the process must end
// with code instead of serving.
func (f *fake) startFault() (code int, stop bool) {
	kind := os.Getenv(EnvStart)
	if kind == "" {
		return 0, false
	}
	if _, err := os.Stat(filepath.Join(os.Getenv(EnvDir), "healed")); err == nil {
		return 0, false
	}
	trace("start-fault", kind)
	switch kind {
	case "exit":
		fmt.Fprintln(os.Stderr, "Error: injected startup failure (faultcli)")
		return 1, true
	case "slow":
		time.Sleep(300 * time.Millisecond) // then starts as usual
		return 0, false
	case "hang":
		io.Copy(io.Discard, os.Stdin) // until the agent gives up and kills us
		time.Sleep(time.Hour)
		return 0, true
	case "garbage":
		f.raw("\x00\x01 not json at all")
		f.raw(`{"type":"control_response",`)
		fmt.Fprintln(os.Stderr, "Error: injected garbage (faultcli)")
		return 1, true
	case "flood":
		floodStderr()
		return 1, true
	case "leak":
		leakStderr()
		return 1, true
	}
	return 0, false
}

// floodStderr writes 32 MiB to stderr and a last line that says why.
func floodStderr() {
	chunk := []byte(strings.Repeat("flood flood flood flood flood flood flood\n", 1500))
	for range 512 {
		os.Stderr.Write(chunk)
	}
	fmt.Fprintln(os.Stderr, "FLOOD-END injected failure")
}

// readStdin reads frames until EOF. Like the real CLI, a line that is not
// JSON ends the process with status 1.
func (f *fake) readStdin() {
	br := bufio.NewReaderSize(os.Stdin, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var fr frame
			if jerr := json.Unmarshal(line, &fr); jerr != nil {
				fmt.Fprintf(os.Stderr, "Error parsing streaming input line (%d chars): %v\n", len(line), jerr)
				trace("exit", "1 bad stdin line")
				os.Exit(1)
			}
			trace("frame", fr.Type+" "+subtype(fr.Request))
			f.handle(fr)
		}
		if err != nil {
			return
		}
	}
}

func subtype(req json.RawMessage) string {
	var r struct {
		Subtype string `json:"subtype"`
	}
	_ = json.Unmarshal(req, &r)
	return r.Subtype
}

func (f *fake) handle(fr frame) {
	switch fr.Type {
	case "user":
		m := &userMsg{uuid: fr.UUID, content: fr.Message.Content, text: textOf(fr.Message.Content), interrupt: make(chan struct{})}
		f.mu.Lock()
		f.queue = append(f.queue, m)
		f.cond.Broadcast()
		f.mu.Unlock()
	case "control_request":
		f.control(fr)
	case "control_response":
		var r struct {
			RequestID string `json:"request_id"`
		}
		_ = json.Unmarshal(fr.Response, &r)
		f.mu.Lock()
		ch := f.waiting[r.RequestID]
		delete(f.waiting, r.RequestID)
		f.mu.Unlock()
		if ch != nil {
			ch <- fr.Response
		}
	}
}

// control answers the host's control requests.
func (f *fake) control(fr frame) {
	var req struct {
		Subtype     string `json:"subtype"`
		MessageUUID string `json:"message_uuid"`
		Mode        string `json:"mode"`
		Model       string `json:"model"`
	}
	_ = json.Unmarshal(fr.Request, &req)
	switch req.Subtype {
	case "initialize":
		f.respond(fr.RequestID, map[string]any{
			"commands": []any{}, "agents": []any{}, "output_style": "default",
			"models":  []any{map[string]any{"value": "default", "displayName": "Default", "description": "fake"}},
			"account": map[string]any{"apiKeySource": "none"}, "pid": os.Getpid(),
		})
	case "interrupt":
		f.respond(fr.RequestID, map[string]any{"still_queued": []any{}})
		f.mu.Lock()
		if f.current != nil {
			f.current.stop()
		}
		f.mu.Unlock()
	case "cancel_async_message":
		cancelled := false
		f.mu.Lock()
		for i, m := range f.queue {
			if m.uuid == req.MessageUUID {
				f.queue = append(f.queue[:i], f.queue[i+1:]...)
				cancelled = true
				break
			}
		}
		f.mu.Unlock()
		f.respond(fr.RequestID, map[string]any{"cancelled": cancelled})
		if cancelled {
			f.lifecycle(req.MessageUUID, "cancelled")
		}
	case "set_permission_mode":
		f.respond(fr.RequestID, map[string]any{"mode": req.Mode})
	case "set_model":
		f.respond(fr.RequestID, map[string]any{"model": req.Model})
	default:
		f.send(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "error",
			"request_id": fr.RequestID, "error": "Unsupported control request subtype: " + req.Subtype, "error_code": "unsupported_request"}})
	}
}

// ask sends a control request of our own and waits for the answer. When
// stop closes or d passes first, the request is withdrawn, as the CLI
// withdraws a pending can_use_tool after an interrupt.
func (f *fake) ask(req map[string]any, d time.Duration, stop <-chan struct{}) (json.RawMessage, bool) {
	f.mu.Lock()
	f.nextID++
	id := fmt.Sprintf("fake-req-%d", f.nextID)
	ch := make(chan json.RawMessage, 1)
	f.waiting[id] = ch
	f.mu.Unlock()
	f.send(map[string]any{"type": "control_request", "request_id": id, "request": req})
	select {
	case r := <-ch:
		return r, true
	case <-stop:
	case <-time.After(d):
	}
	f.mu.Lock()
	delete(f.waiting, id)
	f.mu.Unlock()
	f.send(map[string]any{"type": "control_cancel_request", "request_id": id})
	return nil, false
}

func (f *fake) respond(id string, resp any) {
	f.send(map[string]any{"type": "control_response", "response": map[string]any{
		"subtype": "success", "request_id": id, "response": resp}})
}

// send writes one frame; a write error means the host is gone.
func (f *fake) send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	f.raw(string(b))
}

func (f *fake) raw(line string) {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	f.out.WriteString(line)
	f.out.WriteByte('\n')
	if err := f.out.Flush(); err != nil {
		trace("exit", "stdout closed")
		os.Exit(1)
	}
}

func textOf(content json.RawMessage) string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(content, &blocks)
	var sb strings.Builder
	for _, b := range blocks {
		sb.WriteString(b.Text)
	}
	return sb.String()
}
