package agent_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// TestHibernationIdle: an idle session's CLI is closed after the idle
// timeout; the next prompt resumes it with its history, mode and model
// (the model request after the resume is made by a CLI resumed with the
// earlier prompt, in the mode and on the model chosen before). It is the
// agent's bookkeeping and runs on the in-process fake CLI, with the real
// CLI's model list; that a real CLI resumed after hibernation goes on with
// the session is proven by the tests below, and that a real CLI resumed
// with --resume has the conversation by TestLoadReplaysWhatLiveShowed.
func TestHibernationIdle(t *testing.T) {
	t.Parallel()
	w, m := newPromptWorld(map[string]clifake.Reply{"remember banana": fakeText("noted"), "which fruit?": fakeText("banana")})
	w.Models = clifake.RealModels()
	h := fakeHarness(t, w, agenttest.Options{Config: func(c *agent.Config) { c.IdleTimeout = 300 * time.Millisecond }})
	sid := h.NewSession(h.Sandbox.WorkDir)
	var sm acp.SetSessionModeResponse
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionSetMode, &acp.SetSessionModeRequest{SessionID: acp.SessionID(sid), ModeID: "acceptEdits"}, &sm); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Prompt(sid, "remember banana"); err != nil {
		t.Fatal(err)
	}
	var resp acp.SetSessionConfigOptionResponse
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionSetConfigOption, map[string]string{
		"sessionId": sid, "configId": "model", "value": "sonnet"}, &resp); err != nil {
		t.Fatal(err)
	}
	h.WaitFor("the idle CLI to close", 20*time.Second, func() bool { return len(w.Live()) == 0 })
	if r, err := h.Prompt(sid, "which fruit?"); err != nil || r.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt after hibernation: %+v %v", r, err)
	}
	last := m.last(t)
	if c := w.CLIs()[last.CLI]; c.N() == 0 || c.Flag("resume") != sid || !inHistory(last, "remember banana") {
		t.Errorf("resumed without its history: CLI %d, --resume %q, history %q", c.N(), c.Flag("resume"), last.History)
	}
	if !strings.Contains(last.Model, "sonnet") {
		t.Errorf("resumed on model %q, want the sonnet chosen before", last.Model)
	}
	if last.Mode != "acceptEdits" {
		t.Errorf("resumed in mode %q, want the acceptEdits chosen before", last.Mode)
	}
	for _, u := range h.Updates(sid) {
		if m := u.CurrentModeUpdate; m != nil && m.CurrentModeID != "acceptEdits" {
			t.Errorf("the mode changed to %s across hibernation", m.CurrentModeID)
		}
	}
}

// TestHibernationKeepsAlwaysAllow: what the user always allowed before the
// session hibernated is still allowed after the resume: the second write
// runs without asking again. (For Write, CLI 2.1.332 suggests a mode or a
// rule saved in settings, both of which survive a restart by themselves;
// the session-only rules that the agent hands back as --allowedTools are
// checked by TestSessionRules.)
func TestHibernationKeepsAlwaysAllow(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t, agenttest.Options{Config: func(c *agent.Config) { c.IdleTimeout = 300 * time.Millisecond }})
	h.Permission = choose("allow_always")
	first, second := filepath.Join(h.Sandbox.WorkDir, "a.txt"), filepath.Join(h.Sandbox.WorkDir, "b.txt")
	h.API().Script(toolUse("toolu_a", "Write", map[string]any{"file_path": first, "content": "a\n"}), fakeapi.Text("wrote a"))
	sid := h.NewSession(h.Sandbox.WorkDir)
	if _, err := h.Prompt(sid, "write a.txt"); err != nil {
		t.Fatal(err)
	}
	if n := len(h.Permissions()); n != 1 {
		t.Fatalf("%d permission requests for the first write", n)
	}
	h.WaitFor("the idle CLI to close", 20*time.Second, func() bool { return len(clitest.LivePIDs(t)) == 0 })
	h.API().Script(toolUse("toolu_b", "Write", map[string]any{"file_path": second, "content": "b\n"}), fakeapi.Text("wrote b"))
	if _, err := h.Prompt(sid, "write b.txt"); err != nil {
		t.Fatal(err)
	}
	if n := len(h.Permissions()); n != 1 {
		t.Errorf("asked again after the resume (%d requests): the always-allow was lost", n)
	}
	if _, err := os.Stat(second); err != nil {
		t.Errorf("the second write did not run: %v", err)
	}
}

