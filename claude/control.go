package claude

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// controlReply is the outcome of one of our control requests.
type controlReply struct {
	resp json.RawMessage
	err  error
}

// cancelWriteTimeout bounds the background write of a
// control_cancel_request, so a CLI that stopped reading cannot keep the
// goroutine alive past Close.
const cancelWriteTimeout = 5 * time.Second

// Request sends a control request with the given subtype and returns the
// `response` payload of the CLI's success answer (nil when it has none). The
// payload is marshalled as a JSON object (nil means no fields) and must not
// contain a "subtype" key. An error answer becomes a *ControlError carrying
// the CLI's text. If ctx ends first, Request returns the context's error and
// tells the CLI with control_cancel_request.
func (p *Process) Request(ctx context.Context, subtype string, payload any) (json.RawMessage, error) {
	c, err := p.Begin(ctx, subtype, payload)
	if err != nil {
		return nil, err
	}
	return c.Wait(ctx)
}

// A Call is a control request that has been written and waits for its
// answer (see [Process.Begin]).
type Call struct {
	p       *Process
	id      string
	subtype string
	ch      chan controlReply
}

// Begin writes a control request and returns without waiting for the
// answer: what the caller writes next reaches the CLI after it, in order,
// and the caller collects the answer with Wait when it suits it. Wait must
// be called once (or the request is left pending until the process ends).
func (p *Process) Begin(ctx context.Context, subtype string, payload any) (*Call, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	body, err := requestBody(subtype, payload)
	if err != nil {
		return nil, err
	}
	id := p.idPrefix + "-" + strconv.FormatUint(p.nextID.Add(1), 10)
	line, err := marshalLine(struct {
		Type      string          `json:"type"`
		RequestID string          `json:"request_id"`
		Request   json.RawMessage `json:"request"`
	}{"control_request", id, body})
	if err != nil {
		return nil, err
	}
	ch := make(chan controlReply, 1)
	p.mu.Lock()
	if p.pending == nil {
		p.mu.Unlock()
		return nil, p.deadError()
	}
	p.pending[id] = ch
	p.cond.Broadcast() // a pending request lifts the queue bound
	p.mu.Unlock()

	if err := p.writeLine(ctx.Done(), line); err != nil {
		p.dropPending(id)
		if errors.Is(err, errCanceledWrite) {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return &Call{p: p, id: id, subtype: subtype, ch: ch}, nil
}

// Wait returns the `response` payload of the CLI's success answer (nil when
// it has none); an error answer is a *ControlError. If ctx ends first, Wait
// returns the context's error and withdraws the request.
func (c *Call) Wait(ctx context.Context) (json.RawMessage, error) {
	select {
	case r := <-c.ch:
		if r.err != nil {
			var ce *ControlError
			if errors.As(r.err, &ce) {
				ce.Subtype = c.subtype
			}
		}
		return r.resp, r.err
	case <-ctx.Done():
		if c.p.dropPending(c.id) {
			c.p.sendCancel(c.id)
		}
		return nil, ctx.Err()
	}
}

// requestBody builds the request object: the payload's fields plus subtype.
func requestBody(subtype string, payload any) (json.RawMessage, error) {
	head, _ := json.Marshal(subtype)
	if payload == nil {
		return json.RawMessage(`{"subtype":` + string(head) + `}`), nil
	}
	b, err := json.Marshal(payload)
	if err != nil {
		return nil, fmt.Errorf("claude: %s request: %w", subtype, err)
	}
	b = bytes.TrimSpace(b)
	if len(b) < 2 || b[0] != '{' {
		return nil, fmt.Errorf("claude: %s request: payload is not a JSON object", subtype)
	}
	rest := bytes.TrimSpace(b[1:])
	out := make([]byte, 0, len(b)+len(head)+12)
	out = append(out, `{"subtype":`...)
	out = append(out, head...)
	if rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, rest...), nil
}

// dropPending forgets a pending request and reports whether it was still
// pending.
func (p *Process) dropPending(id string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.pending[id]; !ok {
		return false
	}
	delete(p.pending, id)
	p.cond.Broadcast()
	return true
}

// sendCancel withdraws one of our requests, off the caller's return path.
func (p *Process) sendCancel(id string) {
	line, _ := marshalLine(struct {
		Type      string `json:"type"`
		RequestID string `json:"request_id"`
	}{"control_cancel_request", id})
	p.bgMu.Lock()
	if p.bgOver { // shutting down: stdin is closed or about to be, and nobody waits for the answer
		p.bgMu.Unlock()
		return
	}
	p.bg.Add(1)
	p.bgMu.Unlock()
	go func() {
		defer p.bg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), cancelWriteTimeout)
		defer cancel()
		_ = p.writeLine(ctx.Done(), line)
	}()
}

