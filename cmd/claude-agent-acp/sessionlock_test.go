package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/faultcli"
)

// Issue 35: two editor windows (two agent processes) on one session. The
// second is told before its CLI writes anything, never forks the history
// in silence, and gets the session once the first has let it go.

func openElsewhere(m wireMsg) bool {
	if m.Error == nil {
		return false
	}
	var data struct {
		Reason string `json:"reason"`
	}
	_ = json.Unmarshal(m.Error.Data, &data)
	return data.Reason == "session_open_elsewhere" && strings.Contains(m.Error.Message, "open in another window")
}

func loadParams(sid, cwd string) map[string]any {
	return map[string]any{"sessionId": sid, "cwd": cwd, "mcpServers": []any{}}
}

// fakeCLIWindow is the environment of an agent (an editor window) on the
// sandbox's config directory whose CLIs are the fake CLI process
// (internal/test/faultcli), and the fake's state directory: the session
// lock is the agent's (claude.Options.LockSession, taken by the agent
// process around each CLI it starts), so a window whose CLI only has to
// answer need not start the real one.
func fakeCLIWindow(t *testing.T, sb *clitest.Sandbox) (dir string, env []string) {
	t.Helper()
	dir = t.TempDir()
	t.Cleanup(func() {
		if alive := faultcli.KillLeftovers(dir, 10*time.Second); len(alive) > 0 {
			t.Errorf("fake CLI processes outlived the agent: %v", alive)
		}
	})
	return dir, faultcli.Env(dir, sb.With("CLAUDE_CODE_EXECUTABLE="+fakeCLI)...)
}

// TestSessionOpenInTwoAgents: a session live in one agent cannot be
// loaded in another (the load says why); once the first closes it, the
// second loads it and continues it, and now the first is refused.
//
// The first window runs the real CLI: the transcript the second loads
// (its whole history) is the real CLI's. The second window's CLI is the
// fake process (fakeCLIWindow): the refusals and the hand-off are the two
// agent processes' locks, and its prompt needs only a CLI that answers
// (that the real CLI resumes a loaded session with its conversation is
// agent/TestLoadReplaysWhatLiveShowed's).
func TestSessionOpenInTwoAgents(t *testing.T) {
	t.Parallel()
	sb := clitest.NewSandbox(t)
	t.Cleanup(func() { clitest.NoOrphans(t) })
	env := sb.With("CLAUDE_CODE_EXECUTABLE=" + sb.CLI)
	first := startBinary(t, sb.WorkDir, env)
	first.initialize()
	m := first.call(1, "session/new", map[string]any{"cwd": sb.WorkDir, "mcpServers": []any{}})
	var r struct {
		SessionID string `json:"sessionId"`
	}
	if m.Error != nil || json.Unmarshal(m.Result, &r) != nil {
		t.Fatalf("session/new: %s", m.raw)
	}
	sid := r.SessionID
	sb.API.Script(fakeapi.Text("One."))
	if got := first.prompt(2, sid, "first window"); got != "end_turn" {
		t.Fatalf("first prompt: %s", got)
	}

	fakeDir, fakeEnv := fakeCLIWindow(t, sb)
	second := startBinary(t, fakeDir, fakeEnv)
	second.initialize()
	if m := second.call(1, "session/load", loadParams(sid, sb.WorkDir)); !openElsewhere(m) {
		t.Fatalf("second window's load: want session_open_elsewhere, got %s", m.raw)
	}
	// The first window goes on as if nothing happened.
	sb.API.Script(fakeapi.Text("Two."))
	if got := first.prompt(3, sid, "still mine"); got != "end_turn" {
		t.Fatalf("first window after the refused load: %s", got)
	}
	if m := first.call(4, "session/close", map[string]any{"sessionId": sid}); m.Error != nil {
		t.Fatalf("close: %s", m.raw)
	}
	// Now the second window has it, with the whole history.
	if m := second.call(2, "session/load", loadParams(sid, sb.WorkDir)); m.Error != nil {
		t.Fatalf("second window's load after the close: %s", m.raw)
	}
	history := strings.Join(second.seen, "\n")
	for _, want := range []string{"first window", "One.", "still mine", "Two."} {
		if !strings.Contains(history, want) {
			t.Errorf("the second window's history lacks %q", want)
		}
	}
	if got := second.prompt(3, sid, "second window"); got != "end_turn" {
		t.Fatalf("second window's prompt: %s", got)
	}
	if m := first.call(5, "session/load", loadParams(sid, sb.WorkDir)); !openElsewhere(m) {
		t.Fatalf("first window's load while the second runs it: %s", m.raw)
	}
}

