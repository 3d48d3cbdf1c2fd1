package agent

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/config"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// Session configuration: mode, model (the CLI's own model list), effort
// (thought level) and, for models that can turn it off, thinking. Changes
// go to the running CLI at once (set_permission_mode, set_model,
// apply_flag_settings, set_max_thinking_tokens) and into the options of
// the next CLI start; a change made while the CLI is starting is applied
// as soon as it is up. Changes the CLI makes itself (/model typed as a
// prompt, plan approval) come back as config_option_update.

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
	case config.OptMode:
		err = s.applyMode(ctx, value, "value")
	case config.OptModel:
		err = s.applyModel(ctx, value, "value")
	case config.OptEffort:
		err = s.apply(ctx, config.EffortSetting(value))
	case config.OptThinking, config.OptFast, config.OptUltracode:
		on, verr := config.SwitchValue(p, value)
		if verr != nil {
			return nil, verr
		}
		switch string(p.ConfigID) {
		case config.OptThinking:
			err = s.apply(ctx, config.ThinkingSetting(on))
		case config.OptFast:
			err = s.apply(ctx, config.FastSetting(on))
		default:
			err = s.apply(ctx, config.UltracodeSetting(on))
		}
	case config.OptAgent:
		err = s.apply(ctx, config.AgentSetting(value))
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
		if valid = s.conf.HasMode(s.a.modelList(), id); !valid {
			return
		}
		defer s.wake() // hibernate.go: the editor shows intent
		prev, proc := s.conf.ModeID, s.cli.proc
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
					if s.conf.ModeID == id && s.cli.proc == proc {
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
		defer s.wake()                                 // hibernate.go: the editor shows intent
		valid = value != "" && value == s.conf.Model() // also a fallback model's extra row
		for _, m := range s.a.modelList() {
			valid = valid || m.Value == value
		}
		if valid {
			prev, proc = s.conf.Model(), s.cli.proc
			s.conf.SetModel(value)
			if proc != nil && prev != value {
				s.tr.ExpectModelEcho() // the CLI's "Set model to" is not conversation
			}
		}
	})
	if !valid {
		return acp.NewInvalidParams(field, "unknown model")
	}
	if proc == nil || prev == value {
		return nil
	}
	if err := proc.SetModel(ctx, config.CLIModel(value)); err != nil {
		s.do(func() {
			s.conf.SetModel(prev)
			s.tr.ModelEchoRefused()
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

// observeFastMode tells the user when fast mode was turned off (advisor)
// and updates the option.
func (s *session) observeFastMode(state string, raw json.RawMessage) {
	s.adv.ObserveFastMode(s.q.current.id(), state, raw)
	s.conf.FollowFastMode(state, raw)
	s.publishConfig()
}

// modelList is the CLI's model list (empty until a CLI has reported it).
func (a *connection) modelList() []claude.ModelInfo {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.models
}

// publishConfig sends config_option_update when the options differ from
// what the client last got.
// configSnapshot is the modes and config options the client is about to
// get in a response; publishConfig later sends only what changes after it.
func (s *session) configSnapshot() (*acp.SessionModeState, []acp.SessionConfigOption) {
	return s.conf.Snapshot(s.a.modelList())
}

func (s *session) publishConfig() {
	if opts, ok := s.conf.Update(s.a.modelList()); ok {
		s.a.notify(s.id, acp.SessionUpdate{ConfigOptionUpdate: &acp.ConfigOptionUpdate{ConfigOptions: opts}})
	}
}

// modelFromCLI follows a model change the CLI made itself (a /model
// prompt): the resolved model name maps back to a row of the list.
func (s *session) modelFromCLI(resolved string) {
	info, known := s.conf.ModelInfo(s.a.modelList())
	if resolved == "" || !known || info.ResolvedModel == resolved || info.Value == resolved {
		return
	}
	for _, m := range s.a.modelList() {
		if m.Value != "default" && (m.ResolvedModel == resolved || m.Value == resolved) {
			s.conf.SetModel(m.Value)
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
	if info, known := s.conf.ModelInfo(s.a.modelList()); model == "" || known && (info.ResolvedModel == model || info.Value == model) {
		return
	}
	value := model
	for _, m := range s.a.modelList() {
		if m.Value != "default" && (m.ResolvedModel == model || m.Value == model) {
			value = m.Value
			break
		}
	}
	s.conf.SetModel(value)
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
		s.conf.SetEffort(st.Effort)
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
	if mode := s.conf.LaterMode; mode != "" && len(s.q.turns) == 0 {
		// A load's mode that needed the CLI's models (auto): restored
		// now that they are known, unless a prompt already runs.
		s.conf.LaterMode = ""
		if s.conf.HasMode(s.a.modelList(), mode) {
			s.setModeID(mode)
		}
	}
	if init != nil && init.CurrentPermissionMode != "" && init.CurrentPermissionMode != s.conf.ModeID {
		mode, was := s.conf.ModeID, init.CurrentPermissionMode
		s.tell(p, "mode", func(ctx context.Context) (*claude.Call, error) { return p.BeginSetPermissionMode(ctx, mode) },
			func() { s.setModeID(was) })
	}
	if model := s.conf.Opts.Model; model != spawned.Model {
		s.tr.ExpectModelEcho() // as in applyModel
		s.tell(p, "model", func(ctx context.Context) (*claude.Call, error) { return p.BeginSetModel(ctx, model) },
			s.tr.ModelEchoRefused)
	}
	if effort := s.conf.Opts.Effort; effort != "" && effort != spawned.Effort {
		s.tell(p, "effort", func(ctx context.Context) (*claude.Call, error) {
			return p.BeginApplyFlagSettings(ctx, map[string]any{"effortLevel": effort})
		}, nil)
	}
	if fast := s.conf.FastWanted(); fast != nil {
		on := *fast
		s.tell(p, "fast mode", func(ctx context.Context) (*claude.Call, error) {
			return p.BeginApplyFlagSettings(ctx, map[string]any{"fastMode": on})
		}, nil)
	}
	if on := s.conf.UltraWanted(); on != nil {
		v := *on
		s.tell(p, "ultracode", func(ctx context.Context) (*claude.Call, error) {
			return p.BeginApplyFlagSettings(ctx, map[string]any{"ultracode": v})
		}, nil)
	}
	if st != nil { // the effort the CLI applies, and whether it offers ultracode
		s.conf.LearnApplied(st)
	}
	if init != nil {
		s.conf.LearnAgents(init.Agents)
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
	s.tr.AskingSize()
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
		s.tr.LearnSize(0) // no answer coming: what was held goes out
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
				s.tr.LearnSize(firstNonZero(r.RawMaxTokens, r.MaxTokens))
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

// apply records st and sends it to the session's CLI.
func (s *session) apply(ctx context.Context, st config.Setting) error {
	var proc *claude.Process
	valid := false
	s.do(func() {
		if valid = st.Record(&s.conf, s.a.modelList()); valid {
			proc = s.cli.proc
		}
	})
	if !valid {
		return st.Invalid
	}
	if proc == nil {
		return nil
	}
	if err := st.Send(ctx, proc); err != nil {
		return acp.NewInternalError("Claude Code could not change " + st.What + ": " + err.Error())
	}
	return nil
}
