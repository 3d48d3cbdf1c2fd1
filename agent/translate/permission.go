package translate

import (
	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/toolview"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// What a permission request of the CLI (can_use_tool) shows: the call it
// is about, as the client was shown it, with its whole input and a preview
// from the disk as it is now (the call is about to run). The session asks
// the client; translation only says what the request shows.

// PermissionTurn is the turn a permission request belongs to: the turn of
// the call it is about, else the current turn, except for a background
// subagent's request, which belongs to no prompt (nil). A subagent's call
// the client has not seen yet is adopted by that subagent here.
func (tr *Translator) PermissionTurn(req claude.CanUseToolRequest) *Turn {
	ts := tr.subagentRequestTool(req)
	if ts == nil {
		ts = tr.tool(req.ToolUseID)
	}
	var t *Turn
	if ts != nil {
		t = ts.turn
	}
	if t == nil && (ts == nil || ts.parent == "") {
		t = tr.Current
	}
	return t
}

// AskPermission makes sure the client has seen the call req is about, with
// its whole input and its preview, and returns the session the request is
// shown in and the call as the request shows it: every field, so a client
// can render the request on its own. The preview (an edit's file read and
// diff) is computed once, for both. While the request is open, a
// subagent that asks requires action; done ends that, on the translator's
// goroutine.
func (tr *Translator) AskPermission(req claude.CanUseToolRequest) (sessionID string, call acp.ToolCallUpdate, done func()) {
	ts := tr.tool(req.ToolUseID)
	if ts == nil {
		ts = tr.newTool(req.ToolUseID, req.ToolName)
	}
	if !ts.complete {
		ts.setInput(req.Input)
	}
	v := tr.view(ts)
	if !ts.reported {
		tr.reportTool(ts, &v)
	}
	tr.sendToolUpdate(ts, v, toolPatch{})
	tr.subagentAsking(ts, +1) // subagent_sessions.go: the child requires action
	return tr.toolSession(ts), tr.fullToolCall(ts, v), func() { tr.subagentAsking(ts, -1) }
}

// fullToolCall is the call with view v, every field set.
func (tr *Translator) fullToolCall(ts *toolState, v toolview.View) acp.ToolCallUpdate {
	u := acp.ToolCallUpdate{
		ToolCallID: acp.ToolCallID(ts.id),
		Title:      acp.Some(v.Title),
		Kind:       acp.Some(v.Kind),
		Status:     acp.Some(acp.ToolCallStatusPending),
		RawInput:   ts.raw,
		Meta:       tr.toolMeta(ts, nil),
	}
	if v.Content != nil {
		u.Content = acp.Some(v.Content)
	}
	if v.Locations != nil {
		u.Locations = acp.Some(v.Locations)
	}
	return u
}