// TestHibernatedSessionOpenedElsewhere: a session whose CLI hibernated in
// one agent is loaded and continued in another; a prompt in the first is
// refused, before it reaches a CLI, instead of forking the history.
//
// One real CLI: session a's first, whose transcript the second window
// loads. The first window's next CLI (b's, which takes the one live slot so
// that a's hibernates) and the second window's are the fake CLI process
// (fakeCLIWindow; the first window's executable is a script that runs the
// real CLI once, then the fake): hibernation, the lock and the refusal are
// the agents' own.
func TestHibernatedSessionOpenedElsewhere(t *testing.T) {
	t.Parallel()
	sb := clitest.NewSandbox(t)
	t.Cleanup(func() { clitest.NoOrphans(t) })
	firstDir, firstEnv := fakeCLIWindow(t, sb)
	once := filepath.Join(t.TempDir(), "claude")
	script := "#!/bin/sh\nif mkdir '" + filepath.Join(firstDir, "real-started") + "' 2>/dev/null; then exec '" + sb.CLI + "' \"$@\"; fi\nexec '" + fakeCLI + "' \"$@\"\n"
	if err := os.WriteFile(once, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	first := startBinary(t, firstDir, append(firstEnv, "CLAUDE_CODE_EXECUTABLE="+once, "CLAUDE_AGENT_ACP_MAX_LIVE_SESSIONS=1"))
	first.initialize()
	newSession := func(p *agentProc, id int) string {
		m := p.call(id, "session/new", map[string]any{"cwd": sb.WorkDir, "mcpServers": []any{}})
		var r struct {
			SessionID string `json:"sessionId"`
		}
		if m.Error != nil || json.Unmarshal(m.Result, &r) != nil {
			t.Fatalf("session/new: %s", m.raw)
		}
		return r.SessionID
	}
	a := newSession(first, 1)
	sb.API.Script(fakeapi.Text("A one."))
	if got := first.prompt(2, a, "session a"); got != "end_turn" {
		t.Fatalf("a: %s", got)
	}
	// A second session takes the one live CLI: a's hibernates.
	b := newSession(first, 3)
	if got := first.prompt(4, b, "session b"); got != "end_turn" {
		t.Fatalf("b: %s", got)
	}
	if len(faultcli.PIDs(firstDir)) != 1 {
		t.Fatalf("b's CLI was not the fake: %v", faultcli.Trace(firstDir))
	}
	// a's CLI, told to stop, lets the session go when it has exited: its
	// lock file goes with the lock (claude/sessionlock.go).
	lock := filepath.Join(sb.ConfigDir, "claude-agent-acp", "locks", a+".lock")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(lock); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a's CLI still holds %s", lock)
		}
	}

	secondDir, secondEnv := fakeCLIWindow(t, sb)
	second := startBinary(t, secondDir, secondEnv)
	second.initialize()
	if m := second.call(1, "session/load", loadParams(a, sb.WorkDir)); m.Error != nil {
		t.Fatalf("second window's load of the hibernated session: %s", m.raw)
	}
	if got := second.prompt(2, a, "a from the second window"); got != "end_turn" {
		t.Fatalf("second window's prompt: %s", got)
	}
	// What reached a CLI or the model so far: the refused prompt adds nothing.
	reached := func() (n int) {
		for _, dir := range []string{firstDir, secondDir} {
			for _, e := range faultcli.Trace(dir) {
				if e.What == "start" || e.What == "frame" && strings.HasPrefix(e.Detail, "user") {
					n++
				}
			}
		}
		return n + len(sb.API.MainRequests())
	}
	before := reached()
	if m := first.call(5, "session/prompt", textPrompt(a, "a from the first window")); !openElsewhere(m) {
		t.Fatalf("first window's prompt: want session_open_elsewhere, got %s", m.raw)
	}
	if got := reached(); got != before {
		t.Errorf("the refused prompt reached a CLI or the model (%d CLI starts, prompts and requests, want %d)", got, before)
	}
}
