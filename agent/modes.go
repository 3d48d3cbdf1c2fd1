package agent

import (
	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// Modes are the CLI's permission modes. The session's mode changes by
// session/set_mode or the "mode" config option, and also from the CLI's
// side (plan approval, EnterPlanMode, an "always allow" that switches to
// accept-edits, /permissions): every change the CLI reports in its status
// and init frames becomes current_mode_update and config_option_update.

// mode is one of the CLI's permission modes offered as an ACP mode.
type mode struct {
	id, name, description string
	hidden                bool // listed only while it is the current mode
}

var allModes = []mode{
	{id: claude.PermissionDefault, name: "Manual", description: "Always ask before making changes"},
	{id: claude.PermissionAcceptEdits, name: "Accept edits", description: "Automatically accept all file edits"},
	{id: claude.PermissionPlan, name: "Plan", description: "Create a plan before making changes"},
	{id: claude.PermissionAuto, name: "Auto", description: "Claude handles permission decisions"},
	{id: claude.PermissionBypass, name: "Bypass permissions", description: "Accept all permissions"},
	{id: claude.PermissionDontAsk, name: "Don't ask", description: "Deny whatever is not allowed in advance", hidden: true},
}

// modes lists the modes this session can use: bypass only where the CLI
// accepts it (not as root outside a sandbox), auto only with a model that
// supports it.
func (c *sessionConfig) modes(models []claude.ModelInfo) []mode {
	var out []mode
	info, known := c.modelInfo(models)
	for _, m := range allModes {
		switch {
		case m.id == c.modeID:
		case m.hidden:
			continue
		case m.id == claude.PermissionBypass && !c.opts.AllowDangerouslySkipPermissions:
			continue
		case m.id == claude.PermissionAuto && known && !info.SupportsAutoMode:
			continue
		}
		out = append(out, m)
	}
	return out
}

func (c *sessionConfig) hasMode(models []claude.ModelInfo, id string) bool {
	for _, m := range c.modes(models) {
		if m.id == id {
			return true
		}
	}
	return false
}

func (c *sessionConfig) modeState(models []claude.ModelInfo) *acp.SessionModeState {
	st := &acp.SessionModeState{CurrentModeID: acp.SessionModeID(c.modeID)}
	for _, m := range c.modes(models) {
		st.AvailableModes = append(st.AvailableModes, acp.SessionMode{
			ID: acp.SessionModeID(m.id), Name: m.name, Description: acp.Some(m.description)})
	}
	return st
}

// setModeID records the session's mode (also for the next CLI start) and
// tells the client when it changed.
func (s *session) setModeID(id string) {
	if id == "" || id == s.conf.modeID {
		return
	}
	s.conf.modeID = id
	s.conf.opts.PermissionMode = id
	s.a.notify(s.id, acp.SessionUpdate{CurrentModeUpdate: &acp.CurrentModeUpdate{CurrentModeID: acp.SessionModeID(id)}})
	s.publishConfig()
}
