// Package v2conv makes ACP v2 from the core's v1 (docs/acp-v2.md, "session/update
// mapping"). The adapter core reports what happens as v1 session updates;
// a v2 connection passes each through a per-session Updates, which turns
// it into zero or more v2 updates. What v2 needs beyond a field-by-field
// copy is recovered here from what the v1 update already carries:
//
//   - message ids, required on v2 chunks, are kept where the core set them
//     and otherwise made up, one per run of chunks of one kind;
//   - Zed's terminal _meta (terminal_info / terminal_output /
//     terminal_exit, which the core emits when the client declared
//     terminal_output) become v2's agent-owned terminals: terminal_update
//     and terminal_output_chunk;
//   - per-hunk v1 diffs become one v2 diff per file, with a git patch
//     rebuilt from the hunks and their locations;
//   - plans, commands and config options take their v2 shapes; modes and
//     v1-only updates are dropped.
//
// The v1 surface itself is untouched: v1 connections never see this code.
//
// It imports acp and acpv2, never package agent: the compiler keeps v1
// untouched by v2 (internal/test/archtest).
package v2conv

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/acp/acpv2"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/toolview"
)

// Updates converts one session's v1 updates. Updates of a session may be
// reported from several goroutines (the session's own, a background
// command's poller), so the state has its own lock.
type Updates struct {
	cwd   string
	newID func() string // a fresh synthetic message id (uuid; tests may replace it)

	// sendMu makes converting and sending one step (Send), so that two
	// goroutines' updates cannot leave in another order than converted.
	sendMu sync.Mutex

	mu sync.Mutex
	// run is the synthetic id of the chunks being streamed without a v1
	// messageId: kept while chunks of the same kind follow each other,
	// renewed by any other update.
	run struct {
		kind string
		id   acpv2.MessageID
	}
	tools map[acp.ToolCallID]*toolState     // open tool calls
	terms map[acp.TerminalID]*terminalState // terminals announced to the client
}

// toolState is what the converter remembers of an open tool call: what later
// updates need but do not repeat (v1 updates carry only what changed).
type toolState struct {
	name    string                 // Claude's tool name
	command string                 // rawInput.command, for the terminal and the permission
	locs    []acp.ToolCallLocation // the last locations reported: the diffs' positions
	terms   []acp.TerminalID       // terminals the call displays
	content []string               // the content items the client has, encoded
}

// terminalState is what the client was told of a terminal.
type terminalState struct {
	command     string
	cancellable bool // capabilities.cancel was sent (a background command)
	exited      bool
}

func NewUpdates(cwd string) *Updates {
	return &Updates{
		cwd:   cwd,
		newID: uuid.NewString,
		tools: map[acp.ToolCallID]*toolState{},
		terms: map[acp.TerminalID]*terminalState{},
	}
}

// Cwd is the session's working directory, which paths are made absolute
// against.
func (c *Updates) Cwd() string { return c.cwd }

// Send converts u and hands what v2 makes of it to send, as one step:
// two goroutines' updates of one session leave in the order converted.
func (c *Updates) Send(u acp.SessionUpdate, send func(...acpv2.SessionUpdate) error) error {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	return send(c.convert(u)...)
}

// SendState sends updates v2 has and v1 does not (the prompt lifecycle) in
// order with the converted ones; like any update that is not a chunk, they
// end a run of chunks without message ids.
func (c *Updates) SendState(us []acpv2.SessionUpdate, send func(...acpv2.SessionUpdate) error) error {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	c.endRun()
	return send(us...)
}

