package agent

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// toolState is what the session knows of one tool call.
type toolState struct {
	id       string
	name     string
	input    strings.Builder // streamed input JSON
	rawInput json.RawMessage // complete input
	turn     *turn
}

func (s *session) tool(id string) *toolState {
	if s.tools == nil {
		s.tools = map[string]*toolState{}
	}
	return s.tools[id]
}

// toolStarted reports a tool call as soon as the model starts it.
func (s *session) toolStarted(cb *claude.ContentBlock) {
	if s.tool(cb.ID) != nil {
		return
	}
	ts := &toolState{id: cb.ID, name: cb.Name, turn: s.current}
	s.tools[cb.ID] = ts
	s.a.notify(s.id, acp.SessionUpdate{ToolCall: &acp.ToolCall{
		ToolCallID: acp.ToolCallID(cb.ID),
		Title:      toolTitle(cb.Name, nil),
		Kind:       toolKind(cb.Name),
		Status:     acp.ToolCallStatusPending,
		RawInput:   json.RawMessage(`{}`),
		Meta:       toolMeta(cb.Name),
	}})
}

func (s *session) toolInputDelta(id, partial string) {
	if ts := s.tool(id); ts != nil {
		ts.input.WriteString(partial)
	}
}

// toolInputComplete refines the call once its input is whole.
func (s *session) toolInputComplete(b claude.ContentBlock) {
	ts := s.tool(b.ID)
	if ts == nil {
		s.toolStarted(&b)
		ts = s.tool(b.ID)
	}
	ts.rawInput = b.Input
	s.a.notify(s.id, acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{
		ToolCallID: acp.ToolCallID(b.ID),
		Title:      acp.Some(toolTitle(ts.name, b.Input)),
		Kind:       acp.Some(toolKind(ts.name)),
		RawInput:   b.Input,
		Meta:       toolMeta(ts.name),
	}})
}

// toolResult reports a finished tool call with its output.
func (s *session) toolResult(u *claude.UserFrame, b claude.ContentBlock) {
	ts := s.tool(b.ToolUseID)
	name := ""
	if ts != nil {
		name = ts.name
	}
	status := acp.ToolCallStatusCompleted
	if b.IsError {
		status = acp.ToolCallStatusFailed
	}
	text := toolResultText(b.Content)
	upd := &acp.ToolCallUpdate{
		ToolCallID: acp.ToolCallID(b.ToolUseID),
		Status:     acp.Some(status),
		Meta:       toolMeta(name),
	}
	if text != "" {
		upd.Content = acp.Some([]acp.ToolCallContent{{Content: &acp.Content{Content: acp.ContentBlock{Text: &acp.TextContent{Text: text}}}}})
		upd.RawOutput = mustJSON(text)
	}
	s.a.notify(s.id, acp.SessionUpdate{ToolCallUpdate: upd})
	delete(s.tools, b.ToolUseID)
}

// toolResultText flattens a tool_result's content (a string or blocks).
func toolResultText(raw json.RawMessage) string {
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return str
	}
	var blocks []claude.ContentBlock
	if json.Unmarshal(raw, &blocks) == nil {
		return textOf(blocks)
	}
	return ""
}

func toolMeta(name string) map[string]json.RawMessage {
	if name == "" {
		return nil
	}
	return map[string]json.RawMessage{"claudeCode": mustJSON(map[string]string{"toolName": name})}
}

// toolKind and toolTitle describe a Claude tool to the editor.
func toolKind(name string) acp.ToolKind {
	switch name {
	case "Read", "NotebookRead":
		return acp.ToolKindRead
	case "Edit", "MultiEdit", "Write", "NotebookEdit":
		return acp.ToolKindEdit
	case "Bash", "BashOutput", "KillShell", "KillBash":
		return acp.ToolKindExecute
	case "Glob", "Grep", "LS", "ToolSearch":
		return acp.ToolKindSearch
	case "WebFetch", "WebSearch":
		return acp.ToolKindFetch
	case "ExitPlanMode", "EnterPlanMode":
		return acp.ToolKindSwitchMode
	case "Agent", "Task", "TodoWrite":
		return acp.ToolKindThink
	}
	return acp.ToolKindOther
}

