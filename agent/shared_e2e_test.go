package agent_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/acp/acpv2"
	"github.com/claude-agent-acp/claude-agent-acp/agent"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
)

// Shared sessions (agent.Config.SharedSessions, as `serve` runs the
// agent) outlive their connection: that is the agent's bookkeeping, so the
// tests run on the in-process fake CLI (clifake). The real CLI's part is
// proven elsewhere: a real CLI stopped mid-turn by the agent's close (as
// Agent.Close stops an orphan) by TestNothingOfATurnRunsAfterClose, and a
// load that brings a closed session back from the real CLI's transcript,
// replay and --resume, by TestLoadReplaysWhatLiveShowed.

// sharedAgent is an agent whose connections share their sessions, as
// `serve` runs it, on w's fake CLIs in sb; it is closed at cleanup.
func sharedAgent(t *testing.T, sb *clitest.Sandbox, w *clifake.World, cfg ...func(*agent.Config)) *agent.Agent {
	c := agent.Config{Executable: sb.CLI, Env: sb.Env, Version: "test", SharedSessions: true, Launch: w.Launch}
	for _, f := range cfg {
		f(&c)
	}
	a := agent.New(c)
	t.Cleanup(a.Close)
	return a
}

// TestSharedSessionResumedOnANewConnectionV2: on a shared agent, a v2
// client whose connection ends mid-turn resumes the session on a new
// connection: the turn was not stopped (one model request), its rest and
// its end (idle, end_turn) reach the new connection, and the session goes
// on there.
func TestSharedSessionResumedOnANewConnectionV2(t *testing.T) {
	t.Parallel()
	sb := clitest.NewSandbox(t)
	ticks := slices.Repeat([]string{"tick "}, 40)
	w, m := newPromptWorld(map[string]clifake.Reply{
		"count slowly": {Chunks: append(ticks, "done."), Every: 150 * time.Millisecond},
		"next":         fakeText("Next answer."),
	})
	a := sharedAgent(t, sb, w)
	h1 := agenttest.StartV2(t, agenttest.Options{Sandbox: sb, Agent: a})
	sid := h1.NewSession(sb.WorkDir)
	if _, err := h1.Prompt(sid, "count slowly"); err != nil { // v2: answered once the prompt is in
		t.Fatal(err)
	}
	h1.WaitFor("the first chunk", 60*time.Second, func() bool { return strings.Contains(h1.AgentText(sid), "tick") })
	h1.Close()

	h2 := agenttest.StartV2(t, agenttest.Options{Sandbox: sb, Agent: a})
	if _, err := h2.Initialize(2, acpv2.ClientCapabilities{}); err != nil {
		t.Fatal(err)
	}
	var r acpv2.ResumeSessionResponse
	if err := h2.Call(acpv2.MethodSessionResume, json.RawMessage(`{"sessionId":"`+sid+`","cwd":"`+sb.WorkDir+`"}`), &r); err != nil {
		t.Fatal(err)
	}
	idle := h2.WaitIdle(sid, 1)
	if got := agenttest.StopReasonOf(idle); got != "end_turn" {
		t.Fatalf("the turn ended %q on the new connection, want end_turn", got)
	}
	if !strings.HasSuffix(h2.AgentText(sid), "done.") {
		var kinds []string
		for _, u := range h2.Updates(sid) {
			kinds = append(kinds, u.Kind+" "+string(u.Raw))
		}
		t.Fatalf("the new connection saw %q, not the end of the turn: %s", h2.AgentText(sid), strings.Join(kinds, "\n"))
	}
	if n := len(m.asked()); n != 1 {
		t.Fatalf("model requests: %d, want 1: the turn went on", n)
	}
	if _, err := h2.Prompt(sid, "next"); err != nil {
		t.Fatal(err)
	}
	h2.WaitIdle(sid, 2)
	if !strings.Contains(h2.AgentText(sid), "Next answer.") {
		t.Fatalf("next turn: %q", h2.AgentText(sid))
	}
}

// TestSharedSessionEndsWithAgentClose: a session whose connection ended
// keeps its CLI until Agent.Close, which ends it (no CLI outlives it).
func TestSharedSessionEndsWithAgentClose(t *testing.T) {
	t.Parallel()
	sb := clitest.NewSandbox(t)
	w, _ := newPromptWorld(map[string]clifake.Reply{"think forever": hang("Thinking")})
	a := sharedAgent(t, sb, w)
	h := agenttest.StartV2(t, agenttest.Options{Sandbox: sb, Agent: a})
	sid := h.NewSession(sb.WorkDir)
	if _, err := h.Prompt(sid, "think forever"); err != nil {
		t.Fatal(err)
	}
	h.WaitFor("the first chunk", 60*time.Second, func() bool { return strings.Contains(h.AgentText(sid), "Thinking") })
	h.Close()
	done := make(chan struct{})
	go func() { a.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Agent.Close did not end the orphaned session")
	}
	if live := w.Live(); len(live) != 0 {
		t.Fatalf("%d CLIs outlived Agent.Close", len(live))
	}
}

// TestSharedOrphanClosedWhenIdle: an abandoned session hibernates as idle
// sessions do: after IdleTimeout without a turn its CLI is closed, and a
// later connection's load opens it again from its transcript.
func TestSharedOrphanClosedWhenIdle(t *testing.T) {
	t.Parallel()
	sb := clitest.NewSandbox(t)
	w, m := newPromptWorld(map[string]clifake.Reply{"one": fakeText("Before."), "two": fakeText("After.")})
	a := sharedAgent(t, sb, w, func(c *agent.Config) { c.IdleTimeout = 300 * time.Millisecond })
	h1 := agenttest.Start(t, agenttest.Options{Sandbox: sb, Agent: a})
	h1.Initialize(acp.ClientCapabilities{})
	sid := h1.NewSession(sb.WorkDir)
	if _, err := h1.Prompt(sid, "one"); err != nil {
		t.Fatal(err)
	}
	h1.Close()
	h1.WaitFor("the idle orphan's CLI to be gone", 20*time.Second, func() bool { return len(w.Live()) == 0 })
	h2 := agenttest.Start(t, agenttest.Options{Sandbox: sb, Agent: a})
	h2.Initialize(acp.ClientCapabilities{})
	if err := h2.Client.Call(h2.Ctx(), acp.MethodSessionLoad, &acp.LoadSessionRequest{SessionID: acp.SessionID(sid), Cwd: sb.WorkDir, MCPServers: []acp.MCPServer{}}, &acp.LoadSessionResponse{}); err != nil {
		t.Fatal(err)
	}
	if r, err := h2.Prompt(sid, "two"); err != nil || r.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt after the load: %v %v", r, err)
	}
	if got := h2.AgentText(sid); !strings.Contains(got, "Before.") || !strings.Contains(got, "After.") {
		t.Fatalf("the new connection saw %q", got)
	}
	if last := m.last(t); w.CLIs()[last.CLI].Flag("resume") != sid || !inHistory(last, "one") {
		t.Errorf("the load's prompt ran without the session's history: %q", last.History)
	}
}