// convert maps one v1 update to the v2 updates that say the same, in the
// order they must be sent. Updates without a v2 equivalent give nothing.
func (c *Updates) convert(u acp.SessionUpdate) []acpv2.SessionUpdate {
	c.mu.Lock()
	defer c.mu.Unlock()
	if u.UserMessageChunk == nil && u.AgentMessageChunk == nil && u.AgentThoughtChunk == nil {
		c.run.kind, c.run.id = "", "" // a message of the same kind after this one is another message
	}
	switch {
	case u.UserMessageChunk != nil:
		if ch, ok := c.chunk("user", u.UserMessageChunk); ok {
			return []acpv2.SessionUpdate{{UserMessageChunk: ch}}
		}
	case u.AgentMessageChunk != nil:
		if ch, ok := c.chunk("agent", u.AgentMessageChunk); ok {
			return []acpv2.SessionUpdate{{AgentMessageChunk: ch}}
		}
	case u.AgentThoughtChunk != nil:
		if ch, ok := c.chunk("thought", u.AgentThoughtChunk); ok {
			return []acpv2.SessionUpdate{{AgentThoughtChunk: ch}}
		}
	case u.ToolCall != nil:
		return c.toolCall(u.ToolCall)
	case u.ToolCallUpdate != nil:
		return c.toolUpdate(u.ToolCallUpdate, false)
	case u.Plan != nil:
		return []acpv2.SessionUpdate{{PlanUpdate: plan(u.Plan)}}
	case u.AvailableCommandsUpdate != nil:
		return []acpv2.SessionUpdate{{AvailableCommandsUpdate: &acpv2.AvailableCommandsUpdate{
			AvailableCommands: Commands(u.AvailableCommandsUpdate.AvailableCommands),
			Meta:              u.AvailableCommandsUpdate.Meta,
		}}}
	case u.ConfigOptionUpdate != nil:
		return []acpv2.SessionUpdate{{ConfigOptionUpdate: &acpv2.ConfigOptionUpdate{
			ConfigOptions: ConfigOptions(u.ConfigOptionUpdate.ConfigOptions),
			Meta:          u.ConfigOptionUpdate.Meta,
		}}}
	case u.SessionInfoUpdate != nil:
		s := u.SessionInfoUpdate
		return []acpv2.SessionUpdate{{SessionInfoUpdate: &acpv2.SessionInfoUpdate{
			Title: s.Title, UpdatedAt: s.UpdatedAt, Meta: s.Meta,
		}}}
	case u.UsageUpdate != nil:
		uu := &acpv2.UsageUpdate{Used: u.UsageUpdate.Used, Size: u.UsageUpdate.Size, Meta: u.UsageUpdate.Meta}
		if cost := u.UsageUpdate.Cost; cost != nil {
			uu.Cost = acpv2.Some(acpv2.Cost{Amount: cost.Amount, Currency: cost.Currency, Meta: cost.Meta})
		}
		return []acpv2.SessionUpdate{{UsageUpdate: uu}}
	case u.Notice != nil:
		n := u.Notice
		return []acpv2.SessionUpdate{{Notice: &acpv2.Notice{
			Severity: acpv2.NoticeSeverity(n.Severity), Title: n.Title, Description: n.Description, Meta: n.Meta,
		}}}
	case u.CompactionUpdate != nil:
		return []acpv2.SessionUpdate{{CompactionUpdate: compaction(u.CompactionUpdate)}}
	case u.CompactionSummaryChunk != nil:
		ch := u.CompactionSummaryChunk
		if b, ok := block(ch.Content); ok {
			return []acpv2.SessionUpdate{{CompactionSummaryChunk: &acpv2.CompactionSummaryChunk{
				CompactionID: acpv2.CompactionID(ch.CompactionID), Content: b, Meta: ch.Meta,
			}}}
		}
	}
	// current_mode_update (the mode is the "mode" config option in v2, whose
	// config_option_update the core sends too) and what v2 lacks
	// (subagent_update, session_message, unknown variants): nothing.
	return nil
}

// endRun ends the run of chunks without message ids: updates sent beside
// the converter (SendState) are not chunks either.
func (c *Updates) endRun() {
	c.mu.Lock()
	c.run.kind, c.run.id = "", ""
	c.mu.Unlock()
}

// chunk gives a v1 chunk the messageId v2 requires: its own when it has
// one, else the synthetic id of the current run of chunks of this kind.
func (c *Updates) chunk(kind string, ch *acp.ContentChunk) (*acpv2.ContentChunk, bool) {
	id, _ := ch.MessageID.Get()
	mid := acpv2.MessageID(id)
	if mid == "" {
		if c.run.kind != kind || c.run.id == "" {
			c.run.kind, c.run.id = kind, acpv2.MessageID(c.newID())
		}
		mid = c.run.id
	} else {
		// A message with its own id ends any synthetic one.
		c.run.kind, c.run.id = "", ""
	}
	b, ok := block(ch.Content)
	if !ok {
		return nil, false
	}
	return &acpv2.ContentChunk{MessageID: mid, Content: b, Meta: ch.Meta}, true
}

// toolCall is the first report of a call: in v2 an upsert like any other,
// so it becomes a tool_call_update with every field v1 announced, and the
// defaults of a v1 tool_call (status pending) made explicit.
func (c *Updates) toolCall(tc *acp.ToolCall) []acpv2.SessionUpdate {
	u := &acp.ToolCallUpdate{
		ToolCallID: tc.ToolCallID,
		Name:       tc.Name,
		Status:     acp.Some(tc.Status),
		RawInput:   tc.RawInput,
		RawOutput:  tc.RawOutput,
		Meta:       tc.Meta,
	}
	if tc.Status == "" {
		u.Status = acp.Some(acp.ToolCallStatusPending)
	}
	if tc.Title != "" {
		u.Title = acp.Some(tc.Title)
	}
	if tc.Kind != "" {
		u.Kind = acp.Some(tc.Kind)
	}
	if len(tc.Content) > 0 {
		u.Content = acp.Some(tc.Content)
	}
	if len(tc.Locations) > 0 {
		u.Locations = acp.Some(tc.Locations)
	}
	return c.toolUpdate(u, true)
}

