package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/acptest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// Subagents end to end: the real CLI runs Agent subagents against the fake
// API. The fake routes requests by their tool list: the main loop offers
// EnterPlanMode, subagents do not (CLI 2.1.332; AskUserQuestion cannot
// tell them apart because the agent disallows it in the main loop too).

func onMain(s fakeapi.Step) fakeapi.Step {
	s.Match = &fakeapi.Match{ToolsInclude: fakeapi.Names{"EnterPlanMode"}}
	return s
}

func onSub(s fakeapi.Step) fakeapi.Step {
	s.Match = &fakeapi.Match{HasTools: fakeapi.Bool(true), ToolsExclude: fakeapi.Names{"EnterPlanMode"}}
	return s
}

// agentCall launches a subagent; foreground unless background.
func agentCall(id, desc, prompt string, background bool) fakeapi.Step {
	in := map[string]any{"description": desc, "prompt": prompt, "subagent_type": "general-purpose"}
	if !background {
		in["run_in_background"] = false // the CLI's Agent tool is asynchronous by default
	}
	return onMain(toolUse(id, "Agent", in))
}

// subagentScript: the main loop delegates to a foreground subagent, which
// says something, runs a command that needs permission, and reports.
func subagentScript(file string) []fakeapi.Step {
	return []fakeapi.Step{
		agentCall("toolu_agent1", "Survey the files", "Touch the marker file and report.", false),
		onSub(fakeapi.Step{Kind: fakeapi.KindBlocks, Blocks: []fakeapi.Block{
			{Type: "text", Text: "Looking around."},
			{Type: "tool_use", ID: "toolu_sub_touch", Name: "Bash", Input: map[string]any{"command": "touch " + file, "description": "Create the marker"}},
		}}),
		onSub(fakeapi.Text("Marker made.")),
		onMain(fakeapi.Text("The subagent made the marker.")),
	}
}

func transcriptCaps() acp.ClientCapabilities {
	return acp.ClientCapabilities{Meta: map[string]json.RawMessage{"subagent-transcript": json.RawMessage("true")}}
}

func sessionsCaps() acp.ClientCapabilities {
	return acp.ClientCapabilities{Extra: map[string]json.RawMessage{"subagents": json.RawMessage("{}")}}
}

// claudeMeta decodes _meta.claudeCode.
func claudeMeta(meta map[string]json.RawMessage) map[string]any {
	var cc map[string]any
	_ = json.Unmarshal(meta["claudeCode"], &cc)
	return cc
}

// splitText joins the agent text of sid: the main loop's, and the text
// related to the launching call.
func splitText(h *agenttest.Harness, sid, launch string) (main, sub string) {
	for _, u := range h.Updates(sid) {
		c := u.AgentMessageChunk
		if c == nil || c.Content.Text == nil {
			continue
		}
		switch p := claudeMeta(c.Meta)["parentToolUseId"]; p {
		case nil:
			main += c.Content.Text.Text
		case launch:
			sub += c.Content.Text.Text
		}
	}
	return main, sub
}

// chunkWith finds an agent_message_chunk of sid whose text contains s.
func chunkWith(h *agenttest.Harness, sid, s string) *acp.ContentChunk {
	for _, u := range h.Updates(sid) {
		if c := u.AgentMessageChunk; c != nil && c.Content.Text != nil && strings.Contains(c.Content.Text.Text, s) {
			return c
		}
	}
	return nil
}

