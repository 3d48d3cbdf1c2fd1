package agent

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// Session configuration: mode, model (the CLI's own model list), effort
// (thought level) and, for models that can turn it off, thinking. Changes
// go to the running CLI at once (set_permission_mode, set_model,
// apply_flag_settings, set_max_thinking_tokens) and into the options of
// the next CLI start; a change made while the CLI is starting is applied
// as soon as it is up. Changes the CLI makes itself (/model typed as a
// prompt, plan approval) come back as config_option_update.

// Config option ids.
const (
	configMode     = "mode"
	configModel    = "model"
	configEffort   = "effort"
	configThinking = "thinking"
	configFast     = "fast"
	configAgent    = "agent"
	configUltra    = "ultracode"
)

// methodSetModel is the unstable session/set_model some clients still
// send; it is the "model" config option under another name.
const methodSetModel = "session/set_model"

type setModelRequest struct {
	SessionID acp.SessionID `json:"sessionId"`
	ModelID   string        `json:"modelId"`
}

func (r *setModelRequest) Validate() error {
	if r.SessionID == "" {
		return &acp.FieldError{Path: "sessionId", Reason: "is required"}
	}
	if r.ModelID == "" {
		return &acp.FieldError{Path: "modelId", Reason: "is required"}
	}
	return nil
}

func (a *connection) setMode(ctx context.Context, p *acp.SetSessionModeRequest) (*acp.SetSessionModeResponse, error) {
	s, err := a.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	if err := s.applyMode(ctx, string(p.ModeID), "modeId"); err != nil {
		return nil, err
	}
	return &acp.SetSessionModeResponse{}, nil
}

func (a *connection) setModel(ctx context.Context, p *setModelRequest) (struct{}, error) {
	s, err := a.session(p.SessionID)
	if err != nil {
		return struct{}{}, err
	}
	if err := s.applyModel(ctx, p.ModelID, "modelId"); err != nil {
		return struct{}{}, err
	}
	s.do(s.publishConfig)
	return struct{}{}, nil
}

func (a *connection) setConfigOption(ctx context.Context, p *acp.SetSessionConfigOptionRequest) (*acp.SetSessionConfigOptionResponse, error) {
	s, err := a.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	value := ""
	if p.ValueID != nil {
		value = string(p.ValueID.Value)
	}
	switch string(p.ConfigID) {
	case configMode:
		err = s.applyMode(ctx, value, "value")
	case configModel:
		err = s.applyModel(ctx, value, "value")
	case configEffort:
		err = s.apply(ctx, effortSetting(value))
	case configThinking, configFast, configUltra:
		on, verr := switchValue(p, value)
		if verr != nil {
			return nil, verr
		}
		switch string(p.ConfigID) {
		case configThinking:
			err = s.apply(ctx, thinkingSetting(on))
		case configFast:
			err = s.apply(ctx, fastSetting(on))
		default:
			err = s.apply(ctx, ultracodeSetting(on))
		}
	case configAgent:
		err = s.apply(ctx, agentSetting(value))
	default:
		return nil, acp.NewInvalidParams("configId", "unknown config option")
	}
	if err != nil {
		return nil, err
	}
	var opts []acp.SessionConfigOption
	s.do(func() { _, opts = s.configSnapshot() })
	return &acp.SetSessionConfigOptionResponse{ConfigOptions: opts}, nil
}

// applyMode switches the permission mode; the client hears of it through
// current_mode_update.
//
// The request is written on the session goroutine, so prompts sent after it
// run in the new mode, but the answer is not waited for: a CLI busy with
// queued prompts must not hold the editor's mode switch. Should the CLI
// refuse (the modes offered are the ones it accepts), the session goes
// back to the previous mode and tells the client (current_mode_update).
func (s *session) applyMode(ctx context.Context, id, field string) error {
	valid := false
	s.do(func() {
		if valid = s.conf.hasMode(s.a.modelList(), id); !valid {
			return
		}
		defer s.wake() // hibernate.go: the editor shows intent
		prev, proc := s.conf.modeID, s.cli.proc
		s.setModeID(id)
		if proc == nil || prev == id {
			return
		}
		wctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		call, err := proc.BeginSetPermissionMode(wctx, id)
		if err != nil {
			s.log.Warn("Claude Code did not take the mode", "mode", id, "error", err)
			s.setModeID(prev)
			return
		}
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if _, err := call.Wait(ctx); err != nil && !errors.Is(err, claude.ErrClosed) && !errors.Is(err, claude.ErrExited) {
				s.log.Warn("Claude Code refused the mode", "mode", id, "error", err)
				s.post(func() {
					if s.conf.modeID == id && s.cli.proc == proc {
						s.setModeID(prev)
					}
				})
			}
		}()
	})
	if !valid {
		return acp.NewInvalidParams(field, "unknown mode")
	}
	return nil
}

