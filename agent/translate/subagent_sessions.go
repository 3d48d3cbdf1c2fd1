package translate

import (
	"encoding/json"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
)

// Subagent sessions (the ACP subagents draft). A client that declares
// clientCapabilities.subagents gets each subagent as a child session whose
// id is the CLI's agent id:
//
//   - subagent_update on the parent announces the child (title, description,
//     capabilities {cancel:{}}, state running) before any of its traffic;
//   - the launch prompt is a session_message on the child, sent by the
//     parent; the child's text, thinking, tool calls and permission requests
//     carry the child's session id;
//   - later subagent_update frames change its state: requires_action while
//     one of its permission requests is open, then running again, and idle
//     with a stop reason (end_turn, cancelled, error) when it ends, or
//     unknown when the CLI behind it exits;
//   - session/cancel with the child's id stops that subagent only (the CLI's
//     stop_task); the parent's prompt goes on;
//   - when the child completes, its reply (the text of its last message) is
//     a session_message from the child to the parent, on the parent;
//   - a SendMessage the parent's Claude sends to a running child is a
//     session_message from the parent to the child, on the child (the CLI
//     delivers it at the child's next tool round, or resumes a child that
//     finished with it: the child is running again).
//
// The schema types are unstable, so the updates go out as raw variants.

// subagentUpdate is the subagent_update variant.
type subagentUpdate struct {
	SessionUpdate string          `json:"sessionUpdate"`
	SessionID     string          `json:"sessionId"`
	Title         string          `json:"title,omitempty"`
	Description   string          `json:"description,omitempty"`
	Capabilities  json.RawMessage `json:"capabilities,omitempty"`
	State         json.RawMessage `json:"state,omitempty"`
	Meta          json.RawMessage `json:"_meta,omitempty"`
}

// workState is the state object of a subagent_update.
type workState struct {
	State      string     `json:"state"`
	StopReason string     `json:"stopReason,omitempty"`
	Error      *acp.Error `json:"error,omitempty"`
}

// announceSubagent sends the child's first subagent_update, once its id is
// known, on the session its launching call was reported on.
func (tr *Translator) announceSubagent(c *subagent) {
	if c.announced || c.agentID == "" || tr.subagents != SubagentsSessions {
		return
	}
	c.announced, c.state = true, "running/"
	tr.notify(c.owner, acp.SessionUpdate{Unknown: mustJSON(subagentUpdate{
		SessionUpdate: "subagent_update",
		SessionID:     c.agentID,
		Title:         c.title,
		Description:   c.kind,
		Capabilities:  json.RawMessage(`{"cancel":{}}`),
		State:         mustJSON(workState{State: "running"}),
		Meta:          mustJSON(map[string]any{"claudeCode": map[string]any{"parentToolUseId": c.launch, "background": c.background}}),
	})})
}

// setSubagentState reports a change of the child's work state.
func (tr *Translator) setSubagentState(c *subagent, w workState) {
	if !c.announced || tr.subagents != SubagentsSessions {
		return
	}
	key := w.State + "/" + w.StopReason
	if key == c.state {
		return
	}
	c.state = key
	tr.notify(c.owner, acp.SessionUpdate{Unknown: mustJSON(subagentUpdate{
		SessionUpdate: "subagent_update", SessionID: c.agentID, State: mustJSON(w),
	})})
}

// subagentPrompt shows the task the parent gave the child as a message
// from the parent session, in the child's transcript.
func (tr *Translator) subagentPrompt(c *subagent, text string) {
	tr.announceSubagent(c)
	if !c.announced {
		return
	}
	tr.notify(c.agentID, acp.SessionUpdate{Unknown: mustJSON(map[string]any{
		"sessionUpdate":      "session_message",
		"messageId":          c.launch,
		"senderSessionId":    c.owner,
		"recipientSessionId": c.agentID,
		"content":            []acp.ContentBlock{{Text: &acp.TextContent{Text: text}}},
	})})
}

// noteReply follows the child's latest text: a new message starts a new
// reply.
func (c *subagent) noteReply(messageID, text string) {
	if messageID != c.replyID || messageID == "" && c.replyID == "" {
		c.replyID, c.reply = messageID, ""
	}
	c.reply += text
}

