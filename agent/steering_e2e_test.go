package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// End-to-end tests of steering (steering.go). A steer into a running
// turn goes to the CLI with priority "now" (or "later" while a permission
// request is open), which the CLI itself turns into a cycle of the running
// turn: those tests run the real CLI. The steer of an idle session is the
// agent's alone and runs on the in-process fake CLI.

type steerAnswer struct {
	Outcome string `json:"outcome"`
	Reason  string `json:"reason"`
}

func steerWith(h *agenttest.Harness, params any) (steerAnswer, error) {
	var a steerAnswer
	err := h.Client.Call(h.Ctx(), "_session/steering", params, &a)
	return a, err
}

func steerText(sid, text string) map[string]any {
	return map[string]any{"sessionId": sid, "prompt": []map[string]any{{"type": "text", "text": text}}}
}

// steeringSession starts a turn whose model call streams "thinking about
// it" and then hangs, and waits for that text.
func steeringSession(t *testing.T, next ...fakeapi.Step) (*agenttest.Harness, string, <-chan promptResult) {
	h := agenttest.Start(t)
	init := h.Initialize(acp.ClientCapabilities{})
	if string(init.Meta["steering"]) != `{"supported":true}` {
		t.Errorf("initialize _meta.steering: %s", init.Meta["steering"])
	}
	h.API().Script(append([]fakeapi.Step{{Kind: fakeapi.KindHang, Text: "thinking about it", HangS: 60}}, next...)...)
	sid := h.NewSession(h.Sandbox.WorkDir)
	done := promptAsync(h, sid, "paint the fence")
	h.WaitFor("the turn's text", 60*time.Second, func() bool { return strings.Contains(h.AgentText(sid), "thinking about it") })
	return h, sid, done
}

// TestSteeringReachesTheRunningTurn: a message steered into a running
// turn reaches the model in that turn (the next model request of the same
// prompt ends with it), its answer streams in order after what came
// before, and the prompt is answered once, after the steered answer.
func TestSteeringReachesTheRunningTurn(t *testing.T) {
	t.Parallel()
	h, sid, done := steeringSession(t, fakeapi.Text("green it is"))
	if a, err := steerWith(h, steerText(sid, "use green instead")); err != nil || a.Outcome != "injected" {
		t.Fatalf("steer: %+v %v", a, err)
	}
	var r promptResult
	select {
	case r = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the prompt was not answered")
	}
	if r.err != nil || r.resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", r.resp, r.err)
	}
	reqs := h.API().MainRequests()
	if len(reqs) != 2 || reqs[1].LastUserText != "use green instead" || !strings.Contains(reqs[1].Messages[len(reqs[1].Messages)-2].Text, "thinking about it") {
		t.Fatalf("model requests: %d, the second ends with %q", len(reqs), reqs[len(reqs)-1].LastUserText)
	}
	if got := h.AgentText(sid); !strings.HasSuffix(got, "green it is") || !strings.HasPrefix(got, "thinking about it") {
		t.Errorf("agent text: %q", got)
	}
	answer, text := -1, -1
	for i, l := range h.Wire() {
		switch {
		case !l.FromAgent:
		case strings.Contains(l.Line, `"stopReason"`):
			answer = i
		case strings.Contains(l.Line, `"agent_message_chunk"`):
			text = i
		}
	}
	if answer < text {
		t.Errorf("the prompt's answer (line %d) came before the steered answer's last text (line %d)", answer, text)
	}
}

// TestSteeringThenCancel: a cancel after a steer cancels the turn as any
// turn: the prompt answers cancelled and the steered work stops.
func TestSteeringThenCancel(t *testing.T) {
	t.Parallel()
	h, sid, done := steeringSession(t, fakeapi.Step{Kind: fakeapi.KindHang, Text: "steered and busy", HangS: 60}, fakeapi.Text("after"))
	if a, err := steerWith(h, steerText(sid, "use green instead")); err != nil || a.Outcome != "injected" {
		t.Fatalf("steer: %+v %v", a, err)
	}
	h.WaitFor("the steered text", 60*time.Second, func() bool { return strings.Contains(h.AgentText(sid), "steered and busy") })
	h.Cancel(sid)
	r := <-done
	if r.err != nil || r.resp.StopReason != acp.StopReasonCancelled {
		t.Fatalf("prompt: %+v %v", r.resp, r.err)
	}
	// The session goes on: the next prompt gets its own answer.
	if resp, err := h.Prompt(sid, "again"); err != nil || resp.StopReason != acp.StopReasonEndTurn || !strings.HasSuffix(h.AgentText(sid), "after") {
		t.Fatalf("next prompt: %+v %v %q", resp, err, h.AgentText(sid))
	}
}