// applyModel switches the model. The CLI checks a new model with one small
// API request before it answers.
func (s *session) applyModel(ctx context.Context, value, field string) error {
	var proc *claude.Process
	var prev string
	valid := false
	s.do(func() {
		defer s.wake()                               // hibernate.go: the editor shows intent
		valid = value != "" && value == s.conf.model // also a fallback model's extra row
		for _, m := range s.a.modelList() {
			valid = valid || m.Value == value
		}
		if valid {
			prev, proc = s.conf.model, s.cli.proc
			s.conf.setModel(value)
			if proc != nil && prev != value {
				s.tr.modelEchoes++ // the CLI's "Set model to" is not conversation (output.go)
			}
		}
	})
	if !valid {
		return acp.NewInvalidParams(field, "unknown model")
	}
	if proc == nil || prev == value {
		return nil
	}
	if err := proc.SetModel(ctx, cliModel(value)); err != nil {
		s.do(func() {
			s.conf.setModel(prev)
			s.tr.modelEchoes = max(0, s.tr.modelEchoes-1)
		})
		return acp.NewInternalError("Claude Code could not switch the model: " + err.Error())
	}
	s.do(func() {
		if s.cli.proc == proc {
			s.askContextWindow(proc) // the new model's window
		}
	})
	return nil
}

// cliModel is what set_model and --model take for a model value: the
// default row resets to the CLI's default.
func cliModel(value string) string {
	if value == "default" {
		return ""
	}
	return value
}

func (c *sessionConfig) setModel(value string) {
	c.model = value
	c.opts.Model = cliModel(value)
}

func setEffort(ctx context.Context, p *claude.Process, level string) error {
	return p.ApplyFlagSettings(ctx, map[string]any{"effortLevel": level})
}

// builtinAgents are the CLI's own agents; the agent option offers the
// others (the user's and the project's).
var builtinAgents = []string{"claude", "general-purpose", "Explore", "Plan", "statusline-setup"}

// learnAgents takes the custom agents a CLI offers.
func (c *sessionConfig) learnAgents(agents []claude.AgentInfo) {
	c.agents = c.agents[:0]
	for _, a := range agents {
		if a.Name != "" && !slices.Contains(builtinAgents, a.Name) {
			c.agents = append(c.agents, a.Name)
		}
	}
}

// followFastMode keeps the fast mode option in step with the CLI's
// fast_mode_state (initialize, init, every result).
func (c *sessionConfig) followFastMode(state string, raw json.RawMessage) {
	if state == "" {
		return
	}
	var r struct {
		Reason string `json:"fast_mode_disabled_reason"`
	}
	_ = json.Unmarshal(raw, &r)
	c.fastState, c.fastReason = state, r.Reason
}

// observeFastMode tells the user when fast mode was turned off (advisor)
// and updates the option.
func (s *session) observeFastMode(state string, raw json.RawMessage) {
	s.adv.observeFastMode(s.tr.current, state, raw)
	s.conf.followFastMode(state, raw)
	s.publishConfig()
}

// modelList is the CLI's model list (empty until a CLI has reported it).
func (a *connection) modelList() []claude.ModelInfo {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.models
}