// TestSubagentForegroundToolCall: a foreground subagent's tool call and
// its permission request are related to the launching Agent call, whose
// card keeps the report; its text reaches a transcript client only. The
// transcript variant runs the real CLI (it proves the CLI's subagent
// frames, its permission request and that the command ran); the flat
// variant, the agent's rendering of the same frames for another client,
// plays them (recording subagent_flat) over the fake CLI.
func TestSubagentForegroundToolCall(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		caps acp.ClientCapabilities
		text bool // the client sees the subagent's text
		fake bool // the real CLI's recorded frames over the fake CLI
	}{
		{"flat", acp.ClientCapabilities{}, false, true},
		{"transcript", transcriptCaps(), true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h *agenttest.Harness
			file := ""
			if tc.fake {
				h = recordedHarness(t, "Delegate the survey.", "subagent_flat")
			} else {
				h = agenttest.Start(t)
				file = filepath.Join(h.Sandbox.WorkDir, "marker.txt")
				h.API().Script(subagentScript(file)...)
			}
			h.Initialize(tc.caps)
			sid := h.NewSession(h.Sandbox.WorkDir)
			resp, err := h.Prompt(sid, "Delegate the survey.")
			if err != nil || resp.StopReason != acp.StopReasonEndTurn {
				t.Fatalf("prompt: %+v %v", resp, err)
			}
			if _, err := os.Stat(file); !tc.fake && err != nil {
				t.Errorf("the subagent's command did not run: %v", err)
			}
			calls, _ := toolCalls(t, h, sid)
			launch, sub := calls["toolu_agent1"], calls["toolu_sub_touch"]
			if launch == nil || sub == nil {
				t.Fatalf("calls: %v", calls)
			}
			if cc := claudeMeta(launch.meta); cc["subagent"] != true || cc["toolName"] != "Agent" {
				t.Errorf("Agent call meta: %v", cc)
			}
			if launch.status != acp.ToolCallStatusCompleted || !strings.Contains(contentText(launch.content), "Marker made.") {
				t.Errorf("Agent call keeps the report as its result: %s %q", launch.status, contentText(launch.content))
			}
			if cc := claudeMeta(sub.meta); cc["parentToolUseId"] != "toolu_agent1" {
				t.Errorf("subagent call meta: %v", cc)
			}
			if sub.status != acp.ToolCallStatusCompleted {
				t.Errorf("subagent call status %s", sub.status)
			}
			perms := h.Permissions()
			if len(perms) != 1 || string(perms[0].SessionID) != sid || perms[0].ToolCall.ToolCallID != "toolu_sub_touch" ||
				claudeMeta(perms[0].ToolCall.Meta)["parentToolUseId"] != "toolu_agent1" {
				t.Errorf("permission request: %+v", perms)
			}
			mainText, subText := splitText(h, sid, "toolu_agent1")
			if !strings.Contains(mainText, "The subagent made the marker.") || strings.Contains(mainText, "Looking around.") {
				t.Errorf("main text %q", mainText)
			}
			if want := "Looking around.Marker made."; tc.text && subText != want || !tc.text && subText != "" {
				t.Errorf("subagent text %q (transcript client: %v)", subText, tc.text)
			}
			if !tc.fake {
				checkRouting(t, h.API(), "Touch the marker file and report.")
			}
			validSubagentWire(t, h)
		})
	}
}

// checkRouting confirms the premise of onMain/onSub: the subagent's
// requests, and only they, lack EnterPlanMode.
func checkRouting(t *testing.T, api *fakeapi.Server, subPrompt string) {
	t.Helper()
	subs := 0
	for _, r := range api.MainRequests() {
		isSub := r.LastUserText == subPrompt
		if isSub {
			subs++
		}
		if r.HasTool("EnterPlanMode") == isSub {
			t.Errorf("request %q: EnterPlanMode offered %v", r.LastUserText, r.HasTool("EnterPlanMode"))
		}
	}
	if subs == 0 {
		t.Error("no subagent request reached the fake API")
	}
}

// TestSubagentBackgroundAfterAnswer: a background subagent works on after
// the prompt is answered; its text and tool calls reach the client as
// session updates, the CLI's self-started follow-up turn too, and the
// prompt gets no second answer.
func TestSubagentBackgroundAfterAnswer(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	slow := onSub(fakeapi.Step{Kind: fakeapi.KindBlocks, Blocks: []fakeapi.Block{
		{Type: "text", Text: "Working in the background."},
		{Type: "tool_use", ID: "toolu_bg_echo", Name: "Bash", Input: map[string]any{"command": "echo background", "description": "Say it"}},
	}})
	slow.DelayMS = 1500 // the prompt is answered first
	h.API().Script(
		agentCall("toolu_bg", "Background survey", "Echo something in the background.", true),
		onMain(fakeapi.Text("Started a helper.")),
		slow,
		onSub(fakeapi.Text("Background report.")),
		onMain(fakeapi.Text("The helper finished.")),
	)
	h.Initialize(transcriptCaps())
	sid := h.NewSession(h.Sandbox.WorkDir)
	resp, err := h.Prompt(sid, "Start a helper.")
	if err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	answered := len(h.Wire())
	if chunkWith(h, sid, "Working in the background.") != nil {
		t.Fatal("the background subagent was not slower than the prompt; the test proves nothing")
	}
	h.WaitFor("the follow-up turn", 60*time.Second, func() bool { return strings.Contains(h.AgentText(sid), "The helper finished.") })

	if c := chunkWith(h, sid, "Working in the background."); c == nil || claudeMeta(c.Meta)["parentToolUseId"] != "toolu_bg" {
		t.Errorf("background text: %+v", c)
	}
	calls, _ := toolCalls(t, h, sid)
	if c := calls["toolu_bg_echo"]; c == nil || claudeMeta(c.meta)["parentToolUseId"] != "toolu_bg" || c.status != acp.ToolCallStatusCompleted {
		t.Errorf("background tool call: %+v", c)
	}
	// Everything after the answer is notifications: no second response.
	for _, l := range h.Wire()[answered:] {
		var env struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal([]byte(l.Line), &env)
		if l.FromAgent && env.ID != nil && env.Method == "" {
			t.Errorf("a response after the prompt was answered: %s", l.Line)
		}
	}
	validSubagentWire(t, h)
}

