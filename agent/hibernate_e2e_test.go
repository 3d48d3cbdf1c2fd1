package agent_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent"
	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/faultcli"
)

// TestHibernationCap: with a cap of two live CLIs, five sessions each get
// a prompt in turn; never more than two claude processes run, and every
// session answers a follow-up that needs its earlier history (the model
// request carries it), resumed with --resume from its transcript.
func TestHibernationCap(t *testing.T) {
	h := agenttest.Start(t, agenttest.Options{Config: func(c *agent.Config) { c.MaxLiveSessions = 2 }})
	const n = 5
	var sids []string
	peak := 0
	watch := func() {
		if live := len(clitest.LivePIDs(t)); live > peak {
			peak = live
		}
	}
	for i := range n {
		sid := h.NewSession(t.TempDir())
		sids = append(sids, sid)
		h.API().Script(fakeapi.Text(fmt.Sprintf("noted %d", i)))
		if r, err := h.Prompt(sid, fmt.Sprintf("remember the word apple-%d", i)); err != nil || r.StopReason != acp.StopReasonEndTurn {
			t.Fatalf("prompt %d: %+v %v", i, r, err)
		}
		watch()
		// The cap applies once the hibernated CLI has had time to close.
		h.WaitFor("at most two live CLIs", 15*time.Second, func() bool { watch(); return len(clitest.LivePIDs(t)) <= 2 })
	}
	for i, sid := range sids {
		h.API().Script(fakeapi.Text(fmt.Sprintf("you said apple-%d", i)))
		if r, err := h.Prompt(sid, "what word did I give you?"); err != nil || r.StopReason != acp.StopReasonEndTurn {
			t.Fatalf("follow-up %d: %+v %v", i, r, err)
		}
		reqs := h.API().MainRequests()
		last := reqs[len(reqs)-1]
		if !strings.Contains(string(last.Body), fmt.Sprintf("apple-%d", i)) {
			t.Errorf("session %d resumed without its history", i)
		}
		h.WaitFor("at most two live CLIs", 15*time.Second, func() bool { watch(); return len(clitest.LivePIDs(t)) <= 2 })
	}
	// Between a start and the close of the one it displaces, three may
	// overlap for a moment; more would mean the cap did nothing.
	if peak > 3 {
		t.Errorf("%d claude processes at once with a cap of 2", peak)
	}
}

// TestHibernationIdle: an idle session's CLI is closed after the idle
// timeout; the next prompt resumes it with its history, mode and model
// (the model request after the resume names the model chosen before).
func TestHibernationIdle(t *testing.T) {
	h := agenttest.Start(t, agenttest.Options{Config: func(c *agent.Config) { c.IdleTimeout = 300 * time.Millisecond }})
	sid := h.NewSession(h.Sandbox.WorkDir)
	var sm acp.SetSessionModeResponse
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionSetMode, &acp.SetSessionModeRequest{SessionID: acp.SessionID(sid), ModeID: "acceptEdits"}, &sm); err != nil {
		t.Fatal(err)
	}
	h.API().Script(fakeapi.Text("noted"))
	if _, err := h.Prompt(sid, "remember banana"); err != nil {
		t.Fatal(err)
	}
	var resp acp.SetSessionConfigOptionResponse
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionSetConfigOption, map[string]string{
		"sessionId": sid, "configId": "model", "value": "sonnet"}, &resp); err != nil {
		t.Fatal(err)
	}
	h.WaitFor("the idle CLI to close", 20*time.Second, func() bool { return len(clitest.LivePIDs(t)) == 0 })
	h.API().Script(fakeapi.Text("banana"))
	if r, err := h.Prompt(sid, "which fruit?"); err != nil || r.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt after hibernation: %+v %v", r, err)
	}
	reqs := h.API().MainRequests()
	if body := string(reqs[len(reqs)-1].Body); !strings.Contains(body, "remember banana") {
		t.Errorf("resumed without its history")
	}
	if m := reqs[len(reqs)-1].Model; !strings.Contains(m, "sonnet") {
		t.Errorf("resumed on model %q, want the sonnet chosen before", m)
	}
	for _, u := range h.Updates(sid) {
		if m := u.CurrentModeUpdate; m != nil && m.CurrentModeID != "acceptEdits" {
			t.Errorf("the mode changed to %s across hibernation", m.CurrentModeID)
		}
	}
}

