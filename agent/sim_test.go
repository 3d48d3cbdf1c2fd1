package agent_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/acp/acpv2"
	"github.com/claude-agent-acp/claude-agent-acp/agent"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/acptest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
)

// sim is an agent with fake CLIs (internal/test/clifake) and an ACP client, all
// in memory: run inside a testing/synctest bubble, a whole session life
// takes no real time, and every wait is an event, not a sleep.
type sim struct {
	t      testing.TB
	world  *clifake.World
	client *acp.Conn
	home   string
	dir    string // a working directory for sessions

	// v2 makes the client speak ACP v2 (docs/acp-v2.md) instead of v1.
	v2 bool

	mu      sync.Mutex
	updates []simUpdate
	// permission answers session/request_permission (default: allow once).
	permission func(ctx context.Context, req *simPermission) (*simOutcome, error)
	asked      []*simPermission
	wire       []simLine

	clientOut *io.PipeWriter // the agent's stdin: closing it is EOF
	agentOut  *io.PipeWriter // the agent's stdout
	served    chan error
	cancel    context.CancelFunc
	ended     sync.Once
	endErr    error
}

// simLine is one line that crossed the connection.
type simLine struct {
	fromAgent bool
	line      string
}

// newSim starts an agent configured by cfg (Launch, Env and Version are
// set here) and a client connected to it. Call it inside a synctest
// bubble (synctest.Test), and end with s.eof(): the bubble ends only when
// the agent's goroutines have.
func newSim(t testing.TB, world *clifake.World, cfg func(*agent.Config)) *sim {
	s := &sim{t: t, world: world, served: make(chan error, 1)}
	root := t.TempDir()
	s.home = filepath.Join(root, "home")
	s.dir = filepath.Join(root, "work")
	for _, d := range []string{s.home, s.dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	c := agent.Config{Launch: world.Launch, Env: []string{"HOME=" + s.home, "PATH=/usr/bin:/bin", "IS_SANDBOX=1"}, Version: "sim"}
	if cfg != nil {
		cfg(&c)
	}
	agentIn, clientOut := io.Pipe()
	clientIn, agentOut := io.Pipe()
	s.clientOut, s.agentOut = clientOut, agentOut
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	go func() { s.served <- agent.New(c).Serve(ctx, agentIn, agentOut) }()

	// The client's handlers take v1 and v2 alike: the two versions share
	// these method names, and only the fields read here.
	m := acp.NewMux()
	acp.OnNotification(m, acp.MethodSessionUpdate, func(ctx context.Context, n *simUpdate) error {
		s.mu.Lock()
		s.updates = append(s.updates, *n)
		s.mu.Unlock()
		return nil
	})
	acp.On(m, acp.MethodSessionRequestPermission, func(ctx context.Context, req *simPermission) (*simOutcome, error) {
		s.mu.Lock()
		s.asked = append(s.asked, req)
		answer := s.permission
		s.mu.Unlock()
		acp.Async(ctx)
		if answer == nil {
			return allowOnceSim(req), nil
		}
		return answer(ctx, req)
	})
	s.client = acp.NewConn(&simTap{r: clientIn, s: s, fromAgent: true}, &simTap{w: clientOut, s: s}, acp.Options{Handler: m})
	t.Cleanup(func() { s.eof() })
	return s
}

// simUpdate is a session/update as the client reads it, v1 or v2.
type simUpdate struct {
	SessionID string `json:"sessionId"`
	Update    struct {
		Kind    string `json:"sessionUpdate"`
		Content struct {
			Text string `json:"text"`
		} `json:"content"`
		ToolCallID string `json:"toolCallId"`
		Status     string `json:"status"`
		State      string `json:"state"`      // v2 state_update
		StopReason string `json:"stopReason"` // v2 idle
	} `json:"update"`
}

// simPermission is a session/request_permission, v1 or v2 (which names
// the call in its subject).
type simPermission struct {
	SessionID string `json:"sessionId"`
	ToolCall  struct {
		ToolCallID string `json:"toolCallId"`
	} `json:"toolCall"`
	Subject struct {
		ToolCallID string `json:"toolCallId"`
	} `json:"subject"`
	Options []struct {
		OptionID string `json:"optionId"`
		Kind     string `json:"kind"`
	} `json:"options"`
}

// simOutcome is the answer to one; v1 and v2 share its shape.
type simOutcome struct {
	Outcome struct {
		Outcome  string `json:"outcome"`
		OptionID string `json:"optionId,omitempty"`
	} `json:"outcome"`
}

// toolCallID is the call the request is about.
func (req *simPermission) toolCallID() string {
	if req.ToolCall.ToolCallID != "" {
		return req.ToolCall.ToolCallID
	}
	return req.Subject.ToolCallID
}

// choose answers with the first option of the given kind, or cancelled.
func (req *simPermission) choose(kind string) *simOutcome {
	var out simOutcome
	out.Outcome.Outcome = "cancelled"
	for _, o := range req.Options {
		if o.Kind == kind {
			out.Outcome.Outcome, out.Outcome.OptionID = "selected", o.OptionID
			break
		}
	}
	return &out
}

func allowOnceSim(req *simPermission) *simOutcome { return req.choose("allow_once") }

// eof closes the agent's stdin, as an editor going away does, and waits
// for Serve to return. A test that ends otherwise (a failure) gets it as a
// cleanup, so that its bubble ends.
func (s *sim) eof() error {
	s.ended.Do(func() {
		_ = s.clientOut.Close()
		s.endErr = <-s.served
		_ = s.agentOut.Close() // what the editor's end of stdout sees when the agent exits
		// The client reads what the agent wrote before it exited, then
		// the end; closing it first could fail a call whose answer is
		// already in its read buffer.
		<-s.client.Done()
		s.cancel()
		s.client.Close()
		_ = s.client.Wait()
		s.validate()
	})
	return s.endErr
}

// validate checks every line that crossed the connection against the
// schema of the protocol version in use (internal/test/acptest).
func (s *sim) validate() {
	s.t.Helper()
	c := acptest.Conversation{Version: 1}
	if s.v2 {
		c.Version = acp.ProtocolV2
	}
	s.mu.Lock()
	wire := slices.Clone(s.wire)
	s.mu.Unlock()
	for _, l := range wire {
		c.Check(s.t, l.fromAgent, []byte(l.line))
	}
}

// The client's calls, in the version it speaks. Params are plain maps:
// the two versions' requests differ in a few members only.

func (s *sim) initialize() {
	params := map[string]any{"protocolVersion": 1}
	if s.v2 {
		params = map[string]any{"protocolVersion": 2, "info": map[string]any{"name": "sim", "version": "1"}}
	}
	var r json.RawMessage
	if err := s.client.Call(context.Background(), acp.MethodInitialize, params, &r); err != nil {
		s.t.Fatalf("initialize: %v", err)
	}
}

func (s *sim) newSession() string {
	params := map[string]any{"cwd": s.dir, "mcpServers": []any{}}
	if s.v2 {
		params = map[string]any{"cwd": s.dir}
	}
	var r struct {
		SessionID string `json:"sessionId"`
	}
	if err := s.client.Call(context.Background(), acp.MethodSessionNew, params, &r); err != nil {
		s.t.Fatalf("session/new: %v", err)
	}
	return r.SessionID
}

// prompt sends a prompt and returns its answer: v1's at the turn's end,
// v2's when the prompt is inserted (stopReason empty then).
func (s *sim) prompt(ctx context.Context, sid, text string) (*acp.PromptResponse, error) {
	var r acp.PromptResponse
	params := map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": text}}}
	if s.v2 {
		var v2 json.RawMessage
		if err := s.client.Call(ctx, acp.MethodSessionPrompt, params, &v2); err != nil {
			return nil, err
		}
		return &r, nil
	}
	if err := s.client.Call(ctx, acp.MethodSessionPrompt, params, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

func (s *sim) cancelSession(sid string) {
	_ = s.client.Notify(context.Background(), acp.MethodSessionCancel, map[string]any{"sessionId": sid})
}

func (s *sim) close(sid string) error {
	var r json.RawMessage
	return s.client.Call(context.Background(), acp.MethodSessionClose, map[string]any{"sessionId": sid}, &r)
}

func (s *sim) setMode(sid, mode string) error {
	var r json.RawMessage
	if s.v2 {
		return s.client.Call(context.Background(), "session/set_config_option", map[string]any{"sessionId": sid, "configId": "mode", "type": "id", "value": mode}, &r)
	}
	return s.client.Call(context.Background(), acp.MethodSessionSetMode, map[string]any{"sessionId": sid, "modeId": mode}, &r)
}

// load is v1's session/load, v2's session/resume with the history.
func (s *sim) load(sid string) error {
	var r json.RawMessage
	if s.v2 {
		return s.client.Call(context.Background(), "session/resume", map[string]any{"sessionId": sid, "cwd": s.dir, "replayFrom": map[string]any{"type": "start"}}, &r)
	}
	return s.client.Call(context.Background(), acp.MethodSessionLoad, map[string]any{"sessionId": sid, "cwd": s.dir, "mcpServers": []any{}}, &r)
}

func (s *sim) agentText(sid string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := ""
	for _, n := range s.updates {
		if n.SessionID == sid && n.Update.Kind == "agent_message_chunk" {
			out += n.Update.Content.Text
		}
	}
	return out
}

// simTap records the lines crossing a pipe.
type simTap struct {
	r         io.Reader
	w         io.Writer
	s         *sim
	fromAgent bool
	pending   []byte
}

func (t *simTap) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.record(p[:n])
	return n, err
}

func (t *simTap) Write(p []byte) (int, error) {
	t.record(p)
	return t.w.Write(p)
}

func (t *simTap) record(b []byte) {
	t.pending = append(t.pending, b...)
	for {
		i := indexNL(t.pending)
		if i < 0 {
			return
		}
		line := string(t.pending[:i])
		t.pending = t.pending[i+1:]
		t.s.mu.Lock()
		t.s.wire = append(t.s.wire, simLine{fromAgent: t.fromAgent, line: line})
		t.s.mu.Unlock()
	}
}

func indexNL(b []byte) int {
	for i, c := range b {
		if c == '\n' {
			return i
		}
	}
	return -1
}

// wireMessage is the envelope of one line.
type wireMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *acp.Error      `json:"error"`
}

// advance moves the bubble's fake clock d ahead (time.Sleep inside a
// synctest bubble waits for no real time: the clock jumps once every
// goroutine is blocked) and lets what that wakes finish.
func (s *sim) advance(d time.Duration) {
	time.Sleep(d)
	synctest.Wait()
}

// until waits for cond, an event, letting fake time pass in steps of a
// second (timers fire, CLIs answer) up to an hour of it; it fails the
// test with what it waited for.
func (s *sim) until(what string, cond func() bool) {
	s.t.Helper()
	synctest.Wait()
	for range 3600 {
		if cond() {
			return
		}
		s.advance(time.Second)
	}
	s.t.Fatalf("waited an hour of fake time for %s", what)
}

// live is how many fake CLIs run.
func (s *sim) live() int { return len(s.world.Live()) }

// newSessionIn opens a session in dir.
func (s *sim) newSessionIn(dir string) string {
	s.t.Helper()
	var r acp.NewSessionResponse
	if err := s.client.Call(context.Background(), acp.MethodSessionNew, &acp.NewSessionRequest{Cwd: dir, MCPServers: []acp.MCPServer{}}, &r); err != nil {
		s.t.Fatalf("session/new: %v", err)
	}
	return string(r.SessionID)
}

// promptAsync sends a prompt and returns where its answer will be.
func (s *sim) promptAsync(sid, text string) <-chan simAnswer {
	ch := make(chan simAnswer, 1)
	go func() {
		r, err := s.prompt(context.Background(), sid, text)
		ch <- simAnswer{r, err}
	}()
	return ch
}

type simAnswer struct {
	r   *acp.PromptResponse
	err error
}

// wantEndTurn prompts and fails unless the turn ends normally.
func (s *sim) wantEndTurn(sid, text string) {
	s.t.Helper()
	if r, err := s.prompt(context.Background(), sid, text); err != nil || r.StopReason != acp.StopReasonEndTurn {
		s.t.Fatalf("prompt %q: %+v %v", text, r, err)
	}
}

// requests are the model requests the fake CLIs made, in order.
func (s *sim) requests() []clifake.Event {
	var out []clifake.Event
	for _, e := range s.world.Events() {
		if e.Kind == "request" {
			out = append(out, e)
		}
	}
	return out
}

// holdPermissions makes the client keep every permission request open
// until the agent withdraws it; the returned channel gets each withdrawal.
func (s *sim) holdPermissions() <-chan struct{} {
	withdrawn := make(chan struct{}, 16)
	s.mu.Lock()
	s.permission = func(ctx context.Context, req *simPermission) (*simOutcome, error) {
		<-ctx.Done()
		withdrawn <- struct{}{}
		return nil, ctx.Err()
	}
	s.mu.Unlock()
	return withdrawn
}

// permissions are the permission requests the client got.
func (s *sim) permissions() []*simPermission {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.asked)
}

