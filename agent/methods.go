package agent

import (
	"context"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/acp/acpv2"
	"github.com/claude-agent-acp/claude-agent-acp/agent/goal"
)

// methods is every ACP method the agent serves, in one table per protocol
// version: to find what a method does, start here. initialize picks the
// version (initialize.go); from then on the connection is served by that
// version's table only, so a v1 method on a v2 connection is -32601 and
// the other way round. Capabilities that announce optional methods are set
// next to each table, so the two cannot drift.
func (a *connection) methods() acp.Handler {
	v1, v2 := a.methodsV1(), a.methodsV2()
	return acp.HandlerFunc(func(ctx context.Context, req *acp.Request) (any, error) {
		switch {
		case req.Method == acp.MethodInitialize:
			return a.initializeAny(ctx, req.Params)
		case a.protocol() >= acp.ProtocolV2:
			return v2.Handle(ctx, req)
		}
		return v1.Handle(ctx, req)
	})
}

// methodsV1 is ACP v1, which editors speak today.
func (a *connection) methodsV1() *acp.Mux {
	m := acp.NewMux()
	// Connection (initialize.go).
	acp.On(m, acp.MethodAuthenticate, a.authenticate)
	acp.On(m, acp.MethodLogout, a.logout) // logout.go
	// Sessions (sessions.go, load.go, list.go, lifecycle.go).
	acp.On(m, acp.MethodSessionNew, a.newSession)
	acp.On(m, acp.MethodSessionLoad, a.loadSession)
	acp.On(m, acp.MethodSessionList, a.listSessions)
	acp.On(m, acp.MethodSessionResume, a.resumeSession)
	acp.On(m, acp.MethodSessionFork, a.forkSession)
	acp.On(m, acp.MethodSessionClose, a.closeSession)
	acp.On(m, acp.MethodSessionDelete, a.deleteSession)
	// Turns (turn.go).
	acp.On(m, acp.MethodSessionPrompt, a.prompt)
	acp.OnNotification(m, acp.MethodSessionCancel, a.cancel)
	// Configuration (config.go).
	acp.On(m, acp.MethodSessionSetMode, a.setMode)
	acp.On(m, acp.MethodSessionSetConfigOption, a.setConfigOption)
	acp.On(m, methodSetModel, a.setModel)
	// Extensions: the session goal (goal.go) and display terminals
	// (terminals.go).
	acp.On(m, goal.ControlMethod, a.goalControl)
	acp.On(m, methodTerminalCancel, a.cancelTerminal)
	// Steering a running turn (steering.go; v1 only: v2 holds prompts one
	// at a time) and stopping one background task (asynctask.go).
	acp.On(m, steeringMethod, a.steer)
	acp.On(m, asyncTaskStopMethod, a.stopAsyncTask)
	return m
}

// methodsV2 is the ACP v2 draft (docs/acp-v2.md): the same core behind
// v2's shapes (v2.go, v2turns.go, agent/v2conv).
func (a *connection) methodsV2() *acp.Mux {
	m := acp.NewMux()
	// Connection and authentication (v2.go).
	acp.On(m, acpv2.MethodAuthLogin, a.authLoginV2)
	acp.On(m, acpv2.MethodAuthLogout, a.authLogoutV2)
	// Sessions (v2.go over sessions.go, lifecycle.go, load.go, list.go).
	acp.On(m, acpv2.MethodSessionNew, a.newSessionV2)
	acp.On(m, acpv2.MethodSessionList, a.listSessionsV2)
	acp.On(m, acpv2.MethodSessionResume, a.resumeSessionV2)
	acp.On(m, acpv2.MethodSessionFork, a.forkSessionV2)
	acp.On(m, acpv2.MethodSessionClose, a.closeSessionV2)
	acp.On(m, acpv2.MethodSessionDelete, a.deleteSessionV2)
	// Turns (v2turns.go over turn.go).
	acp.On(m, acpv2.MethodSessionPrompt, a.promptV2)
	acp.OnNotification(m, acpv2.MethodSessionCancel, a.cancelV2)
	acp.On(m, acpv2.MethodToolCallCancel, a.cancelToolCallV2)
	acp.On(m, acpv2.MethodTerminalCancel, a.cancelTerminalV2)
	// Configuration: modes are a config option in v2 (config.go).
	acp.On(m, acpv2.MethodSessionSetConfigOption, a.setConfigOptionV2)
	// Extensions: the session goal (goal.go).
	acp.On(m, goal.ControlMethod, a.goalControl)
	return m
}

// sessionCapabilitiesV2 announces what the v2 table serves beyond the
// baseline (new, list, resume, close, prompt, cancel, update).
func sessionCapabilitiesV2() acpv2.SessionCapabilities {
	return acpv2.SessionCapabilities{
		Prompt: acp.Some(acpv2.PromptCapabilities{
			Image:           acp.Some(acpv2.PromptImageCapabilities{}),
			EmbeddedContext: acp.Some(acpv2.PromptEmbeddedContextCapabilities{}),
		}),
		MCP: acp.Some(acpv2.MCPCapabilities{
			Stdio: acp.Some(acpv2.MCPStdioCapabilities{}),
			HTTP:  acp.Some(acpv2.MCPHTTPCapabilities{}),
		}),
		Delete:                acp.Some(acpv2.SessionDeleteCapabilities{}),
		AdditionalDirectories: acp.Some(acpv2.SessionAdditionalDirectoriesCapabilities{}),
		Fork:                  acp.Some(acpv2.SessionForkCapabilities{}),
	}
}

// sessionCapabilities announces the optional session methods of the table
// above.
func sessionCapabilities(c *acp.AgentCapabilities) {
	c.LoadSession = true
	sc := &c.SessionCapabilities
	sc.List = &acp.SessionListCapabilities{}
	sc.Resume = &acp.SessionResumeCapabilities{}
	sc.Fork = &acp.SessionForkCapabilities{}
	sc.Close = &acp.SessionCloseCapabilities{}
	sc.Delete = &acp.SessionDeleteCapabilities{}
	c.Auth.Logout = &acp.LogoutCapabilities{}
}
