// Package clifake is a Claude Code CLI that runs inside the test's own
// process, behind claude.Process (claude.Options.Launch, agent.Config's
// Launch): whole sessions run in memory, with no process, pipe or Node, so
// tests of the agent's lifecycle run under testing/synctest, in its fake
// time, in milliseconds.
//
// It speaks the stream-json and control protocol the way the real CLI does
// (the shapes of claude-cli-protocol.md, as internal/test/faultcli does for a
// process): the initialize handshake, user messages queued and run one
// after another with command_lifecycle and session_state_changed frames,
// streamed text, a Bash tool call with can_use_tool in the modes that ask,
// interrupt, cancel_async_message, set_permission_mode and set_model; it
// finishes the running turn when its stdin closes and dies at once on
// SIGTERM or SIGKILL, and it keeps a transcript the agent's session/load
// reads (--session-id, --resume, unknown ids fail as the real CLI fails;
// --fork-session copies the source's records as the real CLI does,
// fork.go) and a resumed CLI sends its model (Request.History). It calls
// the host's SDK MCP servers (initialize's sdkMcpServers) through
// mcp_message, with their PreToolUse hooks, as the real CLI does
// (sdkmcp.go). A World can make
// CLIs slow to start (StartDelay) or fail to start (StartFails).
//
// What the model answers is the test's: [World.Model] is asked at every
// model request. Everything that matters to the invariants a test checks
// is logged in the [World]: each CLI's start, model request, tool run,
// signal and exit, stamped with the (fake) time.
package clifake

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/claude"
	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
)

// A Request is one model request of a turn.
type Request struct {
	CLI      int    // the CLI making it (its index in the World)
	Session  string // the CLI's session id
	Prompt   string // the text of the user message the turn runs
	FollowUp bool   // the request after a tool ran (else the turn's first)
	// History is the conversation's earlier prompts, oldest first: what
	// the CLI resumed from its transcript (--resume) and the turns it ran
	// since, as the real CLI sends them to the model.
	History []string
	// Model and Mode are what the CLI runs with: --model or the last
	// set_model ("" = the default), --permission-mode or the last
	// set_permission_mode.
	Model, Mode string
	// ToolResult is what a follow-up request tells the model of the tool
	// (its output, or why it did not run); ToolFailed when it did not.
	ToolResult string
	ToolFailed bool
	// ToolID is the id of that tool call.
	ToolID string
}

// A Reply is what the model does with a request.
type Reply struct {
	// Delay is how long the model thinks before the first output.
	Delay time.Duration
	// Chunks are streamed as text deltas, Every apart.
	Chunks []string
	Every  time.Duration
	// Tool, when set, is a Bash command the model calls after its text
	// (ignored in a follow-up): the CLI asks can_use_tool where the mode
	// asks, runs it for ToolTime, and makes a follow-up request.
	Tool     string
	ToolID   string
	ToolTime time.Duration
	// End is how the turn ends, when it ends without interrupt.
	End End
	// Frames, when set, are the turn's output instead of the above: frames
	// the real CLI wrote, played as they are (Recorded, recorded.go), Every
	// apart after Delay. They end the turn.
	Frames []string

	// ToolOutput is what Tool prints when it runs (its stdout, the
	// result the model is told); "" prints "ran " and the command.
	ToolOutput string
	// ToolName and ToolInput, when set, make the call another tool than
	// Bash (AskUserQuestion, say) with that input, asked for and answered
	// the same way (tools.go); Tool still says that there is a call. A
	// tool of an SDK MCP server (mcp__<server>__<tool>, or a built-in's
	// name the CLI aliases to one) is called through the host
	// (sdkmcp.go), and a follow-up's reply may call one again: such calls
	// chain within a turn, as the real CLI's agentic loop does.
	ToolName  string
	ToolInput map[string]any
	// APIError, when set, is the API's answer to the request: the CLI
	// ends the turn with the real CLI's synthetic error message and an
	// is_error result, and stays up (extras.go). Chunks, Tool and End
	// are then not used.
	APIError *APIError
}

// End is how a turn ends.
type End int

const (
	// Result: the result frame, then idle (the normal end).
	Result End = iota
	// LostResult: no result frame, but idle (the frame was lost).
	LostResult
	// DupResult: the result frame twice.
	DupResult
	// Die: the CLI exits with status 1 before the result.
	Die
)

