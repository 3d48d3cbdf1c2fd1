package agent

import (
	"github.com/claude-agent-acp/claude-agent-acp/acp"
)

// Modes are the CLI's permission modes. The session's mode changes by
// session/set_mode or the "mode" config option, and also from the CLI's
// side (plan approval, EnterPlanMode, an "always allow" that switches to
// accept-edits, /permissions): every change the CLI reports in its status
// and init frames becomes current_mode_update and config_option_update.

// setModeID records the session's mode (also for the next CLI start) and
// tells the client when it changed.
func (s *session) setModeID(id string) {
	if id == "" || id == s.conf.ModeID {
		return
	}
	s.conf.SetMode(id)
	s.a.notify(s.id, acp.SessionUpdate{CurrentModeUpdate: &acp.CurrentModeUpdate{CurrentModeID: acp.SessionModeID(id)}})
	s.publishConfig()
}
