package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/editorfs"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/toolview"
	"github.com/claude-agent-acp/claude-agent-acp/agent/translate"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
	"github.com/claude-agent-acp/claude-agent-acp/claude/sdkmcp"
)

// Claude's file tools through the editor (issue 39; docs/tools.md, "Files
// through the editor"). When the client offers fs/read_text_file and
// fs/write_text_file and opts in (Config.EditorFS, from
// CLAUDE_AGENT_ACP_EDITOR_FS=1, or clientCapabilities._meta.claudeCode
// .editorFileSystem), each session's CLI gets package editorfs's Read,
// Write, Edit and NotebookEdit as an SDK MCP server of the agent's own, in
// place of its built-ins (disallowed, and aliased to ours). The tools call
// the client; everything the user sees (cards, permissions, modes,
// replay) is what the built-ins show, because the translator reports
// mcp__<server>__Edit as Edit and the permission hook applies the
// built-ins' table (editorfs.Decide). This file is all the wiring.

// editorServerName is the SDK MCP server's name: what Claude sees in
// mcp__editor__Read, unless the client brought an MCP server of that name.
func editorServerName(servers map[string]any) string {
	if _, taken := servers["editor"]; taken {
		return "acp_editor"
	}
	return "editor"
}

// editorHookID names the PreToolUse hook callback of the editor's tools.
const editorHookID = "editorfs"

// wantsEditorFS says whether a client gets the editor's file tools: it
// offers both fs methods and opted in, through the agent's configuration
// or its own _meta.
func wantsEditorFS(cfg Config, c acp.ClientCapabilities) bool {
	if !c.FS.ReadTextFile || !c.FS.WriteTextFile {
		return false
	}
	var cc struct {
		EditorFileSystem bool `json:"editorFileSystem"`
	}
	_ = json.Unmarshal(c.Meta["claudeCode"], &cc)
	return cfg.EditorFS || cc.EditorFileSystem
}

// editorFS is a session's file tools through the editor. Its fields are
// set before the session starts and safe for concurrent use: the CLI calls
// it from its callback goroutines.
type editorFS struct {
	s      *session
	server string
	tools  *editorfs.Tools
	env    editorfs.Env

	mu     sync.Mutex
	bridge *sdkmcp.Bridge // the MCP server of the CLI last started
	// asks are the hook's decisions to ask, by tool use id, for the
	// can_use_tool that follows (its reason and suggestions).
	asks map[string]editorfs.Decision
	// buffers are the editor's texts read for the preview of an edit the
	// user is asked about, by path.
	buffers map[string]string
	// listed are the CLI's permission rules as last listed, for the rest of
	// the turn they were listed in (asking the CLI costs a round trip
	// through its event loop for every call: a third of a turn of file
	// tools, BenchmarkEditorFSTurn). Anything that may change them within
	// a turn (an "always allow", a write of a settings file) drops them.
	listed struct {
		list  *editorfs.Rules
		turn  *translate.Turn // the turn they were listed in
		gen   uint64          // rulesChanged calls; a listing older than one is not kept
		start *claude.Process
	}
}

// rulesChanged drops the listed rules: the next call lists them again.
func (e *editorFS) rulesChanged() {
	if e == nil {
		return
	}
	e.mu.Lock()
	e.listed.list = nil
	e.listed.gen++
	e.mu.Unlock()
}

// settingsFile reports whether path is one of Claude Code's settings
// files, whose rules the CLI reloads when it changes.
func settingsFile(path string) bool {
	return filepath.Base(filepath.Dir(path)) == ".claude" && strings.HasPrefix(filepath.Base(path), "settings")
}

// editorOptions gives the session the editor's file tools if its
// connection wants them (on). Called before the session goroutine starts;
// each CLI start adds them to its options (startOptions).
func (s *session) editorOptions(on bool) {
	server := editorServerName(s.conf.Opts.MCPServers)
	s.tr.ShowEditorTools(server)
	if !on {
		return
	}
	e := &editorFS{
		s: s, server: server,
		env:  editorfs.DefaultEnv(func(k string) string { return envLookup(s.a.cfg.Env, k) }),
		asks: map[string]editorfs.Decision{}, buffers: map[string]string{},
	}
	e.tools = editorfs.New(e, s.conf.Opts.Dir)
	s.efs = e
}

