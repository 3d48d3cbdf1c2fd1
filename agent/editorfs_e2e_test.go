package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// Claude's files through the editor (issue 39), end to end: a client whose
// buffers differ from the disk. docs/tools.md, "Files through the editor".
//
// What the real CLI does with the editor's tools is proven on it, once:
//   - TestEditorFSReadsBuffersAndWritesThroughTheEditor: the CLI, given
//     the SDK MCP server, the disallowed built-ins and the aliases, offers
//     Claude mcp__editor__* and not the built-ins; it calls Read, Edit and
//     Write through mcp_message (Write by the built-in's name, an alias),
//     runs the PreToolUse hook and asks as the hook says, and gives Claude
//     the tools' results; its transcript of those calls replays as the
//     built-ins (session/load).
//   - TestEditorFSSubagentWritesThroughTheEditor: a subagent's call too.
//   - TestEditorFSOffWithoutOptIn: without the opt-in, Claude has the
//     built-ins, and the built-in Write writes the disk.
//
// The rest prove the agent's own logic (the opt-in and capability checks,
// rejected writes, the client's errors and a write withdrawn by cancel,
// modes, an "always allow" within a turn, the tools after hibernation) on
// the in-process fake CLI (internal/test/clifake), which calls SDK MCP
// tools, runs the hook and applies permission updates as the pinned CLI
// does (clifake/sdkmcp.go says where each shape was seen).

// bufferEditor is an editor with open buffers: fs/read_text_file returns a
// buffer's text (unsaved changes) or the file's, fs/write_text_file
// changes the buffer, never the disk.
type bufferEditor struct {
	mu      sync.Mutex
	buffers map[string]string
	reads   []string
	writes  []acp.WriteTextFileRequest
	// refuse makes writes of a path fail with this message.
	refuse map[string]string
	// hang makes writes of a path wait until they are cancelled.
	hang     map[string]bool
	hanging  chan struct{} // a write hangs
	canceled chan struct{} // a hanging write was cancelled
}

func newBufferEditor() *bufferEditor {
	return &bufferEditor{buffers: map[string]string{}, refuse: map[string]string{}, hang: map[string]bool{},
		hanging: make(chan struct{}, 1), canceled: make(chan struct{}, 1)}
}

func (e *bufferEditor) register(m *acp.Mux) {
	acp.On(m, acp.MethodFSReadTextFile, func(ctx context.Context, p *acp.ReadTextFileRequest) (*acp.ReadTextFileResponse, error) {
		e.mu.Lock()
		e.reads = append(e.reads, p.Path)
		text, open := e.buffers[p.Path]
		e.mu.Unlock()
		if !open {
			b, err := os.ReadFile(p.Path)
			if err != nil {
				return nil, &acp.Error{Code: acp.CodeResourceNotFound, Message: "Resource not found: " + p.Path}
			}
			text = string(b)
		}
		return &acp.ReadTextFileResponse{Content: text}, nil
	})
	acp.On(m, acp.MethodFSWriteTextFile, func(ctx context.Context, p *acp.WriteTextFileRequest) (*acp.WriteTextFileResponse, error) {
		e.mu.Lock()
		e.writes = append(e.writes, *p)
		refusal, hang := e.refuse[p.Path], e.hang[p.Path]
		e.mu.Unlock()
		switch {
		case refusal != "":
			return nil, &acp.Error{Code: acp.CodeInternalError, Message: refusal}
		case hang:
			acp.Async(ctx)
			e.hanging <- struct{}{}
			<-ctx.Done()
			e.canceled <- struct{}{}
			return nil, ctx.Err()
		}
		e.mu.Lock()
		e.buffers[p.Path] = p.Content
		e.mu.Unlock()
		return &acp.WriteTextFileResponse{}, nil
	})
}

func (e *bufferEditor) written() []acp.WriteTextFileRequest {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]acp.WriteTextFileRequest(nil), e.writes...)
}

func (e *bufferEditor) readCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.reads)
}

// fsCaps is a client that offers fs/*; optIn adds the per-connection
// opt-in.
func fsCaps(optIn bool) acp.ClientCapabilities {
	c := acp.ClientCapabilities{FS: acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}}
	if optIn {
		c.Meta = map[string]json.RawMessage{"claudeCode": json.RawMessage(`{"editorFileSystem":true}`)}
	}
	return c
}

