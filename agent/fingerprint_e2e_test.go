package agent_test

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// fingerprintSession starts a session with two additional directories and
// no MCP server, and runs one prompt, so that its CLI is up and its
// transcript exists. It returns the session and the directories.
func fingerprintSession(t *testing.T, h *agenttest.Harness) (sid string, dirs []string) {
	t.Helper()
	h.Initialize(acp.ClientCapabilities{})
	dirs = []string{t.TempDir(), t.TempDir()}
	sid, err := newSessionWith(t, h, map[string]any{
		"cwd": h.Sandbox.WorkDir, "mcpServers": []any{}, "additionalDirectories": dirs,
	})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	h.API().Script(fakeapi.Text("First answer."))
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

func onePID(t *testing.T, what string) int {
	t.Helper()
	pids := clitest.LivePIDs(t)
	if len(pids) != 1 {
		t.Fatalf("%s: want one CLI, found %v", what, pids)
	}
	return pids[0]
}

// otherPID waits for the one CLI to be another than before: a load is
// answered once its history is out, while the CLI it restarts may still be
// on its way.
func otherPID(t *testing.T, h *agenttest.Harness, before int, what string) int {
	t.Helper()
	h.WaitFor(what, 30*time.Second, func() bool {
		pids := clitest.LivePIDs(t)
		return len(pids) == 1 && pids[0] != before
	})
	return onePID(t, what)
}

// TestReopenLiveSameSettingsKeepsCLI: session/resume and session/load of a
// live session with the same cwd, the same MCP servers and the same
// additional directories (in another order) keep the running CLI.
func TestReopenLiveSameSettingsKeepsCLI(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	sid, dirs := fingerprintSession(t, h)
	before := onePID(t, "after the first prompt")
	same := map[string]any{"sessionId": sid, "cwd": h.Sandbox.WorkDir, "mcpServers": []any{},
		"additionalDirectories": []string{dirs[1], dirs[0]}}
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionResume, same, &acp.ResumeSessionResponse{}); err != nil {
		t.Fatalf("session/resume: %v", err)
	}
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionLoad, same, &acp.LoadSessionResponse{}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	if after := onePID(t, "after resume and load"); after != before {
		t.Errorf("the CLI was restarted (pid %d, then %d)", before, after)
	}
	h.API().Script(fakeapi.Text("Still here."))
	if resp, err := h.Prompt(sid, "again"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt after resume: %+v %v", resp, err)
	}
}

// TestResumeLiveNewMCPServerRestartsCLI: session/resume of a live session
// with an added stdio MCP server restarts its CLI, which offers Claude the
// new server's tool, and keeps the session's permission mode.
func TestResumeLiveNewMCPServerRestartsCLI(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	sid, dirs := fingerprintSession(t, h)
	if first := h.API().MainRequests(); len(first) == 0 || first[len(first)-1].HasTool("mcp__shouter__shout") {
		t.Fatalf("the first CLI offered the tool of a server it was not given")
	}
	var sm acp.SetSessionModeResponse
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionSetMode, &acp.SetSessionModeRequest{SessionID: acp.SessionID(sid), ModeID: "acceptEdits"}, &sm); err != nil {
		t.Fatalf("session/set_mode: %v", err)
	}
	before := onePID(t, "after the first prompt")
	var rr acp.ResumeSessionResponse
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionResume, map[string]any{
		"sessionId": sid, "cwd": h.Sandbox.WorkDir, "additionalDirectories": dirs,
		"mcpServers": []any{shouterServer(t, "shouter")},
	}, &rr); err != nil {
		t.Fatalf("session/resume: %v", err)
	}
	if after := onePID(t, "after the resume"); after == before {
		t.Errorf("the CLI was kept (pid %d) although the MCP servers changed", after)
	}
	if rr.Modes == nil || rr.Modes.CurrentModeID != "acceptEdits" {
		t.Errorf("the permission mode was not kept: %+v", rr.Modes)
	}
	h.API().Script(fakeapi.Text("Now with a shouter."))
	if resp, err := h.Prompt(sid, "what tools now"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt after resume: %+v %v", resp, err)
	}
	reqs := h.API().MainRequests()
	last := reqs[len(reqs)-1]
	if !last.HasTool("mcp__shouter__shout") {
		t.Errorf("the new server's tool did not reach the API: %v", last.Tools)
	}
	if !slices.ContainsFunc(last.Messages, func(m fakeapi.MessageSummary) bool { return m.Role == "assistant" }) {
		t.Errorf("the restarted CLI did not continue the conversation: %+v", last.Messages)
	}
}

// TestLoadLiveRestartCancelsRunningTurn: a session/load that restarts the
// CLI answers the turn it was running "cancelled", replays, and the
// session goes on with the new CLI.
func TestLoadLiveRestartCancelsRunningTurn(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	sid, dirs := fingerprintSession(t, h)
	before := onePID(t, "after the first prompt")
	h.API().Script(fakeapi.Hang(30))
	type result struct {
		resp *acp.PromptResponse
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := h.Prompt(sid, "long job")
		done <- result{resp, err}
	}()
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
	otherPID(t, h, before, "a new CLI after the load, the MCP servers having changed")
	h.API().Script(fakeapi.Text("Done."))
	if resp, err := h.Prompt(sid, "and now"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt after load: %+v %v", resp, err)
	}
	reqs := h.API().MainRequests()
	if last := reqs[len(reqs)-1]; !last.HasTool("mcp__shouter__shout") {
		t.Errorf("the new server's tool did not reach the API: %v", last.Tools)
	}
}

// TestReopenLiveMetaOptionsFingerprint (issue 15, item 19): the _meta
// options of session/new, resume and load (_meta.systemPrompt,
// _meta.claudeCode.options …) are part of the live session's fingerprint:
// the same options (members in another order) keep the running CLI,
// changed or dropped ones restart it with the new ones, which reach the
// API.
func TestReopenLiveMetaOptionsFingerprint(t *testing.T) {
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
	before := onePID(t, "after the first prompt")
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
	if after := onePID(t, "after an equal resume"); after != before {
		t.Fatalf("the CLI was restarted for equal _meta options (pid %d, then %d)", before, after)
	}
	// A changed system prompt: a new CLI. (The API cannot show it: a
	// resumed CLI was seen to keep the session's system prompt sections.)
	alpha["systemPrompt"] = map[string]any{"append": "Remember BETA."}
	reopen(acp.MethodSessionResume, alpha)
	changed := onePID(t, "after a changed resume")
	if changed == before {
		t.Fatalf("the CLI was kept (pid %d) although the system prompt changed", changed)
	}
	// Changed CLI options: a new CLI that runs with them.
	reopen(acp.MethodSessionResume, map[string]any{"systemPrompt": map[string]any{"append": "Remember BETA."},
		"claudeCode": map[string]any{"options": map[string]any{"disallowedTools": []string{"WebFetch"}}}})
	if after := onePID(t, "after another changed resume"); after == changed {
		t.Fatalf("the CLI was kept although the options changed")
	} else {
		changed = after
	}
	if r := ask("second"); r.HasTool("WebFetch") {
		t.Errorf("after the change: tools %v", r.Tools)
	}
	// Options dropped (a load without _meta): restarted without them.
	reopen(acp.MethodSessionLoad, nil)
	otherPID(t, h, changed, "a new CLI after a load without the options")
	if r := ask("third"); !r.HasTool("WebFetch") {
		t.Errorf("after dropping them: tools %v", r.Tools)
	}
}