// startOptions adds the editor's tools to the options of a CLI about to
// start: a fresh MCP server for it, the built-ins disallowed and aliased
// to ours, the permission hook. A built-in the user turned off (_meta
// disallowedTools, or a tools list without it) is not served either.
func (e *editorFS) startOptions(o *claude.Options) {
	if e == nil {
		return
	}
	var served []string
	for _, t := range editorfs.DefaultTools {
		if slices.Contains(o.DisallowedTools, t) || o.Tools != nil && !slices.Contains(o.Tools, t) {
			continue
		}
		served = append(served, t)
	}
	if len(served) == 0 {
		return
	}
	b := sdkmcp.New(editorfs.NewServer(e.server, e.s.a.cfg.Version, e.tools, served))
	e.mu.Lock()
	old := e.bridge
	e.bridge = b
	e.mu.Unlock()
	if old != nil {
		_ = old.Close() // the previous CLI's
	}

	o.SDKMCPServers = append(slices.Clone(o.SDKMCPServers), e.server)
	o.MCPMessage = e.mcpMessage
	o.DisallowedTools = slices.Clone(o.DisallowedTools)
	for _, t := range editorfs.BuiltinTools {
		if !slices.Contains(o.DisallowedTools, t) {
			o.DisallowedTools = append(o.DisallowedTools, t)
		}
	}
	extra := make(map[string]any, len(o.InitializeExtra)+1)
	for k, v := range o.InitializeExtra {
		extra[k] = v
	}
	extra["toolAliases"] = editorfs.Aliases(e.server, served)
	o.InitializeExtra = extra
	hooks := make(map[string][]claude.HookMatcher, len(o.Hooks)+1)
	for k, v := range o.Hooks {
		hooks[k] = v
	}
	hooks["PreToolUse"] = append(slices.Clone(hooks["PreToolUse"]), claude.HookMatcher{
		Matcher: "^" + editorfs.MCPName(e.server, "") + "(" + strings.Join(served, "|") + ")$", HookCallbackIDs: []string{editorHookID},
	})
	o.Hooks = hooks
	o.HookCallback = e.hook
}

// envLookup is the value of key in env, or this process's when env is nil
// (Config.Env: nil means os.Environ()).
func envLookup(env []string, key string) string {
	if env == nil {
		return os.Getenv(key)
	}
	return envValue(env, key)
}

// close ends the MCP server's session.
func (e *editorFS) close() {
	if e == nil {
		return
	}
	e.mu.Lock()
	b := e.bridge
	e.mu.Unlock()
	if b != nil {
		_ = b.Close()
	}
}

func (e *editorFS) mcpMessage(ctx context.Context, req claude.MCPMessageRequest) (json.RawMessage, error) {
	e.mu.Lock()
	b := e.bridge
	e.mu.Unlock()
	if req.ServerName != e.server || b == nil {
		return nil, fmt.Errorf("no SDK MCP server named %q", req.ServerName)
	}
	return b.Handle(ctx, req.Message)
}

// ours returns the built-in name of one of our tools.
func (e *editorFS) ours(toolName string) (string, bool) {
	return strings.CutPrefix(toolName, editorfs.MCPName(e.server, ""))
}

// conn is the session's connection now (it may change, shared.go).
func (e *editorFS) conn() *connection {
	var a *connection
	e.s.do(func() { a = e.s.a })
	return a
}

// ReadTextFile asks the editor for a file's text (editorfs.FS).
func (e *editorFS) ReadTextFile(ctx context.Context, path string) (string, error) {
	a := e.conn()
	if a == nil {
		return "", errors.New("the session was closed")
	}
	var resp acp.ReadTextFileResponse
	err := a.editor().Call(ctx, acp.MethodFSReadTextFile, &acp.ReadTextFileRequest{SessionID: acp.SessionID(e.s.id), Path: path}, &resp)
	if err != nil {
		return "", clientError(err)
	}
	return resp.Content, nil
}

// WriteTextFile has the editor write a file's text (editorfs.FS).
func (e *editorFS) WriteTextFile(ctx context.Context, path, content string) error {
	a := e.conn()
	if a == nil {
		return errors.New("the session was closed")
	}
	var resp acp.WriteTextFileResponse
	err := a.editor().Call(ctx, acp.MethodFSWriteTextFile, &acp.WriteTextFileRequest{SessionID: acp.SessionID(e.s.id), Path: path, Content: content}, &resp)
	if err != nil {
		return clientError(err)
	}
	e.mu.Lock()
	delete(e.buffers, path) // Claude's tools know the text now
	e.mu.Unlock()
	if settingsFile(path) {
		e.rulesChanged()
	}
	return nil
}

// clientError is the client's error as Claude is told it: the editor's
// message (and its data, when that is a string), not our JSON-RPC
// framing.
func clientError(err error) error {
	var ae *acp.Error
	if !errors.As(err, &ae) || ae.Message == "" {
		return err
	}
	var data string
	if json.Unmarshal(ae.Data, &data) == nil && data != "" && data != ae.Message {
		return errors.New(ae.Message + ": " + data)
	}
	return errors.New(ae.Message)
}

