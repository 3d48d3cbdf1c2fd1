package agent_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// TestPermissionAllowOnce: a command Claude Code wants approved runs
// after the user allows it once; the request offers allow, always allow
// (named after the rule Claude Code suggests) and reject, and is about a
// call the client was already shown.
func TestPermissionAllowOnce(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.Permission = choose("allow")
	h.API().Script(
		toolUse("toolu_touch", "Bash", map[string]any{"command": "touch made.txt", "description": "Create a file"}),
		fakeapi.Text("Created."),
	)
	sid := h.NewSession(h.Sandbox.WorkDir)
	if resp, err := h.Prompt(sid, "create made.txt"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	if _, err := os.Stat(filepath.Join(h.Sandbox.WorkDir, "made.txt")); err != nil {
		t.Fatalf("the allowed command did not run: %v", err)
	}
	perms := h.Permissions()
	if len(perms) != 1 {
		t.Fatalf("%d permission requests", len(perms))
	}
	p := perms[0]
	var names []string
	for _, o := range p.Options {
		names = append(names, string(o.OptionID)+"="+string(o.Kind)+":"+o.Name)
	}
	want := "allow=allow_once:Allow|allow_always=allow_always:Always allow `Bash(touch made.txt)` in this project|reject=reject_once:Reject"
	if strings.Join(names, "|") != want {
		t.Errorf("options\n got %s\nwant %s", strings.Join(names, "|"), want)
	}
	if title, _ := p.ToolCall.Title.Get(); title != "touch made.txt" {
		t.Errorf("title %q", title)
	}
	if at, req := wireIndex(h, `"sessionUpdate":"tool_call"`, "toolu_touch"), wireIndex(h, "session/request_permission"); at < 0 || at > req {
		t.Errorf("tool_call at %d, request at %d", at, req)
	}
	calls, _ := toolCalls(t, h, sid)
	if c := calls["toolu_touch"]; c.status != acp.ToolCallStatusCompleted {
		t.Errorf("call %+v", c)
	}
}

// TestPermissionAlwaysAllow: "always allow" hands Claude Code's own
// suggestion back, so the same command is not asked about again (the rule
// lands in the project's local settings), and for edits it switches the
// session to accept-edits, which the client hears about.
func TestPermissionAlwaysAllow(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.Permission = choose("allow_always")
	a, b := filepath.Join(h.Sandbox.WorkDir, "a.txt"), filepath.Join(h.Sandbox.WorkDir, "b.txt")
	h.API().Script(
		toolUse("toolu_t1", "Bash", map[string]any{"command": "touch a.txt", "description": "Create a"}),
		toolUse("toolu_t2", "Bash", map[string]any{"command": "touch a.txt", "description": "Create a again"}),
		toolUse("toolu_w1", "Write", map[string]any{"file_path": a, "content": "one\n"}),
		toolUse("toolu_w2", "Write", map[string]any{"file_path": b, "content": "two\n"}),
		fakeapi.Text("Done."),
	)
	sid := h.NewSession(h.Sandbox.WorkDir)
	if resp, err := h.Prompt(sid, "go"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	perms := h.Permissions()
	if len(perms) != 2 || perms[0].ToolCall.ToolCallID != "toolu_t1" || perms[1].ToolCall.ToolCallID != "toolu_w1" {
		var ids []string
		for _, p := range perms {
			ids = append(ids, string(p.ToolCall.ToolCallID))
		}
		t.Fatalf("asked about %v, want toolu_t1 and toolu_w1 only", ids)
	}
	settings, err := os.ReadFile(filepath.Join(h.Sandbox.WorkDir, ".claude", "settings.local.json"))
	if err != nil || !strings.Contains(string(settings), "Bash(touch a.txt)") {
		t.Errorf("project rule: %s %v", settings, err)
	}
	for _, p := range []string{a, b} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s not written: %v", filepath.Base(p), err)
		}
	}
	sawMode := false
	for _, u := range h.Updates(sid) {
		if u.CurrentModeUpdate != nil && u.CurrentModeUpdate.CurrentModeID == "acceptEdits" {
			sawMode = true
		}
	}
	if !sawMode {
		t.Errorf("no current_mode_update to acceptEdits")
	}
	calls, _ := toolCalls(t, h, sid)
	for _, id := range []string{"toolu_t1", "toolu_t2", "toolu_w1", "toolu_w2"} {
		if c := calls[id]; c == nil || c.status != acp.ToolCallStatusCompleted {
			t.Errorf("%s: %+v", id, c)
		}
	}
}

