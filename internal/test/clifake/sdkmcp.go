package clifake

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
)

// SDK MCP servers (claude.Options.SDKMCPServers): MCP servers that live in
// the host, which the CLI speaks to through mcp_message control requests.
// The fake does it the way the pinned CLI (2.1.332) does, as its stdout
// showed in the agent's real-CLI TestEditorFS* tests (stdin and stdout
// teed to files; claude-cli-protocol.md §6.3 has the handshake):
//
//   - initialize names the servers (sdkMcpServers), the PreToolUse hooks
//     (hooks) and the tool aliases (toolAliases: a built-in's name that
//     reaches a server's tool). For each server the CLI then runs the MCP
//     handshake: initialize (id 0, protocolVersion 2025-11-25, clientInfo
//     claude-code), notifications/initialized, tools/list (id 1).
//   - A call of mcp__<server>__<tool> (or of an alias: the assistant frame
//     keeps the model's name, without tool_use_meta) runs the PreToolUse
//     hooks whose matcher matches the MCP name (hook_callback, input with
//     permission_mode, tool_name, tool_input, tool_use_id, mcp_server).
//     The hook's "allow" runs the tool without asking; its "ask" asks
//     (session_state_changed requires_action, can_use_tool with
//     mcp_server, display_name and decision_reason* of the hook, then
//     running); no decision asks where the mode asks, as the fake does
//     for Bash (not seen on the real CLI: the agent's hook always
//     decides in the tests that use this; the suggestions the CLI would
//     offer then are not played).
//   - An allowed call applies the answer's updatedPermissions (setMode
//     switches the mode and writes system/status with permissionMode;
//     addDirectories goes into list_permission_rules' workspaceDirectories
//     (source session), as seen; addRules into its rules, in a shape not
//     seen) and sends tools/call (ids 2, 3, … per CLI, progressToken the
//     same, _meta claudecode/toolUseId) with the answer's updatedInput.
//     The result becomes the tool_result: its content blocks and
//     tool_use_result {content, _meta}; with isError, the text as a
//     string, is_error, and tool_use_result "Error: <text>". A denial is
//     an is_error tool_result with the denial's message.
//   - An interrupt while tools/call runs sends notifications/cancelled
//     (requestId, reason "AbortError: remote-cancel"), not a
//     control_cancel_request, and the turn ends with the rejection text
//     the CLI gives a call stopped while running.
//
// Left out: the CLI's echo of the host's control_responses on stdout, and
// PreToolUse hooks of other tools (the fake runs hooks for SDK MCP tools
// only).

// sdkServers is what initialize said of SDK MCP servers and hooks.
type sdkServers struct {
	names   []string
	aliases map[string]string // built-in name → mcp__server__tool
	hooks   []hookMatcher     // PreToolUse
	ready   chan struct{}     // the handshakes are done
	nextID  int               // the next JSON-RPC id of tools/call
	// What list_permission_rules adds to the command line's rules: the
	// session's grants.
	rules []map[string]any
	dirs  []string
}

type hookMatcher struct {
	Matcher string   `json:"matcher"`
	IDs     []string `json:"hookCallbackIds"`
}

// keepSDK notes the servers, hooks and aliases of the initialize request
// and starts the handshakes (control, under no lock).
func (c *CLI) keepSDK(req json.RawMessage) {
	var r struct {
		SDKMCPServers []string                 `json:"sdkMcpServers"`
		ToolAliases   map[string]string        `json:"toolAliases"`
		Hooks         map[string][]hookMatcher `json:"hooks"`
	}
	_ = json.Unmarshal(req, &r)
	ready := make(chan struct{})
	c.mu.Lock()
	c.sdk = sdkServers{names: r.SDKMCPServers, aliases: r.ToolAliases, hooks: r.Hooks["PreToolUse"], ready: ready, nextID: 2}
	c.mu.Unlock()
	if len(r.SDKMCPServers) == 0 {
		close(ready)
		return
	}
	go func() {
		defer close(ready)
		never := make(chan struct{})
		for _, s := range r.SDKMCPServers {
			steps := []map[string]any{
				{"method": "initialize", "params": map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
					"clientInfo": map[string]any{"name": "claude-code", "title": "Claude Code", "description": "Anthropic's agentic coding tool",
						"websiteUrl": "https://claude.com/claude-code", "version": "2.1.332"}}, "jsonrpc": "2.0", "id": 0},
				{"jsonrpc": "2.0", "method": "notifications/initialized"},
				{"method": "tools/list", "jsonrpc": "2.0", "id": 1},
			}
			for _, m := range steps {
				if _, ok := c.ask(map[string]any{"subtype": "mcp_message", "server_name": s, "message": m}, never); !ok {
					return
				}
			}
		}
	}()
}

