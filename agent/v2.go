package agent

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/acp/acpv2"
	"github.com/claude-agent-acp/claude-agent-acp/agent/failure"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/airmeta"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/scrub"
	"github.com/claude-agent-acp/claude-agent-acp/agent/v2conv"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
)

// ACP v2 is a second surface on the same core (docs/acp-v2.md). Each v2
// method here turns its request into what the v1 handler takes, runs that
// handler, and answers in v2's shape; the session's updates go through a
// per-session converter (agent/v2conv) on their way out, and the prompt
// lifecycle, which v1 does not have, is in v2turns.go.

// initializeV2 answers a client that asked for protocol 2 or later.
func (a *connection) initializeV2(p *acpv2.InitializeRequest) *acpv2.InitializeResponse {
	cc := readClientCapsV2(p.Capabilities)
	a.mu.Lock()
	a.version.Store(acp.ProtocolV2)
	a.client = cc
	if a.v2 == nil {
		a.v2 = map[string]*v2conv.Updates{}
	}
	a.mu.Unlock()

	caps := acpv2.AgentCapabilities{Session: acp.Some(sessionCapabilitiesV2())}
	resp := &acpv2.InitializeResponse{
		ProtocolVersion: acpv2.ProtocolVersion(acp.ProtocolV2),
		Info:            acpv2.Implementation{Name: Name, Title: acp.Some(Title), Version: a.cfg.Version},
		Capabilities:    caps,
	}
	// Terminal logins, as on v1 (initialize.go), in v2's shape.
	for _, m := range authMethods(cc) {
		t := m.Terminal
		resp.AuthMethods = append(resp.AuthMethods, acpv2.AuthMethod{Terminal: &acpv2.AuthMethodTerminal{
			MethodID: acpv2.AuthMethodID(t.ID), Name: t.Name, Description: t.Description, Args: t.Args, Meta: t.Meta,
		}})
	}
	// The goal extension's declaration goes where v1 puts it: the
	// response's _meta (docs/goals.md).
	var v1 acp.InitializeResponse
	goalInitialize(cc, &v1)
	resp.Meta = v1.Meta
	return resp
}

// readClientCapsV2 reads a v2 client's capabilities into what the core
// asks of a client. Every v2 client takes notices, boolean config options
// and agent-owned terminals (the converter turns the core's terminal
// _meta into terminal_update and terminal_output_chunk); extensions are
// declared in capabilities._meta as on v1.
func readClientCapsV2(c acpv2.ClientCapabilities) clientCaps {
	var raw acp.ClientCapabilities
	raw.Meta = c.Meta
	raw.Session = &acp.ClientSessionCapabilities{
		Compaction:    &acp.CompactionCapabilities{},
		Notices:       &acp.NoticeCapabilities{},
		ConfigOptions: &acp.SessionConfigOptionsCapabilities{Boolean: &acp.BooleanConfigOptionCapabilities{}},
	}
	auth, _ := c.Auth.Get()
	cc := clientCaps{raw: raw, terminalAuth: auth.Terminal.IsSet(), terminalOutput: true}
	cc.sessionFailure = airmeta.Parse(c.Meta).Has(failure.Capability)
	return cc
}

// authLoginV2 is auth/login. The only methods offered are terminal
// logins, which the client runs itself and must not pass here: such a
// login cannot be done here, so it fails, and seed 003 answers a failed
// or abandoned auth/login with -32000 (authentication is still required),
// saying where to log in. An id that names no method offered is a bad
// parameter, not a login attempt: -32602 (docs/acp-v2.md).
func (a *connection) authLoginV2(ctx context.Context, p *acpv2.LoginAuthRequest) (*acpv2.LoginAuthResponse, error) {
	for _, m := range authMethods(a.clientCaps()) {
		if string(m.Terminal.ID) == string(p.MethodID) {
			cmd := "claude " + strings.Join(slices.DeleteFunc(slices.Clone(m.Terminal.Args), func(a string) bool { return a == "--cli" }), " ")
			return nil, acp.NewAuthRequired(m.Terminal.Name + " is a terminal login and cannot run here: log in from a terminal (`" +
				cmd + "`), then try again")
		}
	}
	return nil, acp.NewInvalidParams("methodId", "unknown authentication method "+string(p.MethodID))
}