func toolTitle(name string, input json.RawMessage) string {
	var in map[string]any
	_ = json.Unmarshal(input, &in)
	str := func(k string) string { v, _ := in[k].(string); return v }
	switch name {
	case "Bash":
		if c := str("command"); c != "" {
			return c
		}
		return "Terminal"
	case "Read", "Edit", "MultiEdit", "Write":
		if p := str("file_path"); p != "" {
			return name + " " + p
		}
	case "Glob", "Grep":
		if p := str("pattern"); p != "" {
			return name + " " + p
		}
	case "WebFetch":
		if u := str("url"); u != "" {
			return "Fetch " + u
		}
	case "WebSearch":
		if q := str("query"); q != "" {
			return "Search " + q
		}
	case "Agent", "Task":
		if d := str("description"); d != "" {
			return d
		}
	}
	if strings.HasPrefix(name, "mcp__") {
		parts := strings.SplitN(strings.TrimPrefix(name, "mcp__"), "__", 2)
		if len(parts) == 2 {
			return parts[1] + " (" + parts[0] + " MCP)"
		}
	}
	if name == "" {
		return "Tool"
	}
	return name
}

// Permission options offered for a tool call.
const (
	optionAllowOnce   = "allow"
	optionAllowAlways = "allow_always"
	optionReject      = "reject"
)

// canUseTool answers the CLI's can_use_tool by asking the client. The tool
// call the request names has always been reported first. A request
// withdrawn by the CLI, or by a cancelled turn, is withdrawn from the client
// too ($/cancel_request) and denied. A request for a tool of a turn the
// user already cancelled is denied without asking.
func (s *session) canUseTool(ctx context.Context, req claude.CanUseToolRequest) (claude.PermissionResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var tc acp.ToolCallUpdate
	var t *turn
	var open *openRequest
	var stopped bool
	ok := s.do(func() {
		ts := s.tool(req.ToolUseID)
		if ts != nil {
			t = ts.turn
		}
		if t == nil {
			t = s.current
		}
		if t != nil && t.cancelled {
			// The user pressed Stop before Claude asked: nothing of that
			// turn may run, and the user is not asked about it.
			stopped = true
			return
		}
		if ts == nil {
			s.toolStarted(&claude.ContentBlock{ID: req.ToolUseID, Name: req.ToolName})
		}
		open = s.trackRequest(t, cancel)
		tc = acp.ToolCallUpdate{
			ToolCallID: acp.ToolCallID(req.ToolUseID),
			Title:      acp.Some(toolTitle(req.ToolName, req.Input)),
			Kind:       acp.Some(toolKind(req.ToolName)),
			RawInput:   req.Input,
		}
	})
	if !ok {
		return claude.Deny("The session was closed."), nil
	}
	if stopped {
		return claude.PermissionResult{Behavior: "deny", Message: "The user cancelled this turn.", Interrupt: true}, nil
	}
	defer s.post(func() { s.untrackRequest(t, open) })
	params := &acp.RequestPermissionRequest{
		SessionID: acp.SessionID(s.id),
		ToolCall:  tc,
		Options: []acp.PermissionOption{
			{OptionID: optionAllowAlways, Name: "Always Allow", Kind: acp.PermissionOptionKindAllowAlways},
			{OptionID: optionAllowOnce, Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce},
			{OptionID: optionReject, Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
		},
	}
	var resp acp.RequestPermissionResponse
	if err := s.a.editor().Call(ctx, acp.MethodSessionRequestPermission, params, &resp); err != nil {
		return claude.PermissionResult{Behavior: "deny", Message: "The permission request was cancelled.", Interrupt: true}, nil
	}
	if resp.Outcome.Selected == nil {
		return claude.PermissionResult{Behavior: "deny", Message: "The user cancelled the permission request.", Interrupt: true}, nil
	}
	switch string(resp.Outcome.Selected.OptionID) {
	case optionAllowOnce:
		return claude.Allow(req.Input), nil
	case optionAllowAlways:
		r := claude.Allow(req.Input)
		r.UpdatedPermissions = req.PermissionSuggestions
		return r, nil
	}
	return claude.Deny("The user refused permission to run this tool."), nil
}

// openRequest is a client request a turn has open (a permission prompt).
type openRequest struct{ cancel context.CancelFunc }

// trackRequest remembers an open client request of a turn so cancelling
// the turn withdraws it.
func (s *session) trackRequest(t *turn, cancel context.CancelFunc) *openRequest {
	if s.openRequests == nil {
		s.openRequests = map[*turn][]*openRequest{}
	}
	r := &openRequest{cancel: cancel}
	s.openRequests[t] = append(s.openRequests[t], r)
	return r
}

func (s *session) untrackRequest(t *turn, r *openRequest) {
	rs := s.openRequests[t]
	for i := range rs {
		if rs[i] == r {
			s.openRequests[t] = append(rs[:i], rs[i+1:]...)
			break
		}
	}
	if len(s.openRequests[t]) == 0 {
		delete(s.openRequests, t)
	}
}

// cancelOpenRequests withdraws the client requests a turn has open.
func (s *session) cancelOpenRequests(t *turn) {
	for _, r := range s.openRequests[t] {
		r.cancel()
	}
	delete(s.openRequests, t)
}
