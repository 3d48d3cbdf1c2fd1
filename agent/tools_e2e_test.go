package agent_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// scriptWriteThenEdit scripts a turn that writes notes.txt in dir (twelve
// lines, "line 1" to "line 12") and then edits its line 8 to "line
// eight". It returns the file's path, the written content and the content
// once edited.
func scriptWriteThenEdit(api *fakeapi.Server, dir string) (path, content, edited string) {
	path = filepath.Join(dir, "notes.txt")
	var lines []string
	for i := 1; i <= 12; i++ {
		lines = append(lines, fmt.Sprint("line ", i))
	}
	content = strings.Join(lines, "\n") + "\n"
	api.Script(
		toolUse("toolu_write", "Write", map[string]any{"file_path": path, "content": content}),
		toolUse("toolu_edit", "Edit", map[string]any{"file_path": path, "old_string": "line 8\n", "new_string": "line eight\n"}),
		fakeapi.Text("Done."),
	)
	return path, content, strings.Replace(content, "line 8\n", "line eight\n", 1)
}

// TestWriteThenEditDiffs writes a new file and then edits one line of it
// (each allowed once). The editor sees each call once its input is whole,
// the diff at the call and in the permission request (a creation, then
// the changed line with its context and line number), and the final
// per-hunk diff from Claude Code afterwards.
func TestWriteThenEditDiffs(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	path, content, edited := scriptWriteThenEdit(h.API(), h.Sandbox.WorkDir)
	sid := h.NewSession(h.Sandbox.WorkDir)
	resp, err := h.Prompt(sid, "write notes.txt, then fix line 8")
	if err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	h.DumpWire()
	got, err := os.ReadFile(path)
	if err != nil || string(got) != edited {
		t.Fatalf("file: %q %v", got, err)
	}

	perms := h.Permissions()
	if len(perms) != 2 {
		t.Fatalf("want 2 permission requests, got %d", len(perms))
	}
	// Every permission request is about a call the client was shown
	// before, with the same title and the diff to approve.
	for i, p := range perms {
		id := string(p.ToolCall.ToolCallID)
		if at, req := wireIndex(h, `"sessionUpdate":"tool_call"`, id), wireIndex(h, "session/request_permission", id); at < 0 || at > req {
			t.Errorf("request %d: tool_call at %d, request at %d", i, at, req)
		}
	}
	wd := diffs(perms[0].ToolCall.Content.Or(nil))
	if title, _ := perms[0].ToolCall.Title.Get(); title != "Write notes.txt" || len(wd) != 1 || !wd[0].OldText.IsZero() || wd[0].NewText != content || wd[0].Path != path {
		t.Errorf("write permission: title %q diffs %+v", title, wd)
	}
	ed := diffs(perms[1].ToolCall.Content.Or(nil))
	if len(ed) != 1 {
		t.Fatalf("edit permission diffs: %+v", ed)
	}
	if old, _ := ed[0].OldText.Get(); old != "line 5\nline 6\nline 7\nline 8\nline 9\nline 10\nline 11" ||
		ed[0].NewText != "line 5\nline 6\nline 7\nline eight\nline 9\nline 10\nline 11" {
		t.Errorf("edit preview %q → %q", old, ed[0].NewText)
	}
	if locs := perms[1].ToolCall.Locations.Or(nil); len(locs) != 1 || locs[0].Path != path || locs[0].Line.Or(0) != 5 {
		t.Errorf("edit preview locations %+v", locs)
	}

	calls, order := toolCalls(t, h, sid)
	if len(order) != 2 || order[0] != "toolu_write" || order[1] != "toolu_edit" {
		t.Fatalf("calls %v", order)
	}
	w, e := calls["toolu_write"], calls["toolu_edit"]
	if w.kind != acp.ToolKindEdit || w.status != acp.ToolCallStatusCompleted || w.title != "Write notes.txt" {
		t.Errorf("write call %+v", w)
	}
	if d := diffs(w.content); len(d) != 1 || !d[0].OldText.IsZero() || d[0].NewText != content {
		t.Errorf("write result diff %+v", d)
	}
	if e.kind != acp.ToolKindEdit || e.status != acp.ToolCallStatusCompleted || e.title != "Edit notes.txt" {
		t.Errorf("edit call %+v", e)
	}
	d := diffs(e.content)
	if len(d) != 1 {
		t.Fatalf("edit result diffs %+v", d)
	}
	if old, _ := d[0].OldText.Get(); !strings.Contains(old, "line 7\nline 8\nline 9") || !strings.Contains(d[0].NewText, "line 7\nline eight\nline 9") {
		t.Errorf("final hunk %q → %q", old, d[0].NewText)
	}
	if len(e.locations) != 1 || e.locations[0].Line.Or(0) != 5 {
		t.Errorf("final locations %+v", e.locations)
	}
	var in map[string]any
	if json.Unmarshal(e.rawInput, &in) != nil || in["old_string"] != "line 8\n" {
		t.Errorf("rawInput %s", e.rawInput)
	}
	if !strings.Contains(string(e.meta["claudeCode"]), `"toolName":"Edit"`) {
		t.Errorf("meta %s", e.meta["claudeCode"])
	}
}