// authLogoutV2 is auth/logout: the CLI's own `claude auth logout`, in the
// environment the sessions' CLIs get. Running sessions keep their CLI
// until it restarts.
func (a *connection) authLogoutV2(ctx context.Context, p *acpv2.LogoutAuthRequest) (*acpv2.LogoutAuthResponse, error) {
	acp.Async(ctx)
	exe := a.cfg.Executable
	var err error
	if exe == "" {
		exe, err = claude.FindExecutable()
	}
	if err != nil {
		return nil, acp.NewInternalError("Claude Code was not found, so there is nothing to log out of")
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if out, err := claude.RunCommand(ctx, exe, []string{"auth", "logout"}, a.cfg.Env); err != nil {
		msg := strings.TrimSpace(string(out))
		if msg == "" {
			msg = err.Error()
		}
		return nil, acp.NewInternalError("logout failed: " + scrub.Text(v2conv.FirstLine(msg)))
	}
	return &acpv2.LogoutAuthResponse{}, nil
}

func (a *connection) clientCaps() clientCaps {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.client
}

// newSessionV2 is session/new; the session starts idle.
func (a *connection) newSessionV2(ctx context.Context, p *acpv2.NewSessionRequest) (*acpv2.NewSessionResponse, error) {
	servers, err := v2conv.MCPServers(p.MCPServers)
	if err != nil {
		return nil, err
	}
	r, err := a.newSession(ctx, &acp.NewSessionRequest{
		Cwd: string(p.Cwd), AdditionalDirectories: absPaths(p.AdditionalDirectories), MCPServers: servers, Meta: p.Meta,
	})
	if err != nil {
		return nil, err
	}
	opts, _ := r.ConfigOptions.Get()
	return &acpv2.NewSessionResponse{SessionID: acpv2.SessionID(r.SessionID), ConfigOptions: v2conv.ConfigOptions(opts)}, nil
}

func absPaths(ps []acpv2.AbsolutePath) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = string(p)
	}
	return out
}

// listSessionsV2 is session/list.
func (a *connection) listSessionsV2(ctx context.Context, p *acpv2.ListSessionsRequest) (*acpv2.ListSessionsResponse, error) {
	var req acp.ListSessionsRequest
	if cwd, ok := p.Cwd.Get(); ok {
		req.Cwd = acp.Some(string(cwd))
	}
	if c, ok := p.Cursor.Get(); ok {
		req.Cursor = acp.Some(string(c))
	}
	r, err := a.listSessions(ctx, &req)
	if err != nil {
		return nil, err
	}
	resp := &acpv2.ListSessionsResponse{Sessions: []acpv2.SessionInfo{}}
	for _, s := range r.Sessions {
		resp.Sessions = append(resp.Sessions, v2conv.SessionInfo(s))
	}
	if c, ok := r.NextCursor.Get(); ok {
		resp.NextCursor = acp.Some(acpv2.SessionListCursor(c))
	}
	return resp, nil
}

// resumeSessionV2 is session/resume. With replayFrom {type:"start"} it is
// v1's session/load: the history is replayed (as v2 updates) before the
// answer. Either way the client then gets the session's current state.
func (a *connection) resumeSessionV2(ctx context.Context, p *acpv2.ResumeSessionRequest) (*acpv2.ResumeSessionResponse, error) {
	servers, err := v2conv.MCPServers(p.MCPServers)
	if err != nil {
		return nil, err
	}
	replay := false
	if rf, ok := p.ReplayFrom.Get(); ok {
		if rf.Start == nil {
			return nil, acp.NewInvalidParams("replayFrom", "unsupported replayFrom type; this agent replays from the start only")
		}
		replay = true
	}
	id, cwd, dirs := p.SessionID, string(p.Cwd), absPaths(p.AdditionalDirectories)
	var opts []acp.SessionConfigOption
	if replay {
		r, err := a.loadSession(ctx, &acp.LoadSessionRequest{SessionID: acp.SessionID(id), Cwd: cwd, AdditionalDirectories: dirs, MCPServers: servers, Meta: p.Meta})
		if err != nil {
			return nil, err
		}
		opts, _ = r.ConfigOptions.Get()
	} else {
		r, err := a.resumeSession(ctx, &acp.ResumeSessionRequest{SessionID: acp.SessionID(id), Cwd: cwd, AdditionalDirectories: dirs, MCPServers: servers, Meta: p.Meta})
		if err != nil {
			return nil, err
		}
		opts, _ = r.ConfigOptions.Get()
	}
	if s, err := a.session(acp.SessionID(id)); err == nil {
		a.sendCurrentV2(s)
	}
	return &acpv2.ResumeSessionResponse{ConfigOptions: v2conv.ConfigOptions(opts)}, nil
}