// An Event is one thing a fake CLI did.
type Event struct {
	At      time.Time
	CLI     int
	Session string
	Kind    string // start, request, tool, signal, eof, exit
	Detail  string
}

// A World holds the fake CLIs of one test and the log of what they did.
type World struct {
	// Model answers every model request. Set it before the first CLI
	// starts; it is called on the CLIs' goroutines, one at a time.
	Model func(Request) Reply
	// StartFails, when set, is asked as each CLI starts: true makes that
	// CLI print an error on stderr and exit 1 before the handshake, as a
	// CLI that cannot start does. Set it before the first CLI starts, or
	// under the test's own lock.
	StartFails func(cli int) bool
	// StartDelay is how long a CLI takes to start before it reads its
	// stdin (the real one takes about a second); 0 starts at once.
	StartDelay time.Duration
	// StartGate, when set, holds each CLI, once started (and after
	// StartDelay), until the channel is closed: it reads nothing of its
	// stdin meanwhile, as a CLI slow to come up.
	StartGate <-chan struct{}
	// RichTranscript makes the transcript keep more of each turn, as the
	// real CLI's does, for tests of the agent's replay: each prompt under
	// the uuid the host sent it with (the live turn id, where the default
	// is an id of the fake's own), and a tool call and its result
	// (extras.go has the records).
	RichTranscript bool
	// Models, when set, is the model list of the CLI's initialize answer
	// (each entry as the real CLI writes it: value, displayName,
	// description, …); the default is one "default" model.
	Models []map[string]any

	mu      sync.Mutex
	clis    []*CLI
	events  []Event
	model   sync.Mutex
	records atomic.Int64 // transcript lines written, for their uuids
}

// Launch starts a fake CLI for a claude.Process; give it to
// claude.Options.Launch (agent.Config.Launch).
func (w *World) Launch(cmd claude.Command) (claude.Child, error) {
	c := newCLI(w, cmd)
	w.mu.Lock()
	c.n = len(w.clis)
	w.clis = append(w.clis, c)
	w.mu.Unlock()
	go c.run()
	return c, nil
}

// Events returns the log, in order.
func (w *World) Events() []Event {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.events)
}

// Live returns the CLIs that have not exited.
func (w *World) Live() []*CLI {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []*CLI
	for _, c := range w.clis {
		select {
		case <-c.done:
		default:
			out = append(out, c)
		}
	}
	return out
}

// Kill makes CLI n die at once, as a process killed from outside would.
func (w *World) Kill(n int) {
	w.mu.Lock()
	c := w.clis[n]
	w.mu.Unlock()
	c.exit(-1, syscall.SIGKILL)
}

func (w *World) log(c *CLI, kind, detail string) {
	w.mu.Lock()
	w.events = append(w.events, Event{At: time.Now(), CLI: c.n, Session: c.session, Kind: kind, Detail: detail})
	w.mu.Unlock()
}

func (w *World) ask(r Request) Reply {
	w.model.Lock()
	defer w.model.Unlock()
	if w.Model == nil {
		return Reply{Chunks: []string{"Hello from the fake CLI."}}
	}
	return w.Model(r)
}

// A CLI is one fake CLI process.
type CLI struct {
	w       *World
	n       int
	session string
	dir     string
	config  string // the config directory (transcripts)
	tmp     string // the temporary directory (task output files, taskfile.go)
	resume  bool
	args    []string // the command line, after the executable
	forkOf  string   // --fork-session: the session resumed and copied (fork.go)
	copied  bool     // the fork's transcript has its copy of forkOf's
	started startup  // what it was started with (startup.go)

	stdinR, outR, errR pipeReader // pipes with a kernel pipe's buffer (pipe.go)
	stdinW, outW, errW pipeWriter

	wmu  sync.Mutex // one frame at a time on stdout
	mu   sync.Mutex
	cond *sync.Cond
	// Owned under mu:
	queue   []*message
	current *message
	mode    string
	model   string
	history []string // the conversation's prompts so far (Request.History)
	eof     bool
	waiting map[string]chan json.RawMessage // our control requests, by id
	nextID  int
	parent  string     // the transcript's last uuid
	sdk     sdkServers // SDK MCP servers and hooks (sdkmcp.go)

	once   sync.Once
	done   chan struct{}
	code   int
	signal syscall.Signal
}