// toolUpdate converts a tool call report. Terminal _meta comes out as
// terminal updates around the tool_call_update: a terminal is announced
// before the content that shows it, and exits before the call finishes.
func (c *Updates) toolUpdate(u *acp.ToolCallUpdate, first bool) []acpv2.SessionUpdate {
	st := c.tools[u.ToolCallID]
	if st == nil {
		st = &toolState{}
		c.tools[u.ToolCallID] = st
	}
	if name := toolName(u); name != "" {
		st.name = name
	}
	if cmd := command(u.RawInput); cmd != "" {
		st.command = cmd
	}
	if locs, ok := u.Locations.Get(); ok {
		st.locs = locs
	} else if u.Locations.IsNull() {
		st.locs = nil
	}
	meta, ev := splitTerminalMeta(u.Meta)

	var out []acpv2.SessionUpdate
	if ev.info != nil {
		out = c.openTerminal(out, st, acp.TerminalID(ev.info.TerminalID), ev.info.Cwd)
	}
	if content, ok := u.Content.Get(); ok {
		for _, ct := range content {
			if ct.Terminal != nil {
				out = c.openTerminal(out, st, ct.Terminal.TerminalID, "")
			}
		}
	}
	// A command learnt after its terminal opened (not done by today's core,
	// which reports a call once its input is whole).
	for _, id := range st.terms {
		if t := c.terms[id]; t != nil && st.command != "" && t.command != st.command {
			t.command = st.command
			out = append(out, acpv2.SessionUpdate{TerminalUpdate: &acpv2.TerminalUpdate{
				TerminalID: acpv2.TerminalID(id), Command: acpv2.Some(st.command),
			}})
		}
	}
	for _, o := range ev.output {
		out = append(out, acpv2.SessionUpdate{TerminalOutputChunk: &acpv2.TerminalOutputChunk{
			TerminalID: acpv2.TerminalID(o.TerminalID),
			Data:       base64.StdEncoding.EncodeToString([]byte(o.Data)),
		}})
	}
	status, _ := u.Status.Get()
	if status == acp.ToolCallStatusInProgress {
		// Bash goes in_progress only when its command went to the
		// background (agent/translate/terminal.go); terminal/cancel can stop it then.
		for _, id := range st.terms {
			if t := c.terms[id]; t != nil && !t.exited && !t.cancellable {
				t.cancellable = true
				out = append(out, acpv2.SessionUpdate{TerminalUpdate: &acpv2.TerminalUpdate{
					TerminalID:   acpv2.TerminalID(id),
					Capabilities: acpv2.Some(acpv2.TerminalCapabilities{Cancel: acpv2.Some(acpv2.TerminalCancelCapabilities{})}),
				}})
			}
		}
	}
	if ev.exit != nil {
		out = c.exitTerminal(out, ev.exit)
	}

	patch := toolPatch(u, st.locs, c.cwd)
	patch.Meta = meta
	if first && !patch.Name.IsSet() && st.name != "" {
		patch.Name = acpv2.Some(st.name)
	}
	chunks := st.appendContent(&patch, first)
	out = append(out, chunks...)
	// A v1 update that only carried terminal _meta (output; the core's
	// claudeCode key repeats what the call's first report said) changes
	// nothing in the call itself.
	if first || patchHasFields(&patch) || !ev.any() && len(chunks) == 0 {
		out = append(out, acpv2.SessionUpdate{ToolCallUpdate: &patch})
	}

	if status == acp.ToolCallStatusCompleted || status == acp.ToolCallStatusFailed {
		// A finished call gets no more reports: forget it (and its terminals).
		for _, id := range st.terms {
			delete(c.terms, id)
		}
		delete(c.tools, u.ToolCallID)
	}
	return out
}

// appendContent sends only what is new in a call's content. v1 reports the
// whole list each time; when the new list starts with what the client
// has, v2 needs just the items after it (tool_call_content_chunk), and an
// unchanged list nothing at all. Anything else replaces the list.
func (st *toolState) appendContent(patch *acpv2.ToolCallUpdate, first bool) []acpv2.SessionUpdate {
	content, ok := patch.Content.Get()
	if !ok {
		if patch.Content.IsNull() {
			st.content = nil
		}
		return nil
	}
	enc := make([]string, len(content))
	for i, ct := range content {
		b, _ := acp.AppendJSON(nil, ct)
		enc[i] = string(b)
	}
	prev := st.content
	st.content = enc
	if first || len(prev) == 0 || len(enc) < len(prev) || !slices.Equal(enc[:len(prev)], prev) {
		return nil // the whole list, in the patch
	}
	patch.Content = acpv2.Opt[[]acpv2.ToolCallContent]{}
	var out []acpv2.SessionUpdate
	for _, ct := range content[len(prev):] {
		out = append(out, acpv2.SessionUpdate{ToolCallContentChunk: &acpv2.ToolCallContentChunk{
			ToolCallID: patch.ToolCallID, Content: ct,
		}})
	}
	return out
}

// openTerminal announces a terminal the first time it is seen: its
// command and working directory.
func (c *Updates) openTerminal(out []acpv2.SessionUpdate, st *toolState, id acp.TerminalID, cwd string) []acpv2.SessionUpdate {
	if id == "" || c.terms[id] != nil {
		return out
	}
	t := &terminalState{command: st.command}
	c.terms[id] = t
	st.terms = append(st.terms, id)
	tu := &acpv2.TerminalUpdate{TerminalID: acpv2.TerminalID(id)}
	if t.command != "" {
		tu.Command = acpv2.Some(t.command)
	}
	if cwd = toolview.AbsPath(cwd, c.cwd); cwd == "" {
		cwd = c.cwd
	}
	if cwd != "" {
		tu.Cwd = acpv2.Some(acpv2.AbsolutePath(cwd))
	}
	return append(out, acpv2.SessionUpdate{TerminalUpdate: tu})
}