// initializeV2 negotiates ACP v2.
func (s *sim) initializeV2() {
	s.t.Helper()
	var r acpv2.InitializeResponse
	if err := s.client.Call(context.Background(), acp.MethodInitialize, &acpv2.InitializeRequest{
		ProtocolVersion: acpv2.ProtocolVersion(acp.ProtocolV2), Info: acpv2.Implementation{Name: "sim", Version: "1.0.0"},
	}, &r); err != nil || int(r.ProtocolVersion) != acp.ProtocolV2 {
		s.t.Fatalf("initialize v2: %+v %v", r, err)
	}
	s.v2 = true
}

// newSessionV2 initializes (v2) and opens a session in s.dir.
func (s *sim) newSessionV2() string {
	s.t.Helper()
	s.initializeV2()
	var r acpv2.NewSessionResponse
	if err := s.client.Call(context.Background(), acpv2.MethodSessionNew, &acpv2.NewSessionRequest{Cwd: acpv2.AbsolutePath(s.dir)}, &r); err != nil {
		s.t.Fatalf("session/new (v2): %v", err)
	}
	return string(r.SessionID)
}

// promptV2 sends a v2 prompt; it returns once the prompt is inserted.
func (s *sim) promptV2(sid, text string) string {
	s.t.Helper()
	var r acpv2.PromptResponse
	if err := s.client.Call(context.Background(), acpv2.MethodSessionPrompt, &acpv2.PromptRequest{
		SessionID: acpv2.SessionID(sid), Prompt: []acpv2.ContentBlock{{Text: &acpv2.TextContent{Text: text}}},
	}, &r); err != nil {
		s.t.Fatalf("prompt (v2): %v", err)
	}
	return string(r.MessageID)
}

