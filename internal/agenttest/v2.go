package agenttest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/acp/acpv2"
	"github.com/claude-agent-acp/claude-agent-acp/agent"
	"github.com/claude-agent-acp/claude-agent-acp/internal/acptest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/clitest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/fakeapi"
)

// HarnessV2 is Harness for an ACP v2 client (docs/acp-v2.md): the same
// agent, pipes, CLI sandbox and fake API, with a client that speaks v2.
// Updates and permission requests are kept as sent (raw JSON) and decoded
// into acpv2 types where they decode. At cleanup every line that crossed
// the connection, in both directions, is checked with acptest.ValidateLine
// for the version the connection negotiated (requests the test marks with
// CallOffSchema excepted: their answers are still checked).
//
//	h := agenttest.StartV2(t)
//	h.API().Script(fakeapi.Text("Hello"))
//	sid := h.NewSession(h.Sandbox.WorkDir)
//	id, err := h.Prompt(sid, "say hi") // answered at insertion
//	idle := h.WaitIdle(sid, 1)        // the turn's end
type HarnessV2 struct {
	t       testing.TB
	Sandbox *clitest.Sandbox
	Client  *acp.Conn

	mu          sync.Mutex
	version     int // what initialize answered (2 until it answers 1)
	initialized bool
	wire        []WireLine
	updates     []UpdateV2
	permissions []PermissionV2
	offSchema   map[string]bool // client request ids sent off the schema on purpose
	changed     chan struct{}

	// Permission answers session/request_permission; the default selects
	// the first allow_once option. Set it before prompting.
	Permission func(ctx context.Context, req *acpv2.RequestPermissionRequest) (*acpv2.RequestPermissionResponse, error)

	served chan error
	stop   func()
}

// UpdateV2 is one session/update the client received.
type UpdateV2 struct {
	SessionID string
	Kind      string              // its sessionUpdate
	Raw       json.RawMessage     // the update object as sent
	Update    acpv2.SessionUpdate // decoded (zero if it did not decode)
	DecodeErr error
	Wire      int // index of its line in Wire()
	seq       int
}

// PermissionV2 is one session/request_permission the client received.
type PermissionV2 struct {
	Raw     json.RawMessage
	Request acpv2.RequestPermissionRequest
	Wire    int // index of its line in Wire()
	seq     int
}

