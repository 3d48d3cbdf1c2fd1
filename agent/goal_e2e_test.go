package agent_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// The goal extension end to end with the real CLI. `/goal <condition>`
// installs a Stop hook whose evaluator is a tool-less API request with its
// own system prompt; the fake answers it with the hook's JSON verdict.

func onEvaluator(verdict string) fakeapi.Step {
	s := fakeapi.Text(verdict)
	s.Match = &fakeapi.Match{SystemContains: "evaluating a stop-condition hook"}
	return s
}

func onLoop(s fakeapi.Step) fakeapi.Step {
	s.Match = &fakeapi.Match{HasTools: fakeapi.Bool(true)}
	return s
}

// goalSnapshots lists the _meta.goal values the client got on sid, in
// order, as JSON ("null" for a cleared goal).
func goalSnapshots(h *agenttest.Harness, sid string) []map[string]any {
	var out []map[string]any
	for _, u := range h.Updates(sid) {
		if i := u.SessionInfoUpdate; i != nil && i.Meta["goal"] != nil {
			var g map[string]any
			_ = json.Unmarshal(i.Meta["goal"], &g)
			out = append(out, g) // nil for null
		}
	}
	return out
}

func lastGoal(h *agenttest.Harness, sid string) (map[string]any, bool) {
	gs := goalSnapshots(h, sid)
	if len(gs) == 0 {
		return nil, false
	}
	return gs[len(gs)-1], true
}

func clearGoal(h *agenttest.Harness, sid string) error {
	var out json.RawMessage
	return h.Client.Call(h.Ctx(), "_session/goal", map[string]string{"sessionId": sid, "action": "clear"}, &out)
}

// TestGoalSetUpdateClear runs a goal through the CLI's own active_goal
// frames (CLI 2.1.332 writes them when CLAUDE_CODE_REMOTE is set): the
// optimistic snapshot, the CLI's authoritative ones with iterations and
// reasons as the Stop hook keeps Claude going, then a clear through
// _session/goal while the goal's turn runs.
func TestGoalSetUpdateClear(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t, agenttest.Options{Env: []string{"CLAUDE_CODE_REMOTE=1"}})
	h.API().Script(
		onLoop(fakeapi.Text("Working on it.")),
		onEvaluator(`{"ok": false, "reason": "tests not run yet"}`),
		onLoop(fakeapi.Text("Ran the tests.")),
		onEvaluator(`{"ok": false, "reason": "one test fails"}`),
		onLoop(fakeapi.Hang(0)),
	)
	init := h.Initialize(acp.ClientCapabilities{})
	if got := string(init.Meta["goal"]); got != `{"actions":["clear"],"controlMethod":"_session/goal","version":1}` {
		t.Errorf("goal capability %s", got)
	}
	sid := h.NewSession(h.Sandbox.WorkDir)
	done := promptAsync(h, sid, "/goal the tests pass")
	h.WaitFor("the second Stop-hook round", 60*time.Second, func() bool {
		g, _ := lastGoal(h, sid)
		return g != nil && g["iterations"] == 2.0
	})
	h.WaitFor("the goal's next turn", 30*time.Second, func() bool {
		for _, r := range h.API().Requests() {
			if r.Answer == fakeapi.KindHang {
				return true
			}
		}
		return false
	})
	if err := clearGoal(h, sid); err != nil {
		t.Fatalf("_session/goal clear: %v", err)
	}
	if r := <-done; r.err != nil {
		t.Fatalf("the goal's prompt: %v", r.err)
	} else {
		t.Logf("the goal's prompt ended %s when the clear preempted it", r.resp.StopReason)
	}
	gs := goalSnapshots(h, sid)
	var shape []string
	for _, g := range gs {
		if g == nil {
			shape = append(shape, "null")
			continue
		}
		if g["objective"] != "the tests pass" || g["status"] != "active" || g["controlMethod"] != "_session/goal" || g["tokens_at_start"] != nil {
			t.Errorf("snapshot %v", g)
		}
		s := "active"
		if it, ok := g["iterations"].(float64); ok {
			s += " " + strings.Repeat("+", int(it))
			if ts, _ := g["createdAt"].(float64); ts < 1e12 {
				t.Errorf("createdAt %v", g["createdAt"])
			}
		}
		if r, ok := g["lastReason"].(string); ok {
			s += " " + r
		}
		shape = append(shape, s)
	}
	want := "active|active |active + tests not run yet|active ++ one test fails|null"
	if got := strings.Join(shape, "|"); got != want {
		t.Errorf("goal snapshots\n got %s\nwant %s", got, want)
	}
	var e *acp.Error
	err := h.Client.Call(h.Ctx(), "_session/goal", map[string]string{"sessionId": sid, "action": "pause"}, new(json.RawMessage))
	if !errors.As(err, &e) || e.Code != -32602 {
		t.Errorf("unsupported action: %v", err)
	}
	validSubagentWire(t, h) // (extension responses have no schema)
	h.DumpWire()
}

