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
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
)

// Harness is one agent, one client connection and one CLI sandbox. Its
// Sandbox, Client, Close, API, Ctx, Wire, WaitFor and DumpWire come from
// the link it shares with HarnessV2 (wire.go).
type Harness struct {
	link

	updates      []acp.SessionNotification // (these under link's mu)
	permissions  []*acp.RequestPermissionRequest
	elicitations []json.RawMessage

	// Permission answers session/request_permission; the default selects
	// the first allow_once option. Set it before prompting.
	Permission func(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error)

	// Elicit answers elicitation/create (elicit.go); nil declines. Set it
	// before prompting, and initialize with the elicitation capability.
	Elicit func(ctx context.Context, req json.RawMessage) (json.RawMessage, error)
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
	// Agent, when set, serves the harness's connection instead of a new
	// agent (Config is then not used): a second connection to the same
	// agent, as `serve` runs them (agent.Config.SharedSessions).
	Agent *agent.Agent
	// Client registers more of the client's methods (fs/*, say) on its
	// handler before the connection starts.
	Client func(m *acp.Mux)
}

// Start runs an agent against a fresh sandbox and returns the harness.
// Everything is stopped at test cleanup, and no CLI may outlive the test.
func Start(t testing.TB, opts ...Options) *Harness {
	t.Helper()
	h := &Harness{}
	h.Permission = allowOnce
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
	acp.On(m, acp.MethodElicitationCreate, h.onElicitation)
	if len(opts) > 0 && opts[0].Client != nil {
		opts[0].Client(m)
	}
	h.start(t, opts, m)
	return h
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

// ValidJSON reports whether every recorded line is one JSON value.
func (h *Harness) ValidJSON() bool {
	for _, l := range h.Wire() {
		if !json.Valid([]byte(l.Line)) {
			return false
		}
	}
	return true
}