// startEditor starts an agent whose client is ed.
func startEditor(t *testing.T, ed *bufferEditor, cfg ...func(*agent.Config)) *agenttest.Harness {
	o := agenttest.Options{Client: ed.register, Env: []string{"IS_SANDBOX=1"}}
	if len(cfg) > 0 {
		o.Config = cfg[0]
	}
	return agenttest.Start(t, o)
}

// startEditorCF is startEditor on the fake CLIs of w.
func startEditorCF(t *testing.T, ed *bufferEditor, w *clifake.World, cfg ...func(*agent.Config)) *agenttest.Harness {
	o := agenttest.Options{Client: ed.register, Env: []string{"IS_SANDBOX=1"}}
	if len(cfg) > 0 {
		o.Config = cfg[0]
	}
	return startCF(t, w, o)
}

// cfTool is the fake model's call of a tool (toolUse).
func cfTool(id, name string, input map[string]any) clifake.Reply {
	return clifake.Reply{Tool: name, ToolID: id, ToolName: name, ToolInput: input}
}

// toldClaude is what the fake model was told of tool call id
// (sentToClaude).
func toldClaude(s *cfScript, id string) (string, bool) {
	for _, r := range s.requests() {
		if r.FollowUp && r.ToolID == id {
			return r.ToolResult, true
		}
	}
	return "", false
}

// sentToClaude is the text of the tool result Claude got for id.
func sentToClaude(api *fakeapi.Server, id string) (string, bool) {
	for _, r := range api.Requests() {
		for _, b := range r.ToolResults() {
			if b.ToolUseID == id {
				return b.Text, true
			}
		}
	}
	return "", false
}

// fsRequests counts the fs/* requests on the wire.
func fsRequests(h *agenttest.Harness) int {
	n := 0
	for _, l := range h.Wire() {
		if strings.Contains(l.Line, `"method":"fs/`) {
			n++
		}
	}
	return n
}

const (
	mcpRead  = "mcp__editor__Read"
	mcpWrite = "mcp__editor__Write"
	mcpEdit  = "mcp__editor__Edit"
)