// TestSubagentCancelStopsForeground: cancelling the parent's prompt stops
// its foreground subagent (seen by a sessions client as the child going
// idle, cancelled).
func TestSubagentCancelStopsForeground(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.API().Script(
		agentCall("toolu_fg", "Long survey", "Think for a long time.", false),
		onSub(fakeapi.Hang(0)),
	)
	h.Initialize(sessionsCaps())
	sid := h.NewSession(h.Sandbox.WorkDir)
	done := promptAsync(h, sid, "Survey for long.")
	var child string
	h.WaitFor("the child announced", 60*time.Second, func() bool {
		ups := subagentUpdates(h, sid)
		if len(ups) > 0 {
			child = ups[0].SessionID
		}
		return child != ""
	})
	h.WaitFor("the subagent's request", 30*time.Second, func() bool {
		for _, r := range h.API().Requests() {
			if r.Answer == fakeapi.KindHang {
				return true
			}
		}
		return false
	})
	h.Cancel(sid)
	if r := <-done; r.err != nil || r.resp.StopReason != acp.StopReasonCancelled {
		t.Fatalf("cancelled prompt answered %+v %v", r.resp, r.err)
	}
	h.WaitFor("the child stopped", 30*time.Second, func() bool { return lastState(h, sid, child) == "idle/cancelled" })
	validSubagentWire(t, h)
}

// validSubagentWire is validWire with the unstable subagent variants
// checked against their own definitions (the stable schema does not have
// them).
func validSubagentWire(t *testing.T, h *agenttest.Harness) {
	t.Helper()
	for _, l := range h.Wire() {
		var n struct {
			Method string `json:"method"`
			Params struct {
				Update map[string]json.RawMessage `json:"update"`
			} `json:"params"`
		}
		_ = json.Unmarshal([]byte(l.Line), &n)
		if n.Method == acp.MethodSessionUpdate {
			var kind string
			_ = json.Unmarshal(n.Params.Update["sessionUpdate"], &kind)
			switch kind {
			case "subagent_update":
				acptest.Validate(t, "SubagentUpdate", n.Params.Update)
				continue
			case "session_message":
				acptest.Validate(t, "SessionMessage", n.Params.Update)
				continue
			}
		}
		acptest.ValidateMessage(t, []byte(l.Line))
	}
}

