package agent_test

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// A live session's fingerprint (its cwd, MCP servers, additional
// directories and _meta options) decides whether session/resume and
// session/load keep its CLI or restart it with the new settings. That is
// the agent's bookkeeping: the tests run on the in-process fake CLI
// (clifake), which shows what each CLI was started with (its flags, its
// --mcp-config servers, its initialize request, its environment). What the
// real CLI does with them is proven on the real CLI elsewhere: a
// --mcp-config server's tools reach the API and calls work
// (TestClientMCPServers, TestHibernationKeepsMCPServers), a CLI started
// with --resume continues the conversation (TestLoadReplaysWhatLiveShowed),
// and the _meta options reach the API (TestMetaOptionsReachTheAPI, below).

// fingerprintSession starts a session with two additional directories and
// no MCP server, and runs one prompt, so that its CLI is up and its
// transcript exists. It returns the session and the directories.
func fingerprintSession(t *testing.T, h *agenttest.Harness, m *promptModel) (sid string, dirs []string) {
	t.Helper()
	h.Initialize(acp.ClientCapabilities{})
	dirs = []string{t.TempDir(), t.TempDir()}
	sid, err := newSessionWith(t, h, map[string]any{
		"cwd": h.Sandbox.WorkDir, "mcpServers": []any{}, "additionalDirectories": dirs,
	})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	m.set("hello", fakeText("First answer."))
	if resp, err := h.Prompt(sid, "hello"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("first prompt: %+v %v", resp, err)
	}
	return sid, dirs
}

// shouterServer is the test MCP server (mcp_helpers_test.go) as a stdio
// server entry of a request.
func shouterServer(t *testing.T, name string) map[string]any {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"name": name, "command": exe, "args": []string{},
		"env": []map[string]string{{"name": mcpServerEnv, "value": "stdio"}}}
}

// TestReopenLiveSameSettingsKeepsCLI: session/resume and session/load of a
// live session with the same cwd, the same MCP servers and the same
// additional directories (in another order) keep the running CLI.
func TestReopenLiveSameSettingsKeepsCLI(t *testing.T) {
	t.Parallel()
	w, m := newPromptWorld(nil)
	h := fakeHarness(t, w)
	sid, dirs := fingerprintSession(t, h, m)
	before := oneLive(t, w, "after the first prompt")
	if got := before.Flag("add-dir"); got != dirs[0] {
		t.Errorf("the CLI was started with --add-dir %q, want %q", got, dirs[0])
	}
	same := map[string]any{"sessionId": sid, "cwd": h.Sandbox.WorkDir, "mcpServers": []any{},
		"additionalDirectories": []string{dirs[1], dirs[0]}}
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionResume, same, &acp.ResumeSessionResponse{}); err != nil {
		t.Fatalf("session/resume: %v", err)
	}
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionLoad, same, &acp.LoadSessionResponse{}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	if after := oneLive(t, w, "after resume and load"); after != before {
		t.Errorf("the CLI was restarted (CLI %d, then %d)", before.N(), after.N())
	}
	m.set("again", fakeText("Still here."))
	if resp, err := h.Prompt(sid, "again"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt after resume: %+v %v", resp, err)
	}
	if n := len(w.CLIs()); n != 1 {
		t.Errorf("%d CLIs started, want 1", n)
	}
}

// TestResumeLiveNewMCPServerRestartsCLI: session/resume of a live session
// with an added stdio MCP server restarts its CLI, which is given the new
// server (and so offers Claude its tool), resumes the conversation, and
// keeps the session's permission mode.
func TestResumeLiveNewMCPServerRestartsCLI(t *testing.T) {
	t.Parallel()
	w, m := newPromptWorld(nil)
	h := fakeHarness(t, w)
	sid, dirs := fingerprintSession(t, h, m)
	before := oneLive(t, w, "after the first prompt")
	if slices.Contains(before.MCPServers(), "shouter") {
		t.Fatalf("the first CLI was given a server it was not given: %v", before.MCPServers())
	}
	var sm acp.SetSessionModeResponse
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionSetMode, &acp.SetSessionModeRequest{SessionID: acp.SessionID(sid), ModeID: "acceptEdits"}, &sm); err != nil {
		t.Fatalf("session/set_mode: %v", err)
	}
	var rr acp.ResumeSessionResponse
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionResume, map[string]any{
		"sessionId": sid, "cwd": h.Sandbox.WorkDir, "additionalDirectories": dirs,
		"mcpServers": []any{shouterServer(t, "shouter")},
	}, &rr); err != nil {
		t.Fatalf("session/resume: %v", err)
	}
	after := oneLive(t, w, "after the resume")
	if after == before {
		t.Errorf("the CLI was kept (CLI %d) although the MCP servers changed", after.N())
	}
	if rr.Modes == nil || rr.Modes.CurrentModeID != "acceptEdits" {
		t.Errorf("the permission mode was not kept: %+v", rr.Modes)
	}
	m.set("what tools now", fakeText("Now with a shouter."))
	if resp, err := h.Prompt(sid, "what tools now"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt after resume: %+v %v", resp, err)
	}
	last := m.last(t)
	if c := w.CLIs()[last.CLI]; !slices.Contains(c.MCPServers(), "shouter") {
		t.Errorf("the new server did not reach the CLI that ran the prompt: %v", c.MCPServers())
	}
	if c := w.CLIs()[last.CLI]; c.Flag("resume") != sid || !inHistory(last, "hello") {
		t.Errorf("the restarted CLI did not continue the conversation: --resume %q, history %q", c.Flag("resume"), last.History)
	}
	if last.Mode != "acceptEdits" {
		t.Errorf("the restarted CLI runs in mode %q, want acceptEdits", last.Mode)
	}
}

