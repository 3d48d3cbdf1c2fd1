package config

import (
	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// mode is one of the CLI's permission modes offered as an ACP mode.
// A Mode is one of the CLI's permission modes offered as an ACP mode.
type Mode struct {
	ID, Name, Description string
	hidden                bool // listed only while it is the current mode
}

var allModes = []Mode{
	{ID: claude.PermissionDefault, Name: "Manual", Description: "Always ask before making changes"},
	{ID: claude.PermissionAcceptEdits, Name: "Accept edits", Description: "Automatically accept all file edits"},
	{ID: claude.PermissionPlan, Name: "Plan", Description: "Create a plan before making changes"},
	{ID: claude.PermissionAuto, Name: "Auto", Description: "Claude handles permission decisions"},
	{ID: claude.PermissionBypass, Name: "Bypass permissions", Description: "Accept all permissions"},
	{ID: claude.PermissionDontAsk, Name: "Don't ask", Description: "Deny whatever is not allowed in advance", hidden: true},
}

// modes lists the modes this session can use: bypass only where the CLI
// accepts it (not as root outside a sandbox), auto only with a model that
// supports it.
func (c *Session) Modes(models []claude.ModelInfo) []Mode {
	var out []Mode
	info, known := c.ModelInfo(models)
	for _, m := range allModes {
		switch {
		case m.ID == c.ModeID:
		case m.hidden:
			continue
		case m.ID == claude.PermissionBypass && !c.Opts.AllowDangerouslySkipPermissions:
			continue
		case m.ID == claude.PermissionAuto && known && !info.SupportsAutoMode:
			continue
		}
		out = append(out, m)
	}
	return out
}

func (c *Session) HasMode(models []claude.ModelInfo, id string) bool {
	for _, m := range c.Modes(models) {
		if m.ID == id {
			return true
		}
	}
	return false
}

func (c *Session) ModeState(models []claude.ModelInfo) *acp.SessionModeState {
	st := &acp.SessionModeState{CurrentModeID: acp.SessionModeID(c.ModeID)}
	for _, m := range c.Modes(models) {
		st.AvailableModes = append(st.AvailableModes, acp.SessionMode{
			ID: acp.SessionModeID(m.ID), Name: m.Name, Description: acp.Some(m.Description)})
	}
	return st
}
