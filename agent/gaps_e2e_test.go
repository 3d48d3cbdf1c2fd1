package agent_test

import (
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// modelPicker is the model option of a config option list: its current
// value and its rows' values.
func modelPicker(opts []acp.SessionConfigOption) (current string, rows []string) {
	for _, o := range opts {
		if o.ID == "model" && o.Select != nil {
			for _, r := range o.Select.Options.Ungrouped {
				rows = append(rows, string(r.Value))
			}
			return string(o.Select.CurrentValue), rows
		}
	}
	return "", nil
}

// TestRefusalFallbackMovesModelPickerE2E: after the CLI retried a refused
// request on its fallback model for the rest of the session, the client's
// model picker follows (an extra row for a model the list does not name),
// in a config_option_update with the full list after the notice; the next
// turn runs on the fallback without the picker flipping back, and the
// client can pick the extra row.
func TestRefusalFallbackMovesModelPickerE2E(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t, agenttest.Options{Env: []string{"CLAUDE_CODE_DISABLE_REFUSAL_FALLBACK"}})
	sid := h.NewSession(h.Sandbox.WorkDir)
	h.API().Script(fakeapi.Refusal("", "cyber", "Looks like malware."), fakeapi.Text("Safe answer."), fakeapi.Text("Again."))
	if resp, err := h.Prompt(sid, "scan ports"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	const fallback = "claude-opus-4-8"
	us := h.Updates(sid)
	line := indexOf(us, func(u acp.SessionUpdate) bool {
		return u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil &&
			strings.HasPrefix(u.AgentMessageChunk.Content.Text.Text, "**Model fallback:**")
	})
	var cfg []acp.SessionConfigOption
	at := -1
	for i, u := range us {
		if u.ConfigOptionUpdate != nil {
			if cur, _ := modelPicker(u.ConfigOptionUpdate.ConfigOptions); cur == fallback {
				cfg, at = u.ConfigOptionUpdate.ConfigOptions, i
				break
			}
		}
	}
	if at < 0 || line < 0 || at < line {
		t.Fatalf("no config_option_update with model %s after the notice (notice at %d, update at %d)", fallback, line, at)
	}
	cur, rows := modelPicker(cfg)
	if cur != fallback || len(rows) < 2 || rows[len(rows)-1] != fallback {
		t.Fatalf("model option %s %v", cur, rows)
	}
	var ids []string
	for _, o := range cfg {
		ids = append(ids, string(o.ID))
	}
	if ids[0] != "mode" {
		t.Errorf("not the full option list: %v", ids)
	}

	n := len(h.Updates(sid))
	if resp, err := h.Prompt(sid, "once more"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("second prompt: %+v %v", resp, err)
	}
	reqs := h.API().MainRequests()
	if m := reqs[len(reqs)-1].Model; m != fallback {
		t.Errorf("the next turn ran on %s", m)
	}
	for _, u := range h.Updates(sid)[n:] {
		if u.ConfigOptionUpdate != nil {
			if cur, _ := modelPicker(u.ConfigOptionUpdate.ConfigOptions); cur != fallback {
				t.Errorf("the picker flipped back to %s", cur)
			}
		}
	}
	var resp acp.SetSessionConfigOptionResponse
	err := h.Client.Call(h.Ctx(), acp.MethodSessionSetConfigOption, map[string]any{
		"sessionId": sid, "configId": "model", "value": fallback}, &resp)
	if cur, _ := modelPicker(resp.ConfigOptions); err != nil || cur != fallback {
		t.Errorf("picking the extra row: %s %v", cur, err)
	}
	validWire(t, h)
}

// TestLoadRestoresGoalE2E: session/load gives the loaded session the goal
// its transcript ends with: a goal whose prompt was cancelled is still
// active (with the Stop hook's rounds so far), and the resumed CLI goes on
// evaluating it; a goal cleared later is not restored. The snapshot comes
// after the replay, before the load's answer.
//
// Its three real CLIs each prove something of the CLI's own, so none moves
// to the fake: the active session's CLI writes the transcript of a goal
// whose prompt was cancelled (the goal records and the Stop hook's rounds
// the load reads back), the cleared session's writes that of a goal set
// and then cleared (another transcript: a CLI runs one session), and the
// CLI that resumes the active session (--resume) must restore the goal
// from its transcript and go on evaluating it, which only the real CLI
// can show. The cleared session is loaded in an agent with the fake CLI
// behind it: the load reads the real CLI's transcript, and the background
// resume that follows a load (a fourth real CLI, in some runs, before the
// test ended) has nothing to prove.
func TestLoadRestoresGoalE2E(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.API().Script(
		onLoop(fakeapi.Text("Working.")),
		onEvaluator(`{"ok": false, "reason": "build still red"}`),
		onLoop(fakeapi.Hang(0)),
	)
	active := h.NewSession(h.Sandbox.WorkDir)
	done := promptAsync(h, active, "/goal the build is green")
	h.WaitFor("the goal's second turn", 60*time.Second, func() bool {
		for _, r := range h.API().Requests() {
			if r.Answer == fakeapi.KindHang {
				return true
			}
		}
		return false
	})
	h.Cancel(active)
	if r := <-done; r.err != nil || r.resp.StopReason != acp.StopReasonCancelled {
		t.Fatalf("cancelled goal prompt: %+v %v", r.resp, r.err)
	}
	cleared := h.NewSession(h.Sandbox.WorkDir)
	h.API().Script(onLoop(fakeapi.Text("On it.")), onEvaluator(`{"ok": false, "reason": "not yet"}`), onLoop(fakeapi.Text("Stopping.")))
	if _, err := h.Prompt(cleared, "/goal the docs are done"); err != nil {
		t.Fatalf("second goal: %v", err)
	}
	_ = clearGoal(h, cleared)
	h.Close()

	h2 := agenttest.Start(t, agenttest.Options{Sandbox: h.Sandbox})
	h2.Initialize(acp.ClientCapabilities{})
	load(t, h2, active)
	g, ok := lastGoal(h2, active)
	if !ok || g == nil || g["objective"] != "the build is green" || g["status"] != "active" || g["iterations"] != 1.0 ||
		g["lastReason"] != "build still red" || g["controlMethod"] != "_session/goal" {
		t.Fatalf("restored goal %v (%v)", g, ok)
	}
	if ts, _ := g["createdAt"].(float64); ts < 1e12 {
		t.Errorf("createdAt %v", g["createdAt"])
	}
	goalAt := wireIndex(h2, `"session_info_update"`, `"objective"`)
	lastReplay := -1
	for i, l := range h2.Wire() {
		if l.FromAgent && (strings.Contains(l.Line, `"user_message_chunk"`) || strings.Contains(l.Line, `"agent_message_chunk"`)) {
			lastReplay = i
		}
	}
	answer := wireIndex(h2, `"id":2,"result"`)
	if !(lastReplay < goalAt && goalAt < answer) {
		t.Errorf("goal at wire line %d, last replayed line %d, load answer %d", goalAt, lastReplay, answer)
	}

	// The resumed CLI still has the goal: its Stop hook evaluates the next
	// turn, and the goal's end reaches the client.
	h2.API().Script(onLoop(fakeapi.Text("Fixed the build.")), onEvaluator(`{"ok": true, "reason": "green"}`))
	if resp, err := h2.Prompt(active, "keep going"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt after load: %+v %v", resp, err)
	}
	evaluated := false
	for _, r := range h2.API().Requests() {
		evaluated = evaluated || strings.Contains(r.System, "evaluating a stop-condition hook")
	}
	if !evaluated {
		t.Errorf("the resumed CLI did not evaluate the goal")
	}

	validSubagentWire(t, h2)
	h2.Close()

	h3 := fakeHarness(t, &clifake.World{}, agenttest.Options{Sandbox: h.Sandbox})
	h3.Initialize(acp.ClientCapabilities{})
	load(t, h3, cleared)
	if gs := goalSnapshots(h3, cleared); len(gs) != 0 {
		t.Errorf("a cleared goal was restored: %v", gs)
	}
	validSubagentWire(t, h3)
}