// modelInfo describes the session's current model. A model the CLI
// switched to on its own (a refusal fallback) may be missing from the list;
// it is described by its id alone. Its effort levels and thinking switch
// are unknown, so those options are left out; auto mode stays offered,
// since the CLI itself refuses it for a model that cannot use it.
func (c *sessionConfig) modelInfo(models []claude.ModelInfo) (claude.ModelInfo, bool) {
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
func (c *sessionConfig) configOptions(models []claude.ModelInfo) []acp.SessionConfigOption {
	opts := []acp.SessionConfigOption{c.modeOption(models)}
	info, known := c.modelInfo(models)
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
			ID: configEffort, Name: "Effort", Category: acp.Some(acp.SessionConfigOptionCategory("thought_level")),
			Description: acp.Some("How much the model thinks and works before it answers"),
			Select: &acp.SessionConfigSelect{
				CurrentValue: acp.SessionConfigValueID(current),
				Options:      acp.SessionConfigSelectOptions{Ungrouped: choices},
			},
		})
	}
	if info.SupportsFastMode {
		desc := "Faster responses on supported models"
		if why, ok := fastModeReasons[c.fastReason]; ok && c.fastState != "on" {
			desc += " — " + why
		}
		opts = append(opts, c.switchOption(configFast, "Fast mode", desc, c.fastState == "on"))
	}
	if c.ultraAvail && slices.Contains(info.SupportedEffortLevels, "xhigh") {
		opts = append(opts, c.switchOption(configUltra, "Ultracode", "Standing dynamic-workflow orchestration at any effort level", c.ultracode))
	}
	if len(c.agents) > 0 {
		choices := []acp.SessionConfigSelectOption{{Value: "default", Name: "Default", Description: acp.Some("Standard Claude Code agent")}}
		for _, a := range c.agents {
			choices = append(choices, acp.SessionConfigSelectOption{Value: acp.SessionConfigValueID(a), Name: a})
		}
		opts = append(opts, acp.SessionConfigOption{
			ID: configAgent, Name: "Agent",
			Description: acp.Some("The agent the session runs as"),
			Select: &acp.SessionConfigSelect{
				CurrentValue: acp.SessionConfigValueID(firstNonEmpty(c.opts.Agent, "default")),
				Options:      acp.SessionConfigSelectOptions{Ungrouped: choices},
			},
		})
	}
	if info.SupportsThinkingOff {
		opts = append(opts, c.switchOption(configThinking, "Thinking", "Let the model think before it answers", !c.thinkingOff))
	}
	return opts
}