// TestLoadLiveRestartCancelsRunningTurn: a session/load that restarts the
// CLI answers the turn it was running "cancelled", replays, and the
// session goes on with the new CLI.
func TestLoadLiveRestartCancelsRunningTurn(t *testing.T) {
	t.Parallel()
	w, m := newPromptWorld(nil)
	h := fakeHarness(t, w)
	sid, dirs := fingerprintSession(t, h, m)
	before := oneLive(t, w, "after the first prompt")
	m.set("long job", hang("working on the long job"))
	done := promptAsync(h, sid, "long job")
	h.WaitFor("the hanging turn's text", 30*time.Second, func() bool { return h.AgentText(sid) != "First answer." && h.AgentText(sid) != "" })
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionLoad, map[string]any{
		"sessionId": sid, "cwd": h.Sandbox.WorkDir, "additionalDirectories": dirs,
		"mcpServers": []any{shouterServer(t, "shouter")},
	}, &acp.LoadSessionResponse{}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	if r := <-done; r.err != nil || r.resp.StopReason != acp.StopReasonCancelled {
		t.Fatalf("the running turn: %+v %v", r.resp, r.err)
	}
	otherLive(t, h, w, before, "a new CLI after the load, the MCP servers having changed")
	m.set("and now", fakeText("Done."))
	if resp, err := h.Prompt(sid, "and now"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt after load: %+v %v", resp, err)
	}
	if c := w.CLIs()[m.last(t).CLI]; c == before || !slices.Contains(c.MCPServers(), "shouter") {
		t.Errorf("the prompt after the load ran in CLI %d, given servers %v", c.N(), c.MCPServers())
	}
}