// TestPermissionReject: a rejected write does not touch the disk; the
// call fails, Claude is told and the turn goes on.
func TestPermissionReject(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.Permission = choose("reject")
	path := filepath.Join(h.Sandbox.WorkDir, "secret.txt")
	h.API().Script(
		toolUse("toolu_w", "Write", map[string]any{"file_path": path, "content": "nope\n"}),
		fakeapi.Text("OK, I will not write it."),
	)
	sid := h.NewSession(h.Sandbox.WorkDir)
	if resp, err := h.Prompt(sid, "write secret.txt"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the rejected write touched the disk: %v", err)
	}
	calls, _ := toolCalls(t, h, sid)
	c := calls["toolu_w"]
	if c.status != acp.ToolCallStatusFailed || len(diffs(c.content)) != 0 || !strings.Contains(contentText(c.content), "rejected") {
		t.Errorf("rejected call %+v", c)
	}
	reqs := h.API().MainRequests()
	res := reqs[len(reqs)-1].ToolResults()
	if len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].Text, "rejected") {
		t.Errorf("Claude was told %+v", res)
	}
}

// TestAlwaysAllowAddsNoOwnDirectory: Claude Code suggests the session's
// own directory as an extra working directory for a command that cds into
// it; "always allow" saves the command's rule but not that directory, so
// Claude is never told "Additional working directories added: <cwd>", nor
// "… removed" after a load.
//
// Both of its real CLIs prove the CLI's side: the first suggests the
// directory, saves the rule and would tell Claude of an added directory;
// the second, resuming the session after the load, would tell Claude of a
// removed one, from what the first recorded. What the agent does (answer
// "always allow" without the session's own directory) only shows in what
// these two CLIs then send the model, so neither moves to the fake.
func TestAlwaysAllowAddsNoOwnDirectory(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.Permission = choose("allow_always")
	wd := h.Sandbox.WorkDir
	h.API().Script(
		toolUse("toolu_cd", "Bash", map[string]any{"command": "cd " + wd + " && touch a.txt", "description": "Create a file"}),
		fakeapi.Text("Created."), fakeapi.Text("Next."), fakeapi.Text("After the load."),
	)
	sid := h.NewSession(wd)
	for _, p := range []string{"create a.txt", "next"} {
		if resp, err := h.Prompt(sid, p); err != nil || resp.StopReason != acp.StopReasonEndTurn {
			t.Fatalf("%s: %+v %v", p, resp, err)
		}
	}
	if len(h.Permissions()) != 1 {
		t.Fatalf("%d permission requests", len(h.Permissions()))
	}
	if _, err := os.Stat(filepath.Join(wd, "a.txt")); err != nil {
		t.Fatalf("the command did not run: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(wd, ".claude", "settings.local.json")); !strings.Contains(string(b), "touch a.txt") {
		t.Errorf("the command's rule was not saved: %s", b)
	}
	h2 := reload(t, h, sid, acp.ClientCapabilities{})
	if _, err := h2.Prompt(sid, "after the load"); err != nil {
		t.Fatal(err)
	}
	reqs := h2.API().MainRequests() // the sandbox's one API: both agents' requests
	if len(reqs) != 4 {
		t.Errorf("%d model requests, want 4", len(reqs))
	}
	for n, r := range reqs {
		if b := string(r.Body); strings.Contains(b, "Additional working directories") {
			i := strings.Index(b, "Additional working directories")
			t.Errorf("request %d tells Claude of an extra working directory: %s", n, b[i:min(len(b), i+200)])
		}
	}
}

// TestPlanModeOffersOnlyWhatClaudeSuggests: in plan mode Claude Code asks
// about a Write with no suggestion; the request offers allow and reject,
// and no "always" rule Claude Code did not suggest. In the default mode
// the same Write offers Claude Code's own suggestion (all edits for the
// session).
func TestPlanModeOffersOnlyWhatClaudeSuggests(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.Permission = choose("reject")
	wd := h.Sandbox.WorkDir
	write := func(id string) fakeapi.Step {
		return toolUse(id, "Write", map[string]any{"file_path": filepath.Join(wd, "notes.txt"), "content": "x\n"})
	}
	h.API().Script(write("toolu_plan"), fakeapi.Text("Planned."), write("toolu_default"), fakeapi.Text("Done."))
	sid := h.NewSession(wd)
	var resp acp.SetSessionModeResponse
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionSetMode, &acp.SetSessionModeRequest{SessionID: acp.SessionID(sid), ModeID: "plan"}, &resp); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Prompt(sid, "write notes in plan mode"); err != nil {
		t.Fatal(err)
	}
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionSetMode, &acp.SetSessionModeRequest{SessionID: acp.SessionID(sid), ModeID: "default"}, &resp); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Prompt(sid, "write notes"); err != nil {
		t.Fatal(err)
	}
	perms := h.Permissions()
	if len(perms) != 2 {
		t.Fatalf("%d permission requests, want 2", len(perms))
	}
	options := func(req *acp.RequestPermissionRequest) string {
		var out []string
		for _, o := range req.Options {
			out = append(out, string(o.Kind)+":"+o.Name)
		}
		return strings.Join(out, "|")
	}
	if got, want := options(perms[0]), "allow_once:Allow|reject_once:Reject"; got != want {
		t.Errorf("plan mode offers %s, want %s", got, want)
	}
	if got, want := options(perms[1]), "allow_once:Allow|allow_always:Always allow all edits for this session|reject_once:Reject"; got != want {
		t.Errorf("default mode offers %s, want %s", got, want)
	}
}
