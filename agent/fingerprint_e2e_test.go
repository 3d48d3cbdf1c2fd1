package agent_test

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/clitest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/fakeapi"
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

// TestReopenLiveSameSettingsKeepsCLI: session/resume and session/load of a
// live session with the same cwd, the same MCP servers and the same
// additional directories (in another order) keep the running CLI.
func TestReopenLiveSameSettingsKeepsCLI(t *testing.T) {
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
	if after := onePID(t, "after the load"); after == before {
		t.Errorf("the CLI was kept (pid %d) although the MCP servers changed", after)
	}
	h.API().Script(fakeapi.Text("Done."))
	if resp, err := h.Prompt(sid, "and now"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt after load: %+v %v", resp, err)
	}
	reqs := h.API().MainRequests()
	if last := reqs[len(reqs)-1]; !last.HasTool("mcp__shouter__shout") {
		t.Errorf("the new server's tool did not reach the API: %v", last.Tools)
	}
}