// handleResponse routes the CLI's answer to one of our requests.
func (p *Process) handleResponse(line []byte) {
	var f struct {
		Response struct {
			Subtype   string          `json:"subtype"`
			RequestID string          `json:"request_id"`
			Response  json.RawMessage `json:"response"`
			Error     string          `json:"error"`
			ErrorCode string          `json:"error_code"`
		} `json:"response"`
	}
	if err := json.Unmarshal(line, &f); err != nil {
		p.skipLine(line)
		return
	}
	r := f.Response
	p.mu.Lock()
	ch, ok := p.pending[r.RequestID]
	delete(p.pending, r.RequestID)
	p.cond.Broadcast()
	p.mu.Unlock()
	if !ok {
		p.log.Debug("claude: response to an unknown or withdrawn request", "request_id", r.RequestID)
		return
	}
	if r.Subtype == "error" {
		msg := r.Error
		if msg == "" {
			msg = "unknown error"
		}
		ch <- controlReply{err: &ControlError{Message: msg, Code: r.ErrorCode}}
		return
	}
	if bytes.Equal(r.Response, []byte("null")) {
		r.Response = nil
	}
	ch <- controlReply{resp: r.Response}
}

// Interrupt stops the current turn. The CLI answers at once; the aborted
// assistant frame and an error result follow on Messages. Interrupting an
// idle session does nothing.
func (p *Process) Interrupt(ctx context.Context) error {
	_, err := p.Request(ctx, "interrupt", nil)
	return err
}

// SetPermissionMode changes the permission mode (see the Permission*
// constants) for the following tool calls.
func (p *Process) SetPermissionMode(ctx context.Context, mode string) error {
	c, err := p.BeginSetPermissionMode(ctx, mode)
	if err != nil {
		return err
	}
	_, err = c.Wait(ctx)
	return err
}

// BeginSetPermissionMode is SetPermissionMode without the wait (see Begin):
// the user messages written after it run in the new mode.
func (p *Process) BeginSetPermissionMode(ctx context.Context, mode string) (*Call, error) {
	return p.Begin(ctx, "set_permission_mode", map[string]string{"mode": mode})
}

// SetModel switches the model; an empty model resets to the default. The
// CLI validates the model with one small API request and echoes the change
// as a replayed user frame.
func (p *Process) SetModel(ctx context.Context, model string) error {
	c, err := p.BeginSetModel(ctx, model)
	if err != nil {
		return err
	}
	_, err = c.Wait(ctx)
	return err
}

// BeginSetModel is SetModel without the wait (see Begin).
func (p *Process) BeginSetModel(ctx context.Context, model string) (*Call, error) {
	var m any
	if model != "" {
		m = model
	}
	return p.Begin(ctx, "set_model", map[string]any{"model": m})
}

// SetMaxThinkingTokens sets the thinking budget; a negative value resets it
// to the default and 0 disables thinking.
func (p *Process) SetMaxThinkingTokens(ctx context.Context, tokens int) error {
	var v any
	if tokens >= 0 {
		v = tokens
	}
	_, err := p.Request(ctx, "set_max_thinking_tokens", map[string]any{"max_thinking_tokens": v})
	return err
}

// StopTask stops a background task (see [TaskEvent]).
func (p *Process) StopTask(ctx context.Context, taskID string) error {
	_, err := p.Request(ctx, "stop_task", map[string]string{"task_id": taskID})
	return err
}