// updatesV2 are the v2 session/update notifications for sid, as raw
// updates, from the wire.
func (s *sim) updatesV2(sid string) []json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []json.RawMessage
	for _, l := range s.wire {
		if !l.fromAgent {
			continue
		}
		var n struct {
			Method string `json:"method"`
			Params struct {
				SessionID string          `json:"sessionId"`
				Update    json.RawMessage `json:"update"`
			} `json:"params"`
		}
		if json.Unmarshal([]byte(l.line), &n) == nil && n.Method == acpv2.MethodSessionUpdate && n.Params.SessionID == sid {
			out = append(out, n.Params.Update)
		}
	}
	return out
}

// stopReasonsV2 are the stop reasons of sid's idle state updates.
func (s *sim) stopReasonsV2(sid string) []string {
	var out []string
	for _, u := range s.updatesV2(sid) {
		var st struct {
			SessionUpdate string `json:"sessionUpdate"`
			State         string `json:"state"`
			StopReason    string `json:"stopReason"`
		}
		if json.Unmarshal(u, &st) == nil && st.SessionUpdate == "state_update" && st.State == "idle" {
			out = append(out, st.StopReason)
		}
	}
	return out
}

// wired reports whether a line containing every sub crossed the
// connection (fromAgent: written by the agent; else by the client).
func (s *sim) wired(fromAgent bool, subs ...string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.wire {
		if l.fromAgent != fromAgent {
			continue
		}
		all := true
		for _, sub := range subs {
			all = all && strings.Contains(l.line, sub)
		}
		if all {
			return true
		}
	}
	return false
}
