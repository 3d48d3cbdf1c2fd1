package agent

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/config"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// Session options a client passes in the _meta of session/new, load,
// resume and fork, as the reference adapter reads them:
//
//	_meta.systemPrompt          a string (replaces the system prompt) or
//	                            {"append": "…"} (appended to it)
//	_meta.disableBuiltInTools   true: no built-in tools (--tools "")
//	_meta.claudeCode.options    the CLI options a session starts with:
//	                            model, fallbackModel, effort, agent,
//	                            maxTurns, maxBudgetUsd, allowedTools,
//	                            disallowedTools (added to ours), tools,
//	                            additionalDirectories (added to the
//	                            request's), settings (a path or an
//	                            object), env (added to the agent's)
//
// Other keys are ignored. A live session reopened with different ones gets
// a new CLI (fingerprint.go), as for a changed cwd or MCP servers.

// metaOptions is what a request's _meta sets; its JSON form (maps sorted)
// is part of the session fingerprint.
type metaOptions struct {
	SystemPrompt        *string           `json:"systemPrompt,omitempty"`
	AppendSystemPrompt  string            `json:"appendSystemPrompt,omitempty"`
	DisableBuiltInTools bool              `json:"disableBuiltInTools,omitempty"`
	Model               string            `json:"model,omitempty"`
	FallbackModel       string            `json:"fallbackModel,omitempty"`
	Effort              string            `json:"effort,omitempty"`
	Agent               string            `json:"agent,omitempty"`
	MaxTurns            int               `json:"maxTurns,omitempty"`
	MaxBudgetUSD        float64           `json:"maxBudgetUsd,omitempty"`
	AllowedTools        []string          `json:"allowedTools,omitempty"`
	DisallowedTools     []string          `json:"disallowedTools,omitempty"`
	Tools               []string          `json:"tools,omitempty"`
	AddDirs             []string          `json:"additionalDirectories,omitempty"`
	Settings            json.RawMessage   `json:"settings,omitempty"`
	Env                 map[string]string `json:"env,omitempty"`
}

// parseMetaOptions reads the options of a request's _meta; a member of
// the wrong type is -32602 naming it.
func parseMetaOptions(meta map[string]json.RawMessage) (metaOptions, error) {
	var m metaOptions
	bad := func(field, reason string) error { return acp.NewInvalidParams("_meta."+field, reason) }
	if raw, ok := meta["systemPrompt"]; ok && string(raw) != "null" {
		var s string
		var obj struct {
			Append string `json:"append"`
		}
		switch {
		case json.Unmarshal(raw, &s) == nil:
			m.SystemPrompt = &s
		case json.Unmarshal(raw, &obj) == nil:
			m.AppendSystemPrompt = obj.Append
		default:
			return m, bad("systemPrompt", "must be a string or an object")
		}
	}
	if raw, ok := meta["disableBuiltInTools"]; ok && json.Unmarshal(raw, &m.DisableBuiltInTools) != nil {
		return m, bad("disableBuiltInTools", "must be a boolean")
	}
	var cc struct {
		Options json.RawMessage `json:"options"`
	}
	if raw, ok := meta["claudeCode"]; ok && json.Unmarshal(raw, &cc) != nil {
		return m, bad("claudeCode", "must be an object")
	}
	if len(cc.Options) == 0 || string(cc.Options) == "null" {
		return m, nil
	}
	var o struct {
		Model                 string          `json:"model"`
		FallbackModel         string          `json:"fallbackModel"`
		Effort                string          `json:"effort"`
		Agent                 string          `json:"agent"`
		MaxTurns              int             `json:"maxTurns"`
		MaxBudgetUSD          float64         `json:"maxBudgetUsd"`
		AllowedTools          []string        `json:"allowedTools"`
		DisallowedTools       []string        `json:"disallowedTools"`
		Tools                 []string        `json:"tools"`
		AdditionalDirectories []string        `json:"additionalDirectories"`
		Settings              json.RawMessage `json:"settings"`
	}
	var envRaw struct {
		Env map[string]any `json:"env"`
	}
	if err := json.Unmarshal(cc.Options, &o); err != nil {
		return m, bad("claudeCode.options", "has a member of the wrong type: "+err.Error())
	}
	if err := json.Unmarshal(cc.Options, &envRaw); err != nil {
		return m, bad("claudeCode.options.env", "must be an object")
	}
	for k, v := range envRaw.Env {
		if s, ok := v.(string); ok && k != "" {
			if m.Env == nil {
				m.Env = map[string]string{}
			}
			m.Env[k] = s
		}
	}
	m.Model, m.FallbackModel, m.Effort, m.Agent = o.Model, o.FallbackModel, o.Effort, o.Agent
	m.MaxTurns, m.MaxBudgetUSD = o.MaxTurns, o.MaxBudgetUSD
	m.AllowedTools, m.DisallowedTools, m.Tools, m.AddDirs = o.AllowedTools, o.DisallowedTools, o.Tools, o.AdditionalDirectories
	if len(o.Settings) > 0 && string(o.Settings) != "null" {
		m.Settings = o.Settings
	}
	return m, nil
}

// key is the options' canonical form, for the fingerprint.
func (m metaOptions) key() string {
	b, _ := json.Marshal(m)
	return string(b)
}

// apply sets the options on the CLI options a session starts with.
func (m metaOptions) apply(o *claude.Options) {
	if m.SystemPrompt != nil {
		o.SystemPrompt = []string{*m.SystemPrompt}
	}
	o.AppendSystemPrompt = m.AppendSystemPrompt
	switch {
	case m.Tools != nil:
		o.Tools = m.Tools
	case m.DisableBuiltInTools:
		o.Tools = []string{}
	}
	o.Model, o.FallbackModel, o.Effort, o.Agent = config.CLIModel(m.Model), m.FallbackModel, m.Effort, m.Agent
	o.MaxTurns, o.MaxBudgetUSD = m.MaxTurns, m.MaxBudgetUSD
	o.AllowedTools = m.AllowedTools
	for _, t := range m.DisallowedTools {
		if !slices.Contains(o.DisallowedTools, t) {
			o.DisallowedTools = append(o.DisallowedTools, t)
		}
	}
	for _, d := range m.AddDirs {
		if !slices.Contains(o.AddDirs, d) {
			o.AddDirs = append(o.AddDirs, d)
		}
	}
	if len(m.Settings) > 0 {
		var path string
		if json.Unmarshal(m.Settings, &path) == nil {
			o.Settings = path
		} else {
			o.Settings = string(m.Settings)
		}
	}
	keys := make([]string, 0, len(m.Env))
	for k := range m.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	env := slices.Clone(o.Env)
	for _, k := range keys {
		env = append(env, fmt.Sprintf("%s=%s", k, m.Env[k]))
	}
	o.Env = env
}