// sdkTool resolves a tool name the model called to an SDK MCP server's
// tool: its server and the tool's name there.
func (c *CLI) sdkTool(name string) (mcpName, server, tool string, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if a, ok := c.sdk.aliases[name]; ok {
		name = a
	}
	rest, found := strings.CutPrefix(name, "mcp__")
	if !found {
		return "", "", "", false
	}
	for _, s := range c.sdk.names {
		if t, ok := strings.CutPrefix(rest, s+"__"); ok && t != "" {
			return name, s, t, true
		}
	}
	return "", "", "", false
}

// rejectedRunning is what Claude is told of a call the user stopped
// while it ran (claude 2.1.332).
const rejectedRunning = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed. Correction to the text above: this call was stopped while running, not refused before it ran. It may have run in part or in full, and its changes may have been written. No permission prompt was involved. Work it started elsewhere (a remote command, a background process) may still be running, so check before starting the same work again. The instruction to stop and wait still stands."

// mcpCall is tool for a call of an SDK MCP server's tool: the model's
// name (an alias or the MCP name), its id and input. It returns what the
// model is told (t.sdkFailed says whether the call failed) and false when
// the turn was interrupted.
func (t *turnState) mcpCall(called, id string, input map[string]any) (string, bool) {
	c := t.c
	name, server, tool, _ := c.sdkTool(called)
	c.mu.Lock()
	ready := c.sdk.ready
	c.mu.Unlock()
	select {
	case <-ready:
	case <-t.m.interrupt:
		return "", false
	case <-c.done:
		return "", false
	}
	if t.text != "" {
		t.assistant([]any{map[string]any{"type": "text", "text": t.text}})
	}
	t.event(map[string]any{"type": "content_block_start", "index": 1,
		"content_block": map[string]any{"type": "tool_use", "id": id, "name": called, "input": map[string]any{}}})
	raw, _ := json.Marshal(input)
	t.event(map[string]any{"type": "content_block_delta", "index": 1, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(raw)}})
	t.event(map[string]any{"type": "content_block_stop", "index": 1})
	f := map[string]any{"type": "assistant", "session_id": c.session, "parent_tool_use_id": nil,
		"message": map[string]any{"id": t.msgID, "type": "message", "role": "assistant", "model": "fake-model",
			"content": []any{map[string]any{"type": "tool_use", "id": id, "name": called, "input": input}}, "stop_reason": nil, "usage": usage()}}
	if called == name {
		f["tool_use_meta"] = []any{map[string]any{"id": id, "display_name": tool, "server_display_name": server, "tool_name": tool}}
	}
	c.send(f)
	t.toolID = id
	mcpServer := map[string]any{"name": server, "source": "sdk"}

	// The PreToolUse hooks.
	decision, reason := "", ""
	c.mu.Lock()
	mode, hooks := c.mode, slices.Clone(c.sdk.hooks)
	c.mu.Unlock()
	for _, h := range hooks {
		if re, err := regexp.Compile(h.Matcher); h.Matcher != "" && (err != nil || !re.MatchString(name)) {
			continue
		}
		for _, cb := range h.IDs {
			resp, ok := c.ask(map[string]any{"subtype": "hook_callback", "callback_id": cb, "tool_use_id": id,
				"input": map[string]any{"session_id": c.session, "transcript_path": c.transcriptPath(), "cwd": c.dir,
					"permission_mode": mode, "hook_event_name": "PreToolUse", "tool_name": name, "tool_input": input,
					"tool_use_id": id, "mcp_server": mcpServer}}, t.m.interrupt)
			if !ok {
				return "", false
			}
			var a struct {
				Response struct {
					Out struct {
						Decision string `json:"permissionDecision"`
						Reason   string `json:"permissionDecisionReason"`
					} `json:"hookSpecificOutput"`
				} `json:"response"`
			}
			_ = json.Unmarshal(resp, &a)
			if d := a.Response.Out.Decision; d != "" && decision == "" {
				decision, reason = d, a.Response.Out.Reason
			}
		}
	}

	// The permission.
	args, source := input, "hook"
	allowed, denial := decision == "allow" || decision == "" && mode == "bypassPermissions", ""
	if !allowed && decision != "deny" {
		req := map[string]any{"subtype": "can_use_tool", "tool_name": name, "mcp_server": mcpServer, "display_name": tool,
			"input": input, "tool_use_id": id}
		if decision == "ask" {
			req["decision_reason"], req["decision_reason_type"] = reason, "hook"
			req["decision_reason_hook_event"], req["decision_reason_hook_source"] = "PreToolUse", "settings"
		} else {
			req["permission_suggestions"] = []any{}
		}
		c.state("requires_action")
		p, ok := c.askPermission(req, t.m.interrupt) // clifake.go
		if !ok {
			return "", false
		}
		allowed, denial, source = p.allowed, p.denial, "user_temporary"
		if allowed {
			c.grant(p.updatedPermissions)
			if p.updatedInput != nil {
				args = p.updatedInput
			}
		}
		c.state("running")
	} else if decision == "deny" {
		denial = reason
	}
	if !t.wait(0) {
		return "", false
	}
	if !allowed {
		c.send(map[string]any{"type": "user", "session_id": c.session, "parent_tool_use_id": nil,
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result",
				"tool_use_id": id, "content": denial, "is_error": true}}},
			"tool_use_result": "Error: " + denial,
			"tool_result_meta": []any{map[string]any{"id": id, "non_execution_kind": "permission-rule",
				"permission_decision": map[string]any{"decision": "reject", "source": "user_reject"}}}})
		c.recordToolNamed(called, id, input, denial, true)
		t.toolID, t.sdkFailed = "", true
		return denial, true
	}

	// tools/call.
	c.w.log(c, "tool", id)
	c.mu.Lock()
	rpcID := c.sdk.nextID
	c.sdk.nextID++
	c.mu.Unlock()
	resp, _, ok := c.controlRequest(map[string]any{"subtype": "mcp_message", "server_name": server, "message": map[string]any{
		"method": "tools/call", "params": map[string]any{"name": tool, "arguments": args,
			"_meta": map[string]any{"claudecode/toolUseId": id, "progressToken": rpcID}}, "jsonrpc": "2.0", "id": rpcID}}, t.m.interrupt)
	if !ok {
		if !c.dead() {
			go c.ask(map[string]any{"subtype": "mcp_message", "server_name": server, "message": map[string]any{
				"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": rpcID, "reason": "AbortError: remote-cancel"}}},
				make(chan struct{}))
		}
		t.abortText = rejectedRunning
		return "", false
	}
	var a struct {
		Response struct {
			MCP struct {
				Result struct {
					Content []struct {
						Type string `json:"type"`
						Text string `json:"text"`
					} `json:"content"`
					IsError bool            `json:"isError"`
					Meta    json.RawMessage `json:"_meta"`
				} `json:"result"`
				Error *struct {
					Message string `json:"message"`
				} `json:"error"`
			} `json:"mcp_response"`
		} `json:"response"`
	}
	_ = json.Unmarshal(resp, &a)
	var blocks struct {
		Response struct {
			MCP struct {
				Result struct {
					Content json.RawMessage `json:"content"`
				} `json:"result"`
			} `json:"mcp_response"`
		} `json:"response"`
	}
	_ = json.Unmarshal(resp, &blocks)
	res := a.Response.MCP.Result
	var texts []string
	for _, b := range res.Content {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	text := strings.Join(texts, "\n")
	isError := res.IsError
	if e := a.Response.MCP.Error; e != nil {
		text, isError = e.Message, true
	}
	meta := []any{map[string]any{"id": id, "permission_decision": map[string]any{"decision": "accept", "source": source}}}
	if source == "hook" {
		meta[0].(map[string]any)["permission_decision"].(map[string]any)["reason_type"] = "hook"
	}
	var toolUseResult any
	var content any
	if isError {
		content, toolUseResult = text, "Error: "+text
	} else {
		content = blocks.Response.MCP.Result.Content
		tr := map[string]any{"content": blocks.Response.MCP.Result.Content}
		if len(res.Meta) > 0 {
			tr["_meta"] = res.Meta
		}
		toolUseResult = tr
	}
	c.send(map[string]any{"type": "user", "session_id": c.session, "parent_tool_use_id": nil,
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result",
			"tool_use_id": id, "content": content, "is_error": isError}}},
		"tool_use_result": toolUseResult, "tool_result_meta": meta})
	c.recordToolNamed(called, id, input, text, isError)
	t.toolID, t.sdkFailed = "", isError
	return text, true
}

