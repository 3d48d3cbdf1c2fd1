package translate

import (
	"encoding/json"
	"hash/maphash"
	"strconv"
	"strings"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/editorfs"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/toolview"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// Tool call lifecycle. A call is announced once (tool_call, pending) when
// its input is whole: with rawInput, title, kind, locations and content
// such as an edit's diff. Clients that build one tool invocation from the
// first report (the AI-SDK ACP provider, among others) thus never see a
// call without its input, nor a second announcement of it. Updates
// (tool_call_update) follow for what changes: the permission preview, live
// output, and the result with the final status. Every update carries only
// the fields that changed since the previous report of that call.
// Presentation per tool is in agent/internal/toolview; Bash output in terminal.go;
// TodoWrite and Task* become plans (plan.go) instead.

// toolState is what the session knows of one tool call.
type toolState struct {
	id, name string
	turn     *Turn
	parent   string // the Agent/Task call a subagent's call belongs to
	sid      string // the child session it is reported on ("" = this one; subagent.go)
	seq      int    // the order calls were made in (settle.go)

	in       map[string]any // decoded input (empty until complete)
	raw      json.RawMessage
	complete bool

	editor   bool // one of the editor's file tools (agent/editorfs)
	reported bool // the client has seen a tool_call for it
	terminal bool // its content is a display terminal (Bash, terminal clients)
	sent     sentFields

	// openLine: the terminal's output so far does not end with a newline.
	openLine bool

	// watching: a foreground command whose output file is looked for
	// (terminal_live.go); outputsBefore are the task files that existed
	// when it was announced.
	watching      bool
	outputsBefore map[string]string
}

// sentFields is what the client last saw of a call, so updates carry
// only what changed.
type sentFields struct {
	title     string
	kind      acp.ToolKind
	status    acp.ToolCallStatus
	content   uint64 // contentKey
	locations uint64 // viewKey
	rawInput  bool
}

// toolPatch is what an update adds beyond the call's current view.
type toolPatch struct {
	status    acp.ToolCallStatus
	rawOutput json.RawMessage
	meta      map[string]json.RawMessage // extra _meta keys (terminal_*)
	// metaOnly sends the meta even if no field changed (terminal output).
	metaOnly bool
}

func (tr *Translator) tool(id string) *toolState {
	if tr.tools == nil {
		tr.tools = map[string]*toolState{}
	}
	return tr.tools[id]
}

// newTool registers a call the session has not seen before.
func (tr *Translator) newTool(id, name string) *toolState {
	tr.toolSeq++
	name, editor := editorfs.BuiltinName(tr.editorServer, name) // the editor's file tools show as the built-ins
	ts := &toolState{id: id, name: name, editor: editor, turn: tr.Current, in: map[string]any{}, seq: tr.toolSeq}
	ts.terminal = (name == "Bash" || name == "PowerShell") && tr.terminals
	tr.tool(id)
	tr.tools[id] = ts
	return ts
}

// toolStarted registers a call as soon as the model starts it, so its
// name is known whatever comes next; it is announced when its input is
// whole (toolInputComplete), so that its first report carries rawInput.
func (tr *Translator) toolStarted(cb *claude.ContentBlock) {
	if tr.tool(cb.ID) == nil {
		tr.newTool(cb.ID, cb.Name)
	}
}

// toolInputComplete announces the call once its input is whole: rawInput,
// and content such as the diff of an edit.
func (tr *Translator) toolInputComplete(b claude.ContentBlock) {
	ts := tr.tool(b.ID)
	if ts == nil {
		ts = tr.newTool(b.ID, b.Name)
	}
	ts.setInput(b.Input)
	if toolview.IsPlanTool(ts.name) && ts.parent == "" { // a subagent's list is not the session's plan
		tr.planFromInput(ts)
		if !ts.reported {
			return
		}
	}
	if !ts.reported {
		tr.reportTool(ts, nil)
	} else {
		tr.updateTool(ts, toolPatch{})
	}
	tr.watchForeground(ts) // terminal_live.go: a command's live output
}

func (ts *toolState) setInput(raw json.RawMessage) {
	if len(raw) == 0 {
		raw = json.RawMessage(`{}`)
	}
	ts.raw, ts.in, ts.complete = raw, toolview.DecodeInput(raw), true
}

// view is the call's presentation now.
func (tr *Translator) view(ts *toolState) toolview.View {
	v := toolview.Describe(ts.name, ts.in, tr.cwd)
	if ts.complete {
		var content []acp.ToolCallContent
		var locs []acp.ToolCallLocation
		content, locs = tr.world.Preview(ts.name, ts.in, tr.cwd)
		v.Content = content
		if len(locs) > 0 {
			v.Locations = locs
		}
	}
	if ts.terminal {
		v.Content = []acp.ToolCallContent{{Terminal: &acp.Terminal{TerminalID: acp.TerminalID(ts.id)}}}
	}
	return v
}

// reportTool sends the first report of a call, with its view v (nil: the
// view now).
func (tr *Translator) reportTool(ts *toolState, v *toolview.View) {
	if v == nil {
		view := tr.view(ts)
		v = &view
	}
	raw := ts.raw
	if raw == nil { // a call whose input was never seen (only its result)
		raw = json.RawMessage(`{}`)
	}
	meta := tr.toolMeta(ts, nil)
	if ts.terminal {
		meta["terminal_info"] = mustJSON(map[string]string{"terminal_id": ts.id, "cwd": tr.cwd})
	}
	tc := &acp.ToolCall{
		ToolCallID: acp.ToolCallID(ts.id),
		Title:      v.Title,
		Name:       acp.Some(ts.name),
		Kind:       v.Kind,
		Status:     acp.ToolCallStatusPending,
		Content:    v.Content,
		Locations:  v.Locations,
		RawInput:   raw,
		Meta:       meta,
	}
	ts.reported = true
	ts.sent = sentFields{
		title: v.Title, kind: v.Kind, status: acp.ToolCallStatusPending,
		content: tr.contentKey(v.Content), locations: tr.viewKey(&v.Locations),
		rawInput: ts.complete,
	}
	tr.notify(tr.toolSession(ts), acp.SessionUpdate{ToolCall: tc})
}

// viewKey identifies a part of a call's view by its JSON (a 64-bit hash
// of the in-place encoding, in a buffer the Translator reuses): an update
// carries the part only when its key changed, without keeping the JSON
// itself. The hash is maphash's (keys never leave the process).
func (tr *Translator) viewKey(v any) uint64 {
	b, err := acp.AppendJSON(tr.keyBuf[:0], v)
	if err != nil {
		b = mustJSON(v)
	}
	tr.keyBuf = b
	return maphash.Bytes(viewKeySeed, b)
}

var viewKeySeed = maphash.MakeSeed()

// updateTool sends what changed in the call's view since the last report,
// plus the patch. Nothing is sent when nothing changed.
func (tr *Translator) updateTool(ts *toolState, p toolPatch) {
	tr.sendToolUpdate(ts, tr.view(ts), p)
}

func (tr *Translator) sendToolUpdate(ts *toolState, v toolview.View, p toolPatch) {
	if !ts.reported {
		tr.reportTool(ts, nil)
	}
	u := &acp.ToolCallUpdate{ToolCallID: acp.ToolCallID(ts.id)}
	changed := false
	if v.Title != ts.sent.title {
		u.Title, ts.sent.title, changed = acp.Some(v.Title), v.Title, true
	}
	if v.Kind != ts.sent.kind {
		u.Kind, ts.sent.kind, changed = acp.Some(v.Kind), v.Kind, true
	}
	if p.status != "" && p.status != ts.sent.status {
		u.Status, ts.sent.status, changed = acp.Some(p.status), p.status, true
	}
	if c := tr.contentKey(v.Content); v.Content != nil && c != ts.sent.content {
		u.Content, ts.sent.content, changed = acp.Some(v.Content), c, true
	}
	if l := tr.viewKey(&v.Locations); v.Locations != nil && l != ts.sent.locations {
		u.Locations, ts.sent.locations, changed = acp.Some(v.Locations), l, true
	}
	if ts.complete && !ts.sent.rawInput {
		u.RawInput, ts.sent.rawInput, changed = ts.raw, true, true
	}
	if p.rawOutput != nil {
		u.RawOutput, changed = p.rawOutput, true
	}
	if !changed && !p.metaOnly {
		return
	}
	u.Meta = tr.toolMeta(ts, p.meta)
	tr.notify(tr.toolSession(ts), acp.SessionUpdate{ToolCallUpdate: u})
}

// toolMeta is the _meta of every report: the Claude tool name (and the
// subagent call it belongs to, or that it launches subagents), plus extra
// keys.
func (tr *Translator) toolMeta(ts *toolState, extra map[string]json.RawMessage) map[string]json.RawMessage {
	m := map[string]json.RawMessage{"claudeCode": claudeCodeMeta(ts.name, ts.parent, ts.name == "Agent" || ts.name == "Task")}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// toolResult finishes a call with its result.
func (tr *Translator) toolResult(u *claude.UserFrame, b claude.ContentBlock, structured json.RawMessage) {
	ts := tr.tool(b.ToolUseID)
	if ts == nil {
		if u.ParentToolUseID != "" {
			return // a subagent's call the client never saw
		}
		ts = tr.newTool(b.ToolUseID, "")
	}
	if ts.editor {
		structured = editorfs.BuiltinResult(structured)
	}
	text := b.ContentText // decoded already by the transcript reader
	if !b.ContentIsText {
		text = toolResultText(b.Content)
	}
	rawOutput := resultRaw(b.Content, text)
	if ts.name == "WebSearch" {
		text = stripModelReminder(text)
		rawOutput = jsonString(text)
	}
	if toolview.IsPlanTool(ts.name) && ts.parent == "" {
		tr.planResult(ts, b.IsError, structured)
		if !ts.reported {
			delete(tr.tools, ts.id)
			return
		}
	}
	if tr.sched != nil {
		tr.sched.observe(ts.name, ts.in, text, structured, b.IsError, time.Now()) // schedule.go
	}
	status := acp.ToolCallStatusCompleted
	if b.IsError {
		status = acp.ToolCallStatusFailed
	} else if ts.name == "SendMessage" {
		tr.subagentFollowUp(ts, text) // subagent_sessions.go
	}
	if ts.name == "Bash" || ts.name == "PowerShell" {
		if tr.bashResult(ts, text, b, structured, rawOutput) {
			return // still running in the background; terminal.go finishes it
		}
		delete(tr.tools, ts.id)
		return
	}
	v := tr.view(ts)
	p := toolPatch{status: status, rawOutput: rawOutput}
	switch {
	case b.IsError:
		v.Content = []acp.ToolCallContent{toolview.TextContent(toolview.Fenced("", text))}
	case toolview.IsEditTool(ts.name):
		if c, locs := editResult(ts, structured, tr.cwd); len(c) > 0 {
			v.Content, v.Locations = c, locs
		}
	case ts.name == "Read":
		if c := readResult(b, structured, str(ts.in, "file_path")); len(c) > 0 {
			v.Content = c
		}
	case ts.name == "Agent" || ts.name == "Task":
		if report := toolview.AgentReport(text, structured); report != "" {
			v.Content = []acp.ToolCallContent{toolview.TextContent(report)}
		}
	case ts.name == "ExitPlanMode":
		v.Title = "Plan approved"
	case ts.name == "WebSearch" && text != "":
		v.Content = []acp.ToolCallContent{toolview.TextContent(text)}
	default:
		if c := resultContent(b); len(c) > 0 {
			v.Content = c
		}
	}
	tr.sendToolUpdate(ts, v, p)
	delete(tr.tools, ts.id)
}

// stripModelReminder drops the paragraph the CLI appends to a WebSearch
// result for the model ("REMINDER: You MUST include the sources above in
// your response …"): it is an instruction to Claude, not the result.
func stripModelReminder(text string) string {
	if i := strings.LastIndex(text, "REMINDER: You MUST"); i >= 0 {
		return strings.TrimRight(text[:i], " \n")
	}
	return text
}

// editResult is the final per-hunk diff of an edit, from the CLI's
// structuredPatch (or the created file's content).
func editResult(ts *toolState, structured json.RawMessage, cwd string) ([]acp.ToolCallContent, []acp.ToolCallLocation) {
	var r editStructured
	if !r.decode(structured) {
		return nil, nil
	}
	path := toolview.AbsPath(firstNonEmpty(r.FilePath, str(ts.in, "file_path")), cwd)
	if hs, ok := toolview.PatchHunks(r.StructuredPatch); ok {
		return toolview.HunksContent(path, hs)
	}
	if r.Type == "create" {
		return toolview.FileDiff(path, "", r.Content, true)
	}
	return nil, nil
}

// readResult shows what a Read returned: the text in a fence, an image as
// an image. Claude Code's structured copy is used when the result has one;
// a subagent's results come without it, and then the tool_result itself
// is shown (its numbered lines as the file's text).
func readResult(b claude.ContentBlock, structured json.RawMessage, path string) []acp.ToolCallContent {
	var r readStructured
	r.decode(structured)
	switch {
	case r.Type == "text":
		out := fencedFile(r.File.FilePath, r.File.Content)
		if r.File.NumLines > 0 && r.File.TotalLines > r.File.NumLines {
			out += "\n\n" + "Lines " + strconv.Itoa(r.File.StartLine) + "–" + strconv.Itoa(r.File.StartLine+r.File.NumLines-1) + " of " + strconv.Itoa(r.File.TotalLines)
		}
		return []acp.ToolCallContent{toolview.TextContent(out)}
	case r.Type == "image" && r.File.Base64 != "" && r.File.MediaType != "":
		return []acp.ToolCallContent{imageContent(r.File.Base64, r.File.MediaType)}
	}
	out := resultContent(b)
	for i, c := range out {
		if c.Content == nil || c.Content.Content.Text == nil {
			continue
		}
		if text, ok := toolview.NumberedText(c.Content.Content.Text.Text); ok {
			out[i] = toolview.TextContent(fencedFile(path, text))
		}
	}
	return out
}

// fencedFile is a file's text in a fence with a language from its name,
// cut at 100 KiB.
func fencedFile(path, text string) string {
	const maxShown = 100 << 10
	if len(text) > maxShown {
		text = text[:maxShown] + "\n…"
	}
	return toolview.Fenced(toolview.FenceLang(path), text)
}

// resultContent renders a result's blocks: text (and images, as MCP tools
// may return them).
func resultContent(b claude.ContentBlock) []acp.ToolCallContent {
	blocks, err := b.ResultContent()
	if err != nil {
		return nil
	}
	var out []acp.ToolCallContent
	for _, c := range blocks {
		switch c.Type {
		case "text":
			if c.Text != "" {
				out = append(out, toolview.TextContent(c.Text))
			}
		case "image":
			var src struct {
				MediaType string `json:"media_type"`
				Data      string `json:"data"`
			}
			if json.Unmarshal(c.Source, &src) == nil && src.Data != "" {
				out = append(out, imageContent(src.Data, src.MediaType))
			}
		}
	}
	return out
}

func imageContent(data, mimeType string) acp.ToolCallContent {
	return acp.ToolCallContent{Content: &acp.Content{Content: acp.ContentBlock{
		Image: &acp.ImageContent{Data: data, MimeType: mimeType}}}}
}

// toolResultText flattens a tool_result's content (a string or blocks).
func toolResultText(raw json.RawMessage) string {
	if text, ok := resultTextFast(raw); ok {
		return text
	}
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

func str(in map[string]any, k string) string {
	v, _ := in[k].(string)
	return v
}

// toolResults finishes the calls a user frame carries results for. The
// structured tool_use_result belongs to the frame's single result. A
// subagent's frame only finishes calls the client has seen (those it was
// asked to permit).
func (tr *Translator) toolResults(u *claude.UserFrame) {
	n := 0
	for _, b := range u.Message.Content {
		if b.Type == "tool_result" {
			n++
		}
	}
	var structured json.RawMessage
	if n == 1 {
		structured = u.ToolUseResult
	}
	for _, b := range u.Message.Content {
		if b.Type != "tool_result" || u.ParentToolUseID != "" && tr.tool(b.ToolUseID) == nil {
			continue
		}
		tr.toolResult(u, b, structured)
	}
}