// TestToolCallAnnouncedOnce (issue 15, item 9): a call is announced by
// exactly one tool_call, which already carries the whole input (rawInput),
// title, kind and locations; updates follow for what changes (permission,
// live output, result). A client that builds tool invocations the way the
// AI-SDK ACP provider does gets exactly one per id, with the real input.
func TestToolCallAnnouncedOnce(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	path := filepath.Join(h.Sandbox.WorkDir, "main.go")
	if err := os.WriteFile(path, []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	write := toolUse("toolu_write", "Write", map[string]any{"file_path": filepath.Join(h.Sandbox.WorkDir, "long.txt"), "content": strings.Repeat("a long line of text\n", 200)})
	h.API().Script(
		toolUse("toolu_read", "Read", map[string]any{"file_path": path, "offset": 1, "limit": 20}),
		toolUse("toolu_bash", "Bash", map[string]any{"command": "echo hi", "description": "Say hi"}),
		write,
		toolUse("toolu_odd", "NoSuchTool", map[string]any{"x": 1}),
		fakeapi.Text("ok"),
	)
	sid := h.NewSession(h.Sandbox.WorkDir)
	if _, err := h.Prompt(sid, "read main.go"); err != nil {
		t.Fatal(err)
	}
	announced := map[string]int{}
	for _, u := range h.Updates(sid) {
		if tc := u.ToolCall; tc != nil {
			announced[string(tc.ToolCallID)]++
			var in map[string]any
			if json.Unmarshal(tc.RawInput, &in) != nil || len(in) == 0 {
				t.Errorf("%s announced without its input: %s", tc.ToolCallID, tc.RawInput)
			}
			if tc.Status != acp.ToolCallStatusPending {
				t.Errorf("%s announced %s", tc.ToolCallID, tc.Status)
			}
		}
		if tu := u.ToolCallUpdate; tu != nil && tu.RawInput != nil {
			t.Errorf("%s: an update repeats or brings late input: %s", tu.ToolCallID, tu.RawInput)
		}
	}
	for _, id := range []string{"toolu_read", "toolu_bash", "toolu_write", "toolu_odd"} {
		if announced[id] != 1 {
			t.Errorf("%s announced %d times", id, announced[id])
		}
	}
	calls, _ := toolCalls(t, h, sid)
	r := calls["toolu_read"]
	if r.title != "Read main.go (1 - 20)" || r.status != acp.ToolCallStatusCompleted ||
		len(r.locations) != 1 || r.locations[0].Path != path || r.locations[0].Line.Or(0) != 1 {
		t.Errorf("read call %+v", r)
	}
	if !strings.Contains(contentText(r.content), "package main") {
		t.Errorf("read content %+v", r.content)
	}
	odd := calls["toolu_odd"]
	if odd.kind != acp.ToolKindOther || odd.title != "NoSuchTool" || odd.status != acp.ToolCallStatusFailed {
		t.Errorf("unknown tool %+v", odd)
	}

	// The AI-SDK ACP provider's view: one tool invocation per id, whose
	// input is the real one.
	inv := aiSDKToolCalls(h.Updates(sid))
	for _, id := range []string{"toolu_read", "toolu_bash", "toolu_write", "toolu_odd"} {
		got := inv[id]
		if len(got) != 1 {
			t.Fatalf("AI-SDK client built %d tool calls for %s: %v", len(got), id, got)
		}
		if len(got[0]) == 0 {
			t.Errorf("AI-SDK client built %s without input", id)
		}
	}
	if inv["toolu_bash"][0]["command"] != "echo hi" {
		t.Errorf("bash input %v", inv["toolu_bash"][0])
	}
}

// aiSDKToolCalls folds session updates into tool invocations the way the
// AI-SDK ACP provider (@mcpc-tech/acp-ai-provider 0.2.9) builds its
// tool-call stream parts: a tool_call with a non-empty rawInput is an
// invocation with that input, one without only starts the input; a
// tool_call_update (no status counts as in_progress) is an invocation with
// its rawInput when the call has none yet, or when it brings non-empty
// rawInput again. More than one invocation per id is the bug this guards
// against; internal/test/interop runs the provider itself.
func aiSDKToolCalls(updates []acp.SessionUpdate) map[string][]map[string]any {
	out := map[string][]map[string]any{}
	available := map[string]bool{}
	for _, u := range updates {
		switch {
		case u.ToolCall != nil:
			id := string(u.ToolCall.ToolCallID)
			var in map[string]any
			_ = json.Unmarshal(u.ToolCall.RawInput, &in)
			if _, seen := out[id]; !seen {
				out[id] = nil
			}
			if len(in) > 0 && !available[id] {
				available[id] = true
				out[id] = append(out[id], in)
			}
		case u.ToolCallUpdate != nil:
			id := string(u.ToolCallUpdate.ToolCallID)
			st, ok := u.ToolCallUpdate.Status.Get()
			if !ok {
				st = acp.ToolCallStatusInProgress
			}
			if st == acp.ToolCallStatusPending {
				continue
			}
			var in map[string]any
			_ = json.Unmarshal(u.ToolCallUpdate.RawInput, &in)
			if !available[id] || len(in) > 0 {
				available[id] = true
				out[id] = append(out[id], in)
			}
		}
	}
	return out
}

// TestBashOutput: with a client that renders display terminals the
// output streams into the terminal and the exit code closes it; other
// clients get a console block. The terminal variant runs the real CLI (the
// proof of its frames for a failing command: the output, the exit code);
// the console variant, the agent's other rendering of the same frames
// (terminal_output is the agent's alone, the CLI is started the same),
// plays what the real CLI wrote (recording bash_exit_3) over the fake CLI.
func TestBashOutput(t *testing.T) {
	t.Parallel()
	for _, term := range []bool{true, false} {
		t.Run(fmt.Sprint("terminal=", term), func(t *testing.T) {
			caps := acp.ClientCapabilities{}
			var h *agenttest.Harness
			if term {
				caps.Meta = map[string]json.RawMessage{"terminal_output": json.RawMessage("true")}
				h = agenttest.Start(t)
				h.API().Script(
					toolUse("toolu_sh", "Bash", map[string]any{"command": "echo out; echo err >&2; exit 3", "description": "Print and fail"}),
					fakeapi.Text("It failed."),
				)
			} else {
				h = recordedHarness(t, "run it", "bash_exit_3")
			}
			h.Initialize(caps)
			sid := h.NewSession(h.Sandbox.WorkDir)
			if _, err := h.Prompt(sid, "run it"); err != nil {
				t.Fatal(err)
			}
			calls, _ := toolCalls(t, h, sid)
			c := calls["toolu_sh"]
			if c.kind != acp.ToolKindExecute || c.title != "echo out; echo err >&2; exit 3" || c.status != acp.ToolCallStatusFailed {
				t.Fatalf("call %+v", c)
			}
			if !term {
				if txt := contentText(c.content); !strings.Contains(txt, "```console\nout\nerr\n```") {
					t.Errorf("console block %q", txt)
				}
				return
			}
			if len(c.content) != 1 || c.content[0].Terminal == nil || c.content[0].Terminal.TerminalID != "toolu_sh" {
				t.Errorf("terminal content %+v", c.content)
			}
			if !strings.Contains(string(c.meta["terminal_info"]), `"terminal_id":"toolu_sh"`) {
				t.Errorf("terminal_info %s", c.meta["terminal_info"])
			}
			if got := c.terminal.String(); got != "out\nerr\n" {
				t.Errorf("terminal output %q", got)
			}
			if string(c.exit) != `{"exit_code":3,"signal":null,"terminal_id":"toolu_sh"}` {
				t.Errorf("terminal_exit %s", c.exit)
			}
		})
	}
}

// TestBackgroundCommand: a command run in the background keeps reporting
// after the turn ended and completes with its exit code; another one is
// stopped with terminal/cancel.
func TestBackgroundCommand(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.Initialize(acp.ClientCapabilities{Meta: map[string]json.RawMessage{"terminal_output": json.RawMessage("true")}})
	h.API().Script(
		toolUse("toolu_bg", "Bash", map[string]any{"command": "for i in 1 2 3; do echo tick $i; sleep 0.4; done", "description": "Tick", "run_in_background": true}),
		toolUse("toolu_sleep", "Bash", map[string]any{"command": "echo sleeping; sleep 60", "description": "Sleep", "run_in_background": true}),
		fakeapi.Text("Both started."),
	)
	sid := h.NewSession(h.Sandbox.WorkDir)
	if _, err := h.Prompt(sid, "start them"); err != nil {
		t.Fatal(err)
	}
	defer h.DumpWire()
	calls, _ := toolCalls(t, h, sid)
	if c := calls["toolu_bg"]; c.status != acp.ToolCallStatusInProgress {
		t.Fatalf("background call at the end of the turn: %+v", c)
	}
	h.WaitFor("the background command to finish", 30*time.Second, func() bool {
		c, _ := toolCalls(t, h, sid)
		return c["toolu_bg"].status == acp.ToolCallStatusCompleted
	})
	calls, _ = toolCalls(t, h, sid)
	c := calls["toolu_bg"]
	// Claude Code may append its own "[exited with code N]" line.
	if got := c.terminal.String(); !strings.HasPrefix(got, "tick 1\ntick 2\ntick 3\n") || strings.Count(got, "tick") != 3 {
		t.Errorf("streamed output %q", got)
	}
	if !strings.Contains(string(c.exit), `"exit_code":0`) {
		t.Errorf("exit %s", c.exit)
	}

	h.WaitFor("the sleeper's first output", 30*time.Second, func() bool {
		c, _ := toolCalls(t, h, sid)
		return strings.Contains(c["toolu_sleep"].terminal.String(), "sleeping")
	})
	var none struct{}
	if err := h.Client.Call(h.Ctx(), "terminal/cancel", map[string]string{"sessionId": sid, "terminalId": "toolu_sleep"}, &none); err != nil {
		t.Fatalf("terminal/cancel: %v", err)
	}
	h.WaitFor("the stopped command to end", 30*time.Second, func() bool {
		c, _ := toolCalls(t, h, sid)
		return c["toolu_sleep"].exit != nil
	})
	calls, _ = toolCalls(t, h, sid)
	if c := calls["toolu_sleep"]; c.status != acp.ToolCallStatusFailed {
		t.Errorf("stopped command %+v", c)
	}
	if err := h.Client.Call(h.Ctx(), "terminal/cancel", map[string]string{"sessionId": sid, "terminalId": "toolu_sleep"}, &none); err == nil {
		t.Errorf("cancelling an ended command should fail")
	}
}

// TestPlans: TodoWrite and the Task* tools become plan updates with the
// full list each time, and no tool calls.
func TestPlans(t *testing.T) {
	t.Parallel()
	t.Run("TodoWrite", func(t *testing.T) {
		h := agenttest.Start(t, agenttest.Options{Env: []string{"CLAUDE_CODE_ENABLE_TASKS=0", "CLAUDE_CODE_ENABLE_TODO_TOOLS=1"}})
		h.API().Script(
			toolUse("toolu_t1", "TodoWrite", map[string]any{"todos": []map[string]any{
				{"content": "Write code", "status": "in_progress", "activeForm": "Writing code"},
				{"content": "Test code", "status": "pending", "activeForm": "Testing code"}}}),
			toolUse("toolu_t2", "TodoWrite", map[string]any{"todos": []map[string]any{
				{"content": "Write code", "status": "completed", "activeForm": "Writing code"},
				{"content": "Test code", "status": "in_progress", "activeForm": "Testing code"}}}),
			fakeapi.Text("Planned."),
		)
		sid := h.NewSession(h.Sandbox.WorkDir)
		if _, err := h.Prompt(sid, "plan"); err != nil {
			t.Fatal(err)
		}
		checkPlans(t, h, sid, []string{
			"in_progress:Writing code|pending:Test code",
			"completed:Write code|in_progress:Testing code",
		})
	})
	t.Run("Tasks", func(t *testing.T) {
		h := agenttest.Start(t, agenttest.Options{Env: []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1"}})
		h.API().Script(
			toolUse("toolu_c1", "TaskCreate", map[string]any{"subject": "Write code", "description": "w", "activeForm": "Writing code"}),
			toolUse("toolu_c2", "TaskCreate", map[string]any{"subject": "Test code", "description": "t"}),
			toolUse("toolu_u1", "TaskUpdate", map[string]any{"taskId": "1", "status": "in_progress"}),
			toolUse("toolu_u2", "TaskUpdate", map[string]any{"taskId": "1", "status": "completed"}),
			fakeapi.Text("Planned."),
		)
		sid := h.NewSession(h.Sandbox.WorkDir)
		if _, err := h.Prompt(sid, "plan"); err != nil {
			t.Fatal(err)
		}
		checkPlans(t, h, sid, []string{
			"pending:Write code",
			"pending:Write code|pending:Test code",
			"in_progress:Writing code|pending:Test code",
			"completed:Write code|pending:Test code",
		})
	})
}

func checkPlans(t *testing.T, h *agenttest.Harness, sid string, want []string) {
	t.Helper()
	var got []string
	for _, u := range h.Updates(sid) {
		if u.ToolCall != nil {
			t.Errorf("plan tools should not be tool calls: %+v", u.ToolCall)
		}
		if u.Plan == nil {
			continue
		}
		var parts []string
		for _, e := range u.Plan.Entries {
			parts = append(parts, string(e.Status)+":"+e.Content)
		}
		got = append(got, strings.Join(parts, "|"))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("plans:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