// TestEditorFSReadsBuffersAndWritesThroughTheEditor: a Read returns the
// buffer's text, not the disk's; an Edit based on the buffer and a Write
// (called by the built-in's name: the CLI's alias) reach the client as
// fs/write_text_file with the whole new text, and the disk is untouched.
// Claude has the editor's tools instead of the built-ins. The cards, the
// permission requests and their diffs are the built-ins', and session/load
// replays the calls as they were shown live (the real CLI's transcript of
// them).
func TestEditorFSReadsBuffersAndWritesThroughTheEditor(t *testing.T) {
	t.Parallel()
	ed := newBufferEditor()
	h := startEditor(t, ed)
	dir := h.Sandbox.WorkDir
	file, fresh := filepath.Join(dir, "main.go"), filepath.Join(dir, "new.txt")
	disk := "package main\n\nfunc main() {}\n"
	if err := os.WriteFile(file, []byte(disk), 0o644); err != nil {
		t.Fatal(err)
	}
	buffer := "package main\n\n// unsaved comment\nfunc main() {}\n"
	ed.buffers[file] = buffer
	h.API().Script(
		toolUse("toolu_read", mcpRead, map[string]any{"file_path": file}),
		toolUse("toolu_edit", mcpEdit, map[string]any{"file_path": file, "old_string": "// unsaved comment", "new_string": "// saved by Claude"}),
		// The built-in's name reaches our tool too (toolAliases).
		toolUse("toolu_write", "Write", map[string]any{"file_path": fresh, "content": "hello\n"}),
		fakeapi.Text("Done."),
	)
	h.Initialize(fsCaps(true))
	sid := h.NewSession(dir)
	resp, err := h.Prompt(sid, "add a comment")
	if err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	if got, _ := sentToClaude(h.API(), "toolu_read"); !strings.Contains(got, "3\t// unsaved comment") {
		t.Errorf("Claude read %q, not the buffer", got)
	}
	want := "package main\n\n// saved by Claude\nfunc main() {}\n"
	ws := ed.written()
	if len(ws) != 2 || ws[0].Path != file || ws[0].Content != want || ws[1].Path != fresh || ws[1].Content != "hello\n" || string(ws[0].SessionID) != sid {
		t.Fatalf("fs/write_text_file requests %+v", ws)
	}
	if b, _ := os.ReadFile(file); string(b) != disk {
		t.Errorf("the disk changed: %q", b)
	}
	if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Write created %s on disk (%v)", fresh, err)
	}

	// The editor's view: the built-ins' cards.
	calls, order := toolCalls(t, h, sid)
	if len(order) != 3 {
		t.Fatalf("calls %v", order)
	}
	r, e, w := calls["toolu_read"], calls["toolu_edit"], calls["toolu_write"]
	if r.title != "Read main.go" || r.kind != acp.ToolKindRead || r.status != acp.ToolCallStatusCompleted ||
		!strings.Contains(contentText(r.content), "// unsaved comment") || !strings.Contains(contentText(r.content), "```go") {
		t.Errorf("read card %q %s %s %q", r.title, r.kind, r.status, contentText(r.content))
	}
	if e.title != "Edit main.go" || e.kind != acp.ToolKindEdit || e.status != acp.ToolCallStatusCompleted {
		t.Errorf("edit card %q %s %s", e.title, e.kind, e.status)
	}
	if d := diffs(e.content); len(d) != 1 || !strings.Contains(d[0].OldText.Or(""), "// unsaved comment") || !strings.Contains(d[0].NewText, "// saved by Claude") {
		t.Errorf("edit result diff %+v", d)
	}
	if w.title != "Write new.txt" || w.kind != acp.ToolKindEdit || w.status != acp.ToolCallStatusCompleted {
		t.Errorf("write card %q %s %s", w.title, w.kind, w.status)
	}
	for _, c := range calls {
		if strings.Contains(string(c.meta["claudeCode"]), "mcp__") {
			t.Errorf("%s shows as an MCP tool: %s", c.id, c.meta["claudeCode"])
		}
	}
	// Asked as the built-ins are (a read in the project is not), with a
	// preview of the buffer and Claude Code's "always" for edits.
	perms := h.Permissions()
	if len(perms) != 2 {
		t.Fatalf("permission requests: %d", len(perms))
	}
	p := perms[0]
	if title, _ := p.ToolCall.Title.Get(); title != "Edit main.go" {
		t.Errorf("permission title %q", title)
	}
	if d := diffs(p.ToolCall.Content.Or(nil)); len(d) != 1 || !strings.Contains(d[0].OldText.Or(""), "// unsaved comment") {
		t.Errorf("the permission's diff is not against the buffer: %+v", d)
	}
	var names []string
	for _, o := range p.Options {
		names = append(names, o.Name)
	}
	if strings.Join(names, "|") != "Allow|Always allow all edits for this session|Reject" {
		t.Errorf("options %v", names)
	}
	main := h.API().MainRequests()
	for _, tool := range []string{"Read", "Write", "Edit", "NotebookEdit"} {
		if main[0].HasTool(tool) || !main[0].HasTool("mcp__editor__"+tool) {
			t.Errorf("Claude's tools %v: want mcp__editor__%s instead of %s", main[0].Tools, tool, tool)
		}
	}

	// session/load shows the calls as the built-ins, as they were shown
	// live: the same titles, kinds and diffs, no MCP names.
	h2 := reload(t, h, sid, acp.ClientCapabilities{})
	replayed, order := toolCalls(t, h2, sid)
	if len(order) != 3 {
		t.Fatalf("replayed calls %v", order)
	}
	for _, id := range []string{"toolu_read", "toolu_edit", "toolu_write"} {
		l, r := calls[id], replayed[id]
		if r.title != l.title || r.kind != l.kind || r.status != l.status {
			t.Errorf("%s: replayed %q %s %s, live %q %s %s", id, r.title, r.kind, r.status, l.title, l.kind, l.status)
		}
		if strings.Contains(string(r.meta["claudeCode"]), "mcp__") {
			t.Errorf("%s replays as an MCP tool: %s", id, r.meta["claudeCode"])
		}
	}
	if r := replayed["toolu_read"]; !strings.Contains(contentText(r.content), "// unsaved comment") {
		t.Errorf("replayed read %q", contentText(r.content))
	}
	if d := diffs(replayed["toolu_edit"].content); len(d) != 1 || !strings.Contains(d[0].OldText.Or(""), "// unsaved comment") || !strings.Contains(d[0].NewText, "// saved by Claude") {
		t.Errorf("replayed edit diff %+v", d)
	}
}