// hook answers the CLI's PreToolUse hook for our tools with the built-ins'
// permission table, given the CLI's own rules and working directories.
func (e *editorFS) hook(ctx context.Context, req claude.HookCallbackRequest) (any, error) {
	tool, ok := e.ours(req.Hook.ToolName)
	if req.CallbackID != editorHookID || !ok {
		return struct{}{}, nil
	}
	var in struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
	}
	_ = json.Unmarshal(req.Hook.ToolInput, &in)
	path := e.tools.Path(in.FilePath + in.NotebookPath)
	d := editorfs.Decide(req.Hook.PermissionMode, tool, path, e.rules(ctx), e.env)
	id := req.ToolUseID
	if id == "" {
		id = req.Hook.ToolUseID
	}
	switch d.Behavior {
	case "":
		return struct{}{}, nil // the CLI's classifier decides
	case "deny":
		// Let it through to fail with the built-in's words
		// (editorfs.Tools.Refuse).
		e.tools.Refuse(id, d.Reason)
		d.Behavior, d.Reason = "allow", ""
	case "ask":
		e.mu.Lock()
		e.asks[id] = d
		e.mu.Unlock()
	}
	return map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": "PreToolUse", "permissionDecision": d.Behavior, "permissionDecisionReason": d.Reason,
	}}, nil
}

// rules are the CLI's permission rules and working directories now
// (list_permission_rules: a session rule granted a moment ago counts),
// listed once a turn and again after anything that changes them (see
// editorFS.rules). A CLI that cannot say leaves the session's own
// directories.
func (e *editorFS) rules(ctx context.Context) editorfs.Rules {
	var p *claude.Process
	var cur *translate.Turn
	var r editorfs.Rules
	e.s.do(func() {
		p = e.s.cli.target()
		cur = e.s.tr.Current
		r.OriginalCwd = e.s.conf.Opts.Dir
		for _, d := range e.s.conf.Opts.AddDirs {
			r.WorkspaceDirectories = append(r.WorkspaceDirectories, struct {
				Path string `json:"path"`
			}{d})
		}
	})
	if p == nil {
		return r
	}
	e.mu.Lock()
	c, gen := e.listed, e.listed.gen
	e.mu.Unlock()
	if c.list != nil && cur != nil && c.turn == cur && c.start == p {
		return *c.list
	}
	raw, err := p.Request(ctx, "list_permission_rules", nil)
	var lr struct {
		State *editorfs.Rules `json:"state"`
	}
	if err != nil || json.Unmarshal(raw, &lr) != nil || lr.State == nil {
		e.s.log.Warn("the CLI did not list its permission rules; deciding on the session's directories alone", "error", err)
		return r
	}
	e.mu.Lock()
	if e.listed.gen == gen && cur != nil { // nothing changed them meanwhile
		e.listed.list, e.listed.turn, e.listed.start = lr.State, cur, p
	}
	e.mu.Unlock()
	return *lr.State
}

// permission prepares a can_use_tool about one of our tools for the
// session's usual permission request, which then shows it as the
// built-in's: its name, the reason and suggestions the hook decided on,
// and a preview of an edit against the editor's buffer. done means it is
// answered already: a call the hook refused runs only to fail.
func (e *editorFS) permission(ctx context.Context, req *claude.CanUseToolRequest) (res claude.PermissionResult, done bool) {
	tool, ok := e.ours(req.ToolName)
	if !ok {
		return res, false
	}
	if e.tools.Refused(req.ToolUseID) {
		return claude.Allow(nil), true
	}
	req.ToolName = tool
	e.mu.Lock()
	d, decided := e.asks[req.ToolUseID]
	delete(e.asks, req.ToolUseID)
	e.mu.Unlock()
	req.PermissionSuggestions = nil // the CLI's are about the MCP tool
	if decided {
		req.PermissionSuggestions = d.Suggestions
		if d.Reason != "" {
			req.DecisionReason = d.Reason
		}
	}
	if toolview.IsEditTool(tool) {
		var in struct {
			FilePath string `json:"file_path"`
		}
		_ = json.Unmarshal(req.Input, &in)
		if path := e.tools.Path(in.FilePath); path != "" {
			if text, err := e.ReadTextFile(ctx, path); err == nil {
				e.mu.Lock()
				e.buffers[path] = text
				e.mu.Unlock()
			}
		}
	}
	return res, false
}

// previewText is the text an edit's preview starts from: the editor's
// buffer as last read for it, else the disk (toolview.ReadText).
func (e *editorFS) previewText(path string) (text string, exists, ok bool) {
	e.mu.Lock()
	text, known := e.buffers[path]
	e.mu.Unlock()
	if !known {
		text, known = e.tools.Seen(path)
	}
	if known {
		return text, true, true
	}
	return toolview.ReadText(path)
}