type message struct {
	uuid, text string
	interrupt  chan struct{}
	once       sync.Once
	steered    bool // a steer aborted its cycle (steer.go; under the CLI's mu)
}

func (m *message) stop() { m.once.Do(func() { close(m.interrupt) }) }

func newCLI(w *World, cmd claude.Command) *CLI {
	c := &CLI{w: w, dir: cmd.Dir, mode: claude.PermissionDefault, args: slices.Clone(cmd.Args), waiting: map[string]chan json.RawMessage{}, done: make(chan struct{})}
	c.cond = sync.NewCond(&c.mu)
	for _, p := range []struct {
		r *pipeReader
		w *pipeWriter
	}{{&c.stdinR, &c.stdinW}, {&c.outR, &c.outW}, {&c.errR, &c.errW}} {
		pp := newPipe()
		*p.r, *p.w = pipeReader{pp}, pipeWriter{pp}
	}
	sessionID, resumeID := "", ""
	for i, a := range cmd.Args {
		for _, flag := range []string{"--session-id", "--resume", "--permission-mode", "--model"} {
			v, ok := strings.CutPrefix(a, flag+"=")
			if !ok && a == flag && i+1 < len(cmd.Args) {
				v, ok = cmd.Args[i+1], true
			}
			if !ok {
				continue
			}
			switch flag {
			case "--session-id":
				c.session, sessionID = v, v
			case "--resume":
				c.session, c.resume, resumeID = v, true, v
			case "--permission-mode":
				c.mode = v
			case "--model":
				c.model = v
			}
		}
	}
	c.fork(cmd.Args, resumeID, sessionID)
	c.keepStart(cmd.Env)    // startup.go
	c.tmp = tmpDir(cmd.Env) // taskfile.go
	c.config = env(cmd.Env, "CLAUDE_CONFIG_DIR")
	if c.config == "" {
		c.config = filepath.Join(env(cmd.Env, "HOME"), ".claude")
	}
	return c
}

func env(kv []string, key string) string {
	for i := len(kv) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(kv[i], key+"="); ok {
			return v
		}
	}
	return ""
}

// The claude.Child side.

func (c *CLI) Stdin() io.WriteCloser { return c.stdinW }
func (c *CLI) Stdout() io.ReadCloser { return c.outR }
func (c *CLI) Stderr() io.ReadCloser { return c.errR }
func (c *CLI) Wait() (int, syscall.Signal) {
	<-c.done
	return c.code, c.signal
}

// Signal: SIGTERM ends the CLI at once with status 143, as the real CLI
// does (no result frame); SIGKILL kills it.
func (c *CLI) Signal(sig syscall.Signal) {
	c.w.log(c, "signal", sig.String())
	if sig == syscall.SIGKILL {
		c.exit(-1, syscall.SIGKILL)
		return
	}
	c.exit(143, 0)
}

// N is the CLI's index in its World.
func (c *CLI) N() int { return c.n }

// Session is the CLI's session id (--session-id or --resume).
func (c *CLI) Session() string { return c.session }

// Flag is the value of a --name flag on the CLI's command line ("" when
// it was not given; "true" for a flag without a value).
func (c *CLI) Flag(name string) string { return flagValue(c.args, name) }

// flagValue is Flag on a command line.
func flagValue(args []string, name string) string {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v
		}
		if a == "--"+name {
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "--") {
				return args[i+1]
			}
			return "true"
		}
	}
	return ""
}

// CLIs returns every CLI the World started, in order.
func (w *World) CLIs() []*CLI {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.clis)
}

// exit ends the CLI: nothing more is written, stdin is closed under the
// writer, and Wait returns.
func (c *CLI) exit(code int, sig syscall.Signal) {
	c.once.Do(func() {
		c.mu.Lock()
		c.code, c.signal = code, sig
		current := c.current
		c.mu.Unlock()
		c.w.log(c, "exit", fmt.Sprint(code, " ", sig))
		// Dead before the running turn is stopped: a turn that wakes
		// from its stop sends nothing (a killed CLI does not answer
		// an interrupt).
		close(c.done)
		if current != nil {
			current.stop()
		}
		c.cond.Broadcast()
		c.wmu.Lock() // no frame half written
		_ = c.outW.Close()
		_ = c.errW.Close()
		c.wmu.Unlock()
		_ = c.stdinR.CloseWithError(errors.New("clifake: the CLI has exited"))
	})
}