// exitTerminal reports a command's end; a terminal that could be cancelled
// stops saying so.
func (c *Updates) exitTerminal(out []acpv2.SessionUpdate, ex *terminalExit) []acpv2.SessionUpdate {
	id := acp.TerminalID(ex.TerminalID)
	var status acpv2.TerminalExitStatus
	if ex.ExitCode != nil {
		status.ExitCode = acpv2.Some(*ex.ExitCode)
	}
	if ex.Signal != nil && *ex.Signal != "" {
		status.Signal = acpv2.Some(*ex.Signal)
	}
	tu := &acpv2.TerminalUpdate{TerminalID: acpv2.TerminalID(id), ExitStatus: acpv2.Some(status)}
	if t := c.terms[id]; t != nil {
		t.exited = true
		if t.cancellable {
			t.cancellable = false
			tu.Capabilities = acpv2.Null[acpv2.TerminalCapabilities]()
		}
	}
	return append(out, acpv2.SessionUpdate{TerminalUpdate: tu})
}

// Zed's terminal _meta on v1 tool call reports (agent/translate: terminal.go, tools.go).
type (
	terminalInfo struct {
		TerminalID string `json:"terminal_id"`
		Cwd        string `json:"cwd"`
	}
	terminalOutput struct {
		TerminalID string `json:"terminal_id"`
		Data       string `json:"data"`
	}
	terminalExit struct {
		TerminalID string  `json:"terminal_id"`
		ExitCode   *int64  `json:"exit_code"`
		Signal     *string `json:"signal"`
	}
	terminalEvents struct {
		info   *terminalInfo
		output []terminalOutput
		exit   *terminalExit
	}
)

func (e *terminalEvents) any() bool { return e.info != nil || len(e.output) > 0 || e.exit != nil }

// splitTerminalMeta takes the terminal keys out of a tool call's
// _meta (v2 has native terminals; the keys are v1-only) and decodes them.
// The rest of _meta is kept: v2 patches it by key.
func splitTerminalMeta(meta map[string]json.RawMessage) (map[string]json.RawMessage, terminalEvents) {
	var ev terminalEvents
	if meta == nil {
		return nil, ev
	}
	rest := make(map[string]json.RawMessage, len(meta))
	for k, v := range meta {
		switch k {
		case "terminal_info":
			var i terminalInfo
			if json.Unmarshal(v, &i) == nil && i.TerminalID != "" {
				ev.info = &i
			}
		case "terminal_output":
			var o terminalOutput
			if json.Unmarshal(v, &o) == nil && o.TerminalID != "" && o.Data != "" {
				ev.output = append(ev.output, o)
			}
		case "terminal_exit":
			var x terminalExit
			if json.Unmarshal(v, &x) == nil && x.TerminalID != "" {
				ev.exit = &x
			}
		default:
			rest[k] = v
		}
	}
	if len(rest) == 0 {
		rest = nil
	}
	return rest, ev
}

// toolName is Claude's tool name of a report: its name, else the
// core's _meta.claudeCode.toolName.
func toolName(u *acp.ToolCallUpdate) string {
	if n, _ := u.Name.Get(); n != "" {
		return n
	}
	var cc struct {
		ToolName string `json:"toolName"`
	}
	if raw, ok := u.Meta["claudeCode"]; ok && json.Unmarshal(raw, &cc) == nil {
		return cc.ToolName
	}
	return ""
}

// command is rawInput.command (Bash, PowerShell), or "".
func command(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var in struct {
		Command string `json:"command"`
	}
	_ = json.Unmarshal(raw, &in)
	return in.Command
}

// toolPatch converts a v1 tool call update field by field: absent
// stays absent (unchanged), values are converted, null content or
// locations clear. locs are the call's current locations, which position
// the diffs' hunks. _meta is left to the caller.
func toolPatch(u *acp.ToolCallUpdate, locs []acp.ToolCallLocation, cwd string) acpv2.ToolCallUpdate {
	p := acpv2.ToolCallUpdate{ToolCallID: acpv2.ToolCallID(u.ToolCallID), RawInput: u.RawInput, RawOutput: u.RawOutput}
	if n, _ := u.Name.Get(); n != "" {
		p.Name = acpv2.Some(n)
	}
	if t, ok := u.Title.Get(); ok {
		p.Title = acpv2.Some(t)
	}
	if k, ok := u.Kind.Get(); ok && k != "" {
		p.Kind = acpv2.Some(acpv2.ToolKind(k))
	}
	if s, ok := u.Status.Get(); ok && s != "" {
		p.Status = acpv2.Some(acpv2.ToolCallStatus(s))
	}
	switch content, ok := u.Content.Get(); {
	case ok:
		p.Content = acpv2.Some(toolContent(content, locs, cwd))
	case u.Content.IsNull():
		p.Content = acpv2.Null[[]acpv2.ToolCallContent]()
	}
	switch l, ok := u.Locations.Get(); {
	case ok:
		p.Locations = acpv2.Some(locations(l, cwd))
	case u.Locations.IsNull():
		p.Locations = acpv2.Null[[]acpv2.ToolCallLocation]()
	}
	return p
}

// patchHasFields reports whether a patch changes anything but _meta.
func patchHasFields(p *acpv2.ToolCallUpdate) bool {
	return !p.Name.IsZero() || !p.Title.IsZero() || !p.Kind.IsZero() || !p.Status.IsZero() ||
		!p.Content.IsZero() || !p.Locations.IsZero() || p.RawInput != nil || p.RawOutput != nil ||
		!p.Capabilities.IsZero()
}