// subagentUpdate is the part of a subagent_update the tests read.
type subagentUpdate struct {
	SessionID    string          `json:"sessionId"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	Capabilities json.RawMessage `json:"capabilities"`
	State        *struct {
		State      string     `json:"state"`
		StopReason string     `json:"stopReason"`
		Error      *acp.Error `json:"error"`
	} `json:"state"`
	Meta map[string]json.RawMessage `json:"_meta"`
}

// subagentUpdates returns the subagent_update notifications sent on sid.
func subagentUpdates(h *agenttest.Harness, sid string) []subagentUpdate {
	var out []subagentUpdate
	for _, u := range h.Updates(sid) {
		var v struct {
			Kind string `json:"sessionUpdate"`
			subagentUpdate
		}
		if u.Unknown != nil && json.Unmarshal(u.Unknown, &v) == nil && v.Kind == "subagent_update" {
			out = append(out, v.subagentUpdate)
		}
	}
	return out
}

// states lists a child's states as "state/stopReason", in order.
func states(h *agenttest.Harness, parent, child string) []string {
	var out []string
	for _, u := range subagentUpdates(h, parent) {
		if u.SessionID == child && u.State != nil {
			out = append(out, u.State.State+"/"+u.State.StopReason)
		}
	}
	return out
}

func lastState(h *agenttest.Harness, parent, child string) string {
	s := states(h, parent, child)
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}

// sessionMessages returns the session_message updates sent on sid.
func sessionMessages(h *agenttest.Harness, sid string) []map[string]json.RawMessage {
	var out []map[string]json.RawMessage
	for _, u := range h.Updates(sid) {
		var v map[string]json.RawMessage
		if u.Unknown != nil && json.Unmarshal(u.Unknown, &v) == nil && string(v["sessionUpdate"]) == `"session_message"` {
			out = append(out, v)
		}
	}
	return out
}

// TestSubagentSessionForeground: a sessions client gets the subagent as a
// child session, announced before its traffic, with its prompt, text, tool
// call and permission request on the child, and its work states. The
// child session is the agent's rendering of the CLI's subagent frames:
// the test plays the frames the real CLI wrote for subagentScript
// (recording subagent_sessions) over the fake CLI, and
// TestSubagentForegroundToolCall/transcript proves them on the real one.
func TestSubagentSessionForeground(t *testing.T) {
	t.Parallel()
	h := recordedHarness(t, "Delegate the survey.", "subagent_sessions")
	h.Initialize(sessionsCaps())
	sid := h.NewSession(h.Sandbox.WorkDir)
	var asked []string // the child's states while its request was open
	h.Permission = func(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		asked = states(h, sid, string(req.SessionID))
		return &acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{
			Selected: &acp.SelectedPermissionOutcome{OptionID: "allow"}}}, nil
	}
	resp, err := h.Prompt(sid, "Delegate the survey.")
	if err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	ups := subagentUpdates(h, sid)
	if len(ups) == 0 {
		t.Fatal("no subagent_update")
	}
	a := ups[0]
	child := a.SessionID
	if child == "" || child == sid || a.Title != "Survey the files" || a.Description != "general-purpose" ||
		string(a.Capabilities) != `{"cancel":{}}` || a.State == nil || a.State.State != "running" ||
		claudeMeta(a.Meta)["parentToolUseId"] != "toolu_agent1" {
		t.Errorf("announcement: %+v", a)
	}
	if got := states(h, sid, child); strings.Join(got, " ") != "running/ requires_action/ running/ idle/end_turn" {
		t.Errorf("child states %v", got)
	}
	if strings.Join(asked, " ") != "running/ requires_action/" {
		t.Errorf("states while asking %v", asked)
	}
	// The announcement precedes every child notification on the wire.
	announced := false
	for _, l := range h.Wire() {
		if strings.Contains(l.Line, `"subagent_update"`) {
			announced = true
		}
		if strings.Contains(l.Line, `"sessionId":"`+child+`"`) && !strings.Contains(l.Line, `"subagent_update"`) && !announced {
			t.Fatalf("child traffic before its announcement: %s", l.Line)
		}
	}
	msgs := sessionMessages(h, child)
	if len(msgs) != 1 || string(msgs[0]["messageId"]) != `"toolu_agent1"` || string(msgs[0]["senderSessionId"]) != `"`+sid+`"` ||
		!strings.Contains(string(msgs[0]["content"]), "Touch the marker file and report.") {
		t.Errorf("launch prompt on the child: %v", msgs)
	}
	if got := h.AgentText(child); got != "Looking around.Marker made." {
		t.Errorf("child text %q", got)
	}
	childCalls, _ := toolCalls(t, h, child)
	if c := childCalls["toolu_sub_touch"]; c == nil || c.status != acp.ToolCallStatusCompleted || claudeMeta(c.meta)["parentToolUseId"] != "toolu_agent1" {
		t.Errorf("child tool call: %+v", c)
	}
	parentCalls, _ := toolCalls(t, h, sid)
	if parentCalls["toolu_sub_touch"] != nil {
		t.Error("the child's call also went to the parent")
	}
	if c := parentCalls["toolu_agent1"]; c == nil || c.status != acp.ToolCallStatusCompleted || claudeMeta(c.meta)["subagent"] != true ||
		!strings.Contains(contentText(c.content), "Marker made.") {
		t.Errorf("the Agent call stays on the parent as the fallback: %+v", c)
	}
	if strings.Contains(h.AgentText(sid), "Looking around.") || !strings.Contains(h.AgentText(sid), "The subagent made the marker.") {
		t.Errorf("parent text %q", h.AgentText(sid))
	}
	if p := h.Permissions(); len(p) != 1 || string(p[0].SessionID) != child {
		t.Errorf("the permission request is the child's: %+v", p)
	}
	validSubagentWire(t, h)
}

// TestSubagentSessionCancelledAlone: session/cancel with a child's id stops
// that subagent; the parent's prompt is not cancelled and goes on.
func TestSubagentSessionCancelledAlone(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.API().Script(
		agentCall("toolu_fg", "Long survey", "Think for a long time.", false),
		onSub(fakeapi.Hang(0)),
		onMain(fakeapi.Text("The helper was stopped.")),
	)
	h.Initialize(sessionsCaps())
	sid := h.NewSession(h.Sandbox.WorkDir)
	done := promptAsync(h, sid, "Survey for long.")
	var child string
	h.WaitFor("the subagent working", 60*time.Second, func() bool {
		if ups := subagentUpdates(h, sid); len(ups) > 0 {
			child = ups[0].SessionID
		}
		for _, r := range h.API().Requests() {
			if r.Answer == fakeapi.KindHang {
				return child != ""
			}
		}
		return false
	})
	h.Cancel(child)
	r := <-done
	if r.err != nil || r.resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("the parent's prompt: %+v %v", r.resp, r.err)
	}
	if lastState(h, sid, child) != "idle/cancelled" {
		t.Errorf("child states %v", states(h, sid, child))
	}
	if !strings.Contains(h.AgentText(sid), "The helper was stopped.") {
		t.Errorf("the parent did not go on: %q", h.AgentText(sid))
	}
	h.Cancel(child) // a finished child: nothing happens
	validSubagentWire(t, h)
}

// TestSubagentReplay: session/load restores a subagent's transcript (from
// the CLI's subagents/ files) with the same relations as live: the same
// tool calls with parentToolUseId, the transcript client's related text,
// and for a sessions client the same child session with its traffic.
//
// The real CLI runs the turn once, for the transcript client: its live
// updates and the transcript it writes (the main one and the subagent's)
// prove what the CLI writes, and the load of that transcript for the same
// client must equal that live turn exactly. The three clients then load
// that same transcript (the CLI's transcript does not depend on what the
// client can show; the agent's initialize asks only for stdout frames).
// The flat and sessions clients' live turns are the agent's rendering of
// the frames the real CLI wrote for them (recordings subagent_flat and
// subagent_sessions, played over the fake CLI in the same work directory);
// being another run of the CLI, they differ from the loaded transcript in
// what each run draws afresh (API message ids, the subagent's agent id,
// its duration), which sameRun maps to placeholders in order of first
// appearance, so that which chunks share an id still has to match. That
// the child session's id is the CLI's agent id, live and loaded, is
// checked on each side against the agentId the Agent call's result
// reports (which the transcript client's exact comparison proves the same
// live and loaded).
func TestSubagentReplay(t *testing.T) {
	t.Parallel()
	h1 := agenttest.Start(t)
	h1.API().Script(subagentScript(filepath.Join(h1.Sandbox.WorkDir, "marker.txt"))...)
	h1.Initialize(transcriptCaps())
	sid := h1.NewSession(h1.Sandbox.WorkDir)
	prompt := []acp.ContentBlock{{Text: &acp.TextContent{Text: "Delegate the survey."}}}
	if resp, err := h1.PromptBlocks(h1.Ctx(), sid, prompt...); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("live prompt: %+v %v", resp, err)
	}
	realLive := h1.Updates(sid)
	if len(subagentUpdates(h1, sid)) > 0 {
		t.Error("child sessions for a client that did not ask for them (live)")
	}
	h1.Close()

	for _, tc := range []struct {
		name      string
		caps      acp.ClientCapabilities
		recording string // "": the real CLI's live turn above
	}{
		{"flat", acp.ClientCapabilities{}, "subagent_flat"},
		{"transcript", transcriptCaps(), ""},
		{"sessions", sessionsCaps(), "subagent_sessions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			live, child, liveChild := realLive, "", []acp.SessionUpdate(nil)
			if tc.recording != "" {
				hl := recordedHarness(t, "Delegate the survey.", tc.recording, agenttest.Options{Sandbox: h1.Sandbox})
				hl.Initialize(tc.caps)
				lsid := hl.NewSession(h1.Sandbox.WorkDir)
				if resp, err := hl.PromptBlocks(hl.Ctx(), lsid, prompt...); err != nil || resp.StopReason != acp.StopReasonEndTurn {
					t.Fatalf("live prompt (recorded frames): %+v %v", resp, err)
				}
				live = hl.Updates(lsid)
				if ups := subagentUpdates(hl, lsid); len(ups) > 0 {
					child = ups[0].SessionID
				}
				liveChild = hl.Updates(child)
				if child != "" && agentIDOf(live) != child {
					t.Errorf("live child %q, the Agent call reports agentId %q", child, agentIDOf(live))
				}
				hl.Close()
			}

			h2 := fakeHarness(t, &clifake.World{}, agenttest.Options{Sandbox: h1.Sandbox})
			h2.Initialize(tc.caps)
			var lr acp.LoadSessionResponse
			if err := h2.Client.Call(h2.Ctx(), acp.MethodSessionLoad, &acp.LoadSessionRequest{
				SessionID: acp.SessionID(sid), Cwd: h1.Sandbox.WorkDir, MCPServers: []acp.MCPServer{}}, &lr); err != nil {
				t.Fatalf("session/load: %v", err)
			}
			want, got := normalize(append(userChunks(prompt), live...)), normalize(h2.Updates(sid))
			if tc.recording != "" {
				want, got = sameRun(want), sameRun(got)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("replay differs from live (-live +replay):\n%s", diff)
			}
			replayChild := ""
			if ups := subagentUpdates(h2, sid); len(ups) > 0 {
				replayChild = ups[0].SessionID
			}
			calls, _ := toolCalls(t, h2, sid)
			if tc.name == "sessions" {
				calls, _ = toolCalls(t, h2, replayChild)
			}
			if c := calls["toolu_sub_touch"]; c == nil || claudeMeta(c.meta)["parentToolUseId"] != "toolu_agent1" {
				t.Errorf("replayed subagent call: %+v", c)
			}
			_, subText := splitText(h2, sid, "toolu_agent1")
			if want := map[string]string{"transcript": "Looking around.Marker made."}[tc.name]; subText != want {
				t.Errorf("replayed subagent text on the parent %q, want %q", subText, want)
			}
			if tc.name != "sessions" {
				if child != "" || replayChild != "" {
					t.Error("child sessions for a client that did not ask for them")
				}
				validSubagentWire(t, h2)
				return
			}
			if replayChild == "" || replayChild != agentIDOf(h2.Updates(sid)) {
				t.Errorf("replayed child %q, the Agent call reports agentId %q", replayChild, agentIDOf(h2.Updates(sid)))
			}
			if st := states(h2, sid, replayChild); child == "" || len(st) == 0 || st[0] != "running/" || lastState(h2, sid, replayChild) != "idle/end_turn" {
				t.Errorf("replayed child %q states %v (live child %q)", replayChild, states(h2, sid, replayChild), child)
			}
			if diff := cmp.Diff(sameRun(normalize(liveChild)), sameRun(normalize(h2.Updates(replayChild)))); diff != "" {
				t.Errorf("child replay differs from live (-live +replay):\n%s", diff)
			}
			if len(sessionMessages(h2, replayChild)) != 1 {
				t.Errorf("replayed launch prompt: %v", sessionMessages(h2, replayChild))
			}
			validSubagentWire(t, h2)
		})
	}
}

// runDrawn is what two runs of one CLI scenario draw afresh: the fake
// API's message ids, the CLI's agent id of a subagent (a and 16 hex
// digits), and the subagent's duration in the Agent call's report.
var runDrawn = regexp.MustCompile(`msg_fake_[0-9a-f]+|\ba[0-9a-f]{16}\b|duration_ms: [0-9]+`)

// sameRun puts placeholders in place of what the run drew (runDrawn): each
// id its number in order of first appearance, a duration "N".
func sameRun(lines []string) []string {
	ids := map[string]string{}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = runDrawn.ReplaceAllStringFunc(l, func(s string) string {
			if strings.HasPrefix(s, "duration_ms") {
				return "duration_ms: N"
			}
			if ids[s] == "" {
				ids[s] = fmt.Sprintf("<id %d>", len(ids)+1)
			}
			return ids[s]
		})
	}
	return out
}

// agentIDOf is the agentId the Agent call toolu_agent1 reports in its
// result, among a session's updates.
func agentIDOf(us []acp.SessionUpdate) string {
	re := regexp.MustCompile(`agentId: (a[0-9a-f]{16})`)
	for _, u := range us {
		var b []byte
		switch {
		case u.ToolCall != nil && u.ToolCall.ToolCallID == "toolu_agent1":
			b, _ = json.Marshal(u.ToolCall)
		case u.ToolCallUpdate != nil && u.ToolCallUpdate.ToolCallID == "toolu_agent1":
			b, _ = json.Marshal(u.ToolCallUpdate)
		}
		if m := re.FindSubmatch(b); m != nil {
			return string(m[1])
		}
	}
	return ""
}