func (c *CLI) dead() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// run is the CLI's life: it checks its session, then handles what comes
// on stdin while a worker runs the queued messages. What is written while
// the CLI starts waits in stdin's pipe buffer (pipe.go), as with a real
// CLI: a writer never waits for the CLI to be ready.
func (c *CLI) run() {
	c.w.log(c, "start", c.session)
	if f := c.w.StartFails; f != nil && f(c.n) {
		fmt.Fprintln(c.errW, "Error: the fake CLI was told not to start")
		c.exit(1, 0)
		return
	}
	path, resumed := c.transcriptPath(), c.session
	if c.forkOf != "" {
		path, resumed = c.pathOf(c.forkOf), c.forkOf
	}
	_, err := os.Stat(path)
	switch {
	case c.resume && err != nil:
		c.send(map[string]any{"type": "result", "subtype": "error_during_execution", "is_error": true, "num_turns": 0,
			"session_id": c.session, "errors": []string{"No conversation found with session ID: " + resumed}})
		fmt.Fprintf(c.errW, "No conversation found with session ID: %s\n", resumed)
		c.exit(1, 0)
		return
	case !c.resume && err == nil:
		fmt.Fprintf(c.errW, "Error: Session ID %s is already in use.\n", c.session)
		c.exit(1, 0)
		return
	}
	if c.resume {
		c.parent = lastUUID(path)
		c.history = prompts(path)
	}
	if d := c.w.StartDelay; d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-c.done:
			t.Stop()
			return
		}
	}
	if g := c.w.StartGate; g != nil {
		select {
		case <-g:
		case <-c.done:
			return
		}
	}
	go c.worker()
	br := bufio.NewReaderSize(c.stdinR, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			var fr frame
			if json.Unmarshal(line, &fr) != nil {
				fmt.Fprintf(c.errW, "Error parsing streaming input line\n")
				c.exit(1, 0)
				return
			}
			c.handle(fr)
		}
		if err != nil {
			break
		}
	}
	if c.dead() {
		return
	}
	c.w.log(c, "eof", "")
	c.mu.Lock()
	c.eof = true
	c.cond.Broadcast()
	c.mu.Unlock()
}

type frame struct {
	Type      string          `json:"type"`
	RequestID string          `json:"request_id"`
	Request   json.RawMessage `json:"request"`
	Response  json.RawMessage `json:"response"`
	UUID      string          `json:"uuid"`
	Priority  string          `json:"priority"` // steer.go
	Message   struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

func (c *CLI) handle(fr frame) {
	switch fr.Type {
	case "user":
		m := &message{uuid: fr.UUID, text: textOf(fr.Message.Content), interrupt: make(chan struct{})}
		if c.steer(m, fr.Priority) { // steer.go
			return
		}
		c.mu.Lock()
		c.queue = append(c.queue, m)
		c.cond.Broadcast()
		c.mu.Unlock()
	case "control_request":
		c.control(fr)
	case "control_response":
		var r struct {
			RequestID string `json:"request_id"`
		}
		_ = json.Unmarshal(fr.Response, &r)
		c.mu.Lock()
		ch := c.waiting[r.RequestID]
		delete(c.waiting, r.RequestID)
		c.mu.Unlock()
		if ch != nil {
			ch <- fr.Response
		}
	}
}

func (c *CLI) control(fr frame) {
	var req struct {
		Subtype     string `json:"subtype"`
		MessageUUID string `json:"message_uuid"`
		Mode        string `json:"mode"`
		Model       string `json:"model"`
	}
	_ = json.Unmarshal(fr.Request, &req)
	switch req.Subtype {
	case "initialize":
		c.keepInit(fr.Request) // startup.go
		c.keepSDK(fr.Request)  // sdkmcp.go
		c.mu.Lock()
		mode := c.mode
		c.mu.Unlock()
		// current_permission_mode as the real CLI's answer has it: the
		// agent sets a mode chosen while the CLI started from it.
		c.respond(fr.RequestID, map[string]any{
			"commands": []any{}, "agents": []any{}, "output_style": "default",
			"models":  c.w.models(), // startup.go
			"account": map[string]any{"apiKeySource": "none"}, "pid": c.n,
			"current_permission_mode": mode,
		})
	case "interrupt":
		c.respond(fr.RequestID, map[string]any{"still_queued": []any{}})
		c.mu.Lock()
		if c.current != nil {
			c.current.stop()
		}
		c.mu.Unlock()
	case "cancel_async_message":
		cancelled := false
		c.mu.Lock()
		for i, m := range c.queue {
			if m.uuid == req.MessageUUID {
				c.queue = slices.Delete(c.queue, i, i+1)
				cancelled = true
				break
			}
		}
		c.mu.Unlock()
		c.respond(fr.RequestID, map[string]any{"cancelled": cancelled})
		if cancelled {
			c.lifecycle(req.MessageUUID, "cancelled")
		}
	case "set_permission_mode":
		c.mu.Lock()
		c.mode = req.Mode
		c.mu.Unlock()
		c.respond(fr.RequestID, map[string]any{"mode": req.Mode})
	case "set_model":
		c.mu.Lock()
		c.model = req.Model
		c.mu.Unlock()
		c.respond(fr.RequestID, map[string]any{"model": req.Model})
	case "list_permission_rules":
		c.respond(fr.RequestID, c.permissionRules()) // sdkmcp.go
	case "get_settings":
		c.respond(fr.RequestID, map[string]any{"applied": map[string]any{}})
	default:
		c.send(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "error",
			"request_id": fr.RequestID, "error": "Unsupported control request subtype: " + req.Subtype}})
	}
}