// TestEditorFSSubagentWritesThroughTheEditor: a subagent's Write goes
// through the editor too.
func TestEditorFSSubagentWritesThroughTheEditor(t *testing.T) {
	t.Parallel()
	ed := newBufferEditor()
	h := startEditor(t, ed)
	file := filepath.Join(h.Sandbox.WorkDir, "report.md")
	h.API().Script(
		agentCall("toolu_agent", "Write the report", "Write report.md.", false),
		onSub(toolUse("toolu_sub_write", mcpWrite, map[string]any{"file_path": file, "content": "# Report\n"})),
		onSub(fakeapi.Text("Written.")),
		onMain(fakeapi.Text("The subagent wrote it.")),
	)
	h.Initialize(fsCaps(true))
	sid := h.NewSession(h.Sandbox.WorkDir)
	if resp, err := h.Prompt(sid, "delegate"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	ws := ed.written()
	if len(ws) != 1 || ws[0].Path != file || ws[0].Content != "# Report\n" {
		t.Fatalf("fs/write_text_file requests %+v", ws)
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the subagent wrote the disk (%v)", err)
	}
	if got, _ := sentToClaude(h.API(), "toolu_sub_write"); !strings.Contains(got, "File created successfully at: "+file) {
		t.Errorf("the subagent got %q", got)
	}
	if perms := h.Permissions(); len(perms) != 1 || perms[0].ToolCall.Title.Or("") != "Write report.md" {
		t.Errorf("permission requests %+v", perms)
	}
}

// TestEditorFSRejectedWriteSendsNothing: a rejected permission writes
// nothing, anywhere.
func TestEditorFSRejectedWriteSendsNothing(t *testing.T) {
	t.Parallel()
	ed := newBufferEditor()
	w, model := cfScripted()
	h := startEditorCF(t, ed, w)
	file := filepath.Join(h.Sandbox.WorkDir, "x.txt")
	h.Permission = choose("reject")
	model.Script(cfTool("toolu_w", mcpWrite, map[string]any{"file_path": file, "content": "x"}), cfText("ok"))
	h.Initialize(fsCaps(true))
	sid := h.NewSession(h.Sandbox.WorkDir)
	if _, err := h.Prompt(sid, "write"); err != nil {
		t.Fatal(err)
	}
	if ws := ed.written(); len(ws) != 0 {
		t.Errorf("a rejected write reached the editor: %+v", ws)
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a rejected write reached the disk (%v)", err)
	}
	calls, _ := toolCalls(t, h, sid)
	if c := calls["toolu_w"]; c == nil || c.status != acp.ToolCallStatusFailed {
		t.Errorf("card %+v", c)
	}
}

// TestEditorFSOffWithoutOptIn: without the opt-in nothing changes: no
// fs/* request, the built-ins write the disk. (The other variants, fs
// without the opt-in's other half, run on the fake CLI:
// TestEditorFSOffWithoutFS.)
func TestEditorFSOffWithoutOptIn(t *testing.T) {
	t.Parallel()
	ed := newBufferEditor()
	h := startEditor(t, ed)
	file := filepath.Join(h.Sandbox.WorkDir, "x.txt")
	h.API().Script(toolUse("toolu_w", "Write", map[string]any{"file_path": file, "content": "disk\n"}), fakeapi.Text("ok"))
	init := h.Initialize(fsCaps(false))
	if strings.Contains(string(init.AgentCapabilities.Meta["claudeCode"]), "editorFileSystem") {
		t.Errorf("initialize says the editor's files are on: %s", init.AgentCapabilities.Meta["claudeCode"])
	}
	sid := h.NewSession(h.Sandbox.WorkDir)
	if _, err := h.Prompt(sid, "write"); err != nil {
		t.Fatal(err)
	}
	if n := fsRequests(h); n != 0 {
		t.Errorf("%d fs/* requests", n)
	}
	if b, err := os.ReadFile(file); string(b) != "disk\n" {
		t.Errorf("the built-in Write did not write the disk: %q %v", b, err)
	}
	if main := h.API().MainRequests(); len(main) == 0 || !main[0].HasTool("Write") || main[0].HasTool(mcpWrite) {
		t.Errorf("Claude's tools %v", main[0].Tools)
	}
}

// TestEditorFSOffWithoutFS: with the opt-in but without both fs methods,
// nothing changes either: no fs/* request, and the CLI gets no editor's
// tools (no SDK MCP server, no aliases, the built-ins allowed), so its
// built-in Write runs (on the real CLI it writes the disk:
// TestEditorFSOffWithoutOptIn).
func TestEditorFSOffWithoutFS(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		caps acp.ClientCapabilities
		cfg  bool
	}{
		"opt-in without fs":        {caps: acp.ClientCapabilities{Meta: map[string]json.RawMessage{"claudeCode": json.RawMessage(`{"editorFileSystem":true}`)}}},
		"configured, read-only fs": {caps: acp.ClientCapabilities{FS: acp.FileSystemCapabilities{ReadTextFile: true}}, cfg: true},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ed := newBufferEditor()
			w, model := cfScripted()
			h := startEditorCF(t, ed, w, func(c *agent.Config) { c.EditorFS = tc.cfg })
			file := filepath.Join(h.Sandbox.WorkDir, "x.txt")
			model.Script(cfTool("toolu_w", "Write", map[string]any{"file_path": file, "content": "disk\n"}), cfText("ok"))
			init := h.Initialize(tc.caps)
			if strings.Contains(string(init.AgentCapabilities.Meta["claudeCode"]), "editorFileSystem") {
				t.Errorf("initialize says the editor's files are on: %s", init.AgentCapabilities.Meta["claudeCode"])
			}
			sid := h.NewSession(h.Sandbox.WorkDir)
			if _, err := h.Prompt(sid, "write"); err != nil {
				t.Fatal(err)
			}
			if n := fsRequests(h); n != 0 {
				t.Errorf("%d fs/* requests", n)
			}
			cli := w.CLIs()[0]
			if init := cli.Initialize(); init["sdkMcpServers"] != nil || init["toolAliases"] != nil {
				t.Errorf("the CLI got the editor's tools: %v", init)
			}
			if strings.Contains(cli.Flag("disallowedTools"), "Write") {
				t.Errorf("the built-ins are disallowed: %s", cli.Flag("disallowedTools"))
			}
			ran := false
			for _, e := range w.Events() {
				ran = ran || e.Kind == "tool" && e.Detail == "toolu_w"
			}
			if got, _ := toldClaude(model, "toolu_w"); !ran || got != "ran Write" {
				t.Errorf("the built-in Write did not run (%v): Claude was told %q", ran, got)
			}
		})
	}
}

