package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/elicit"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/airmeta"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// Elicitation: what Claude Code asks the user becomes an ACP form
// (elicitation/create) for clients that render them
// (clientCapabilities.elicitation.form); agent/elicit builds the forms
// and reads the answers. Three sources:
//
//   - Claude's AskUserQuestion tool, which sessions of such clients are
//     allowed (for the others it stays disallowed and Claude asks in plain
//     text). Its can_use_tool goes through the permission path
//     (permission.go: the tool card is shown first, the request belongs to
//     its turn) and is answered with the form instead of a permission
//     request: the answers are the tool's updatedInput; a declined or
//     dismissed form denies the call with words that say so, and the turn
//     goes on.
//   - An MCP server's elicitation, which the CLI forwards as an
//     `elicitation` control request: a form, or a URL for clients with
//     elicitation.url. The server gets the user's accept (with the
//     content), their decline, or cancel for a request the user never
//     answered. The form is tied to the server's running tool call when
//     exactly one is open.
//   - The CLI's refusal-fallback consent dialog (request_user_dialog),
//     which it offers only to a host that declared the kind: retry on the
//     fallback model or keep the refusal.
//
// Each open form belongs to the turn it was asked in, as a permission
// request does: session/cancel (or the prompt's $/cancel_request)
// withdraws it with $/cancel_request, and a URL elicitation also gets
// elicitation/complete, which the schema defines for URL mode only, so
// that the client closes what it opened. On a connection shared by
// several clients (serve), a form whose connection goes away is asked
// again on the session's next connection (shared.go).

// questionTool is Claude Code's tool for structured questions.
const questionTool = "AskUserQuestion"

// elicitationModes reports which elicitation modes the client renders.
func (a *connection) elicitationModes() (form, url bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	e := a.client.raw.Elicitation
	return e != nil && e.Form != nil, e != nil && e.URL != nil
}

// elicitationOptions sets what a session's CLI is started with: without
// form elicitation AskUserQuestion is disallowed (Claude asks in plain
// text); with it the CLI may also ask for the refusal-fallback consent.
func (a *connection) elicitationOptions(o *claude.Options) {
	if form, _ := a.elicitationModes(); !form {
		o.DisallowedTools = append(o.DisallowedTools, questionTool)
		return
	}
	if o.InitializeExtra == nil {
		o.InitializeExtra = map[string]any{}
	}
	o.InitializeExtra["supportedDialogKinds"] = []string{elicit.RefusalDialogKind}
}

// isQuestion reports a can_use_tool that is a question for a form.
func (a *connection) isQuestion(req claude.CanUseToolRequest) bool {
	form, _ := a.elicitationModes()
	return form && req.ToolName == questionTool
}

// answerQuestions asks an AskUserQuestion call's questions as one form,
// on the session and tool card the permission path showed (shown), and
// returns the CLI's answer. Its caller tracks the request with the turn.
func (s *session) answerQuestions(ctx context.Context, a *connection, req claude.CanUseToolRequest, shown *acp.RequestPermissionRequest) claude.PermissionResult {
	qs, err := elicit.Questions(req.Input)
	if err != nil {
		return claude.Deny(err.Error())
	}
	form := elicit.AskForm(qs, string(shown.SessionID), string(shown.ToolCall.ToolCallID), a.airClient())
	resp, err := s.elicit(ctx, a, form)
	if err != nil {
		if ctx.Err() != nil || connectionGone(err) {
			return claude.PermissionResult{Behavior: "deny", Message: "The questions were withdrawn: the user cancelled the turn.", Interrupt: true}
		}
		s.log.Warn("the editor's answer to a question form was an error; the questions were not answered", "error", err)
		return claude.Deny("The editor could not show the questions (its answer was an error), so the user did not see them. Ask in plain text instead.")
	}
	input, outcome := elicit.AskAnswer(resp, req.Input, qs)
	switch outcome {
	case elicit.Declined:
		return claude.Deny(elicit.DeclinedMessage)
	case elicit.Dismissed:
		return claude.Deny(elicit.DismissedMessage)
	}
	return claude.Allow(input)
}