// TestSteeringAnIdleSession: without a running turn, idleBehavior
// promptRequired leaves the message to the client (nothing reaches the
// model); without it the message starts a turn of its own. Bad params
// are -32602 and an unknown session -32002. All of it is the agent's own
// (the steer that starts a turn is a plain user message to the CLI), so it
// runs on the in-process fake CLI.
func TestSteeringAnIdleSession(t *testing.T) {
	t.Parallel()
	w, m := newPromptWorld(map[string]clifake.Reply{"hello": fakeText("on my own")})
	h := fakeHarness(t, w)
	sid := h.NewSession(h.Sandbox.WorkDir)
	p := steerText(sid, "hello")
	p["_meta"] = map[string]any{"steering": map[string]any{"idleBehavior": "promptRequired"}}
	if a, err := steerWith(h, p); err != nil || a.Outcome != "promptRequired" || a.Reason != "noRunningTurn" {
		t.Fatalf("steer: %+v %v", a, err)
	}
	if a, err := steerWith(h, steerText(sid, "hello")); err != nil || a.Outcome != "startedNewTurn" {
		t.Fatalf("steer: %+v %v", a, err)
	}
	h.WaitFor("the steered turn's text", 60*time.Second, func() bool { return h.AgentText(sid) == "on my own" })
	if reqs := m.asked(); len(reqs) != 1 || reqs[0].Prompt != "hello" {
		t.Errorf("model requests: %+v", reqs)
	}
	for _, bad := range []any{
		map[string]any{"sessionId": sid, "prompt": []any{}},
		map[string]any{"prompt": []map[string]any{{"type": "text", "text": "x"}}},
		map[string]any{"sessionId": sid, "prompt": []map[string]any{{"type": "text", "text": "x"}}, "_meta": map[string]any{"steering": map[string]any{"idleBehavior": "queue"}}},
	} {
		var e *acp.Error
		if _, err := steerWith(h, bad); !errors.As(err, &e) || e.Code != -32602 {
			b, _ := json.Marshal(bad)
			t.Errorf("%s: %v", b, err)
		}
	}
	var e *acp.Error
	if _, err := steerWith(h, steerText("nope", "x")); !errors.As(err, &e) || e.Code != -32002 {
		t.Errorf("unknown session: %v", err)
	}
}

// TestSteeringWhileAPermissionIsOpen: a steer while the user is asked for
// a permission leaves the request open (priority later, not now, which
// would withdraw it); once answered, the tool runs, and the steered
// message reaches the model before the prompt is answered.
func TestSteeringWhileAPermissionIsOpen(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.API().Script(toolUse("toolu_s", "Bash", map[string]any{"command": "touch fence.txt", "description": "touch"}), fakeapi.Text("green it is"), fakeapi.Text("extra"))
	sid := h.NewSession(h.Sandbox.WorkDir)
	asked, answer := make(chan struct{}), make(chan struct{})
	withdrawn := false
	h.Permission = func(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		close(asked)
		select {
		case <-answer:
		case <-ctx.Done():
			withdrawn = true
			return nil, ctx.Err()
		}
		return &acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Selected: &acp.SelectedPermissionOutcome{OptionID: req.Options[0].OptionID}}}, nil
	}
	done := promptAsync(h, sid, "paint the fence")
	select {
	case <-asked:
	case <-time.After(60 * time.Second):
		t.Fatal("no permission request")
	}
	if a, err := steerWith(h, steerText(sid, "use green instead")); err != nil || a.Outcome != "injected" {
		t.Fatalf("steer: %+v %v", a, err)
	}
	if i := wireIndex(h, `"$/cancel_request"`); i >= 0 {
		t.Fatal("the permission request was withdrawn by the steer")
	}
	close(answer)
	var r promptResult
	select {
	case r = <-done:
	case <-time.After(60 * time.Second):
		h.DumpWire()
		t.Fatal("the prompt was not answered")
	}
	if r.err != nil || r.resp.StopReason != acp.StopReasonEndTurn || withdrawn {
		t.Fatalf("prompt: %+v %v (withdrawn %v)", r.resp, r.err, withdrawn)
	}
	// With priority later the CLI runs the steer right after the cycle it
	// was running (the model's answer to the tool), before the prompt is
	// answered.
	reqs := h.API().MainRequests()
	if len(reqs) != 3 || reqs[2].LastUserText != "use green instead" || !strings.HasSuffix(h.AgentText(sid), "extra") {
		t.Fatalf("the steer did not reach the model in the turn: %d requests, text %q", len(reqs), h.AgentText(sid))
	}
}