// TestReopenLiveMetaOptionsFingerprint (issue 15, item 19): the _meta
// options of session/new, resume and load (_meta.systemPrompt,
// _meta.claudeCode.options …) are part of the live session's fingerprint:
// the same options (members in another order) keep the running CLI,
// changed or dropped ones restart it with the new ones (its initialize
// request, flags and environment show them; TestMetaOptionsReachTheAPI
// proves on the real CLI that they reach the API).
func TestReopenLiveMetaOptionsFingerprint(t *testing.T) {
	t.Parallel()
	w, m := newPromptWorld(nil)
	h := fakeHarness(t, w)
	h.Initialize(acp.ClientCapabilities{})
	alpha := map[string]any{"systemPrompt": map[string]any{"append": "Remember ALPHA."},
		"claudeCode": map[string]any{"options": map[string]any{"env": map[string]string{"A_VAR": "1", "B_VAR": "2"}}}}
	sid, err := newSessionWith(t, h, map[string]any{"cwd": h.Sandbox.WorkDir, "mcpServers": []any{}, "_meta": alpha})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	// ask runs a prompt and returns the CLI that ran it.
	ask := func(what string) *clifake.CLI {
		t.Helper()
		if resp, err := h.Prompt(sid, what); err != nil || resp.StopReason != acp.StopReasonEndTurn {
			t.Fatalf("%s: %+v %v", what, resp, err)
		}
		return w.CLIs()[m.last(t).CLI]
	}
	disallowed := func(c *clifake.CLI) bool { return strings.Contains(c.Flag("disallowedTools"), "WebFetch") }
	appended := func(c *clifake.CLI) any { return c.Initialize()["appendSystemPrompt"] }
	if c := ask("first"); appended(c) != "Remember ALPHA." || disallowed(c) || c.Env("A_VAR") != "1" || c.Env("B_VAR") != "2" {
		t.Fatalf("the _meta options did not reach the CLI: appendSystemPrompt %v, --disallowedTools %q, env %q %q",
			appended(c), c.Flag("disallowedTools"), c.Env("A_VAR"), c.Env("B_VAR"))
	}
	before := oneLive(t, w, "after the first prompt")
	reopen := func(method string, meta map[string]any) {
		t.Helper()
		params := map[string]any{"sessionId": sid, "cwd": h.Sandbox.WorkDir, "mcpServers": []any{}}
		if meta != nil {
			params["_meta"] = meta
		}
		if err := h.Client.Call(h.Ctx(), method, params, &struct{}{}); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}
	// The same options, written in another order: the CLI stays.
	reopen(acp.MethodSessionResume, map[string]any{
		"claudeCode":   map[string]any{"options": map[string]any{"env": map[string]string{"B_VAR": "2", "A_VAR": "1"}}},
		"systemPrompt": map[string]any{"append": "Remember ALPHA."}})
	if after := oneLive(t, w, "after an equal resume"); after != before {
		t.Fatalf("the CLI was restarted for equal _meta options (CLI %d, then %d)", before.N(), after.N())
	}
	// A changed system prompt: a new CLI, started with it.
	alpha["systemPrompt"] = map[string]any{"append": "Remember BETA."}
	reopen(acp.MethodSessionResume, alpha)
	changed := oneLive(t, w, "after a changed resume")
	if changed == before {
		t.Fatalf("the CLI was kept (CLI %d) although the system prompt changed", changed.N())
	}
	h.WaitFor("the new CLI's initialize", 30*time.Second, func() bool { return appended(changed) != nil })
	if appended(changed) != "Remember BETA." {
		t.Errorf("the restarted CLI has appendSystemPrompt %v", appended(changed))
	}
	// Changed CLI options: a new CLI that runs with them.
	reopen(acp.MethodSessionResume, map[string]any{"systemPrompt": map[string]any{"append": "Remember BETA."},
		"claudeCode": map[string]any{"options": map[string]any{"disallowedTools": []string{"WebFetch"}}}})
	if after := oneLive(t, w, "after another changed resume"); after == changed {
		t.Fatalf("the CLI was kept although the options changed")
	} else {
		changed = after
	}
	if c := ask("second"); c != changed || !disallowed(c) || c.Env("A_VAR") != "" {
		t.Errorf("after the change: CLI %d (want %d), --disallowedTools %q, A_VAR %q", c.N(), changed.N(), c.Flag("disallowedTools"), c.Env("A_VAR"))
	}
	// Options dropped (a load without _meta): restarted without them.
	reopen(acp.MethodSessionLoad, nil)
	otherLive(t, h, w, changed, "a new CLI after a load without the options")
	if c := ask("third"); disallowed(c) || appended(c) != nil {
		t.Errorf("after dropping them: --disallowedTools %q, appendSystemPrompt %v", c.Flag("disallowedTools"), appended(c))
	}
}

// TestMetaOptionsReachTheAPI is the real CLI's part of the _meta options
// (TestReopenLiveMetaOptionsFingerprint checks on the fake CLI which
// options each CLI is started with): _meta.systemPrompt.append reaches the
// system prompt and the CLI offers its own tools (WebFetch among them);
// a session/resume with claudeCode.options.disallowedTools restarts the
// CLI, and the tool is no longer offered.
func TestMetaOptionsReachTheAPI(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.Initialize(acp.ClientCapabilities{})
	alpha := map[string]any{"systemPrompt": map[string]any{"append": "Remember ALPHA."},
		"claudeCode": map[string]any{"options": map[string]any{"env": map[string]string{"A_VAR": "1", "B_VAR": "2"}}}}
	sid, err := newSessionWith(t, h, map[string]any{"cwd": h.Sandbox.WorkDir, "mcpServers": []any{}, "_meta": alpha})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	ask := func(what string) fakeapi.Request {
		t.Helper()
		h.API().Script(fakeapi.Text("ok"))
		if resp, err := h.Prompt(sid, what); err != nil || resp.StopReason != acp.StopReasonEndTurn {
			t.Fatalf("%s: %+v %v", what, resp, err)
		}
		reqs := h.API().MainRequests()
		return reqs[len(reqs)-1]
	}
	if r := ask("first"); !strings.Contains(r.System, "Remember ALPHA.") || !r.HasTool("WebFetch") {
		t.Fatalf("the _meta options did not reach the API: system %q", r.System)
	}
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionResume, map[string]any{"sessionId": sid, "cwd": h.Sandbox.WorkDir, "mcpServers": []any{},
		"_meta": map[string]any{"systemPrompt": map[string]any{"append": "Remember ALPHA."},
			"claudeCode": map[string]any{"options": map[string]any{"disallowedTools": []string{"WebFetch"}}}}}, &struct{}{}); err != nil {
		t.Fatalf("session/resume: %v", err)
	}
	if r := ask("second"); r.HasTool("WebFetch") {
		t.Errorf("after the change: tools %v", r.Tools)
	}
}