// airClient reports an AIR client (it reads the custom-answer marker).
func (a *connection) airClient() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return airmeta.Parse(a.client.raw.Meta).Present
}

// onControlRequest answers the CLI's requests that have no callback of
// their own in claude.Options: elicitations and dialogs. Other subtypes
// get the error the CLI gets from a host that does not know them.
func (s *session) onControlRequest(ctx context.Context, req claude.ControlRequest) (any, error) {
	switch req.Subtype {
	case "elicitation":
		return s.mcpElicitation(ctx, req.Raw), nil
	case "request_user_dialog":
		return s.userDialog(ctx, req.Raw), nil
	}
	return nil, fmt.Errorf("Unsupported control request subtype: %s", req.Subtype)
}

// openAsk is a form asked on behalf of the CLI, registered with its turn
// like a permission request (permission.go's trackRequest): done ends the
// registration.
type openAsk struct {
	a    *connection
	sid  string // the session the form is shown in (a subagent's child, or this one)
	call string // the tool call it is tied to ("" for none)
	done func()
}

// openFor registers a form of the current turn (nil if the turn was
// cancelled already or the session ended); server, when set, ties it to
// that MCP server's one open tool call.
func (s *session) openFor(ctx context.Context, cancel context.CancelFunc, server string) *openAsk {
	if !s.waitReplays(ctx) { // lifecycle.go: the history goes first
		return nil
	}
	var o *openAsk
	s.do(func() {
		t := s.tr.Current
		if t != nil && t.Cancelled {
			return // the user pressed Stop: nothing of that turn is asked
		}
		o = &openAsk{a: s.a, sid: s.id}
		if sid, call, ok := s.tr.OpenMCPCall(server); ok { // agent/translate
			o.sid, o.call = sid, call
		}
		open := s.q.trackRequest(t, cancel)
		if s.q.v2 != nil && t != nil {
			s.q.v2.ask(+1) // v2turns.go: the foreground turn requires action
		}
		o.done = func() {
			s.post(func() {
				s.q.untrackRequest(t, open)
				if s.q.v2 != nil && t != nil {
					s.q.v2.ask(-1)
				}
			})
		}
	})
	return o
}