// switchOption is an on/off option: boolean for clients that declared
// session.configOptions.boolean, else a select of "on" and "off" (the
// reference adapter's choice; older clients reject boolean options).
func (c *sessionConfig) switchOption(id, name, desc string, on bool) acp.SessionConfigOption {
	o := acp.SessionConfigOption{ID: acp.SessionConfigID(id), Name: name,
		Category: acp.Some(acp.SessionConfigOptionCategory("model_config")), Description: acp.Some(desc)}
	if c.booleans {
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
func switchValue(p *acp.SetSessionConfigOptionRequest, value string) (bool, error) {
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

func (c *sessionConfig) modeOption(models []claude.ModelInfo) acp.SessionConfigOption {
	var choices []acp.SessionConfigSelectOption
	for _, m := range c.modes(models) {
		choices = append(choices, acp.SessionConfigSelectOption{
			Value: acp.SessionConfigValueID(m.id), Name: m.name, Description: acp.Some(m.description)})
	}
	return acp.SessionConfigOption{
		ID: configMode, Name: "Mode", Category: acp.Some(acp.SessionConfigOptionCategory("mode")),
		Select: &acp.SessionConfigSelect{
			CurrentValue: acp.SessionConfigValueID(c.modeID),
			Options:      acp.SessionConfigSelectOptions{Ungrouped: choices},
		},
	}
}

// modelOption offers the CLI's own model list, plus the current model when
// the list does not name it.
func (c *sessionConfig) modelOption(models []claude.ModelInfo, current claude.ModelInfo) acp.SessionConfigOption {
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
		ID: configModel, Name: "Model", Category: acp.Some(acp.SessionConfigOptionCategory("model")),
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

// publishConfig sends config_option_update when the options differ from
// what the client last got.
// configSnapshot is the modes and config options the client is about to
// get in a response; publishConfig later sends only what changes after it.
func (s *session) configSnapshot() (*acp.SessionModeState, []acp.SessionConfigOption) {
	models := s.a.modelList()
	opts := s.conf.configOptions(models)
	s.conf.configSent = string(mustJSON(opts))
	return s.conf.modeState(models), opts
}

func (s *session) publishConfig() {
	if s.conf.configSent == "" {
		return // the client has no list yet; its setup response will carry one
	}
	opts := s.conf.configOptions(s.a.modelList())
	j := string(mustJSON(opts))
	if j == s.conf.configSent {
		return
	}
	s.conf.configSent = j
	s.a.notify(s.id, acp.SessionUpdate{ConfigOptionUpdate: &acp.ConfigOptionUpdate{ConfigOptions: opts}})
}

// modelFromCLI follows a model change the CLI made itself (a /model
// prompt): the resolved model name maps back to a row of the list.
func (s *session) modelFromCLI(resolved string) {
	info, known := s.conf.modelInfo(s.a.modelList())
	if resolved == "" || !known || info.ResolvedModel == resolved || info.Value == resolved {
		return
	}
	for _, m := range s.a.modelList() {
		if m.Value != "default" && (m.ResolvedModel == resolved || m.Value == resolved) {
			s.conf.setModel(m.Value)
			s.publishConfig()
			return
		}
	}
}

// followModelSwap follows a model change the CLI made without being asked
// (a persistent refusal fallback): the CLI already runs on model, so
// nothing is sent to it; the picker shows it (the row that names it, else
// an extra row with its id) and the next CLI start keeps it.
func (s *session) followModelSwap(model string) {
	if info, known := s.conf.modelInfo(s.a.modelList()); model == "" || known && (info.ResolvedModel == model || info.Value == model) {
		return
	}
	value := model
	for _, m := range s.a.modelList() {
		if m.Value != "default" && (m.ResolvedModel == model || m.Value == model) {
			value = m.Value
			break
		}
	}
	s.conf.setModel(value)
	s.publishConfig()
}

// afterLocalCommand follows settings a slash command changed (/model,
// /effort typed as a prompt): the CLI is asked what it now runs with, and
// the client gets the config options before the prompt's answer.
func (s *session) afterLocalCommand(raw json.RawMessage) {
	var r struct {
		LocalCommand string `json:"local_command"`
	}
	if json.Unmarshal(raw, &r) != nil || (r.LocalCommand != "model" && r.LocalCommand != "effort") || s.cli.proc == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := s.cli.proc.GetSettings(ctx)
	if err != nil {
		return
	}
	s.modelFromCLI(st.Model)
	if st.Effort != "" {
		s.conf.effort = st.Effort
		s.conf.opts.Effort = st.Effort
	}
	s.publishConfig()
}

// afterStart runs on the session goroutine once a CLI is up, before any
// prompt reaches it. Settings the user chose while it was starting are
// written to it now, in order, ahead of the prompts; nothing here waits
// for the CLI's answers (they come back as messages), so a session/cancel
// is never held behind them. The client gets the config and command lists.
func (s *session) afterStart(p *claude.Process, st *claude.AppliedSettings) {
	spawned := s.cli.spawnedWith
	init := p.InitializeResponse()
	if mode := s.conf.laterMode; mode != "" && len(s.q.turns) == 0 {
		// A load's mode that needed the CLI's models (auto): restored
		// now that they are known, unless a prompt already runs.
		s.conf.laterMode = ""
		if s.conf.hasMode(s.a.modelList(), mode) {
			s.setModeID(mode)
		}
	}
	if init != nil && init.CurrentPermissionMode != "" && init.CurrentPermissionMode != s.conf.modeID {
		mode, was := s.conf.modeID, init.CurrentPermissionMode
		s.tell(p, "mode", func(ctx context.Context) (*claude.Call, error) { return p.BeginSetPermissionMode(ctx, mode) },
			func() { s.setModeID(was) })
	}
	if model := s.conf.opts.Model; model != spawned.Model {
		s.tr.modelEchoes++ // as in applyModel
		s.tell(p, "model", func(ctx context.Context) (*claude.Call, error) { return p.BeginSetModel(ctx, model) },
			func() { s.tr.modelEchoes = max(0, s.tr.modelEchoes-1) })
	}
	if effort := s.conf.opts.Effort; effort != "" && effort != spawned.Effort {
		s.tell(p, "effort", func(ctx context.Context) (*claude.Call, error) {
			return p.BeginApplyFlagSettings(ctx, map[string]any{"effortLevel": effort})
		}, nil)
	}
	if fast := s.conf.fastWanted; fast != nil {
		on := *fast
		s.tell(p, "fast mode", func(ctx context.Context) (*claude.Call, error) {
			return p.BeginApplyFlagSettings(ctx, map[string]any{"fastMode": on})
		}, nil)
	}
	if on := s.conf.ultraWanted; on != nil {
		v := *on
		s.tell(p, "ultracode", func(ctx context.Context) (*claude.Call, error) {
			return p.BeginApplyFlagSettings(ctx, map[string]any{"ultracode": v})
		}, nil)
	}
	if st != nil { // the effort the CLI applies, and whether it offers ultracode
		s.conf.learnApplied(st)
	}
	if init != nil {
		s.conf.learnAgents(init.Agents)
	}
	s.publishConfig()
	if init != nil {
		s.cmds.learnFromStart(init.Commands)
		s.cmds.publish(s.id, s.a.notify)
	}
	s.askContextWindow(p)
}

// askContextWindow asks the CLI for the context window of the model it
// runs (get_context_usage, answered locally) ahead of the next prompt, so
// the first usage_update has the right size (1M where the model has it,
// not a guess corrected at the end of the turn). Usage is held until the
// answer (at most 5 s); the session goroutine does not wait for it.
//
// The CLI computes that answer on the thread that prepares a turn's model
// request, so a question asked while it prepares one delays the turn by
// as much: a session's first prompt, sent right behind the handshake
// (startPipelined), reached the model 7 to 24 ms later (issue 16: the cold
// first answer). While a prompt is open the question waits until the CLI
// has begun streaming the answer, or until the turn ends if it streams
// nothing (askWindowNow).
func (s *session) askContextWindow(p *claude.Process) {
	s.tr.out.sizePending = true
	if len(s.q.turns) > 0 {
		s.cli.windowFrom = p
		return
	}
	s.cli.windowFrom = nil
	s.beginWindowQuestion(p)
}

// askWindowNow asks the question askContextWindow put off, now that the
// CLI has sent the turn's model request (its first streamed delta) or
// ended the turn.
func (s *session) askWindowNow() {
	p := s.cli.windowFrom
	s.cli.windowFrom = nil
	if p != nil && p == s.cli.proc {
		s.beginWindowQuestion(p)
	}
}

// beginWindowQuestion sends get_context_usage to p; the answer comes back
// to the session goroutine.
func (s *session) beginWindowQuestion(p *claude.Process) {
	wctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	call, err := p.BeginGetContextUsage(wctx)
	cancel()
	if err != nil {
		s.tr.learnSize(0) // no answer coming: what was held goes out
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		raw, err := call.Wait(ctx)
		var r struct {
			MaxTokens    uint64 `json:"maxTokens"`
			RawMaxTokens uint64 `json:"rawMaxTokens"`
		}
		if err == nil {
			_ = json.Unmarshal(raw, &r)
		}
		s.post(func() {
			if s.cli.proc == p {
				s.tr.learnSize(firstNonZero(r.RawMaxTokens, r.MaxTokens))
			}
		})
	}()
}

func firstNonZero(vs ...uint64) uint64 {
	for _, v := range vs {
		if v != 0 {
			return v
		}
	}
	return 0
}

// learnApplied takes what the CLI applies that the session did not choose:
// the effort level, and whether ultracode is offered and on.
func (c *sessionConfig) learnApplied(st *claude.AppliedSettings) {
	if c.effort == "" && st.Effort != "" {
		c.effort = st.Effort
	}
	c.ultraAvail = st.UltracodeAvailable
	if c.ultraWanted == nil {
		c.ultracode = st.Ultracode
	}
}

// tell writes a control request to the CLI now and handles its answer
// later on the session goroutine: refused (the CLI said no, or did not
// answer within 30 s) runs undo, if any, while p is still the session's
// CLI.
func (s *session) tell(p *claude.Process, what string, begin func(ctx context.Context) (*claude.Call, error), undo func()) {
	wctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	call, err := begin(wctx)
	cancel()
	refused := func(err error) {
		s.log.Debug("setting not applied", "setting", what, "error", err)
		if undo != nil && s.cli.proc == p {
			undo()
		}
	}
	if err != nil {
		refused(err)
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := call.Wait(ctx); err != nil && !errors.Is(err, claude.ErrClosed) && !errors.Is(err, claude.ErrExited) {
			s.post(func() { refused(err) })
		}
	}()
}

// A setting is a config option's new value: recorded on the session
// goroutine (record validates it against what the model offers and keeps
// it for the next start), then handed to the running CLI, if any.
type setting struct {
	what    string     // for the error: "the effort"
	invalid *acp.Error // when record refuses it
	record  func(c *sessionConfig, models []claude.ModelInfo) bool
	send    func(ctx context.Context, p *claude.Process) error
}

// apply records st and sends it to the session's CLI.
func (s *session) apply(ctx context.Context, st setting) error {
	var proc *claude.Process
	valid := false
	s.do(func() {
		if valid = st.record(&s.conf, s.a.modelList()); valid {
			proc = s.cli.proc
		}
	})
	if !valid {
		return st.invalid
	}
	if proc == nil {
		return nil
	}
	if err := st.send(ctx, proc); err != nil {
		return acp.NewInternalError("Claude Code could not change " + st.what + ": " + err.Error())
	}
	return nil
}

func effortSetting(level string) setting {
	return setting{what: "the effort", invalid: acp.NewInvalidParams("value", "unknown effort level for this model"),
		record: func(c *sessionConfig, models []claude.ModelInfo) bool {
			info, ok := c.modelInfo(models)
			if !ok || !info.SupportsEffort || !slices.Contains(info.SupportedEffortLevels, level) {
				return false
			}
			c.effort, c.opts.Effort = level, level
			return true
		},
		send: func(ctx context.Context, p *claude.Process) error { return setEffort(ctx, p, level) }}
}

func thinkingSetting(on bool) setting {
	return setting{what: "thinking", invalid: acp.NewInvalidParams("configId", "this model cannot turn thinking off"),
		record: func(c *sessionConfig, models []claude.ModelInfo) bool {
			if info, ok := c.modelInfo(models); !ok || !info.SupportsThinkingOff {
				return false
			}
			c.thinkingOff = !on
			c.opts.Thinking = claude.Thinking{}
			if !on {
				c.opts.Thinking.Type = "disabled"
			}
			return true
		},
		send: func(ctx context.Context, p *claude.Process) error {
			tokens := -1
			if !on {
				tokens = 0
			}
			return p.SetMaxThinkingTokens(ctx, tokens)
		}}
}

func fastSetting(on bool) setting {
	return setting{what: "fast mode", invalid: acp.NewInvalidParams("configId", "this model has no fast mode"),
		record: func(c *sessionConfig, models []claude.ModelInfo) bool {
			if info, ok := c.modelInfo(models); !ok || !info.SupportsFastMode {
				return false
			}
			c.fastState = "off"
			if on {
				c.fastState = "on"
			}
			c.fastWanted = &on
			return true
		},
		send: func(ctx context.Context, p *claude.Process) error {
			return p.ApplyFlagSettings(ctx, map[string]any{"fastMode": on})
		}}
}

// ultracodeSetting turns ultracode (standing dynamic-workflow
// orchestration) on or off where the CLI offers it.
func ultracodeSetting(on bool) setting {
	return setting{what: "ultracode", invalid: acp.NewInvalidParams("configId", "ultracode is not available for this model"),
		record: func(c *sessionConfig, models []claude.ModelInfo) bool {
			info, ok := c.modelInfo(models)
			if !ok || !c.ultraAvail || !slices.Contains(info.SupportedEffortLevels, "xhigh") {
				return false
			}
			c.ultracode, c.ultraWanted = on, &on
			return true
		},
		send: func(ctx context.Context, p *claude.Process) error {
			return p.ApplyFlagSettings(ctx, map[string]any{"ultracode": on})
		}}
}

// agentSetting runs the main thread as a custom agent ("default": none):
// apply_flag_settings agent now, --agent at the next start.
func agentSetting(name string) setting {
	return setting{what: "the agent", invalid: acp.NewInvalidParams("value", "unknown agent"),
		record: func(c *sessionConfig, _ []claude.ModelInfo) bool {
			if name != "default" && !slices.Contains(c.agents, name) {
				return false
			}
			c.opts.Agent = ""
			if name != "default" {
				c.opts.Agent = name
			}
			return true
		},
		send: func(ctx context.Context, p *claude.Process) error {
			var v any = name
			if name == "default" {
				v = nil
			}
			return p.ApplyFlagSettings(ctx, map[string]any{"agent": v})
		}}
}