// TestEditorFSOnByConfig: the agent's configuration
// (CLAUDE_AGENT_ACP_EDITOR_FS=1) turns it on for a client that offers fs;
// initialize says so; the CLI gets our tools as an SDK MCP server in place
// of the built-ins (disallowed, and aliased to ours). (That the real CLI
// then offers Claude ours and not the built-ins, and routes the built-in's
// name to ours: TestEditorFSReadsBuffersAndWritesThroughTheEditor.)
func TestEditorFSOnByConfig(t *testing.T) {
	t.Parallel()
	ed := newBufferEditor()
	w, model := cfScripted()
	h := startEditorCF(t, ed, w, func(c *agent.Config) { c.EditorFS = true })
	file := filepath.Join(h.Sandbox.WorkDir, "x.txt")
	// The built-in's name reaches our tool too (toolAliases).
	model.Script(cfTool("toolu_w", "Write", map[string]any{"file_path": file, "content": "editor\n"}), cfText("ok"))
	init := h.Initialize(fsCaps(false))
	if !strings.Contains(string(init.AgentCapabilities.Meta["claudeCode"]), `"editorFileSystem":true`) {
		t.Errorf("initialize _meta.claudeCode %s", init.AgentCapabilities.Meta["claudeCode"])
	}
	sid := h.NewSession(h.Sandbox.WorkDir)
	if _, err := h.Prompt(sid, "write"); err != nil {
		t.Fatal(err)
	}
	if ws := ed.written(); len(ws) != 1 || ws[0].Content != "editor\n" {
		t.Errorf("writes %+v", ws)
	}
	cli := w.CLIs()[0]
	in := cli.Initialize()
	servers, _ := in["sdkMcpServers"].([]any)
	aliases, _ := in["toolAliases"].(map[string]any)
	disallowed := strings.Split(cli.Flag("disallowedTools"), ",")
	if len(servers) != 1 || servers[0] != "editor" {
		t.Errorf("the CLI's SDK MCP servers %v", in["sdkMcpServers"])
	}
	for _, tool := range []string{"Read", "Write", "Edit", "NotebookEdit"} {
		if !slices.Contains(disallowed, tool) || aliases[tool] != "mcp__editor__"+tool {
			t.Errorf("Claude's tools: disallowed %v, aliases %v: want mcp__editor__%s instead of %s", disallowed, aliases, tool, tool)
		}
	}
}