// mcpElicitation asks the user what an MCP server asks, in the mode the
// server chose if the client renders it; otherwise, or when it cannot be
// shown, the server gets "cancel".
func (s *session) mcpElicitation(ctx context.Context, raw json.RawMessage) map[string]any {
	var r elicit.MCPRequest
	if json.Unmarshal(raw, &r) != nil {
		return elicit.MCPCancel()
	}
	form, url := s.a.elicitationModes()
	if r.IsURL() && !url || !r.IsURL() && !form {
		return elicit.MCPCancel()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	o := s.openFor(ctx, cancel, r.ServerName)
	if o == nil {
		return elicit.MCPCancel()
	}
	defer o.done()
	var params any
	var urlID acp.ElicitationID
	if r.IsURL() {
		req, err := elicit.MCPURL(&r, o.sid, o.call, uuid.NewString())
		if err != nil {
			return elicit.MCPCancel()
		}
		params, urlID = req, req.URL.ElicitationID
	} else {
		req, err := elicit.MCPForm(&r, o.sid, o.call)
		if err != nil {
			s.log.Warn("an MCP server's elicitation cannot be shown as an ACP form; it was cancelled", "server", r.ServerName)
			return elicit.MCPCancel()
		}
		params = req
	}
	resp, err := s.elicit(ctx, o.a, params)
	if err != nil {
		if urlID != "" && ctx.Err() != nil {
			o.a.completeElicitation(urlID) // the client closes the page it opened
		}
		if ctx.Err() == nil && !connectionGone(err) {
			s.log.Warn("the editor's answer to an MCP elicitation was an error; the server was told cancel", "server", r.ServerName, "error", err)
		}
		return elicit.MCPCancel()
	}
	return elicit.MCPResult(resp)
}

// userDialog renders a dialog the CLI asks for; only the refusal-fallback
// consent is declared (elicitationOptions), anything else is cancelled,
// which applies the dialog's default.
func (s *session) userDialog(ctx context.Context, raw json.RawMessage) map[string]any {
	var d struct {
		Kind    string          `json:"dialog_kind"`
		Payload json.RawMessage `json:"payload"`
	}
	if json.Unmarshal(raw, &d) != nil || d.Kind != elicit.RefusalDialogKind {
		return elicit.DialogCancelled()
	}
	p, ok := elicit.ParseRefusal(d.Payload)
	if form, _ := s.a.elicitationModes(); !ok || !form {
		return elicit.DialogCancelled()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	o := s.openFor(ctx, cancel, "")
	if o == nil {
		return elicit.DialogCancelled()
	}
	defer o.done()
	resp, err := s.elicit(ctx, o.a, elicit.RefusalForm(p, s.id))
	if err != nil {
		return elicit.DialogCancelled()
	}
	return elicit.RefusalResult(resp)
}

// elicit sends elicitation/create (the same method and, for what the
// agent sends, the same shape on v1 and v2) and reads the answer; on a
// shared connection that goes away it is asked again on the next one.
func (s *session) elicit(ctx context.Context, a *connection, params any) (*acp.CreateElicitationResponse, error) {
	var raw json.RawMessage
	err := s.askClient(ctx, a, "question", func(a *connection) error {
		return a.editor().Call(ctx, acp.MethodElicitationCreate, params, &raw)
	})
	if err != nil {
		return nil, err
	}
	return decodeElicitation(raw)
}

// decodeElicitation reads a client's answer. v2 lets content values be
// any JSON (an object, null), which v1's type does not hold: such values
// are dropped rather than failing the whole answer; the fields this agent
// asks for are strings and lists of strings.
func decodeElicitation(raw json.RawMessage) (*acp.CreateElicitationResponse, error) {
	var resp acp.CreateElicitationResponse
	err := json.Unmarshal(raw, &resp)
	if err == nil {
		return &resp, nil
	}
	var loose map[string]json.RawMessage
	var content map[string]json.RawMessage
	if json.Unmarshal(raw, &loose) != nil || json.Unmarshal(loose["content"], &content) != nil {
		return nil, err
	}
	for k, v := range content {
		var cv acp.ElicitationContentValue
		if json.Unmarshal(v, &cv) != nil {
			delete(content, k)
		}
	}
	loose["content"] = mustJSON(content)
	if err := json.Unmarshal(mustJSON(loose), &resp); err != nil {
		return nil, err
	}
	return &resp, nil
}

// completeElicitation tells the client a URL elicitation is over.
func (a *connection) completeElicitation(id acp.ElicitationID) {
	if _, url := a.elicitationModes(); !url {
		return
	}
	if err := a.editor().Notify(context.Background(), acp.MethodElicitationComplete, &acp.CompleteElicitationNotification{ElicitationID: id}); err != nil {
		a.log.Debug("elicitation/complete not sent", "error", err)
	}
}

// onElicitationComplete forwards the CLI's system/elicitation_complete:
// an MCP server finished a URL elicitation on its side.
func (s *session) onElicitationComplete(m claude.Message) {
	var f struct {
		ID string `json:"elicitation_id"`
	}
	if json.Unmarshal(m.Raw, &f) == nil && f.ID != "" {
		s.a.completeElicitation(acp.ElicitationID(f.ID))
	}
}

// isElicitationComplete reports the CLI's system/elicitation_complete.
func isElicitationComplete(m claude.Message) bool {
	return m.Type == "system" && m.Subtype == "elicitation_complete"
}
