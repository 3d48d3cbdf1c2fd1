package translate

import (
	"encoding/json"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// Subagents. Claude delegates work through the Agent tool (Task in older
// CLIs): the CLI runs a subagent, in the foreground (the parent turn waits
// for its report, which becomes the Agent call's result) or in the
// background (the call returns at once and the report arrives later as a
// new, self-started turn). Every frame a subagent produces carries
// parent_tool_use_id, the id of the launching Agent/Task call, and
// agent_id; system/task_* frames (task_type local_agent) say when it starts
// and how it ends.
//
// How the editor sees that work depends on what the client declared (see
// docs/subagents.md):
//
//   - flat (default): the subagent's tool calls appear on the parent session
//     with _meta.claudeCode.parentToolUseId; its text and thinking do not.
//   - transcript (clientCapabilities._meta["subagent-transcript"] = true):
//     its text and thinking are forwarded too, related the same way.
//   - sessions (clientCapabilities.subagents, the ACP subagents draft): each
//     subagent is a child session of its own (subagent_sessions.go).
//
// In every mode the Agent/Task call itself stays an ordinary tool call
// marked _meta.claudeCode.subagent = true, and its result (the report) is
// the protocol-compatible fallback. A subagent's permission requests belong
// to the prompt that launched it in the foreground, and to no prompt when it
// runs in the background, so cancelling a later prompt does not withdraw
// them.

// SubagentMode is how a client wants subagent work shown.
type SubagentMode int

const (
	SubagentsFlat       SubagentMode = iota // the launching call's card only
	SubagentsTranscript                     // the subagent's work in the parent's transcript
	SubagentsSessions                       // a child session per subagent
)

// subagent is one subagent run, known from its task_started frame or its
// first frame.
type subagent struct {
	launch     string // tool_use id of the Agent/Task call
	agentID    string // the CLI's agent (task) id; the child session id
	owner      string // session the launching call was reported on
	title      string // the call's description
	kind       string // subagent_type
	background bool
	turn       *Turn // the prompt a foreground subagent works for
	announced  bool  // subagent_update sent (sessions mode)
	prompted   bool  // its launch prompt was seen
	state      string
	asking     int             // permission requests open
	done       bool            // it ended; later frames are dropped
	streamed   map[string]bool // message ids whose text streamed
	replyID    string          // the message its latest text belongs to
	reply      string          // that text: its reply to the parent so far
}

// subagentState is the session's subagents, by launching call and by
// agent id.
type subagentState struct {
	byLaunch map[string]*subagent
	byAgent  map[string]*subagent
}

// subagent finds the run launched by the call, creating it on first sight,
// and learns its agent id when a frame names it.
func (tr *Translator) subagent(launch, agentID string) *subagent {
	st := &tr.sub
	if st.byLaunch == nil {
		st.byLaunch, st.byAgent = map[string]*subagent{}, map[string]*subagent{}
	}
	c := st.byLaunch[launch]
	if c == nil && agentID != "" {
		c = st.byAgent[agentID]
	}
	if c == nil {
		c = &subagent{launch: launch, owner: tr.id, turn: tr.Current, streamed: map[string]bool{}}
		if ts := tr.tool(launch); ts != nil {
			c.owner, c.turn = tr.toolSession(ts), ts.turn
			c.title, c.kind = str(ts.in, "description"), str(ts.in, "subagent_type")
			c.background = ts.in["run_in_background"] == true
		} else {
			c.background = true // its call already returned: it was not waited for
		}
		if c.background {
			c.turn = nil
		}
		st.byLaunch[launch] = c
	}
	if agentID != "" && c.agentID == "" {
		c.agentID = agentID
		st.byAgent[agentID] = c
	}
	return c
}

// toolSession is the session a call is reported on.
func (tr *Translator) toolSession(ts *toolState) string {
	if ts.sid != "" {
		return ts.sid
	}
	return tr.id
}

// subagentSession is where a subagent's own traffic goes: its child
// session for a sessions client (once its id is known), else the parent.
func (tr *Translator) subagentSession(c *subagent) string {
	if c.agentID != "" && tr.subagents == SubagentsSessions {
		return c.agentID
	}
	return tr.id
}

// HandleSubagentFrame routes a frame that carries parent_tool_use_id.
func (tr *Translator) HandleSubagentFrame(m claude.Message) {
	switch b := m.Body.(type) {
	case *claude.StreamEvent:
		tr.onSubagentStream(b)
	case *claude.AssistantMessage:
		tr.onSubagentAssistant(b)
	case *claude.UserFrame:
		tr.onSubagentUser(b)
	}
}

// BackgroundSubagentFrame reports a frame of a background subagent: it is
// not part of the prompt that happens to be running.
func (tr *Translator) BackgroundSubagentFrame(m claude.Message) bool {
	var launch string
	switch b := m.Body.(type) {
	case *claude.StreamEvent:
		launch = b.ParentToolUseID
	case *claude.AssistantMessage:
		launch = b.ParentToolUseID
	case *claude.UserFrame:
		launch = b.ParentToolUseID
	}
	c := tr.sub.byLaunch[launch]
	return launch != "" && c != nil && c.background
}

// onSubagentStream forwards streamed subagent text (CLI 2.1.332 sends only
// consolidated frames for subagents; later versions may stream).
func (tr *Translator) onSubagentStream(e *claude.StreamEvent) {
	c := tr.subagent(e.ParentToolUseID, "")
	if c.done || e.Event.Type != "content_block_delta" || e.Event.Delta == nil {
		return
	}
	switch d := e.Event.Delta; d.Type {
	case "text_delta", "thinking_delta":
		if e.APIMessageID != "" {
			c.streamed[e.APIMessageID] = true // its consolidated frames repeat it
		}
		tr.subagentChunk(c, d.Type == "thinking_delta", d.Text+d.Thinking, e.APIMessageID)
	}
}

func (tr *Translator) onSubagentAssistant(m *claude.AssistantMessage) {
	c := tr.subagent(m.ParentToolUseID, m.AgentID)
	if c.done || m.IsAPIErrorMessage || m.Message.Model == claude.SyntheticModel {
		return // the subagent's own API errors end up in its report
	}
	tr.announceSubagent(c)
	// The CLI sends one consolidated frame per content block, all under
	// the message's id (thinking, then text, then tool calls): only text
	// that streamed is skipped, never a later block of the same message.
	streamed := c.streamed[m.Message.ID]
	for _, b := range m.Message.Content {
		switch {
		case b.Type == "text" && !streamed:
			tr.subagentChunk(c, false, b.Text, m.Message.ID)
		case b.Type == "thinking" && !streamed:
			tr.subagentChunk(c, true, b.Thinking, m.Message.ID)
		case isToolUse(b.Type):
			if tr.tool(b.ID) == nil {
				tr.adoptTool(tr.newTool(b.ID, b.Name), c)
			}
			tr.toolInputComplete(b)
		}
	}
}

// onSubagentUser finishes the subagent's tool calls and shows its launch
// prompt (the first text it is given) to a sessions client.
func (tr *Translator) onSubagentUser(u *claude.UserFrame) {
	c := tr.subagent(u.ParentToolUseID, u.AgentID)
	if c.done {
		return
	}
	tr.announceSubagent(c)
	tr.toolResults(u)
	if c.prompted {
		return
	}
	var text string
	for _, b := range u.Message.Content {
		switch b.Type {
		case "tool_result":
			return
		case "text":
			text += b.Text
		}
	}
	if text != "" {
		c.prompted = true
		tr.subagentPrompt(c, text) // subagent_sessions.go
	}
}

// adoptTool makes a call the subagent's: related to its launch, reported
// where the subagent's traffic goes, and owned by its prompt (none for a
// background subagent).
func (tr *Translator) adoptTool(ts *toolState, c *subagent) {
	ts.parent, ts.turn = c.launch, c.turn
	if sid := tr.subagentSession(c); sid != tr.id {
		ts.sid = sid
	}
}

// subagentChunk sends subagent text or thought: to a transcript client on
// the parent with the launching call as parentToolUseId, to a sessions
// client on the child. Flat clients do not get it.
func (tr *Translator) subagentChunk(c *subagent, thought bool, text, messageID string) {
	mode := tr.subagents
	if text == "" || mode == SubagentsFlat {
		return
	}
	if !thought {
		c.noteReply(messageID, text) // subagent_sessions.go: the child's reply
	}
	ch := &acp.ContentChunk{Content: acp.ContentBlock{Text: &acp.TextContent{Text: text}}}
	if messageID != "" {
		ch.MessageID = acp.Some(acp.MessageID(messageID))
	}
	sid := tr.subagentSession(c)
	if sid == tr.id {
		ch.Meta = map[string]json.RawMessage{"claudeCode": mustJSON(map[string]string{"parentToolUseId": c.launch})}
	}
	if thought {
		tr.notify(sid, acp.SessionUpdate{AgentThoughtChunk: ch})
	} else {
		tr.notify(sid, acp.SessionUpdate{AgentMessageChunk: ch})
	}
}

// subagentRequestTool is the call a subagent's permission request is
// about, adopted by that subagent if the client has not seen it yet; nil
// for requests of the main loop.
func (tr *Translator) subagentRequestTool(req claude.CanUseToolRequest) *toolState {
	if req.AgentID == "" {
		return nil
	}
	c := tr.sub.byAgent[req.AgentID]
	if c == nil {
		return nil
	}
	ts := tr.tool(req.ToolUseID)
	if ts == nil {
		ts = tr.newTool(req.ToolUseID, req.ToolName)
		tr.adoptTool(ts, c)
	}
	return ts
}

// onSubagentTask follows local_agent tasks: task_started names the run
// (id, title, background or not), task_notification ends it.
func (tr *Translator) onSubagentTask(ev *claude.TaskEvent) {
	switch ev.Subtype {
	case "task_started":
		if ev.TaskType != "local_agent" || ev.ToolUseID == "" {
			return
		}
		c := tr.subagent(ev.ToolUseID, ev.TaskID)
		c.title = firstNonEmpty(ev.Description, c.title)
		c.kind = firstNonEmpty(ev.SubagentType, c.kind)
		c.background = ev.IsBackgrounded
		switch {
		case c.background:
			c.turn = nil
		case c.turn == nil:
			c.turn = tr.Current // the prompt waits for it
		}
		tr.announceSubagent(c)
	case "task_notification":
		c := tr.sub.byAgent[ev.TaskID]
		if c == nil {
			c = tr.sub.byLaunch[ev.ToolUseID]
		}
		if c != nil && !c.done {
			tr.finishSubagent(c, ev.Status, ev.Summary)
		}
	}
}