// MCPStatus returns the state of every MCP server.
func (p *Process) MCPStatus(ctx context.Context) (*MCPStatus, error) {
	st := &MCPStatus{}
	if err := p.requestInto(ctx, "mcp_status", nil, st); err != nil {
		return nil, err
	}
	return st, nil
}

// RewindFiles restores the files changed since the user message with the
// given uuid (which must have been sent with that uuid, and the process
// started with EnableFileCheckpointing). With dryRun it only reports what
// would change.
func (p *Process) RewindFiles(ctx context.Context, userMessageID string, dryRun bool) (*RewindFilesResult, error) {
	payload := map[string]any{"user_message_id": userMessageID}
	if dryRun {
		payload["dry_run"] = true
	}
	res := &RewindFilesResult{}
	if err := p.requestInto(ctx, "rewind_files", payload, res); err != nil {
		return nil, err
	}
	return res, nil
}

// requestInto sends a control request and decodes its response, when it
// has one, into out.
func (p *Process) requestInto(ctx context.Context, subtype string, payload, out any) error {
	raw, err := p.Request(ctx, subtype, payload)
	if err != nil {
		return err
	}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("claude: %s response: %w", subtype, err)
		}
	}
	return nil
}

// InitializeResponse is the CLI's answer to initialize. Raw holds all of it;
// the typed fields are the ones an adapter needs.
type InitializeResponse struct {
	Commands              []SlashCommand `json:"commands"`
	Agents                []AgentInfo    `json:"agents"`
	OutputStyle           string         `json:"output_style"`
	AvailableOutputStyles []string       `json:"available_output_styles"`
	Models                []ModelInfo    `json:"models"`
	Account               AccountInfo    `json:"account"`
	PID                   int            `json:"pid"`
	ClaudeCodeVersion     string         `json:"claude_code_version"`
	CurrentPermissionMode string         `json:"current_permission_mode"`
	FastModeState         string         `json:"fast_mode_state"`
	SessionState          string         `json:"session_state"`
	Capabilities          []string       `json:"capabilities"`

	Raw json.RawMessage `json:"-"`
}

// SlashCommand is one command the CLI offers.
type SlashCommand struct {
	Name         string `json:"name"`
	Description  string `json:"description"`
	ArgumentHint string `json:"argumentHint"`
}

// AgentInfo is one subagent the CLI offers.
type AgentInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Model       string `json:"model,omitempty"`
}

// ModelInfo is one model the CLI offers.
type ModelInfo struct {
	Value                    string   `json:"value"`
	ResolvedModel            string   `json:"resolvedModel"`
	DisplayName              string   `json:"displayName"`
	Description              string   `json:"description"`
	SupportsEffort           bool     `json:"supportsEffort"`
	SupportedEffortLevels    []string `json:"supportedEffortLevels"`
	SupportsAdaptiveThinking bool     `json:"supportsAdaptiveThinking"`
	SupportsFastMode         bool     `json:"supportsFastMode"`
	SupportsAutoMode         bool     `json:"supportsAutoMode"`
	SupportsThinkingOff      bool     `json:"supportsThinkingOff"`
}

// AccountInfo says how the CLI authenticates.
type AccountInfo struct {
	TokenSource  string `json:"tokenSource"`
	APIKeySource string `json:"apiKeySource"`
	APIProvider  string `json:"apiProvider"`
}

// MCPStatus is the answer to mcp_status.
type MCPStatus struct {
	MCPServers []MCPServerStatus `json:"mcpServers"`
}

// MCPServerStatus is one MCP server in [MCPStatus].
type MCPServerStatus struct {
	Name       string          `json:"name"`
	Status     string          `json:"status"`
	Error      string          `json:"error,omitempty"`
	ServerInfo json.RawMessage `json:"serverInfo,omitempty"`
	Transport  string          `json:"transport,omitempty"`
	Scope      string          `json:"scope,omitempty"`
	Source     string          `json:"source,omitempty"`
	Tools      json.RawMessage `json:"tools,omitempty"`
}

// RewindFilesResult is the answer to rewind_files.
type RewindFilesResult struct {
	CanRewind    bool     `json:"canRewind"`
	Error        string   `json:"error,omitempty"`
	FilesChanged []string `json:"filesChanged,omitempty"`
	Insertions   int      `json:"insertions,omitempty"`
	Deletions    int      `json:"deletions,omitempty"`
}