func locations(locs []acp.ToolCallLocation, cwd string) []acpv2.ToolCallLocation {
	out := make([]acpv2.ToolCallLocation, 0, len(locs))
	for _, l := range locs {
		v := acpv2.ToolCallLocation{Path: acpv2.AbsolutePath(toolview.AbsPath(l.Path, cwd)), Meta: l.Meta}
		if line, ok := l.Line.Get(); ok && line > 0 { // v2: 0 is invalid
			v.Line = acpv2.Some(line)
		}
		out = append(out, v)
	}
	return out
}

// toolContent converts a tool call's content list. Text and other
// blocks and terminals map one to one; the diffs of one file (v1: one item
// per hunk) become a single v2 diff where the file's first hunk was.
// Unknown v1 items are left out (v2 reserves unknown types for later
// versions).
func toolContent(content []acp.ToolCallContent, locs []acp.ToolCallLocation, cwd string) []acpv2.ToolCallContent {
	out := make([]acpv2.ToolCallContent, 0, len(content))
	byPath := map[string][]*acp.Diff{}
	var paths []string // in order of first appearance
	slot := map[string]int{}
	for _, ct := range content {
		switch {
		case ct.Content != nil:
			if b, ok := block(ct.Content.Content); ok {
				out = append(out, acpv2.ToolCallContent{Content: &acpv2.Content{Content: b, Meta: ct.Content.Meta}})
			}
		case ct.Terminal != nil:
			out = append(out, acpv2.ToolCallContent{Terminal: &acpv2.Terminal{
				TerminalID: acpv2.TerminalID(ct.Terminal.TerminalID), Meta: ct.Terminal.Meta,
			}})
		case ct.Diff != nil:
			p := ct.Diff.Path
			if _, seen := byPath[p]; !seen {
				paths = append(paths, p)
				slot[p] = len(out)
				out = append(out, acpv2.ToolCallContent{}) // filled below
			}
			byPath[p] = append(byPath[p], ct.Diff)
		}
	}
	for _, p := range paths {
		out[slot[p]] = acpv2.ToolCallContent{Diff: diff(p, byPath[p], locs, cwd)}
	}
	return out
}

// diff is the v2 diff of one file from its v1 diff items: the change
// (added when the first item has no old text, else modified) and, when the
// hunks' positions are known and consistent, a git patch.
func diff(path string, items []*acp.Diff, locs []acp.ToolCallLocation, cwd string) *acpv2.Diff {
	abs := toolview.AbsPath(path, cwd)
	ch := acpv2.DiffChange{FileType: acpv2.Some(acpv2.DiffFileTypeText)}
	pc := &acpv2.DiffPathChange{Path: acpv2.AbsolutePath(abs)}
	if items[0].OldText.IsSet() {
		ch.Modify = pc
	} else {
		ch.Add = pc
	}
	d := &acpv2.Diff{Changes: []acpv2.DiffChange{ch}, Meta: items[0].Meta}
	var lines []uint32
	for _, l := range locs {
		if l.Path == path {
			line, _ := l.Line.Get()
			lines = append(lines, line)
		}
	}
	if text, ok := gitPatch(abs, items, lines); ok {
		d.Patch = acpv2.Some(acpv2.DiffPatch{Format: acpv2.DiffPatchFormatGitPatch, Text: text})
	}
	return d
}

// gitPatch writes the git patch of one file from its v1 hunks.
//
// A v1 hunk is {oldText, newText}: its lines with context, without
// positions; toolview's diff.go puts the hunk's 1-based start in the new file on the
// matching location (newStarts, one per hunk, same order). The old start
// follows: every earlier hunk shifted the file by its new minus old line
// count. A created file (a single item without old text) needs no
// position. Anything else (no or too few positions, as for the fallback
// diff from the tool input; overlapping hunks) gives no patch: ok false.
//
// Paths are absolute and unprefixed, as the v2 schema requires of
// git_patch ("every path MUST be absolute … MUST NOT have a prefix such as
// Git's default a/ and b/").
func gitPatch(path string, items []*acp.Diff, newStarts []uint32) (string, bool) {
	var b strings.Builder
	qp := gitQuote(path)
	if len(items) == 1 && !items[0].OldText.IsSet() {
		text := items[0].NewText
		lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		if text == "" {
			lines = nil
		}
		fmt.Fprintf(&b, "diff --git %s %s\nnew file mode 100644\n--- /dev/null\n+++ %s\n", qp, qp, qp)
		if len(lines) > 0 {
			fmt.Fprintf(&b, "@@ -0,0 %s @@\n", hunkRange('+', 1, len(lines)))
			for _, l := range lines {
				b.WriteString("+" + l + "\n")
			}
			if !strings.HasSuffix(text, "\n") {
				b.WriteString("\\ No newline at end of file\n")
			}
		}
		return b.String(), true
	}
	if len(newStarts) != len(items) {
		return "", false
	}
	fmt.Fprintf(&b, "diff --git %s %s\n--- %s\n+++ %s\n", qp, qp, qp, qp)
	shift := 0   // Σ (new − old lines) of the hunks before
	nextNew := 1 // the first new-file line after the previous hunk
	for i, it := range items {
		old, ok := it.OldText.Get()
		if !ok || newStarts[i] == 0 {
			return "", false
		}
		ol, nl := lines(old), lines(it.NewText)
		newStart := int(newStarts[i])
		oldStart := newStart - shift
		if newStart < nextNew || oldStart < 1 {
			return "", false
		}
		fmt.Fprintf(&b, "@@ %s %s @@\n", hunkRange('-', oldStart, len(ol)), hunkRange('+', newStart, len(nl)))
		hunkBody(&b, ol, nl)
		shift += len(nl) - len(ol)
		nextNew = newStart + len(nl)
	}
	return b.String(), true
}

