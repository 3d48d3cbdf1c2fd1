// Package config is a session's configuration as the client sees it and
// the CLI runs it: the permission modes, the model (from the CLI's own
// list), effort, thinking, fast mode, ultracode and the custom agent, as
// ACP modes and config options, and the CLI options a session (re)starts
// with. It is a pure model: package agent applies a change to the running

// CLI (config.Setting says how) and tells the client; this package decides
// what is offered, what is valid and what the next CLI start gets. It
// never imports package agent (internal/test/archtest).
package config

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"unicode"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/failure"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// Config option ids.
const (
	OptMode      = "mode"
	OptModel     = "model"
	OptEffort    = "effort"
	OptThinking  = "thinking"
	OptFast      = "fast"
	OptAgent     = "agent"
	OptUltracode = "ultracode"
)

// CLIModel is what set_model and --model take for a model value: the
// default row resets to the CLI's default.
func CLIModel(value string) string {
	if value == "default" {
		return ""
	}
	return value
}

func (c *Session) SetModel(value string) {
	c.model = value
	c.Opts.Model = CLIModel(value)
}

func setEffort(ctx context.Context, p *claude.Process, level string) error {
	return p.ApplyFlagSettings(ctx, map[string]any{"effortLevel": level})
}

// builtinAgents are the CLI's own agents; the agent option offers the
// others (the user's and the project's).
var builtinAgents = []string{"claude", "general-purpose", "Explore", "Plan", "statusline-setup"}

// learnAgents takes the custom agents a CLI offers.
func (c *Session) LearnAgents(agents []claude.AgentInfo) {
	c.agents = c.agents[:0]
	for _, a := range agents {
		if a.Name != "" && !slices.Contains(builtinAgents, a.Name) {
			c.agents = append(c.agents, a.Name)
		}
	}
}

// followFastMode keeps the fast mode option in step with the CLI's
// fast_mode_state (initialize, init, every result).
func (c *Session) FollowFastMode(state string, raw json.RawMessage) {
	if state == "" {
		return
	}
	var r struct {
		Reason string `json:"fast_mode_disabled_reason"`
	}
	_ = json.Unmarshal(raw, &r)
	c.fastState, c.fastReason = state, r.Reason
}

// modelInfo describes the session's current model. A model the CLI
// switched to on its own (a refusal fallback) may be missing from the list;
// it is described by its id alone. Its effort levels and thinking switch
// are unknown, so those options are left out; auto mode stays offered,
// since the CLI itself refuses it for a model that cannot use it.
func (c *Session) ModelInfo(models []claude.ModelInfo) (claude.ModelInfo, bool) {
	if len(models) == 0 {
		return claude.ModelInfo{}, false
	}
	for _, m := range models {
		if m.Value == c.model {
			return m, true
		}
	}
	if c.model != "" {
		return claude.ModelInfo{Value: c.model, ResolvedModel: c.model, DisplayName: c.model, SupportsAutoMode: true}, true
	}
	return models[0], true
}

// configOptions is the full list of the session's config options.
func (c *Session) Options(models []claude.ModelInfo) []acp.SessionConfigOption {
	opts := []acp.SessionConfigOption{c.modeOption(models)}
	info, known := c.ModelInfo(models)
	if !known {
		return opts
	}
	opts = append(opts, c.modelOption(models, info))
	if info.SupportsEffort && len(info.SupportedEffortLevels) > 0 {
		var choices []acp.SessionConfigSelectOption
		for _, l := range info.SupportedEffortLevels {
			choices = append(choices, acp.SessionConfigSelectOption{Value: acp.SessionConfigValueID(l), Name: effortName(l)})
		}
		current := firstNonEmpty(c.effort, "medium")
		opts = append(opts, acp.SessionConfigOption{
			ID: OptEffort, Name: "Effort", Category: acp.Some(acp.SessionConfigOptionCategory("thought_level")),
			Description: acp.Some("How much the model thinks and works before it answers"),
			Select: &acp.SessionConfigSelect{
				CurrentValue: acp.SessionConfigValueID(current),
				Options:      acp.SessionConfigSelectOptions{Ungrouped: choices},
			},
		})
	}
	if info.SupportsFastMode {
		desc := "Faster responses on supported models"
		if why, ok := failure.FastModeReason(c.fastReason); ok && c.fastState != "on" {
			desc += " — " + why
		}
		opts = append(opts, c.switchOption(OptFast, "Fast mode", desc, c.fastState == "on"))
	}
	if c.ultraAvail && slices.Contains(info.SupportedEffortLevels, "xhigh") {
		opts = append(opts, c.switchOption(OptUltracode, "Ultracode", "Standing dynamic-workflow orchestration at any effort level", c.ultracode))
	}
	if len(c.agents) > 0 {
		choices := []acp.SessionConfigSelectOption{{Value: "default", Name: "Default", Description: acp.Some("Standard Claude Code agent")}}
		for _, a := range c.agents {
			choices = append(choices, acp.SessionConfigSelectOption{Value: acp.SessionConfigValueID(a), Name: a})
		}
		opts = append(opts, acp.SessionConfigOption{
			ID: OptAgent, Name: "Agent",
			Description: acp.Some("The agent the session runs as"),
			Select: &acp.SessionConfigSelect{
				CurrentValue: acp.SessionConfigValueID(firstNonEmpty(c.Opts.Agent, "default")),
				Options:      acp.SessionConfigSelectOptions{Ungrouped: choices},
			},
		})
	}
	if info.SupportsThinkingOff {
		opts = append(opts, c.switchOption(OptThinking, "Thinking", "Let the model think before it answers", !c.thinkingOff))
	}
	return opts
}

