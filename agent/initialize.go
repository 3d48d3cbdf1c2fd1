package agent

import (
	"context"
	"encoding/json"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
)

// supportedVersions are the ACP protocol versions this agent serves.
var supportedVersions = []int{1}

// clientCaps is what the agent remembers of the client's initialize.
type clientCaps struct {
	raw            acp.ClientCapabilities
	terminalAuth   bool // may offer terminal login methods
	terminalOutput bool // Zed's _meta.terminal_output
	sessionFailure bool // AIR typed session failures (failure.go)
}

func readClientCaps(c acp.ClientCapabilities) clientCaps {
	cc := clientCaps{raw: c, terminalAuth: c.Auth.Terminal}
	if metaBool(c.Meta, "terminal-auth") {
		cc.terminalAuth = true
	}
	if metaBool(c.Meta, "terminal_output") || metaBool(c.Meta, "terminal_output_delta") {
		cc.terminalOutput = true
	}
	cc.sessionFailure = airHas(c.Meta, airSessionFailure)
	return cc
}

func metaBool(meta map[string]json.RawMessage, key string) bool {
	var b bool
	return meta != nil && json.Unmarshal(meta[key], &b) == nil && b
}

func (a *connection) initialize(ctx context.Context, p *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	v, err := acp.NegotiateVersion(int(p.ProtocolVersion), supportedVersions)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	a.client = readClientCaps(p.ClientCapabilities)
	cc := a.client
	a.mu.Unlock()

	resp := &acp.InitializeResponse{
		ProtocolVersion: acp.ProtocolVersion(v),
		AgentInfo:       &acp.Implementation{Name: Name, Title: acp.Some(Title), Version: a.cfg.Version},
		AgentCapabilities: acp.AgentCapabilities{
			PromptCapabilities: acp.PromptCapabilities{Image: true, EmbeddedContext: true},
			MCPCapabilities:    acp.MCPCapabilities{HTTP: true, SSE: true},
			Meta: map[string]json.RawMessage{
				"claudeCode": json.RawMessage(`{"promptQueueing":true}`),
			},
		},
		AuthMethods: authMethods(cc),
	}
	sessionCapabilities(&resp.AgentCapabilities)
	goalInitialize(cc, resp)
	return resp, nil
}

// authMethods offers terminal logins to clients that can run them: the
// client restarts this binary with the args in a terminal, which runs the
// CLI's own login (see cmd/claude-agent-acp's --cli flag).
func authMethods(cc clientCaps) []acp.AuthMethod {
	if !cc.terminalAuth {
		return []acp.AuthMethod{}
	}
	return []acp.AuthMethod{
		{Terminal: &acp.AuthMethodTerminal{
			ID: "claude-ai-login", Name: "Claude Subscription",
			Description: acp.Some("Log in with your Claude subscription"),
			Args:        []string{"--cli", "auth", "login", "--claudeai"},
		}},
		{Terminal: &acp.AuthMethodTerminal{
			ID: "console-login", Name: "Anthropic Console",
			Description: acp.Some("Log in with an Anthropic Console account (API usage billing)"),
			Args:        []string{"--cli", "auth", "login", "--console"},
		}},
	}
}

// authenticate accepts no protocol-level method: logins run in a terminal
// (the client never calls authenticate for those).
func (a *connection) authenticate(ctx context.Context, p *acp.AuthenticateRequest) (*acp.AuthenticateResponse, error) {
	return nil, acp.NewInvalidParams("methodId", "unsupported authentication method "+string(p.MethodID)+"; log in from a terminal with `claude /login`")
}