// grant applies an allowed answer's permission updates, as the CLI does:
// a mode, directories and rules for the session.
func (c *CLI) grant(updates []json.RawMessage) {
	for _, raw := range updates {
		var u struct {
			Type        string           `json:"type"`
			Mode        string           `json:"mode"`
			Directories []string         `json:"directories"`
			Behavior    string           `json:"behavior"`
			Rules       []map[string]any `json:"rules"`
		}
		if json.Unmarshal(raw, &u) != nil {
			continue
		}
		switch u.Type {
		case "setMode":
			c.mu.Lock()
			c.mode = u.Mode
			c.mu.Unlock()
			c.send(map[string]any{"type": "system", "subtype": "status", "status": nil, "permissionMode": u.Mode, "session_id": c.session})
		case "addDirectories":
			c.mu.Lock()
			c.sdk.dirs = append(c.sdk.dirs, u.Directories...)
			c.mu.Unlock()
		case "addRules":
			c.mu.Lock()
			for _, r := range u.Rules {
				rule, _ := r["toolName"].(string)
				if content, _ := r["ruleContent"].(string); content != "" {
					rule += "(" + content + ")"
				}
				c.sdk.rules = append(c.sdk.rules, map[string]any{"behavior": u.Behavior, "source": "session", "rule": rule})
			}
			c.mu.Unlock()
		}
	}
}

// permissionRules answers list_permission_rules as the CLI does: the
// command line's --disallowedTools and --allowedTools (source cliArg),
// the session's grants, its directories.
func (c *CLI) permissionRules() map[string]any {
	rules := []map[string]any{}
	for _, f := range []struct{ flag, behavior string }{{"disallowedTools", "deny"}, {"allowedTools", "allow"}} {
		v := c.Flag(f.flag)
		if v == "" || v == "true" {
			continue
		}
		for _, r := range strings.Split(v, ",") {
			rules = append(rules, map[string]any{"behavior": f.behavior, "source": "cliArg", "rule": r,
				"description": map[string]any{"prefix": "Any use of the ", "emphasis": r, "suffix": " tool"}, "editability": "session"})
		}
	}
	dirs := []map[string]any{}
	c.mu.Lock()
	rules = append(rules, c.sdk.rules...)
	for _, d := range c.sdk.dirs {
		dirs = append(dirs, map[string]any{"path": d, "source": "session"})
	}
	c.mu.Unlock()
	return map[string]any{"state": map[string]any{"rules": rules, "workspaceDirectories": dirs, "originalCwd": c.dir, "managedOnly": false}}
}