// sendCurrentV2 tells a client that resumed a session what it may hold
// stale or not at all, before the answer, as v2 asks: the title and last
// update (the live title wins over the transcript's), then the state.
func (a *connection) sendCurrentV2(s *session) {
	info := &acp.SessionInfoUpdate{}
	if path, err := a.findTranscript(s.id); err == nil {
		if d, ok := transcript.Describe(path); ok {
			if d.Title != "" {
				info.Title = acp.Some(d.Title)
			}
			if !d.UpdatedAt.IsZero() {
				info.UpdatedAt = acp.Some(d.UpdatedAt.UTC().Format("2006-01-02T15:04:05.000Z"))
			}
		}
	}
	s.do(func() {
		if s.title.shown != "" {
			info.Title = acp.Some(s.title.shown)
		} else if t, ok := info.Title.Get(); ok {
			s.title.shown = t
		}
		if info.Title.IsSet() || info.UpdatedAt.IsSet() {
			a.notify(s.id, acp.SessionUpdate{SessionInfoUpdate: info})
		}
		s.q.v2.sendState()
	})
}

// forkSessionV2 is session/fork (unstable, as on v1).
func (a *connection) forkSessionV2(ctx context.Context, p *acpv2.ForkSessionRequest) (*acpv2.ForkSessionResponse, error) {
	servers, err := v2conv.MCPServers(p.MCPServers)
	if err != nil {
		return nil, err
	}
	r, err := a.forkSession(ctx, &acp.ForkSessionRequest{
		SessionID: acp.SessionID(p.SessionID), Cwd: string(p.Cwd), AdditionalDirectories: absPaths(p.AdditionalDirectories), MCPServers: servers, Meta: p.Meta,
	})
	if err != nil {
		return nil, err
	}
	opts, _ := r.ConfigOptions.Get()
	return &acpv2.ForkSessionResponse{SessionID: acpv2.SessionID(r.SessionID), ConfigOptions: v2conv.ConfigOptions(opts)}, nil
}

// closeSessionV2 is session/close: as on v1, and a turn that was running
// ends with an idle "cancelled" state before the answer (v2turns.go).
// Closing an unknown session succeeds.
func (a *connection) closeSessionV2(ctx context.Context, p *acpv2.CloseSessionRequest) (*acpv2.CloseSessionResponse, error) {
	if _, err := a.closeSession(ctx, &acp.CloseSessionRequest{SessionID: acp.SessionID(p.SessionID)}); err != nil {
		return nil, err
	}
	a.forgetV2(string(p.SessionID))
	return &acpv2.CloseSessionResponse{}, nil
}

// deleteSessionV2 is session/delete.
func (a *connection) deleteSessionV2(ctx context.Context, p *acpv2.DeleteSessionRequest) (*acpv2.DeleteSessionResponse, error) {
	if _, err := a.deleteSession(ctx, &acp.DeleteSessionRequest{SessionID: acp.SessionID(p.SessionID)}); err != nil {
		return nil, err
	}
	a.forgetV2(string(p.SessionID))
	return &acpv2.DeleteSessionResponse{}, nil
}

