// Package agenttest runs the agent end to end in tests: the real adapter
// (in this process, so -race sees it) on one side of OS pipes, a scripted
// ACP client (our acp.Conn) on the other, and the real Claude Code CLI
// behind it talking to the fake Messages API.
//
//	h := agenttest.Start(t)
//	h.API().Script(fakeapi.Text("Hello"))
//	sid := h.NewSession(h.Sandbox.WorkDir)
//	resp, err := h.Prompt(sid, "say hi")
//	h.Updates(sid) // every session/update the client saw, in order
package agenttest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent"
	"github.com/claude-agent-acp/claude-agent-acp/internal/clitest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/fakeapi"
)

// Harness is one agent, one client connection and one CLI sandbox.
type Harness struct {
	t       testing.TB
	Sandbox *clitest.Sandbox
	Client  *acp.Conn

	mu          sync.Mutex
	updates     []acp.SessionNotification
	wire        []WireLine
	permissions []*acp.RequestPermissionRequest
	changed     chan struct{}

	// Permission answers session/request_permission; the default selects
	// the first allow_once option. Set it before prompting.
	Permission func(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error)

	served chan error
	stop   func() // ends the agent (once); see Close
}

// WireLine is one JSON-RPC line as it crossed the pipe.
type WireLine struct {
	FromAgent bool
	Line      string
}

// Options adjust Start.
type Options struct {
	// Env adds or overrides sandbox environment entries ("K=V").
	Env []string
	// Config adjusts the agent's configuration before it starts.
	Config func(*agent.Config)
	// Sandbox, when set, is used instead of a fresh one: a second agent
	// then sees the first one's config directory (its transcripts) and
	// fake API, as a restarted agent process would.
	Sandbox *clitest.Sandbox
}

// Start runs an agent against a fresh sandbox and returns the harness.
// Everything is stopped at test cleanup, and no CLI may outlive the test.
func Start(t testing.TB, opts ...Options) *Harness {
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
	h := &Harness{t: t, Sandbox: sb, changed: make(chan struct{}, 1), served: make(chan error, 1)}
	h.Permission = allowOnce

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
	acp.OnNotification(m, acp.MethodSessionUpdate, func(ctx context.Context, n *acp.SessionNotification) error {
		h.mu.Lock()
		h.updates = append(h.updates, *n)
		h.mu.Unlock()
		h.poke()
		return nil
	})
	acp.On(m, acp.MethodSessionRequestPermission, func(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		h.mu.Lock()
		h.permissions = append(h.permissions, req)
		answer := h.Permission
		h.mu.Unlock()
		h.poke()
		acp.Async(ctx)
		return answer(ctx, req)
	})
	h.Client = acp.NewConn(&tap{r: clientIn, h: h, fromAgent: true}, &tap{w: clientOut, h: h}, acp.Options{Handler: m})
	var stopOnce sync.Once
	h.stop = func() { stopOnce.Do(func() { h.shutdown(clientOut, agentIn, agentOut, clientIn, cancel) }) }
	t.Cleanup(h.stop)
	clitest.NoOrphans(t)
	return h
}

// Close ends the agent as an editor closing its connection would: the
// agent stops its CLIs and Serve returns. Cleanup does it too; call it
// earlier to run a second agent on the same sandbox.
func (h *Harness) Close() { h.stop() }

func (h *Harness) shutdown(clientOut, agentIn, agentOut, clientIn *os.File, cancel context.CancelFunc) {
	_ = clientOut.Close() // EOF: the agent stops its CLIs and returns
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

func allowOnce(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	for _, o := range req.Options {
		if o.Kind == acp.PermissionOptionKindAllowOnce {
			return &acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{
				Selected: &acp.SelectedPermissionOutcome{OptionID: o.OptionID}}}, nil
		}
	}
	return &acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Cancelled: &acp.RequestPermissionOutcomeCancelled{}}}, nil
}

func (h *Harness) poke() {
	select {
	case h.changed <- struct{}{}:
	default:
	}
}

// API is the fake Messages API behind the CLI.
func (h *Harness) API() *fakeapi.Server { return h.Sandbox.API }

// Ctx is a context for one call, bounded so a broken agent fails the test
// instead of hanging it.
func (h *Harness) Ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	h.t.Cleanup(cancel)
	return ctx
}