// TestEditorFSClientErrors: a write the editor refuses is the tool's
// error, for Claude and on the card; a write the editor never answers is
// withdrawn by the prompt's cancel.
func TestEditorFSClientErrors(t *testing.T) {
	t.Parallel()
	ed := newBufferEditor()
	w, model := cfScripted()
	h := startEditorCF(t, ed, w)
	dir := h.Sandbox.WorkDir
	ro, stuck := filepath.Join(dir, "readonly.txt"), filepath.Join(dir, "stuck.txt")
	ed.refuse[ro] = "Buffer is read-only"
	ed.hang[stuck] = true
	h.Permission = choose("allow")
	model.Script(
		cfTool("toolu_ro", mcpWrite, map[string]any{"file_path": ro, "content": "x"}),
		cfText("It is read-only."),
		cfTool("toolu_stuck", mcpWrite, map[string]any{"file_path": stuck, "content": "x"}),
		cfText("never"),
	)
	h.Initialize(fsCaps(true))
	sid := h.NewSession(dir)
	if resp, err := h.Prompt(sid, "write it"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	want := "The editor could not write " + ro + ": Buffer is read-only"
	if got, _ := toldClaude(model, "toolu_ro"); got != want {
		t.Errorf("Claude got %q, want %q", got, want)
	}
	calls, _ := toolCalls(t, h, sid)
	if c := calls["toolu_ro"]; c == nil || c.status != acp.ToolCallStatusFailed || !strings.Contains(contentText(c.content), "Buffer is read-only") {
		t.Errorf("card %+v", c)
	}

	done := promptAsync(h, sid, "write the other")
	select {
	case <-ed.hanging:
	case <-time.After(time.Minute):
		t.Fatal("the write never reached the editor")
	}
	h.Cancel(sid)
	select {
	case <-ed.canceled:
	case <-time.After(time.Minute):
		t.Fatal("the hanging fs/write_text_file was not withdrawn")
	}
	if r := <-done; r.err != nil || r.resp.StopReason != acp.StopReasonCancelled {
		t.Errorf("prompt: %+v %v", r.resp, r.err)
	}
	if _, err := os.Stat(stuck); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("disk touched (%v)", err)
	}
}

// TestEditorFSModes: accept-edits mode writes without asking, as the
// built-ins do; "always allow all edits" switches the session to it.
func TestEditorFSModes(t *testing.T) {
	t.Parallel()
	ed := newBufferEditor()
	w, model := cfScripted()
	h := startEditorCF(t, ed, w)
	dir := h.Sandbox.WorkDir
	h.Permission = choose("allow_always")
	model.Script(
		cfTool("toolu_1", mcpWrite, map[string]any{"file_path": filepath.Join(dir, "a.txt"), "content": "a"}),
		cfTool("toolu_2", mcpWrite, map[string]any{"file_path": filepath.Join(dir, "b.txt"), "content": "b"}),
		cfText("ok"),
	)
	h.Initialize(fsCaps(true))
	sid := h.NewSession(dir)
	if _, err := h.Prompt(sid, "write two"); err != nil {
		t.Fatal(err)
	}
	if perms := h.Permissions(); len(perms) != 1 {
		t.Errorf("%d permission requests; the second write should run in accept-edits mode", len(perms))
	}
	if ws := ed.written(); len(ws) != 2 {
		t.Errorf("writes %+v", ws)
	}
	mode := ""
	for _, u := range h.Updates(sid) {
		if u.CurrentModeUpdate != nil {
			mode = string(u.CurrentModeUpdate.CurrentModeID)
		}
	}
	if mode != "acceptEdits" {
		t.Errorf("mode %q", mode)
	}
}