// setConfigOptionV2 is session/set_config_option; the permission mode is
// the "mode" option (v2 has no session/set_mode).
func (a *connection) setConfigOptionV2(ctx context.Context, p *acpv2.SetSessionConfigOptionRequest) (*acpv2.SetSessionConfigOptionResponse, error) {
	req := acp.SetSessionConfigOptionRequest{SessionID: acp.SessionID(p.SessionID), ConfigID: acp.SessionConfigID(p.ConfigID), Meta: p.Meta}
	switch {
	case p.ID != nil:
		req.ValueID = &acp.SetSessionConfigOptionRequestValueID{Value: acp.SessionConfigValueID(p.ID.Value)}
	case p.Boolean != nil:
		req.Boolean = &acp.SetSessionConfigOptionRequestBoolean{Value: p.Boolean.Value}
	default:
		return nil, acp.NewInvalidParams("type", `must be "id" or "boolean"`)
	}
	r, err := a.setConfigOption(ctx, &req)
	if err != nil {
		return nil, err
	}
	// v2 asks for a config_option_update on every change, the client's
	// own too (other attached clients learn of it), before the answer.
	a.notify(string(p.SessionID), acp.SessionUpdate{ConfigOptionUpdate: &acp.ConfigOptionUpdate{ConfigOptions: r.ConfigOptions}})
	return &acpv2.SetSessionConfigOptionResponse{ConfigOptions: v2conv.ConfigOptions(r.ConfigOptions)}, nil
}

// cancelToolCallV2 is tool_call/cancel. Claude Code cannot stop one tool
// call on its own, so no tool call advertises capabilities.cancel.
func (a *connection) cancelToolCallV2(ctx context.Context, p *acpv2.CancelToolCallRequest) (*acpv2.CancelToolCallResponse, error) {
	if _, err := a.session(acp.SessionID(p.SessionID)); err != nil {
		return nil, err
	}
	return nil, acp.NewInvalidParams("toolCallId", "unknown or not cancellable tool call").
		WithData(map[string]string{"toolCallId": string(p.ToolCallID)})
}

// cancelTerminalV2 is terminal/cancel: stops a background command.
func (a *connection) cancelTerminalV2(ctx context.Context, p *acpv2.CancelTerminalRequest) (*acpv2.CancelTerminalResponse, error) {
	if _, err := a.cancelTerminal(ctx, &cancelTerminalRequest{SessionID: acp.SessionID(p.SessionID), TerminalID: acp.TerminalID(p.TerminalID)}); err != nil {
		return nil, err
	}
	return &acpv2.CancelTerminalResponse{}, nil
}

// updatesV2 is the session's update converter, made on first use.
func (a *connection) updatesV2(sessionID string) *v2conv.Updates {
	a.mu.Lock()
	defer a.mu.Unlock()
	if c := a.v2[sessionID]; c != nil {
		return c
	}
	// A session's converter is made with it (addSession) and dropped
	// when it closes; an update for an id without one (a late report of
	// a closed session) is converted without state, and nothing is kept.
	return v2conv.NewUpdates("")
}

func (a *connection) forgetV2(sessionID string) {
	a.mu.Lock()
	delete(a.v2, sessionID)
	a.mu.Unlock()
}

// sendV2 sends v2 updates of a session, in order.
func (a *connection) sendV2(sessionID string, us ...acpv2.SessionUpdate) error {
	for _, u := range us {
		n := &acpv2.UpdateSessionNotification{SessionID: acpv2.SessionID(sessionID), Update: u}
		if err := a.editor().Notify(context.Background(), acpv2.MethodSessionUpdate, n); err != nil {
			return err
		}
	}
	return nil
}

// sendStateV2 sends updates v2 has and v1 does not (the prompt lifecycle,
// v2turns.go), in order with the converted ones; like any update that is
// not a chunk, they end a run of chunks without message ids.
func (a *connection) sendStateV2(sessionID string, us ...acpv2.SessionUpdate) {
	if err := a.updatesV2(sessionID).SendState(us, func(us ...acpv2.SessionUpdate) error { return a.sendV2(sessionID, us...) }); err != nil {
		a.log.Debug("session/update not sent", "error", err)
	}
}

// requestPermission asks the client about a tool call, in the connection's
// version.
func (a *connection) requestPermission(ctx context.Context, s *session, params *acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	var resp acp.RequestPermissionResponse
	if a.protocol() < acp.ProtocolV2 {
		err := a.editor().Call(ctx, acp.MethodSessionRequestPermission, params, &resp)
		return resp, err
	}
	req := v2conv.PermissionRequest(params, a.updatesV2(string(params.SessionID)).Cwd())
	var r2 acpv2.RequestPermissionResponse
	if err := a.editor().Call(ctx, acpv2.MethodSessionRequestPermission, req, &r2); err != nil {
		return resp, err
	}
	return v2conv.PermissionOutcome(&r2), nil
}