// lines splits a hunk side back into the lines toolview's diff.go joined with
// "\n". An empty side is no lines (a side of one empty line reads the
// same; diff.go cannot tell them apart either, and context makes it rare).
func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// range is a hunk header range as git writes it: "-start,count",
// the count left out when it is 1, and an empty range starting at the
// line before it.
func hunkRange(sign byte, start, count int) string {
	if count == 0 {
		start--
	}
	if count == 1 {
		return string(sign) + strconv.Itoa(start)
	}
	return string(sign) + strconv.Itoa(start) + "," + strconv.Itoa(count)
}

// maxDiffCells bounds the LCS table of one hunk (old × new lines of
// its changed middle); past it the middle is written as all removed, then
// all added, which is still a correct patch.
const maxDiffCells = 1 << 20

// hunkBody writes a hunk's lines: context ' ', removed '-', added
// '+', from a line diff of its two sides (v1 hunks do not say which lines
// changed). Common first and last lines are context; the middle is
// aligned on a longest common subsequence.
func hunkBody(b *strings.Builder, a, c []string) {
	pre := 0
	for pre < len(a) && pre < len(c) && a[pre] == c[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(c)-pre && a[len(a)-1-suf] == c[len(c)-1-suf] {
		suf++
	}
	line := func(mark byte, s string) {
		b.WriteByte(mark)
		b.WriteString(s)
		b.WriteByte('\n')
	}
	for _, s := range a[:pre] {
		line(' ', s)
	}
	x, y := a[pre:len(a)-suf], c[pre:len(c)-suf]
	n, m := len(x), len(y)
	if n*m > maxDiffCells {
		for _, s := range x {
			line('-', s)
		}
		for _, s := range y {
			line('+', s)
		}
	} else {
		// l[i*(m+1)+j]: LCS length of x[i:] and y[j:].
		l := make([]int32, (n+1)*(m+1))
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				if x[i] == y[j] {
					l[i*(m+1)+j] = l[(i+1)*(m+1)+j+1] + 1
				} else {
					l[i*(m+1)+j] = max(l[(i+1)*(m+1)+j], l[i*(m+1)+j+1])
				}
			}
		}
		i, j := 0, 0
		for i < n || j < m {
			switch {
			case i < n && j < m && x[i] == y[j]:
				line(' ', x[i])
				i, j = i+1, j+1
			case j == m || i < n && l[(i+1)*(m+1)+j] >= l[i*(m+1)+j+1]:
				line('-', x[i])
				i++
			default:
				line('+', y[j])
				j++
			}
		}
	}
	for _, s := range a[len(a)-suf:] {
		line(' ', s)
	}
}

