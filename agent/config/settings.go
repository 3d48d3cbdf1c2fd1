package config

import (
	"context"
	"slices"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// A Setting is a config option's new value: recorded on the session
// goroutine (record validates it against what the model offers and keeps
// it for the next start), then handed to the running CLI, if any.
type Setting struct {
	What    string     // for the error: "the effort"
	Invalid *acp.Error // when Record refuses it
	Record  func(c *Session, models []claude.ModelInfo) bool
	Send    func(ctx context.Context, p *claude.Process) error
}

func EffortSetting(level string) Setting {
	return Setting{What: "the effort", Invalid: acp.NewInvalidParams("value", "unknown effort level for this model"),
		Record: func(c *Session, models []claude.ModelInfo) bool {
			info, ok := c.ModelInfo(models)
			if !ok || !info.SupportsEffort || !slices.Contains(info.SupportedEffortLevels, level) {
				return false
			}
			c.effort, c.Opts.Effort = level, level
			return true
		},
		Send: func(ctx context.Context, p *claude.Process) error { return setEffort(ctx, p, level) }}
}

func ThinkingSetting(on bool) Setting {
	return Setting{What: "thinking", Invalid: acp.NewInvalidParams("configId", "this model cannot turn thinking off"),
		Record: func(c *Session, models []claude.ModelInfo) bool {
			if info, ok := c.ModelInfo(models); !ok || !info.SupportsThinkingOff {
				return false
			}
			c.thinkingOff = !on
			c.Opts.Thinking = claude.Thinking{}
			if !on {
				c.Opts.Thinking.Type = "disabled"
			}
			return true
		},
		Send: func(ctx context.Context, p *claude.Process) error {
			tokens := -1
			if !on {
				tokens = 0
			}
			return p.SetMaxThinkingTokens(ctx, tokens)
		}}
}

func FastSetting(on bool) Setting {
	return Setting{What: "fast mode", Invalid: acp.NewInvalidParams("configId", "this model has no fast mode"),
		Record: func(c *Session, models []claude.ModelInfo) bool {
			if info, ok := c.ModelInfo(models); !ok || !info.SupportsFastMode {
				return false
			}
			c.fastState = "off"
			if on {
				c.fastState = "on"
			}
			c.fastWanted = &on
			return true
		},
		Send: func(ctx context.Context, p *claude.Process) error {
			return p.ApplyFlagSettings(ctx, map[string]any{"fastMode": on})
		}}
}

// ultracodeSetting turns ultracode (standing dynamic-workflow
// orchestration) on or off where the CLI offers it.
func UltracodeSetting(on bool) Setting {
	return Setting{What: "ultracode", Invalid: acp.NewInvalidParams("configId", "ultracode is not available for this model"),
		Record: func(c *Session, models []claude.ModelInfo) bool {
			info, ok := c.ModelInfo(models)
			if !ok || !c.ultraAvail || !slices.Contains(info.SupportedEffortLevels, "xhigh") {
				return false
			}
			c.ultracode, c.ultraWanted = on, &on
			return true
		},
		Send: func(ctx context.Context, p *claude.Process) error {
			return p.ApplyFlagSettings(ctx, map[string]any{"ultracode": on})
		}}
}

// agentSetting runs the main thread as a custom agent ("default": none):
// apply_flag_settings agent now, --agent at the next start.
func AgentSetting(name string) Setting {
	return Setting{What: "the agent", Invalid: acp.NewInvalidParams("value", "unknown agent"),
		Record: func(c *Session, _ []claude.ModelInfo) bool {
			if name != "default" && !slices.Contains(c.agents, name) {
				return false
			}
			c.Opts.Agent = ""
			if name != "default" {
				c.Opts.Agent = name
			}
			return true
		},
		Send: func(ctx context.Context, p *claude.Process) error {
			var v any = name
			if name == "default" {
				v = nil
			}
			return p.ApplyFlagSettings(ctx, map[string]any{"agent": v})
		}}
}