// ApplyFlagSettings changes settings the CLI otherwise takes from flags,
// for the rest of the session (for example {"effortLevel": "high"}).
func (p *Process) ApplyFlagSettings(ctx context.Context, settings map[string]any) error {
	c, err := p.BeginApplyFlagSettings(ctx, settings)
	if err != nil {
		return err
	}
	_, err = c.Wait(ctx)
	return err
}

// BeginApplyFlagSettings is ApplyFlagSettings without the wait (see Begin).
func (p *Process) BeginApplyFlagSettings(ctx context.Context, settings map[string]any) (*Call, error) {
	return p.Begin(ctx, "apply_flag_settings", map[string]any{"settings": settings})
}

// AppliedSettings is the part of get_settings' answer that says what the
// CLI applies now.
type AppliedSettings struct {
	Model  string `json:"model"`
	Effort string `json:"effort"`
	// Ultracode is whether standing dynamic-workflow orchestration is on;
	// UltracodeAvailable whether this CLI offers it at all.
	Ultracode          bool `json:"ultracode"`
	UltracodeAvailable bool `json:"ultracodeAvailable"`
}

// GetSettings asks the CLI which settings it applies.
func (p *Process) GetSettings(ctx context.Context) (*AppliedSettings, error) {
	c, err := p.BeginGetSettings(ctx)
	if err != nil {
		return nil, err
	}
	return c.Wait(ctx)
}

// A SettingsCall is a get_settings request written to the CLI whose answer
// has not been collected yet (BeginGetSettings).
type SettingsCall struct{ c *Call }

// BeginGetSettings writes a get_settings request without waiting for the
// answer, as Begin does; what the caller writes next (the first prompt)
// follows it on stdin.
func (p *Process) BeginGetSettings(ctx context.Context) (*SettingsCall, error) {
	c, err := p.Begin(ctx, "get_settings", nil)
	if err != nil {
		return nil, err
	}
	return &SettingsCall{c}, nil
}

// Wait returns the settings the CLI applies, as GetSettings does.
func (s *SettingsCall) Wait(ctx context.Context) (*AppliedSettings, error) {
	raw, err := s.c.Wait(ctx)
	if err != nil {
		return nil, err
	}
	var r struct {
		Applied AppliedSettings `json:"applied"`
	}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("claude: get_settings response: %w", err)
		}
	}
	return &r.Applied, nil
}

// CancelAsyncMessage asks the CLI to drop a user message it holds queued
// and reports whether it did (false: it has started it, or never had it).
func (p *Process) CancelAsyncMessage(ctx context.Context, messageUUID string) (bool, error) {
	c, err := p.BeginCancelAsyncMessage(ctx, messageUUID)
	if err != nil {
		return false, err
	}
	return c.Cancelled(ctx)
}

// BeginCancelAsyncMessage is CancelAsyncMessage without the wait (see
// Begin): several withdrawals written back to back, and an interrupt
// behind them, reach the CLI in that order and are answered in one round
// trip. [Call.Cancelled] collects the answer.
func (p *Process) BeginCancelAsyncMessage(ctx context.Context, messageUUID string) (*Call, error) {
	return p.Begin(ctx, "cancel_async_message", map[string]string{"message_uuid": messageUUID})
}

// Cancelled waits for the answer to a cancel_async_message request and
// reports whether the CLI dropped the message.
func (c *Call) Cancelled(ctx context.Context) (bool, error) {
	raw, err := c.Wait(ctx)
	if err != nil {
		return false, err
	}
	var r struct {
		Cancelled bool `json:"cancelled"`
	}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &r); err != nil {
			return false, fmt.Errorf("claude: cancel_async_message: %w", err)
		}
	}
	return r.Cancelled, nil
}

// BeginGetContextUsage asks the CLI for its context usage summary (the
// context window among it) without waiting for the answer (see Begin); the
// answer's maxTokens and rawMaxTokens give the window.
func (p *Process) BeginGetContextUsage(ctx context.Context) (*Call, error) {
	return p.Begin(ctx, "get_context_usage", map[string]any{"detail": "summary"})
}
