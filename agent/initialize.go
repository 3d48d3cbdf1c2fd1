package agent

import (
	"context"
	"encoding/json"
	"os"
	"sync"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/acp/acpv2"
	"github.com/claude-agent-acp/claude-agent-acp/agent/failure"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/airmeta"
)

// supportedVersions are the ACP protocol versions this agent serves.
var supportedVersions = []int{acp.ProtocolV1, acp.ProtocolV2}

// initializeAny is initialize for either version: the requested version
// is read first, and the params are decoded as that version defines them
// (docs/acp-v2.md, "Negotiation and connection rules").
func (a *connection) initializeAny(ctx context.Context, params json.RawMessage) (any, error) {
	requested, err := acp.PeekProtocolVersion(params)
	if err != nil {
		return nil, err
	}
	v, err := negotiate(requested)
	if err != nil {
		return nil, err
	}
	if v < acp.ProtocolV2 {
		if a.protocol() >= acp.ProtocolV2 {
			return nil, acp.NewInvalidRequest("a repeated initialize must request protocol version 2 or later")
		}
		var p acp.InitializeRequest
		if err := acp.DecodeParams(params, &p); err != nil {
			return nil, err
		}
		return a.initialize(ctx, &p)
	}
	var p acpv2.InitializeRequest
	if err := acp.DecodeParams(params, &p); err != nil {
		if requested == acp.ProtocolV2 {
			return nil, err
		}
		// A later version's params may not parse as v2's: answer 2 with
		// what can be read, as the official SDK does.
		p = acpv2.InitializeRequest{Info: acpv2.Implementation{Name: "unknown", Version: "unknown"}}
		var loose struct {
			Capabilities json.RawMessage `json:"capabilities"`
		}
		if json.Unmarshal(params, &loose) == nil && len(loose.Capabilities) > 0 {
			_ = json.Unmarshal(loose.Capabilities, &p.Capabilities)
		}
	}
	return a.initializeV2(&p), nil
}

// negotiate picks the version of the answer to an initialize that asked
// for requested. Below 2 the client speaks v1, whose rule is to answer
// with the version the agent supports (protocolVersion 0 gets 1, in v1's
// shape; the client decides whether to go on); -32022 is v2's answer
// (seed 003), for a v2 request nothing supported is at or below, which
// cannot happen while 2 is supported (docs/acp-v2.md).
func negotiate(requested int) (int, error) {
	if v, ok := acp.NegotiateVersionV1(requested, supportedVersions); ok {
		return v, nil
	}
	return acp.NegotiateVersion(requested, supportedVersions)
}

// protocol is the version the connection's initialize chose (0 before).
func (a *connection) protocol() int {
	return int(a.version.Load())
}

// clientCaps is what the agent remembers of the client's initialize.
type clientCaps struct {
	raw            acp.ClientCapabilities
	terminalAuth   bool // may offer terminal login methods
	terminalOutput bool // Zed's _meta.terminal_output
	sessionFailure bool // AIR typed session failures (agent/failure)
	editorFS       bool // Claude's files through the editor (editorfs_wire.go)
}

func readClientCaps(c acp.ClientCapabilities) clientCaps {
	cc := clientCaps{raw: c, terminalAuth: c.Auth.Terminal}
	if metaBool(c.Meta, "terminal-auth") {
		cc.terminalAuth = true
	}
	if metaBool(c.Meta, "terminal_output") || metaBool(c.Meta, "terminal_output_delta") {
		cc.terminalOutput = true
	}
	cc.sessionFailure = airmeta.Parse(c.Meta).Has(failure.Capability)
	return cc
}

func metaBool(meta map[string]json.RawMessage, key string) bool {
	var b bool
	return meta != nil && json.Unmarshal(meta[key], &b) == nil && b
}

func (a *connection) initialize(ctx context.Context, p *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	v, err := negotiate(int(p.ProtocolVersion))
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	a.version.Store(int32(v))
	a.client = readClientCaps(p.ClientCapabilities)
	a.client.editorFS = wantsEditorFS(a.cfg, p.ClientCapabilities)
	cc := a.client
	a.mu.Unlock()

	resp := &acp.InitializeResponse{
		ProtocolVersion: acp.ProtocolVersion(v),
		AgentInfo:       &acp.Implementation{Name: Name, Title: acp.Some(Title), Version: a.cfg.Version},
		AgentCapabilities: acp.AgentCapabilities{
			PromptCapabilities: acp.PromptCapabilities{Image: true, EmbeddedContext: true},
			MCPCapabilities:    acp.MCPCapabilities{HTTP: true, SSE: true},
			Meta: map[string]json.RawMessage{
				"claudeCode": claudeCodeCaps(cc),
			},
		},
		AuthMethods: authMethods(cc),
	}
	sessionCapabilities(&resp.AgentCapabilities)
	goalInitialize(cc, resp)
	steeringInitialize(resp)
	return resp, nil
}

// authMethods offers terminal logins: the client runs this binary again in
// a terminal with the method's args instead of its usual ones, which runs
// the CLI's own login (see cmd/claude-agent-acp's --cli flag); the binary's
// path is in _meta["terminal-auth"] too, the form Zed reads.
//
// Clients that advertise terminal-auth support get the two logins the
// reference adapter offers. Every other client gets one, the plain
// `claude auth login` (Claude subscription by default): the ACP Registry
// lists only agents that advertise an "agent" or "terminal" method in
// initialize, whichever client asks.
func authMethods(cc clientCaps) []acp.AuthMethod {
	if !cc.terminalAuth {
		return []acp.AuthMethod{
			terminalLogin("claude-login", "Log in with Claude", "Claude Login",
				"Log in to Claude Code in a terminal (`claude auth login`)",
				"--cli", "auth", "login"),
		}
	}
	return []acp.AuthMethod{
		terminalLogin("claude-ai-login", "Claude Subscription", "Claude Login",
			"Log in with your Claude subscription", "--cli", "auth", "login", "--claudeai"),
		terminalLogin("console-login", "Anthropic Console", "Anthropic Console Login",
			"Log in with an Anthropic Console account (API usage billing)", "--cli", "auth", "login", "--console"),
	}
}

func terminalLogin(id, name, label, description string, args ...string) acp.AuthMethod {
	meta, _ := json.Marshal(map[string]any{"command": selfPath(), "args": args, "label": label})
	return acp.AuthMethod{Terminal: &acp.AuthMethodTerminal{
		ID: acp.AuthMethodID(id), Name: name, Description: acp.Some(description), Args: args,
		Meta: map[string]json.RawMessage{"terminal-auth": meta},
	}}
}

// selfPath is this binary, for _meta["terminal-auth"].command.
var selfPath = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return Name
	}
	return exe
})

// authenticate accepts no protocol-level method: logins run in a terminal
// (the client never calls authenticate for those).
func (a *connection) authenticate(ctx context.Context, p *acp.AuthenticateRequest) (*acp.AuthenticateResponse, error) {
	return nil, acp.NewInvalidParams("methodId", "unsupported authentication method "+string(p.MethodID)+"; log in from a terminal with `claude /login`")
}

// claudeCodeCaps is the agent's _meta.claudeCode in initialize; a client
// that gets Claude's files through the editor is told so.
func claudeCodeCaps(cc clientCaps) json.RawMessage {
	if cc.editorFS {
		return json.RawMessage(`{"promptQueueing":true,"editorFileSystem":true}`)
	}
	return json.RawMessage(`{"promptQueueing":true}`)
}