// subagentReply sends a completed child's reply to its parent.
func (tr *Translator) subagentReply(c *subagent) {
	if !c.announced || tr.subagents != SubagentsSessions || c.reply == "" {
		return
	}
	tr.notify(c.owner, acp.SessionUpdate{Unknown: mustJSON(map[string]any{
		"sessionUpdate":      "session_message",
		"messageId":          firstNonEmpty(c.replyID, c.launch+":reply"),
		"senderSessionId":    c.agentID,
		"recipientSessionId": c.owner,
		"content":            []acp.ContentBlock{{Text: &acp.TextContent{Text: c.reply}}},
	})})
	c.reply = ""
}

// subagentFollowUp shows a SendMessage to a child as a message from the
// parent on the child. The CLI's result names the child it reached
// ({"success":true,"pin":{"id":<agent id>,…}}); the input says what was
// sent ("message").
func (tr *Translator) subagentFollowUp(ts *toolState, result string) {
	if tr.subagents != SubagentsSessions {
		return
	}
	var r struct {
		Success bool `json:"success"`
		Pin     struct {
			ID string `json:"id"`
		} `json:"pin"`
	}
	text := str(ts.in, "message")
	if json.Unmarshal([]byte(result), &r) != nil || !r.Success || text == "" {
		return
	}
	c := tr.sub.byAgent[r.Pin.ID]
	if c == nil || !c.announced {
		return
	}
	if c.done { // the CLI resumes a finished child with the message
		c.done = false
		tr.setSubagentState(c, workState{State: "running"})
	}
	tr.notify(c.agentID, acp.SessionUpdate{Unknown: mustJSON(map[string]any{
		"sessionUpdate":      "session_message",
		"messageId":          ts.id,
		"senderSessionId":    tr.toolSession(ts),
		"recipientSessionId": c.agentID,
		"content":            []acp.ContentBlock{{Text: &acp.TextContent{Text: text}}},
	})})
}

// subagentAsking counts a child's open permission requests: while one is
// open the child requires action.
func (tr *Translator) subagentAsking(ts *toolState, delta int) {
	if ts == nil || ts.parent == "" {
		return
	}
	c := tr.sub.byLaunch[ts.parent]
	if c == nil || c.done {
		return
	}
	c.asking = max(c.asking+delta, 0)
	if c.asking > 0 {
		tr.setSubagentState(c, workState{State: "requires_action"})
	} else {
		tr.setSubagentState(c, workState{State: "running"})
	}
}

// finishSubagent ends a run with the CLI's task status. Calls it left open
// (stopped mid-tool) end as failed, so no call stays pending forever.
func (tr *Translator) finishSubagent(c *subagent, status, summary string) {
	c.done = true
	for id, ts := range tr.tools {
		if ts.parent == c.launch && ts.reported && status != "completed" && tr.bgTaskOf(ts) == "" {
			tr.sendToolUpdate(ts, tr.view(ts), toolPatch{status: acp.ToolCallStatusFailed})
			delete(tr.tools, id)
		}
	}
	w := workState{State: "idle"}
	switch status {
	case "completed":
		w.StopReason = "end_turn"
		tr.subagentReply(c)
	case "stopped", "killed", "cancelled":
		w.StopReason = "cancelled"
	case "failed":
		w.StopReason = "error"
		w.Error = acp.NewInternalError(firstNonEmpty(summary, "The subagent failed."))
	}
	tr.setSubagentState(c, w)
}

// bgTaskOf is the background command task of a call, if it is one.
func (tr *Translator) bgTaskOf(ts *toolState) string {
	for id, bg := range tr.bgTasks {
		if bg.ts == ts {
			return id
		}
	}
	return ""
}

// SubagentsLost marks every running child unknown: the CLI that ran them
// has exited.
func (tr *Translator) SubagentsLost() {
	for _, c := range tr.sub.byLaunch {
		if !c.done {
			c.done = true
			tr.setSubagentState(c, workState{State: "unknown"})
		}
	}
}