// switchOption is an on/off option: boolean for clients that declared
// session.configOptions.boolean, else a select of "on" and "off" (the
// reference adapter's choice; older clients reject boolean options).
func (c *Session) switchOption(id, name, desc string, on bool) acp.SessionConfigOption {
	o := acp.SessionConfigOption{ID: acp.SessionConfigID(id), Name: name,
		Category: acp.Some(acp.SessionConfigOptionCategory("model_config")), Description: acp.Some(desc)}
	if c.Booleans {
		o.Boolean = &acp.SessionConfigBoolean{CurrentValue: on}
		return o
	}
	current := "off"
	if on {
		current = "on"
	}
	o.Select = &acp.SessionConfigSelect{
		CurrentValue: acp.SessionConfigValueID(current),
		Options: acp.SessionConfigSelectOptions{Ungrouped: []acp.SessionConfigSelectOption{
			{Value: "on", Name: "On"}, {Value: "off", Name: "Off"}}},
	}
	return o
}

// switchValue reads the value of an on/off option: a boolean, or "on" /
// "off" from a client that got it as a select.
func SwitchValue(p *acp.SetSessionConfigOptionRequest, value string) (bool, error) {
	switch {
	case p.Boolean != nil:
		return p.Boolean.Value, nil
	case value == "on" || value == "off":
		return value == "on", nil
	}
	return false, acp.NewInvalidParams("value", "takes a boolean, or on / off")
}

func effortName(level string) string {
	switch level {
	case "xhigh":
		return "Extra high"
	case "max":
		return "Max"
	case "":
		return ""
	}
	return string(level[0]-'a'+'A') + level[1:]
}

func (c *Session) modeOption(models []claude.ModelInfo) acp.SessionConfigOption {
	var choices []acp.SessionConfigSelectOption
	for _, m := range c.Modes(models) {
		choices = append(choices, acp.SessionConfigSelectOption{
			Value: acp.SessionConfigValueID(m.ID), Name: m.Name, Description: acp.Some(m.Description)})
	}
	return acp.SessionConfigOption{
		ID: OptMode, Name: "Mode", Category: acp.Some(acp.SessionConfigOptionCategory("mode")),
		Select: &acp.SessionConfigSelect{
			CurrentValue: acp.SessionConfigValueID(c.ModeID),
			Options:      acp.SessionConfigSelectOptions{Ungrouped: choices},
		},
	}
}

// modelOption offers the CLI's own model list, plus the current model when
// the list does not name it.
func (c *Session) modelOption(models []claude.ModelInfo, current claude.ModelInfo) acp.SessionConfigOption {
	var choices []acp.SessionConfigSelectOption
	listed := false
	for _, m := range models {
		o := acp.SessionConfigSelectOption{Value: acp.SessionConfigValueID(m.Value), Name: modelName(m)}
		if m.Description != "" {
			o.Description = acp.Some(m.Description)
		}
		choices = append(choices, o)
		listed = listed || m.Value == current.Value
	}
	if !listed { // the model the CLI fell back to, as an extra row
		choices = append(choices, acp.SessionConfigSelectOption{Value: acp.SessionConfigValueID(current.Value), Name: current.DisplayName})
	}
	return acp.SessionConfigOption{
		ID: OptModel, Name: "Model", Category: acp.Some(acp.SessionConfigOptionCategory("model")),
		Select: &acp.SessionConfigSelect{
			CurrentValue: acp.SessionConfigValueID(current.Value),
			Options:      acp.SessionConfigSelectOptions{Ungrouped: choices},
		},
	}
}