// TestHibernationKeepsMCPServers: the client's MCP servers are there again
// after the resume: the CLI resumed after hibernation is given them, so
// that Claude is offered their tools. Handing them back is the agent's
// part, checked on the in-process fake CLI (the servers of each CLI's
// --mcp-config); that a real CLI given a server this way offers its tools
// and runs its calls, shown as completed tool calls with the server's
// answer, is TestClientMCPServers'.
func TestHibernationKeepsMCPServers(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	w, m := newPromptWorld(map[string]clifake.Reply{"hello": fakeText("ready"), "shout again": fakeText("shouted")})
	h := fakeHarness(t, w, agenttest.Options{Config: func(c *agent.Config) { c.IdleTimeout = 300 * time.Millisecond }})
	h.Initialize(acp.ClientCapabilities{})
	env := []map[string]string{{"name": mcpServerEnv, "value": "stdio"}}
	sid, err := newSessionWith(t, h, map[string]any{
		"cwd":        h.Sandbox.WorkDir,
		"mcpServers": []map[string]any{{"name": "plain", "command": exe, "args": []string{}, "env": env}},
	})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	if _, err := h.Prompt(sid, "hello"); err != nil {
		t.Fatal(err)
	}
	if c := w.CLIs()[m.last(t).CLI]; !slices.Equal(c.MCPServers(), []string{"plain"}) {
		t.Fatalf("the first CLI was given servers %v", c.MCPServers())
	}
	h.WaitFor("the idle CLI to close", 20*time.Second, func() bool { return len(w.Live()) == 0 })
	if r, err := h.Prompt(sid, "shout again"); err != nil || r.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt after the resume: %+v %v", r, err)
	}
	c := w.CLIs()[m.last(t).CLI]
	if c.Flag("resume") != sid {
		t.Fatalf("the prompt after hibernation ran in a CLI started with --resume %q", c.Flag("resume"))
	}
	if !slices.Equal(c.MCPServers(), []string{"plain"}) {
		t.Errorf("after the resume the CLI was given servers %v, not the client's: Claude is not offered their tools", c.MCPServers())
	}
}

// TestHibernationNeverWithABackgroundCommand: a command running in the
// background after the turn keeps its session's CLI past the idle timeout
// (hibernating would kill it).
func TestHibernationNeverWithABackgroundCommand(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t, agenttest.Options{Config: func(c *agent.Config) { c.IdleTimeout = 200 * time.Millisecond }})
	h.API().Script(
		toolUse("toolu_sleep", "Bash", map[string]any{"command": "echo sleeping; sleep 30", "description": "Sleep", "run_in_background": true}),
		fakeapi.Text("Started."),
	)
	sid := h.NewSession(h.Sandbox.WorkDir)
	if _, err := h.Prompt(sid, "start it"); err != nil {
		t.Fatal(err)
	}
	calls, _ := toolCalls(t, h, sid)
	if c := calls["toolu_sleep"]; c == nil || c.status != acp.ToolCallStatusInProgress {
		t.Fatalf("background call at the end of the turn: %+v", c)
	}
	time.Sleep(time.Second) // five idle timeouts
	if len(clitest.LivePIDs(t)) == 0 {
		t.Fatal("a session with a command running in the background hibernated")
	}
	calls, _ = toolCalls(t, h, sid)
	if c := calls["toolu_sleep"]; c.status != acp.ToolCallStatusInProgress {
		t.Errorf("the background command ended: %+v", c)
	}
}