// TestEditorFSAlwaysAllowWithinATurn: a grant counts for the very next
// call of the same turn. In accept-edits mode a write outside the project
// asks, offering the directory; allowed always, the next write there runs
// without asking (the agent lists the CLI's rules again after a grant).
func TestEditorFSAlwaysAllowWithinATurn(t *testing.T) {
	t.Parallel()
	ed := newBufferEditor()
	w, model := cfScripted()
	h := startEditorCF(t, ed, w)
	dir, outside := h.Sandbox.WorkDir, t.TempDir()
	h.Permission = choose("allow_always")
	model.Script(
		cfTool("toolu_in", mcpWrite, map[string]any{"file_path": filepath.Join(dir, "in.txt"), "content": "in"}),
		cfTool("toolu_out1", mcpWrite, map[string]any{"file_path": filepath.Join(outside, "a.txt"), "content": "a"}),
		cfTool("toolu_out2", mcpWrite, map[string]any{"file_path": filepath.Join(outside, "b.txt"), "content": "b"}),
		cfText("ok"),
	)
	h.Initialize(fsCaps(true))
	sid := h.NewSession(dir)
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionSetMode, &acp.SetSessionModeRequest{SessionID: acp.SessionID(sid), ModeID: "acceptEdits"}, &acp.SetSessionModeResponse{}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Prompt(sid, "write three"); err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, p := range h.Permissions() {
		titles = append(titles, p.ToolCall.Title.Or(""))
	}
	if len(titles) != 1 || !strings.Contains(titles[0], "a.txt") {
		t.Errorf("permission requests %q: want one, for a.txt", titles)
	}
	if ws := ed.written(); len(ws) != 3 {
		t.Errorf("writes %+v", ws)
	}
}

// TestEditorFSAfterHibernation: a hibernated session's next CLI gets the
// editor's tools again (a fresh MCP server for it): Claude's Edit after
// the resume still reaches the editor and not the disk.
func TestEditorFSAfterHibernation(t *testing.T) {
	t.Parallel()
	ed := newBufferEditor()
	w, model := cfScripted()
	h := startEditorCF(t, ed, w, func(c *agent.Config) { c.MaxLiveSessions = 1 })
	dir := h.Sandbox.WorkDir
	file := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(file, []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.Permission = choose("allow")
	h.Initialize(fsCaps(true))
	first := h.NewSession(dir)
	model.Script(cfTool("toolu_r1", mcpRead, map[string]any{"file_path": file}), cfText("read"))
	if _, err := h.Prompt(first, "read a.txt"); err != nil {
		t.Fatal(err)
	}
	// A second session takes the one live CLI: the first hibernates.
	second := h.NewSession(t.TempDir())
	model.Script(cfText("hello"))
	if _, err := h.Prompt(second, "hello"); err != nil {
		t.Fatal(err)
	}
	h.WaitFor("the first session's CLI gone", 30*time.Second, func() bool { return len(w.Live()) <= 1 })
	model.Script(
		cfTool("toolu_r2", mcpRead, map[string]any{"file_path": file}),
		cfTool("toolu_e", mcpEdit, map[string]any{"file_path": file, "old_string": "one", "new_string": "two"}),
		cfText("edited"),
	)
	if resp, err := h.Prompt(first, "now edit it"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt after hibernation: %+v %v", resp, err)
	}
	if got, _ := toldClaude(model, "toolu_e"); !strings.Contains(got, "has been updated successfully") {
		t.Errorf("the Edit after the resume: %q", got)
	}
	if ws := ed.written(); len(ws) != 1 || ws[0].Content != "two\n" || string(ws[0].SessionID) != first {
		t.Errorf("fs/write_text_file requests %+v", ws)
	}
	if b, _ := os.ReadFile(file); string(b) != "one\n" {
		t.Errorf("the disk changed: %q", b)
	}
}