// StartV2 runs an agent for a v2 client. Nothing is sent yet: call
// Initialize (or NewSession, which initializes with protocol 2).
func StartV2(t testing.TB, opts ...Options) *HarnessV2 {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	sb := o.Sandbox
	if sb == nil {
		sb = clitest.NewSandbox(t)
	}
	cfg := agent.Config{Executable: sb.CLI, Env: sb.With(o.Env...), Version: "test"}
	if o.Config != nil {
		o.Config(&cfg)
	}
	h := &HarnessV2{t: t, Sandbox: sb, version: acp.ProtocolV2, changed: make(chan struct{}, 1),
		served: make(chan error, 1), offSchema: map[string]bool{}}
	h.Permission = AllowOnceV2

	agentIn, clientOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	clientIn, agentOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	a := agent.New(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { h.served <- a.Serve(ctx, agentIn, agentOut) }()

	m := acp.NewMux()
	acp.OnNotification(m, acpv2.MethodSessionUpdate, func(ctx context.Context, raw *json.RawMessage) error {
		var env struct {
			SessionID string          `json:"sessionId"`
			Update    json.RawMessage `json:"update"`
		}
		_ = json.Unmarshal(*raw, &env)
		var kind struct {
			SessionUpdate string `json:"sessionUpdate"`
		}
		_ = json.Unmarshal(env.Update, &kind)
		u := UpdateV2{SessionID: env.SessionID, Kind: kind.SessionUpdate, Raw: env.Update}
		u.DecodeErr = json.Unmarshal(env.Update, &u.Update)
		h.mu.Lock()
		u.seq = len(h.updates)
		h.updates = append(h.updates, u)
		h.mu.Unlock()
		h.poke()
		return nil
	})
	acp.On(m, acpv2.MethodSessionRequestPermission, func(ctx context.Context, raw *json.RawMessage) (*acpv2.RequestPermissionResponse, error) {
		p := PermissionV2{Raw: append(json.RawMessage(nil), *raw...)}
		if err := json.Unmarshal(*raw, &p.Request); err != nil {
			return nil, acp.NewInvalidParams("", err.Error())
		}
		h.mu.Lock()
		p.seq = len(h.permissions)
		h.permissions = append(h.permissions, p)
		answer := h.Permission
		h.mu.Unlock()
		h.poke()
		acp.Async(ctx)
		return answer(ctx, &p.Request)
	})
	h.Client = acp.NewConn(&tapV2{r: clientIn, h: h, fromAgent: true}, &tapV2{w: clientOut, h: h}, acp.Options{Handler: m})
	var stopOnce sync.Once
	h.stop = func() { stopOnce.Do(func() { h.shutdown(clientOut, agentIn, agentOut, clientIn, cancel) }) }
	// Cleanups run last-registered first: the agent stops, then the wire
	// is validated whole.
	t.Cleanup(h.ValidateWire)
	t.Cleanup(h.stop)
	clitest.NoOrphans(t)
	return h
}

// agentLines are the indexes of the agent's lines calling method, in
// order: the connection handles them in wire order, so the k-th one
// handled is the k-th of these.
func (h *HarnessV2) agentLines(method string) []int {
	var out []int
	for i, l := range h.Wire() {
		if !l.FromAgent || !strings.Contains(l.Line, method) {
			continue
		}
		var env struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal([]byte(l.Line), &env) == nil && env.Method == method {
			out = append(out, i)
		}
	}
	return out
}

// Close ends the agent as an editor closing its connection would.
func (h *HarnessV2) Close() { h.stop() }

func (h *HarnessV2) shutdown(clientOut, agentIn, agentOut, clientIn *os.File, cancel context.CancelFunc) {
	_ = clientOut.Close()
	select {
	case err := <-h.served:
		if err != nil {
			h.t.Errorf("agent Serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		h.t.Errorf("agent did not stop within 30s of EOF")
		cancel()
	}
	cancel()
	h.Client.Close()
	h.Client.Wait()
	for _, f := range []*os.File{agentIn, agentOut, clientIn} {
		_ = f.Close()
	}
}

// AllowOnceV2 selects the first allow_once option.
func AllowOnceV2(ctx context.Context, req *acpv2.RequestPermissionRequest) (*acpv2.RequestPermissionResponse, error) {
	return ChooseV2("allow_once")(ctx, req)
}

// ChooseV2 answers a permission request with the option whose id or kind
// is optionID, or cancelled if there is none.
func ChooseV2(optionID string) func(context.Context, *acpv2.RequestPermissionRequest) (*acpv2.RequestPermissionResponse, error) {
	return func(ctx context.Context, req *acpv2.RequestPermissionRequest) (*acpv2.RequestPermissionResponse, error) {
		for _, o := range req.Options {
			if string(o.OptionID) == optionID || string(o.Kind) == optionID {
				return &acpv2.RequestPermissionResponse{Outcome: acpv2.RequestPermissionOutcome{
					Selected: &acpv2.SelectedPermissionOutcome{OptionID: o.OptionID}}}, nil
			}
		}
		return &acpv2.RequestPermissionResponse{Outcome: acpv2.RequestPermissionOutcome{
			Cancelled: &acpv2.CancelledPermissionOutcome{}}}, nil
	}
}

func (h *HarnessV2) poke() {
	select {
	case h.changed <- struct{}{}:
	default:
	}
}

// API is the fake Messages API behind the CLI.
func (h *HarnessV2) API() *fakeapi.Server { return h.Sandbox.API }

// Ctx is a context for one call, bounded so a broken agent fails the test
// instead of hanging it.
func (h *HarnessV2) Ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	h.t.Cleanup(cancel)
	return ctx
}

// Call sends a request and decodes its result.
func (h *HarnessV2) Call(method string, params, result any) error {
	return h.Client.Call(h.Ctx(), method, params, result)
}

// CallOffSchema sends a request the test knows is not a v2 message (a v1
// method, say): its line is not validated, its answer is.
func (h *HarnessV2) CallOffSchema(method string, params, result any) error {
	h.mu.Lock()
	// The next id the client uses is not known here; mark by method and
	// params instead, matched when the wire is validated.
	b, _ := json.Marshal(params)
	h.offSchema[method+" "+string(b)] = true
	h.mu.Unlock()
	return h.Client.Call(h.Ctx(), method, params, result)
}

// Initialize sends initialize asking for version with the given client
// capabilities, and returns the answer. The wire is validated against the
// version the agent answered.
func (h *HarnessV2) Initialize(version int, caps acpv2.ClientCapabilities) (*acpv2.InitializeResponse, error) {
	var resp acpv2.InitializeResponse
	err := h.Call(acp.MethodInitialize, &acpv2.InitializeRequest{
		ProtocolVersion: acpv2.ProtocolVersion(version),
		Info:            acpv2.Implementation{Name: "agenttest", Version: "1.0.0"},
		Capabilities:    caps,
	}, &resp)
	if err == nil {
		h.mu.Lock()
		h.initialized = true
		h.version = int(resp.ProtocolVersion)
		h.mu.Unlock()
	}
	return &resp, err
}

// SetVersion sets the version the wire is validated against (Initialize
// does it from the answer).
func (h *HarnessV2) SetVersion(v int) {
	h.mu.Lock()
	h.version = v
	h.initialized = true
	h.mu.Unlock()
}

// NewSession initializes (protocol 2, if not done) and opens a session.
func (h *HarnessV2) NewSession(dir string) string {
	h.t.Helper()
	r, err := h.NewSessionResponse(dir)
	if err != nil {
		h.t.Fatalf("session/new: %v", err)
	}
	return string(r.SessionID)
}

// NewSessionResponse is NewSession returning the whole answer.
func (h *HarnessV2) NewSessionResponse(dir string) (*acpv2.NewSessionResponse, error) {
	h.t.Helper()
	h.mu.Lock()
	initialized := h.initialized
	h.mu.Unlock()
	if !initialized {
		if _, err := h.Initialize(acp.ProtocolV2, acpv2.ClientCapabilities{}); err != nil {
			h.t.Fatalf("initialize: %v", err)
		}
	}
	var resp acpv2.NewSessionResponse
	err := h.Call(acpv2.MethodSessionNew, &acpv2.NewSessionRequest{Cwd: acpv2.AbsolutePath(dir)}, &resp)
	return &resp, err
}

// Prompt sends a text prompt; it returns the message id once the agent
// has inserted the prompt (not when the turn ends: see WaitIdle).
func (h *HarnessV2) Prompt(sid, text string) (string, error) {
	return h.PromptCtx(h.Ctx(), sid, text)
}

// PromptCtx is Prompt with a context ($/cancel_request when it ends).
func (h *HarnessV2) PromptCtx(ctx context.Context, sid, text string) (string, error) {
	var resp acpv2.PromptResponse
	err := h.Client.Call(ctx, acpv2.MethodSessionPrompt, &acpv2.PromptRequest{
		SessionID: acpv2.SessionID(sid),
		Prompt:    []acpv2.ContentBlock{{Text: &acpv2.TextContent{Text: text}}},
	}, &resp)
	return string(resp.MessageID), err
}

// Cancel sends session/cancel.
func (h *HarnessV2) Cancel(sid string) {
	if err := h.Client.Notify(context.Background(), acpv2.MethodSessionCancel, &acpv2.CancelSessionNotification{SessionID: acpv2.SessionID(sid)}); err != nil {
		h.t.Fatalf("session/cancel: %v", err)
	}
}

// Updates returns the session/update notifications seen for sid.
func (h *HarnessV2) Updates(sid string) []UpdateV2 {
	lines := h.agentLines(acpv2.MethodSessionUpdate)
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []UpdateV2
	for _, u := range h.updates {
		if u.SessionID == sid {
			u.Wire = -1
			if u.seq < len(lines) {
				u.Wire = lines[u.seq]
			}
			out = append(out, u)
		}
	}
	return out
}

// Idles returns the idle state updates of sid, in order.
func (h *HarnessV2) Idles(sid string) []UpdateV2 {
	var out []UpdateV2
	for _, u := range h.Updates(sid) {
		if u.Kind == "state_update" && StateOf(u) == "idle" {
			out = append(out, u)
		}
	}
	return out
}

// WaitIdle waits for the n-th idle state update of sid and returns it.
func (h *HarnessV2) WaitIdle(sid string, n int) UpdateV2 {
	h.t.Helper()
	h.WaitFor(fmt.Sprintf("idle state update #%d", n), 60*time.Second, func() bool { return len(h.Idles(sid)) >= n })
	return h.Idles(sid)[n-1]
}

// Permissions returns the permission requests the client received.
func (h *HarnessV2) Permissions() []PermissionV2 {
	lines := h.agentLines(acpv2.MethodSessionRequestPermission)
	h.mu.Lock()
	defer h.mu.Unlock()
	out := append([]PermissionV2(nil), h.permissions...)
	for i := range out {
		out[i].Wire = -1
		if out[i].seq < len(lines) {
			out[i].Wire = lines[out[i].seq]
		}
	}
	return out
}

// Wire returns every line that crossed the connection, in order.
func (h *HarnessV2) Wire() []WireLine {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]WireLine(nil), h.wire...)
}

