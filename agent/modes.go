package agent

import (
	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// mode is one of the CLI's permission modes offered as an ACP mode.
type mode struct {
	id, name, description string
}

var allModes = []mode{
	{claude.PermissionDefault, "Manual", "Always ask before making changes"},
	{claude.PermissionAcceptEdits, "Accept edits", "Automatically accept all file edits"},
	{claude.PermissionPlan, "Plan", "Create a plan before making changes"},
	{claude.PermissionBypass, "Bypass permissions", "Accept all permissions"},
}

// modes lists the modes this session can use; bypass only where the CLI
// allows it.
func (s *session) modes() []mode {
	var out []mode
	for _, m := range allModes {
		if m.id == claude.PermissionBypass && !s.opts.AllowDangerouslySkipPermissions {
			continue
		}
		out = append(out, m)
	}
	return out
}

func (s *session) modeState() *acp.SessionModeState {
	st := &acp.SessionModeState{CurrentModeID: acp.SessionModeID(s.modeID)}
	for _, m := range s.modes() {
		st.AvailableModes = append(st.AvailableModes, acp.SessionMode{
			ID: acp.SessionModeID(m.id), Name: m.name, Description: acp.Some(m.description)})
	}
	return st
}

// configOptions is the full list of the session's config options.
func (s *session) configOptions() []acp.SessionConfigOption {
	opts := []acp.SessionConfigOption{s.modeOption()}
	if mo, ok := s.modelOption(); ok {
		opts = append(opts, mo)
	}
	return opts
}

func (s *session) modeOption() acp.SessionConfigOption {
	var choices []acp.SessionConfigSelectOption
	for _, m := range s.modes() {
		choices = append(choices, acp.SessionConfigSelectOption{
			Value: acp.SessionConfigValueID(m.id), Name: m.name, Description: acp.Some(m.description)})
	}
	return acp.SessionConfigOption{
		ID: "mode", Name: "Mode", Category: acp.Some(acp.SessionConfigOptionCategory("mode")),
		Select: &acp.SessionConfigSelect{
			CurrentValue: acp.SessionConfigValueID(s.modeID),
			Options:      acp.SessionConfigSelectOptions{Ungrouped: choices},
		},
	}
}

// modelOption offers the CLI's own model list, once one CLI has reported it.
func (s *session) modelOption() (acp.SessionConfigOption, bool) {
	s.a.mu.Lock()
	models := s.a.models
	s.a.mu.Unlock()
	if len(models) == 0 {
		return acp.SessionConfigOption{}, false
	}
	current := s.model
	if current == "" {
		current = models[0].Value
	}
	var choices []acp.SessionConfigSelectOption
	for _, m := range models {
		o := acp.SessionConfigSelectOption{Value: acp.SessionConfigValueID(m.Value), Name: firstNonEmpty(m.DisplayName, m.Value)}
		if m.Description != "" {
			o.Description = acp.Some(m.Description)
		}
		choices = append(choices, o)
	}
	return acp.SessionConfigOption{
		ID: "model", Name: "Model", Category: acp.Some(acp.SessionConfigOptionCategory("model")),
		Select: &acp.SessionConfigSelect{
			CurrentValue: acp.SessionConfigValueID(current),
			Options:      acp.SessionConfigSelectOptions{Ungrouped: choices},
		},
	}, true
}
