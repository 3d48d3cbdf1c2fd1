package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
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

// TestSessionOpenInTwoAgents: a session live in one agent cannot be
// loaded in another (the load says why); once the first closes it, the
// second loads it and continues it, and now the first is refused.
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

	second := startBinary(t, sb.WorkDir, env)
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
	sb.API.Script(fakeapi.Text("Three."))
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
func TestHibernatedSessionOpenedElsewhere(t *testing.T) {
	t.Parallel()
	sb := clitest.NewSandbox(t)
	t.Cleanup(func() { clitest.NoOrphans(t) })
	env := sb.With("CLAUDE_CODE_EXECUTABLE="+sb.CLI, "CLAUDE_AGENT_ACP_MAX_LIVE_SESSIONS=1")
	first := startBinary(t, sb.WorkDir, env)
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
	sb.API.Script(fakeapi.Text("B one."))
	if got := first.prompt(4, b, "session b"); got != "end_turn" {
		t.Fatalf("b: %s", got)
	}

	second := startBinary(t, sb.WorkDir, sb.With("CLAUDE_CODE_EXECUTABLE="+sb.CLI))
	second.initialize()
	if m := second.call(1, "session/load", loadParams(a, sb.WorkDir)); m.Error != nil {
		t.Fatalf("second window's load of the hibernated session: %s", m.raw)
	}
	sb.API.Script(fakeapi.Text("A two."))
	if got := second.prompt(2, a, "a from the second window"); got != "end_turn" {
		t.Fatalf("second window's prompt: %s", got)
	}
	requests := len(sb.API.MainRequests())
	if m := first.call(5, "session/prompt", textPrompt(a, "a from the first window")); !openElsewhere(m) {
		t.Fatalf("first window's prompt: want session_open_elsewhere, got %s", m.raw)
	}
	if got := len(sb.API.MainRequests()); got != requests {
		t.Errorf("the refused prompt reached the model (%d requests, want %d)", got, requests)
	}
}