// WireIndex is the index of the first line from the given side at or
// after from that contains every substring, or -1.
func (h *HarnessV2) WireIndex(fromAgent bool, from int, subs ...string) int {
	w := h.Wire()
	for i := max(from, 0); i < len(w); i++ {
		if w[i].FromAgent != fromAgent {
			continue
		}
		all := true
		for _, s := range subs {
			all = all && strings.Contains(w[i].Line, s)
		}
		if all {
			return i
		}
	}
	return -1
}

// WaitFor polls cond until it holds or the timeout passes.
func (h *HarnessV2) WaitFor(what string, timeout time.Duration, cond func() bool) {
	h.t.Helper()
	deadline := time.After(timeout)
	for !cond() {
		select {
		case <-h.changed:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			h.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// AgentText joins the text of sid's agent_message_chunk updates.
func (h *HarnessV2) AgentText(sid string) string {
	var sb strings.Builder
	for _, u := range h.Updates(sid) {
		if c := u.Update.AgentMessageChunk; c != nil && c.Content.Text != nil {
			sb.WriteString(c.Content.Text.Text)
		}
	}
	return sb.String()
}

// StateOf is a state_update's state ("" for other updates).
func StateOf(u UpdateV2) string {
	var s struct {
		State string `json:"state"`
	}
	if u.Kind != "state_update" || json.Unmarshal(u.Raw, &s) != nil {
		return ""
	}
	return s.State
}

// StopReasonOf is an idle state update's stopReason.
func StopReasonOf(u UpdateV2) string {
	var s struct {
		StopReason string `json:"stopReason"`
	}
	_ = json.Unmarshal(u.Raw, &s)
	return s.StopReason
}

// DumpWire writes the wire to $DUMP_WIRE/<test>.jsonl, if set.
func (h *HarnessV2) DumpWire() {
	dir := os.Getenv("DUMP_WIRE")
	if dir == "" {
		return
	}
	var sb strings.Builder
	for _, l := range h.Wire() {
		if l.FromAgent {
			sb.WriteString("< ")
		} else {
			sb.WriteString("> ")
		}
		sb.WriteString(l.Line + "\n")
	}
	_ = os.WriteFile(dir+"/"+strings.ReplaceAll(h.t.Name(), "/", "_")+".jsonl", []byte(sb.String()), 0o644)
}

// ValidateWire checks every line so far with acptest.ValidateLine: the
// sender known, and for each response the method it answers. It runs at
// cleanup; tests may call it earlier too.
func (h *HarnessV2) ValidateWire() {
	h.t.Helper()
	h.DumpWire()
	h.mu.Lock()
	version := h.version
	off := h.offSchema
	h.mu.Unlock()
	methods := map[string]string{} // sender/id → method
	skipped := map[string]bool{}   // client ids of off-schema requests
	for _, l := range h.Wire() {
		var env struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal([]byte(l.Line), &env); err != nil {
			h.t.Errorf("not a JSON-RPC object: %s", l.Line)
			continue
		}
		line := acptest.Line{Version: version, FromAgent: l.FromAgent}
		key := func(fromAgent bool) string { return fmt.Sprintf("%v/%s", fromAgent, env.ID) }
		switch {
		case env.Method != "" && env.ID != nil:
			methods[key(l.FromAgent)] = env.Method
			var compact bytes.Buffer
			_ = json.Compact(&compact, env.Params)
			if !l.FromAgent && off[env.Method+" "+compact.String()] {
				skipped[key(false)] = true
				continue
			}
		case env.Method != "":
		default:
			if skipped[key(!l.FromAgent)] {
				break // its answer: envelope and error only
			}
			line.Method = methods[key(!l.FromAgent)]
			if line.Method == "" {
				h.t.Errorf("response to no request: %s", l.Line)
			}
		}
		acptest.ValidateLine(h.t, line, []byte(l.Line))
	}
}

// tapV2 records each line crossing a pipe.
type tapV2 struct {
	r         io.Reader
	w         io.Writer
	h         *HarnessV2
	fromAgent bool
	pending   []byte
}

func (t *tapV2) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		t.record(p[:n])
	}
	return n, err
}

func (t *tapV2) Write(p []byte) (int, error) {
	t.record(p)
	return t.w.Write(p)
}

func (t *tapV2) record(b []byte) {
	t.pending = append(t.pending, b...)
	for {
		i := bytes.IndexByte(t.pending, '\n')
		if i < 0 {
			return
		}
		line := string(t.pending[:i])
		t.pending = t.pending[i+1:]
		t.h.mu.Lock()
		t.h.wire = append(t.h.wire, WireLine{FromAgent: t.fromAgent, Line: line})
		t.h.mu.Unlock()
		t.h.poke()
	}
}