// TestGoalSurvivesCancel: without the CLI's frames (the default), the
// snapshot is the optimistic one; cancelling the goal's prompt leaves the
// goal in place; the Stop hook's rounds in a later prompt update it; a
// clear on an idle session runs as an ordinary turn.
func TestGoalSurvivesCancel(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.API().Script(
		onLoop(fakeapi.Hang(0)),
		onLoop(fakeapi.Text("Continuing.")),
		onEvaluator(`{"ok": false, "reason": "build still red"}`),
		onLoop(fakeapi.Text("Fixed the build.")),
		onEvaluator(`{"ok": true, "reason": "green"}`),
	)
	sid := h.NewSession(h.Sandbox.WorkDir)
	done := promptAsync(h, sid, "/goal the build is green")
	h.WaitFor("the goal's turn", 60*time.Second, func() bool {
		for _, r := range h.API().Requests() {
			if r.Answer == fakeapi.KindHang {
				return true
			}
		}
		return false
	})
	if g, _ := lastGoal(h, sid); g == nil || g["objective"] != "the build is green" || g["status"] != "active" {
		t.Fatalf("optimistic snapshot %v", g)
	}
	h.Cancel(sid)
	if r := <-done; r.err != nil || r.resp.StopReason != acp.StopReasonCancelled {
		t.Fatalf("cancelled goal prompt: %+v %v", r.resp, r.err)
	}
	if resp, err := h.Prompt(sid, "Keep going."); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("next prompt: %+v %v", resp, err)
	}
	for _, g := range goalSnapshots(h, sid) {
		if g == nil {
			t.Fatal("the cancelled prompt cleared the goal")
		}
	}
	var rounds []string
	for _, g := range goalSnapshots(h, sid) {
		if r, ok := g["lastReason"].(string); ok {
			rounds = append(rounds, g["status"].(string)+" "+r)
		}
	}
	if len(rounds) == 0 || rounds[0] != "active build still red" {
		t.Errorf("the Stop hook's round did not update the goal: %v", rounds)
	}
	// The second round met it (the CLI records that in the transcript only).
	h.WaitFor("the goal met", 10*time.Second, func() bool {
		g, _ := lastGoal(h, sid)
		return g != nil && g["status"] == "complete"
	})
	if g, _ := lastGoal(h, sid); g["lastReason"] != "green" || g["iterations"] != 2.0 {
		t.Errorf("met goal %v", g)
	}
	if err := clearGoal(h, sid); err != nil {
		t.Fatalf("_session/goal clear: %v", err)
	}
	if g, ok := lastGoal(h, sid); !ok || g != nil {
		t.Errorf("after clear: %v", g)
	}
	validSubagentWire(t, h) // (extension responses have no schema)
	h.DumpWire()
}

// TestGoalMetNormalModeE2E (issue 15, item 17): without the remote-mode
// active_goal frames, a goal whose Stop hook is satisfied goes out as
// status "complete" with the evaluator's reason and the iterations, from
// what the CLI records in the transcript; a later prompt leaves it so.
func TestGoalMetNormalModeE2E(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.API().Script(
		onLoop(fakeapi.Text("Working on it.")),
		onEvaluator(`{"ok": false, "reason": "tests not run yet"}`),
		onLoop(fakeapi.Text("Ran the tests.")),
		onEvaluator(`{"ok": true, "reason": "all tests pass"}`),
		onLoop(fakeapi.Text("Anything else?")),
	)
	sid := h.NewSession(h.Sandbox.WorkDir)
	if resp, err := h.Prompt(sid, "/goal the tests pass"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("goal prompt: %+v %v", resp, err)
	}
	h.WaitFor("the goal met", 10*time.Second, func() bool {
		g, _ := lastGoal(h, sid)
		return g != nil && g["status"] == "complete"
	})
	g, _ := lastGoal(h, sid)
	if g["objective"] != "the tests pass" || g["lastReason"] != "all tests pass" || g["iterations"] != 2.0 || g["controlMethod"] != "_session/goal" {
		t.Errorf("met goal %v", g)
	}
	var statuses []string
	for _, s := range goalSnapshots(h, sid) {
		statuses = append(statuses, s["status"].(string))
	}
	if strings.Join(statuses, " ") != "active active complete" {
		t.Errorf("statuses %v", statuses)
	}
	if resp, err := h.Prompt(sid, "thanks"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("next prompt: %+v %v", resp, err)
	}
	if g, _ := lastGoal(h, sid); g == nil || g["status"] != "complete" {
		t.Errorf("after the next prompt: %v", g)
	}
	validSubagentWire(t, h)
}
