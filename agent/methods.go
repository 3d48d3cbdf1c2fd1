package agent

import (
	"github.com/claude-agent-acp/claude-agent-acp/acp"
)

// methods is every ACP method the agent serves, in one table: to find what
// a method does, start here. Capabilities that announce optional methods
// are set in sessionCapabilities, next to it, so the two cannot drift.
func (a *connection) methods() acp.Handler {
	m := acp.NewMux()
	// Connection (initialize.go).
	acp.On(m, acp.MethodInitialize, a.initialize)
	acp.On(m, acp.MethodAuthenticate, a.authenticate)
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
	// (terminal.go).
	acp.On(m, goalControlMethod, a.goalControl)
	acp.On(m, methodTerminalCancel, a.cancelTerminal)
	return m
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
}