// modelName is a model row's name with the version the CLI gives: its
// displayName is the family ("Opus"), its description starts with the
// versioned name ("Opus 5.5 · Best for everyday, complex tasks · …").
func modelName(m claude.ModelInfo) string {
	name := firstNonEmpty(m.DisplayName, m.Value)
	first, _, _ := strings.Cut(m.Description, " · ")
	if v, ok := strings.CutPrefix(first, name+" "); ok && v != "" && len(first) <= len(name)+12 && strings.IndexFunc(v, unicode.IsDigit) == 0 {
		return first
	}
	return name
}

// learnApplied takes what the CLI applies that the session did not choose:
// the effort level, and whether ultracode is offered and on.
func (c *Session) LearnApplied(st *claude.AppliedSettings) {
	if c.effort == "" && st.Effort != "" {
		c.effort = st.Effort
	}
	c.ultraAvail = st.UltracodeAvailable
	if c.ultraWanted == nil {
		c.ultracode = st.Ultracode
	}
}

// Session is what a session's CLI runs with and what its client is
// offered, owned by the session goroutine.
type Session struct {
	Opts    claude.Options // how to (re)start the CLI; Resume/SessionID set per start
	ModeID  string         // the permission mode (SetMode keeps Opts in step)
	MetaKey string         // the _meta options the CLI was started with (agent/metaopts.go)
	// LaterMode is a loaded session's mode, restored once a CLI says
	// whether it is offered (agent/load.go, agent/config.go afterStart).
	LaterMode string
	// Booleans: the client takes boolean config options (else on/off
	// selects).
	Booleans bool

	model       string // the model picked in this session ("" = the CLI's default)
	effort      string // "" until known
	thinkingOff bool
	sent        string   // JSON of the config options the client last got
	fastState   string   // the CLI's fast_mode_state ("" until it says)
	fastReason  string   // its fast_mode_disabled_reason
	fastWanted  *bool    // fast mode as the user set it (nil: never), for the next CLI
	agents      []string // the custom agents the CLI offers
	ultracode   bool     // ultracode is on
	ultraAvail  bool     // the CLI offers ultracode
	ultraWanted *bool    // ultracode as the user set it, for the next CLI
}

// SetMode records the permission mode, for the next CLI start too.
func (c *Session) SetMode(id string) {
	c.ModeID, c.Opts.PermissionMode = id, id
}

// Model is the model picked in this session ("" = the CLI's default).
func (c *Session) Model() string { return c.model }

// SetEffort records the effort level the CLI runs with.
func (c *Session) SetEffort(level string) { c.effort, c.Opts.Effort = level, level }

// FastWanted and UltraWanted are fast mode and ultracode as the user set
// them (nil: never), for a CLI that starts after the choice.
func (c *Session) FastWanted() *bool  { return c.fastWanted }
func (c *Session) UltraWanted() *bool { return c.ultraWanted }

// Snapshot is the modes and config options the client is about to get in
// a response; Update later gives only what changes after it.
func (c *Session) Snapshot(models []claude.ModelInfo) (*acp.SessionModeState, []acp.SessionConfigOption) {
	opts := c.Options(models)
	c.sent = encode(opts)
	return c.ModeState(models), opts
}

// Update is the config options to send the client when they differ from
// what it last got; ok is false when there is nothing to send (or the
// client has no list yet: its setup response will carry one).
func (c *Session) Update(models []claude.ModelInfo) (_ []acp.SessionConfigOption, ok bool) {
	if c.sent == "" {
		return nil, false
	}
	opts := c.Options(models)
	if j := encode(opts); j != c.sent {
		c.sent = j
		return opts, true
	}
	return nil, false
}

func encode(opts []acp.SessionConfigOption) string {
	b, _ := json.Marshal(opts)
	return string(b)
}

// TakeMeta gives the session the CLI options of a request's _meta
// (agent/metaopts.go: n, and the model, the effort and the key it names).
// A model or effort the request names becomes the session's choice (the
// pickers show it); without one, the session keeps what the user picked.
func (c *Session) TakeMeta(n claude.Options, model, effort, key string) {
	o := &c.Opts
	o.SystemPrompt, o.AppendSystemPrompt, o.Tools = n.SystemPrompt, n.AppendSystemPrompt, n.Tools
	o.FallbackModel, o.Agent, o.MaxTurns, o.MaxBudgetUSD = n.FallbackModel, n.Agent, n.MaxTurns, n.MaxBudgetUSD
	o.AllowedTools, o.DisallowedTools, o.Settings, o.Env = n.AllowedTools, n.DisallowedTools, n.Settings, n.Env
	if model != "" {
		c.SetModel(model)
	}
	if effort != "" {
		c.SetEffort(effort)
	}
	c.MetaKey = key
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