// gitQuote quotes a path as git does when it has to (core.quotePath,
// the default): in double quotes, with C escapes and octal for control
// characters and bytes outside ASCII. Other paths are written as they are.
func gitQuote(p string) string {
	need := false
	for i := 0; i < len(p); i++ {
		if c := p[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			need = true
			break
		}
	}
	if !need {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\v':
			b.WriteString(`\v`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		default:
			if c < 0x20 || c >= 0x7f {
				fmt.Fprintf(&b, `\%03o`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// block converts a content block. v1 and v2 blocks have the same
// JSON (v2 only types some members more narrowly), so the block goes
// through its JSON; one v2 cannot hold (a negative size, say) is dropped.
func block(b acp.ContentBlock) (acpv2.ContentBlock, bool) {
	var out acpv2.ContentBlock
	raw, err := json.Marshal(b)
	if err != nil || json.Unmarshal(raw, &out) != nil {
		return acpv2.ContentBlock{}, false
	}
	if out.Unknown != nil {
		return acpv2.ContentBlock{}, false
	}
	return out, true
}

// plan: v1's one plan per session is v2's item plan "todos", sent
// whole every time as before.
func plan(p *acp.Plan) *acpv2.PlanUpdate {
	entries := make([]acpv2.PlanEntry, 0, len(p.Entries))
	for _, e := range p.Entries {
		entries = append(entries, acpv2.PlanEntry{
			Content:  e.Content,
			Priority: acpv2.PlanEntryPriority(e.Priority),
			Status:   acpv2.PlanEntryStatus(e.Status),
			Meta:     e.Meta,
		})
	}
	return &acpv2.PlanUpdate{
		Plan: acpv2.PlanUpdateContent{Items: &acpv2.PlanItems{PlanID: "todos", Entries: entries}},
		Meta: p.Meta,
	}
}

func compaction(cu *acp.CompactionUpdate) *acpv2.CompactionUpdate {
	out := &acpv2.CompactionUpdate{
		CompactionID: acpv2.CompactionID(cu.CompactionID),
		Status:       acpv2.CompactionStatus(cu.Status),
		Error:        cu.Error,
		Meta:         cu.Meta,
	}
	switch summary, ok := cu.Summary.Get(); {
	case ok:
		blocks := make([]acpv2.ContentBlock, 0, len(summary))
		for _, b := range summary {
			if v, ok := block(b); ok {
				blocks = append(blocks, v)
			}
		}
		out.Summary = acpv2.Some(blocks)
	case cu.Summary.IsNull():
		out.Summary = acpv2.Null[[]acpv2.ContentBlock]()
	}
	return out
}

// ConfigOptions converts config options: v2 names the id configId and a
// select group's id groupId. Options of a type v1 does not know are left
// out.
func ConfigOptions(opts []acp.SessionConfigOption) []acpv2.SessionConfigOption {
	out := make([]acpv2.SessionConfigOption, 0, len(opts))
	for _, o := range opts {
		v := acpv2.SessionConfigOption{
			ConfigID:    acpv2.SessionConfigID(o.ID),
			Name:        o.Name,
			Description: o.Description,
			Meta:        o.Meta,
		}
		if cat, ok := o.Category.Get(); ok {
			v.Category = acpv2.Some(acpv2.SessionConfigOptionCategory(cat))
		}
		switch {
		case o.Select != nil:
			sel := &acpv2.SessionConfigSelect{CurrentValue: acpv2.SessionConfigValueID(o.Select.CurrentValue)}
			if g := o.Select.Options.Grouped; g != nil {
				sel.Options.Grouped = make([]acpv2.SessionConfigSelectGroup, 0, len(g))
				for _, grp := range g {
					sel.Options.Grouped = append(sel.Options.Grouped, acpv2.SessionConfigSelectGroup{
						GroupID: acpv2.SessionConfigGroupID(grp.Group),
						Name:    grp.Name,
						Options: selectOptions(grp.Options),
						Meta:    grp.Meta,
					})
				}
			} else {
				sel.Options.Ungrouped = selectOptions(o.Select.Options.Ungrouped)
			}
			v.Select = sel
		case o.Boolean != nil:
			v.Boolean = &acpv2.SessionConfigBoolean{CurrentValue: o.Boolean.CurrentValue}
		default:
			continue
		}
		out = append(out, v)
	}
	return out
}

func selectOptions(opts []acp.SessionConfigSelectOption) []acpv2.SessionConfigSelectOption {
	out := make([]acpv2.SessionConfigSelectOption, 0, len(opts))
	for _, o := range opts {
		out = append(out, acpv2.SessionConfigSelectOption{
			Value: acpv2.SessionConfigValueID(o.Value), Name: o.Name, Description: o.Description, Meta: o.Meta,
		})
	}
	return out
}

// Commands converts slash commands: each is typed "command" in v2, and
// its free-text input "text".
func Commands(cmds []acp.AvailableCommand) []acpv2.AvailableCommand {
	out := make([]acpv2.AvailableCommand, 0, len(cmds))
	for _, k := range cmds {
		cmd := &acpv2.Command{Name: k.Name, Description: k.Description, Meta: k.Meta}
		if k.Input != nil && k.Input.Unstructured != nil {
			in := k.Input.Unstructured
			cmd.Input = acpv2.Some(acpv2.AvailableCommandInput{Text: &acpv2.TextCommandInput{Hint: in.Hint, Meta: in.Meta}})
		}
		out = append(out, acpv2.AvailableCommand{Command: cmd})
	}
	return out
}

// SessionInfo converts a session/list entry (same members; v2 types the
// paths as absolute).
func SessionInfo(s acp.SessionInfo) acpv2.SessionInfo {
	out := acpv2.SessionInfo{
		SessionID: acpv2.SessionID(s.SessionID),
		Cwd:       acpv2.AbsolutePath(s.Cwd),
		Title:     s.Title,
		UpdatedAt: s.UpdatedAt,
		Meta:      s.Meta,
	}
	for _, d := range s.AdditionalDirectories {
		out.AdditionalDirectories = append(out.AdditionalDirectories, acpv2.AbsolutePath(d))
	}
	return out
}

// MCPServers turns a v2 session's MCP servers into the v1 ones the core
// configures the CLI with (agent/mcp.go, which checks commands, URLs and names
// further). As the SDK's assertSupportedMcpServers: a name seen before is
// -32602 {name}; a transport other than stdio and http (sse is gone in
// v2; unknown and "_" types) is -32602 {type}.
func MCPServers(servers []acpv2.MCPServer) ([]acp.MCPServer, error) {
	out := make([]acp.MCPServer, 0, len(servers))
	names := map[string]bool{}
	for _, srv := range servers {
		var name, typ string
		switch {
		case srv.Stdio != nil:
			name, typ = srv.Stdio.Name, "stdio"
		case srv.HTTP != nil:
			name, typ = srv.HTTP.Name, "http"
		default:
			var u struct {
				Name *string `json:"name"`
				Type any     `json:"type"`
			}
			_ = json.Unmarshal(srv.Unknown, &u)
			if u.Name != nil {
				name = *u.Name
			}
			if names[name] && u.Name != nil {
				return nil, mcpError(map[string]any{"name": name}, "Duplicate MCP server name "+name)
			}
			return nil, mcpError(map[string]any{"type": u.Type}, fmt.Sprint("Unsupported MCP server transport ", u.Type))
		}
		if names[name] {
			return nil, mcpError(map[string]any{"name": name}, "Duplicate MCP server name "+name)
		}
		names[name] = true
		switch typ {
		case "stdio":
			st := srv.Stdio
			v := &acp.MCPServerStdio{Name: st.Name, Command: string(st.Command), Args: st.Args, Meta: st.Meta}
			if v.Args == nil {
				v.Args = []string{}
			}
			v.Env = make([]acp.EnvVariable, 0, len(st.Env))
			for _, e := range st.Env {
				v.Env = append(v.Env, acp.EnvVariable{Name: e.Name, Value: e.Value, Meta: e.Meta})
			}
			out = append(out, acp.MCPServer{Stdio: v})
		case "http":
			h := srv.HTTP
			v := &acp.MCPServerHTTP{Name: h.Name, URL: h.URL, Meta: h.Meta, Headers: make([]acp.HTTPHeader, 0, len(h.Headers))}
			for _, hd := range h.Headers {
				v.Headers = append(v.Headers, acp.HTTPHeader{Name: hd.Name, Value: hd.Value, Meta: hd.Meta})
			}
			out = append(out, acp.MCPServer{HTTP: v})
		}
	}
	return out, nil
}

// mcpError is -32602 with the SDK's data and message (acp's
// NewInvalidParams has {path, reason} data instead).
func mcpError(data any, message string) *acp.Error {
	return (&acp.Error{Code: acp.CodeInvalidParams, Message: message}).WithData(data)
}

// PermissionRequest is the v2 form of a permission request the core
// built for v1 (agent/permission.go): v2 wants a title of its own and says what
// is asked about as a subject. A command (Bash, PowerShell) is asked as
// the command, with the call's id; anything else carries the full tool
// call, which the client applies as an upsert before asking. Options and
// _meta are unchanged.
func PermissionRequest(req *acp.RequestPermissionRequest, cwd string) *acpv2.RequestPermissionRequest {
	tc := &req.ToolCall
	name := toolName(tc)
	out := &acpv2.RequestPermissionRequest{SessionID: acpv2.SessionID(req.SessionID), Meta: req.Meta}
	for _, o := range req.Options {
		out.Options = append(out.Options, acpv2.PermissionOption{
			OptionID: acpv2.PermissionOptionID(o.OptionID), Name: o.Name, Kind: acpv2.PermissionOptionKind(o.Kind), Meta: o.Meta,
		})
	}
	if cmd := command(tc.RawInput); cmd != "" && (name == "Bash" || name == "PowerShell") {
		out.Title = "Run " + code(FirstLine(cmd)) + "?"
		var in struct {
			Description string `json:"description"`
		}
		if json.Unmarshal(tc.RawInput, &in) == nil && in.Description != "" {
			out.Description = acpv2.Some(in.Description)
		}
		out.Subject = acpv2.Some(acpv2.RequestPermissionSubject{Command: &acpv2.CommandPermissionSubject{
			Command:    cmd,
			Cwd:        acpv2.AbsolutePath(cwd),
			ToolCallID: acpv2.Some(acpv2.ToolCallID(tc.ToolCallID)),
		}})
		return out
	}
	title, _ := tc.Title.Get()
	switch {
	case name == "ExitPlanMode":
		out.Title = "Approve the plan?"
	case title != "":
		out.Title = strings.TrimSuffix(FirstLine(title), "?") + "?"
	case name != "":
		out.Title = "Allow " + name + "?"
	default:
		out.Title = "Allow this tool call?"
	}
	locs, _ := tc.Locations.Get()
	patch := toolPatch(tc, locs, cwd)
	patch.Meta, _ = splitTerminalMeta(tc.Meta)
	if !patch.Name.IsSet() && name != "" {
		patch.Name = acpv2.Some(name)
	}
	out.Subject = acpv2.Some(acpv2.RequestPermissionSubject{ToolCall: &acpv2.ToolCallPermissionSubject{ToolCall: patch}})
	return out
}

// FirstLine keeps a title to one line: a multi-line command or
// title is cut at its first line break, with an ellipsis.
func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimRight(s[:i], " \r") + " …"
	}
	return s
}

// code puts s in a Markdown code span, with a longer fence when s
// holds backticks itself.
func code(s string) string {
	if !strings.Contains(s, "`") {
		return "`" + s + "`"
	}
	return "`` " + s + " ``"
}

// PermissionOutcome is the v1 answer the core understands: the selected
// option, or cancelled for anything else (a cancelled or unknown outcome,
// no answer), which denies the call as before.
func PermissionOutcome(resp *acpv2.RequestPermissionResponse) acp.RequestPermissionResponse {
	if resp != nil && resp.Outcome.Selected != nil {
		sel := resp.Outcome.Selected
		return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{
			Selected: &acp.SelectedPermissionOutcome{OptionID: acp.PermissionOptionID(sel.OptionID), Meta: sel.Meta},
		}, Meta: resp.Meta}
	}
	out := acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Cancelled: &acp.RequestPermissionOutcomeCancelled{}}}
	if resp != nil {
		out.Meta = resp.Meta
	}
	return out
}