// controlRequest sends a control request of the CLI's own and waits for the
// answer, or for stop or the CLI's end (ok false); id is the request's.
func (c *CLI) controlRequest(req map[string]any, stop <-chan struct{}) (resp json.RawMessage, id string, ok bool) {
	c.mu.Lock()
	c.nextID++
	id = fmt.Sprintf("fake-%d-%d", c.n, c.nextID)
	ch := make(chan json.RawMessage, 1)
	c.waiting[id] = ch
	c.mu.Unlock()
	c.send(map[string]any{"type": "control_request", "request_id": id, "request": req})
	select {
	case r := <-ch:
		return r, id, true
	case <-stop:
	case <-c.done:
	}
	c.mu.Lock()
	delete(c.waiting, id)
	c.mu.Unlock()
	return nil, id, false
}

// ask is controlRequest for can_use_tool: an interrupt withdraws it
// (control_cancel_request), as the CLI does.
func (c *CLI) ask(req map[string]any, stop <-chan struct{}) (json.RawMessage, bool) {
	resp, id, ok := c.controlRequest(req, stop)
	if !ok {
		c.send(map[string]any{"type": "control_cancel_request", "request_id": id})
	}
	return resp, ok
}

// A permission is the client's answer to can_use_tool, as the CLI reads it.
type permission struct {
	allowed            bool
	denial             string            // the message Claude gets when not allowed
	updatedInput       map[string]any    // nil: the input as asked
	updatedPermissions []json.RawMessage // rules and modes the answer grants
}

// askPermission asks can_use_tool; ok is false when the turn ends instead
// (an interrupt, or a denial that interrupts, which ends the turn as an
// interrupt does).
func (c *CLI) askPermission(req map[string]any, stop <-chan struct{}) (p permission, ok bool) {
	resp, ok := c.ask(req, stop)
	if !ok {
		return p, false
	}
	var a struct {
		Subtype  string `json:"subtype"`
		Response struct {
			Behavior           string            `json:"behavior"`
			Message            string            `json:"message"`
			Interrupt          bool              `json:"interrupt"`
			UpdatedInput       map[string]any    `json:"updatedInput"`
			UpdatedPermissions []json.RawMessage `json:"updatedPermissions"`
		} `json:"response"`
	}
	_ = json.Unmarshal(resp, &a)
	if a.Subtype == "success" && a.Response.Behavior == "deny" && a.Response.Interrupt {
		return p, false
	}
	p = permission{allowed: a.Subtype == "success" && a.Response.Behavior == "allow", denial: a.Response.Message}
	if a.Subtype != "success" {
		p.denial = "Tool permission request failed"
	}
	if p.allowed {
		p.updatedInput, p.updatedPermissions = a.Response.UpdatedInput, a.Response.UpdatedPermissions
	}
	return p, true
}