// TestHibernationNeverWhileBusy: a session with a permission request open
// keeps its CLI however long the idle timeout has passed.
func TestHibernationNeverWhileBusy(t *testing.T) {
	h := agenttest.Start(t, agenttest.Options{Config: func(c *agent.Config) { c.IdleTimeout = 200 * time.Millisecond }})
	withdrawn := holdPermissions(h)
	h.API().Script(toolUse("toolu_w", "Write", map[string]any{"file_path": h.Sandbox.WorkDir + "/x.txt", "content": "x\n"}), fakeapi.Text("done"))
	sid := h.NewSession(h.Sandbox.WorkDir)
	done := make(chan error, 1)
	go func() { _, err := h.Prompt(sid, "write x.txt"); done <- err }()
	h.WaitFor("the permission request", 30*time.Second, func() bool { return len(h.Permissions()) == 1 })
	time.Sleep(time.Second) // five idle timeouts
	if len(clitest.LivePIDs(t)) == 0 {
		t.Fatal("a session with a permission request open hibernated")
	}
	h.Cancel(sid)
	<-done
	wantWithdrawn(t, withdrawn)
}

// TestHibernationTranscriptDeleted: the transcript of a hibernated session
// is deleted; the next prompt fails with a clear error rather than starting
// a CLI that has forgotten the conversation.
func TestHibernationTranscriptDeleted(t *testing.T) {
	h := agenttest.Start(t, agenttest.Options{Config: func(c *agent.Config) { c.IdleTimeout = 300 * time.Millisecond }})
	sid := h.NewSession(h.Sandbox.WorkDir)
	h.API().Script(fakeapi.Text("noted"))
	if _, err := h.Prompt(sid, "remember cherry"); err != nil {
		t.Fatal(err)
	}
	h.WaitFor("the idle CLI to close", 20*time.Second, func() bool { return len(clitest.LivePIDs(t)) == 0 })
	path, err := transcript.Find(h.Sandbox.ConfigDir, sid)
	if err != nil {
		t.Fatalf("transcript: %v", err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	_, err = h.Prompt(sid, "which fruit?")
	var ae *acp.Error
	if !errors.As(err, &ae) || !strings.Contains(ae.Message+string(ae.Data), "transcript was deleted") {
		t.Fatalf("want a clear error about the deleted transcript, got %v", err)
	}
	if n := len(h.API().MainRequests()); n != 1 {
		t.Errorf("%d model requests: a CLI without the history answered", n)
	}
}

// TestHibernationResumeCrash: the CLI that resumes a hibernated session
// fails to start; the prompt gets the reason, and the next one, once the
// CLI can start again, goes on with the session.
func TestHibernationResumeCrash(t *testing.T) {
	configDir := t.TempDir()
	h, dir := startFake(t, func(c *agent.Config) { c.IdleTimeout = 200 * time.Millisecond },
		faultcli.EnvStart+"=exit", "CLAUDE_CONFIG_DIR="+configDir)
	if err := faultcli.Heal(dir); err != nil {
		t.Fatal(err)
	}
	sid := h.NewSession(h.Sandbox.WorkDir)
	wantEndTurn(t, h, sid, "first", "first")
	// The fake keeps no transcript; the resume needs one to exist.
	stored := filepath.Join(configDir, "projects", "p", sid+".jsonl")
	if err := os.MkdirAll(filepath.Dir(stored), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stored, []byte(`{"type":"user","uuid":"u1","sessionId":"`+sid+`","message":{"role":"user","content":"first"}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.WaitFor("the idle fake CLI to close", 20*time.Second, func() bool { return len(faultcli.WaitGone(dir, 0)) == 0 })
	if err := os.Remove(filepath.Join(dir, "healed")); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Prompt(sid, "second"); err == nil || !strings.Contains(err.Error(), "could not start") || strings.Contains(err.Error(), "transcript") {
		t.Fatalf("want the start failure, got %v", err)
	}
	if err := faultcli.Heal(dir); err != nil {
		t.Fatal(err)
	}
	wantEndTurn(t, h, sid, "third", "third")
}

// TestHibernationThenClose: closing a hibernated session answers at once
// and leaves no CLI behind.
func TestHibernationThenClose(t *testing.T) {
	h := agenttest.Start(t, agenttest.Options{Config: func(c *agent.Config) { c.IdleTimeout = 200 * time.Millisecond }})
	sid := h.NewSession(h.Sandbox.WorkDir)
	h.API().Script(fakeapi.Text("ok"))
	if _, err := h.Prompt(sid, "hello"); err != nil {
		t.Fatal(err)
	}
	h.WaitFor("the idle CLI to close", 20*time.Second, func() bool { return len(clitest.LivePIDs(t)) == 0 })
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionClose, &acp.CloseSessionRequest{SessionID: acp.SessionID(sid)}, &acp.CloseSessionResponse{}); err != nil {
		t.Fatalf("close: %v", err)
	}
	if _, err := h.Prompt(sid, "still there?"); err == nil {
		t.Fatal("a closed session answered")
	}
	if n := len(clitest.LivePIDs(t)); n != 0 {
		t.Fatalf("%d CLIs after closing a hibernated session", n)
	}
}

// TestHibernationNeverDuringATurn: a turn waiting on the model keeps its
// session's CLI past the idle timeout.
func TestHibernationNeverDuringATurn(t *testing.T) {
	h := agenttest.Start(t, agenttest.Options{Config: func(c *agent.Config) { c.IdleTimeout = 200 * time.Millisecond }})
	h.API().Script(fakeapi.Hang(0))
	sid := h.NewSession(h.Sandbox.WorkDir)
	done := make(chan error, 1)
	go func() { _, err := h.Prompt(sid, "think hard"); done <- err }()
	h.WaitFor("the model request", 30*time.Second, func() bool { return len(h.API().MainRequests()) > 0 })
	time.Sleep(time.Second) // five idle timeouts
	if len(clitest.LivePIDs(t)) == 0 {
		t.Fatal("a session with a turn running hibernated")
	}
	h.Cancel(sid)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestHibernationKeepsAlwaysAllow: what the user always allowed before the
// session hibernated is still allowed after the resume: the second write
// runs without asking again. (For Write, CLI 2.1.332 suggests a mode or a
// rule saved in settings, both of which survive a restart by themselves;
// the session-only rules that the agent hands back as --allowedTools are
// checked by TestSessionRules.)
func TestHibernationKeepsAlwaysAllow(t *testing.T) {
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
// after the resume: the model is offered their tools and a call works.
func TestHibernationKeepsMCPServers(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h := agenttest.Start(t, agenttest.Options{Config: func(c *agent.Config) { c.IdleTimeout = 300 * time.Millisecond }})
	h.Initialize(acp.ClientCapabilities{})
	env := []map[string]string{{"name": mcpServerEnv, "value": "stdio"}}
	sid, err := newSessionWith(t, h, map[string]any{
		"cwd":        h.Sandbox.WorkDir,
		"mcpServers": []map[string]any{{"name": "plain", "command": exe, "args": []string{}, "env": env}},
	})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	h.API().Script(fakeapi.Text("ready"))
	if _, err := h.Prompt(sid, "hello"); err != nil {
		t.Fatal(err)
	}
	h.WaitFor("the idle CLI to close", 20*time.Second, func() bool { return len(clitest.LivePIDs(t)) == 0 })
	h.API().Script(toolUse("toolu_p", "mcp__plain__shout", map[string]any{"text": "again"}), fakeapi.Text("shouted"))
	if r, err := h.Prompt(sid, "shout again"); err != nil || r.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt after the resume: %+v %v", r, err)
	}
	reqs := h.API().MainRequests()
	if !reqs[len(reqs)-2].HasTool("mcp__plain__shout") {
		t.Error("after the resume Claude was not offered the MCP server's tool")
	}
	calls, _ := toolCalls(t, h, sid)
	if c := calls["toolu_p"]; c == nil || c.status != acp.ToolCallStatusCompleted || !strings.Contains(contentText(c.content), "AGAIN") {
		t.Errorf("the MCP call after the resume: %+v", c)
	}
}

// TestHibernationNeverWithABackgroundCommand: a command running in the
// background after the turn keeps its session's CLI past the idle timeout
// (hibernating would kill it).
func TestHibernationNeverWithABackgroundCommand(t *testing.T) {
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

// TestHibernationCapExceededWhenAllBusy: with the cap reached and every
// live session busy, a new session's prompt is not held: its CLI starts
// anyway (the cap is exceeded for that while, and the log says so).
func TestHibernationCapExceededWhenAllBusy(t *testing.T) {
	h := agenttest.Start(t, agenttest.Options{Config: func(c *agent.Config) { c.MaxLiveSessions = 1 }})
	h.API().Script(fakeapi.Hang(0), fakeapi.Text("answered"))
	busy := h.NewSession(t.TempDir())
	done := make(chan error, 1)
	go func() { _, err := h.Prompt(busy, "think forever"); done <- err }()
	h.WaitFor("the busy session's model request", 30*time.Second, func() bool { return len(h.API().MainRequests()) > 0 })
	other := h.NewSession(t.TempDir())
	if r, err := h.Prompt(other, "quick question"); err != nil || r.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("the second session's prompt: %+v %v", r, err)
	}
	if n := len(clitest.LivePIDs(t)); n != 2 {
		t.Errorf("%d live CLIs, want 2 (the busy one kept, the cap exceeded)", n)
	}
	h.Cancel(busy)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