// Initialize sends initialize with the given client capabilities.
func (h *Harness) Initialize(caps acp.ClientCapabilities) *acp.InitializeResponse {
	h.t.Helper()
	var resp acp.InitializeResponse
	if err := h.Client.Call(h.Ctx(), acp.MethodInitialize, &acp.InitializeRequest{ProtocolVersion: 1, ClientCapabilities: caps}, &resp); err != nil {
		h.t.Fatalf("initialize: %v", err)
	}
	return &resp
}

// NewSession initializes (if needed) and opens a session in dir.
func (h *Harness) NewSession(dir string) string {
	h.t.Helper()
	h.mu.Lock()
	initialized := len(h.wire) > 0
	h.mu.Unlock()
	if !initialized {
		h.Initialize(acp.ClientCapabilities{})
	}
	var resp acp.NewSessionResponse
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionNew, &acp.NewSessionRequest{Cwd: dir, MCPServers: []acp.MCPServer{}}, &resp); err != nil {
		h.t.Fatalf("session/new: %v", err)
	}
	return string(resp.SessionID)
}

// Prompt sends a text prompt and waits for its answer.
func (h *Harness) Prompt(sid, text string) (*acp.PromptResponse, error) {
	return h.PromptBlocks(h.Ctx(), sid, acp.ContentBlock{Text: &acp.TextContent{Text: text}})
}

// PromptBlocks sends a prompt of any content.
func (h *Harness) PromptBlocks(ctx context.Context, sid string, blocks ...acp.ContentBlock) (*acp.PromptResponse, error) {
	var resp acp.PromptResponse
	err := h.Client.Call(ctx, acp.MethodSessionPrompt, &acp.PromptRequest{SessionID: acp.SessionID(sid), Prompt: blocks}, &resp)
	if err != nil {
		return nil, err
	}
	return &resp, nil
}

// Cancel sends session/cancel.
func (h *Harness) Cancel(sid string) {
	if err := h.Client.Notify(context.Background(), acp.MethodSessionCancel, &acp.CancelNotification{SessionID: acp.SessionID(sid)}); err != nil {
		h.t.Fatalf("session/cancel: %v", err)
	}
}

// Updates returns the session/update notifications seen for sid.
func (h *Harness) Updates(sid string) []acp.SessionUpdate {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []acp.SessionUpdate
	for _, n := range h.updates {
		if string(n.SessionID) == sid {
			out = append(out, n.Update)
		}
	}
	return out
}

// Permissions returns the permission requests the client received.
func (h *Harness) Permissions() []*acp.RequestPermissionRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*acp.RequestPermissionRequest(nil), h.permissions...)
}

// Wire returns every line that crossed the connection, in order.
func (h *Harness) Wire() []WireLine {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]WireLine(nil), h.wire...)
}

// WaitFor polls cond (under no lock) until it holds or the timeout passes.
func (h *Harness) WaitFor(what string, timeout time.Duration, cond func() bool) {
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

// AgentText concatenates the agent_message_chunk text of sid.
func (h *Harness) AgentText(sid string) string {
	var sb strings.Builder
	for _, u := range h.Updates(sid) {
		if c := u.AgentMessageChunk; c != nil && c.Content.Text != nil {
			sb.WriteString(c.Content.Text.Text)
		}
	}
	return sb.String()
}

// ThoughtText concatenates the agent_thought_chunk text of sid.
func (h *Harness) ThoughtText(sid string) string {
	var sb strings.Builder
	for _, u := range h.Updates(sid) {
		if c := u.AgentThoughtChunk; c != nil && c.Content.Text != nil {
			sb.WriteString(c.Content.Text.Text)
		}
	}
	return sb.String()
}

// tap records each line crossing a pipe.
type tap struct {
	r         io.Reader
	w         io.Writer
	h         *Harness
	fromAgent bool
	pending   []byte
}

func (t *tap) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		t.record(p[:n])
	}
	return n, err
}

func (t *tap) Write(p []byte) (int, error) {
	t.record(p)
	return t.w.Write(p)
}

func (t *tap) record(b []byte) {
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
	}
}

// ValidJSON reports whether every recorded line is one JSON value.
func (h *Harness) ValidJSON() bool {
	for _, l := range h.Wire() {
		if !json.Valid([]byte(l.Line)) {
			return false
		}
	}
	return true
}