func (c *CLI) respond(id string, resp any) {
	c.send(map[string]any{"type": "control_response", "response": map[string]any{
		"subtype": "success", "request_id": id, "response": resp}})
}

// send writes one frame; nothing once the CLI has exited.
func (c *CLI) send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.dead() {
		return
	}
	_, _ = c.outW.Write(append(b, '\n'))
}

func (c *CLI) lifecycle(uuid, state string) {
	if uuid != "" {
		c.send(map[string]any{"type": "command_lifecycle", "command_uuid": uuid, "state": state, "session_id": c.session})
	}
}

func (c *CLI) state(s string) {
	c.send(map[string]any{"type": "system", "subtype": "session_state_changed", "state": s, "sdk_host_only": true, "session_id": c.session})
}

func textOf(content json.RawMessage) string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(content, &blocks)
	var sb strings.Builder
	for _, b := range blocks {
		sb.WriteString(b.Text)
	}
	return sb.String()
}

// The transcript: one user and one assistant line per turn, enough for the
// agent's reader (and for --resume to find the session).

func (c *CLI) transcriptPath() string { return c.pathOf(c.session) }

// pathOf is where the transcript of session id is, in the CLI's project.
func (c *CLI) pathOf(id string) string {
	return filepath.Join(transcript.ProjectDir(c.config, c.dir), id+".jsonl")
}

func (c *CLI) record(typ string, content any) string {
	return c.recordAs(c.recordID(), typ, content)
}

// recordID is a new uuid for a transcript record.
func (c *CLI) recordID() string {
	return fmt.Sprintf("%08x-0000-4000-8000-%012x", c.n, c.w.records.Add(1))
}

// recordAs writes a record with uuid id (the uuid of the frame that
// showed it, for an assistant message: the real CLI's frames and records
// share it). A record the disk does not take is lost without a word, as
// the real CLI loses it (on a full disk, a read-only config directory).
func (c *CLI) recordAs(id, typ string, content any) string {
	c.writeRecord(typ, id, content, "msg_"+id[:8], "end_turn", nil)
	return id
}

// writeRecord appends one message record to the CLI's transcript, as the
// real CLI writes it (an assistant record with message id msgID and
// stopReason), with extra members added, and makes it the parent of the
// next. A fork's first record copies its source first (copySource).
func (c *CLI) writeRecord(typ, id string, content any, msgID, stopReason string, extra map[string]any) {
	var parent any
	if c.parent != "" {
		parent = c.parent
	}
	line := map[string]any{"type": typ, "uuid": id, "parentUuid": parent, "isSidechain": false,
		"timestamp": time.Now().UTC().Format("2006-01-02T15:04:05.000Z"), "userType": "external", "entrypoint": "sdk-ts",
		"cwd": c.dir, "sessionId": c.session, "version": "2.1.332",
		"message": map[string]any{"role": typ, "content": content}}
	if typ == "assistant" {
		line["message"] = map[string]any{"id": msgID, "type": "message", "role": "assistant", "model": "fake-model",
			"content": content, "stop_reason": stopReason, "usage": map[string]any{"input_tokens": 10, "output_tokens": 5}}
	}
	for k, v := range extra {
		line[k] = v
	}
	b, _ := json.Marshal(line)
	path := c.transcriptPath()
	_ = os.MkdirAll(filepath.Dir(path), 0o700)
	c.copySource(path)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err == nil {
		_, _ = f.Write(append(b, '\n'))
		_ = f.Close()
	}
	c.parent = id
}

// prompts are the user prompts of a transcript, in order.
func prompts(path string) []string {
	data, _ := os.ReadFile(path)
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		var r struct {
			Type    string `json:"type"`
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal([]byte(l), &r) != nil || r.Type != "user" {
			continue
		}
		var text string
		if json.Unmarshal(r.Message.Content, &text) == nil && text != "[Request interrupted by user]" {
			out = append(out, text)
		}
	}
	return out
}

func lastUUID(path string) string {
	data, _ := os.ReadFile(path)
	last := ""
	for _, l := range strings.Split(string(data), "\n") {
		var r struct {
			UUID string `json:"uuid"`
		}
		if json.Unmarshal([]byte(l), &r) == nil && r.UUID != "" {
			last = r.UUID
		}
	}
	return last
}
