package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/translate"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// subProbe is a goroutine-less session fed with CLI frames, whose client
// records every session/update with its session id.
type subProbe struct {
	t *testing.T
	a *connection
	s *session

	mu    sync.Mutex
	got   []acp.SessionNotification
	marks int
}

func newSubProbe(t *testing.T, caps acp.ClientCapabilities) *subProbe {
	t.Helper()
	a := New(Config{}).newConnection()
	agentIn, clientOut := io.Pipe()
	clientIn, agentOut := io.Pipe()
	a.attach(acp.NewConn(agentIn, agentOut, acp.Options{}), readClientCaps(caps))
	p := &subProbe{t: t, a: a}
	m := acp.NewMux()
	acp.OnNotification(m, acp.MethodSessionUpdate, func(ctx context.Context, n *acp.SessionNotification) error {
		p.mu.Lock()
		p.got = append(p.got, *n)
		p.mu.Unlock()
		return nil
	})
	client := acp.NewConn(clientIn, clientOut, acp.Options{Handler: m})
	quit := make(chan struct{})
	close(quit)
	p.s = &session{a: a, id: "root", log: a.log, quit: quit, inbox: closedMailbox(), q: turnQueue{cancelledIDs: map[string]bool{}}}
	p.s.tr = a.newTranslator("root", "", a.log, now{p.s})
	p.s.adv = newFailures(a, "root", a.log, &p.s.fail)
	t.Cleanup(func() {
		_ = a.conn.Close()
		_ = client.Close()
		<-a.conn.Done()
		<-client.Done()
	})
	return p
}

func (p *subProbe) frame(line string) {
	p.t.Helper()
	m, err := claude.DecodeMessage([]byte(line))
	if err != nil {
		p.t.Fatalf("bad frame %s: %v", line, err)
	}
	p.s.handle(m)
}

// flush returns every notification so far as "<session> <kind> <detail>".
func (p *subProbe) flush() []string {
	p.t.Helper()
	p.marks++
	mark := fmt.Sprintf("mark%d", p.marks)
	p.a.notify("mark", acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{Content: acp.ContentBlock{Text: &acp.TextContent{Text: mark}}}})
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(2 * time.Millisecond) {
		p.mu.Lock()
		got := append([]acp.SessionNotification(nil), p.got...)
		p.mu.Unlock()
		var out []string
		seen := false
		for _, n := range got {
			if n.SessionID == "mark" {
				seen = seen || n.Update.AgentMessageChunk.Content.Text.Text == mark
				continue
			}
			out = append(out, string(n.SessionID)+" "+describe(n.Update))
		}
		if seen {
			return out
		}
		if time.Now().After(deadline) {
			p.t.Fatal("updates did not arrive")
		}
	}
}

// describe abbreviates an update for comparisons.
func describe(u acp.SessionUpdate) string {
	meta := func(m map[string]json.RawMessage) string {
		var cc map[string]any
		_ = json.Unmarshal(m["claudeCode"], &cc)
		if p, ok := cc["parentToolUseId"]; ok {
			return fmt.Sprintf(" parent=%v", p)
		}
		return ""
	}
	switch {
	case u.AgentMessageChunk != nil:
		return "text " + u.AgentMessageChunk.Content.Text.Text + meta(u.AgentMessageChunk.Meta)
	case u.AgentThoughtChunk != nil:
		return "thought " + u.AgentThoughtChunk.Content.Text.Text + meta(u.AgentThoughtChunk.Meta)
	case u.ToolCall != nil:
		return "tool_call " + string(u.ToolCall.ToolCallID) + meta(u.ToolCall.Meta)
	case u.ToolCallUpdate != nil:
		st, _ := u.ToolCallUpdate.Status.Get()
		return "tool_update " + string(u.ToolCallUpdate.ToolCallID) + " " + string(st)
	case u.Plan != nil:
		return "plan"
	case u.Unknown != nil:
		var v struct {
			Kind      string          `json:"sessionUpdate"`
			SessionID string          `json:"sessionId"`
			State     json.RawMessage `json:"state"`
			Title     string          `json:"title"`
		}
		_ = json.Unmarshal(u.Unknown, &v)
		return v.Kind + " " + v.SessionID + " " + v.Title + string(v.State)
	}
	return "other"
}

const (
	subStarted = `{"type":"system","subtype":"task_started","task_id":"ag1","tool_use_id":"toolu_L","description":"Look","subagent_type":"Explore","is_backgrounded":%v,"task_type":"local_agent","prompt":"find it"}`
	subPrompt  = `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"find it"}]},"parent_tool_use_id":"toolu_L","agent_id":"ag1"}`
	subText    = `{"type":"assistant","message":{"id":"m1","model":"x","role":"assistant","content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"Found."}]},"parent_tool_use_id":"toolu_L","agent_id":"ag1"}`
	subTool    = `{"type":"assistant","message":{"id":"m1","model":"x","role":"assistant","content":[{"type":"tool_use","id":"toolu_S","name":"Read","input":{"file_path":"/a"}}]},"parent_tool_use_id":"toolu_L","agent_id":"ag1"}`
	subResult  = `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_S","content":"x"}]},"parent_tool_use_id":"toolu_L","agent_id":"ag1"}`
	subDone    = `{"type":"system","subtype":"task_notification","task_id":"ag1","tool_use_id":"toolu_L","status":"%s","summary":"%s"}`
)

func TestSubagentModes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		caps acp.ClientCapabilities
		want translate.SubagentMode
		init string
	}{
		{acp.ClientCapabilities{}, translate.SubagentsFlat, "map[]"},
		{acp.ClientCapabilities{Meta: map[string]json.RawMessage{"subagent-transcript": json.RawMessage("false")}}, translate.SubagentsFlat, "map[]"},
		{acp.ClientCapabilities{Meta: map[string]json.RawMessage{"subagent-transcript": json.RawMessage("true")}}, translate.SubagentsTranscript, "map[forwardSubagentText:true]"},
		{acp.ClientCapabilities{Extra: map[string]json.RawMessage{"subagents": json.RawMessage("null")}}, translate.SubagentsFlat, "map[]"},
		{acp.ClientCapabilities{Extra: map[string]json.RawMessage{"subagents": json.RawMessage("{}")},
			Meta: map[string]json.RawMessage{"subagent-transcript": json.RawMessage("true")}}, translate.SubagentsSessions,
			"map[forwardSubagentText:true perTaskStopAffordance:true]"},
	} {
		a := New(Config{}).newConnection()
		a.client = readClientCaps(tc.caps)
		var o claude.Options
		a.subagentOptions(&o)
		if got := a.subagentMode(); got != tc.want || fmt.Sprint(o.InitializeExtra) != tc.init && !(o.InitializeExtra == nil && tc.init == "map[]") {
			t.Errorf("%+v: mode %v options %v", tc.caps, got, o.InitializeExtra)
		}
	}
}

func TestSubagentFramesByMode(t *testing.T) {
	t.Parallel()
	run := func(caps acp.ClientCapabilities) []string {
		p := newSubProbe(t, caps)
		for _, f := range []string{fmt.Sprintf(subStarted, false), subPrompt, subText, subTool, subResult, fmt.Sprintf(subDone, "completed", "Found.")} {
			p.frame(f)
		}
		p.frame(subText) // late: dropped
		return p.flush()
	}
	flat := run(acp.ClientCapabilities{})
	want := []string{"root tool_call toolu_S parent=toolu_L", "root tool_update toolu_S completed"}
	if strings.Join(flat, "\n") != strings.Join(want, "\n") {
		t.Errorf("flat:\n%s", strings.Join(flat, "\n"))
	}
	transcript := run(acp.ClientCapabilities{Meta: map[string]json.RawMessage{"subagent-transcript": json.RawMessage("true")}})
	want = []string{"root thought hmm parent=toolu_L", "root text Found. parent=toolu_L", "root tool_call toolu_S parent=toolu_L", "root tool_update toolu_S completed"}
	if strings.Join(transcript, "\n") != strings.Join(want, "\n") {
		t.Errorf("transcript:\n%s", strings.Join(transcript, "\n"))
	}
	sessions := run(acp.ClientCapabilities{Extra: map[string]json.RawMessage{"subagents": json.RawMessage("{}")}})
	want = []string{
		`root subagent_update ag1 Look{"state":"running"}`,
		"ag1 session_message  ",
		"ag1 thought hmm", "ag1 text Found.",
		"ag1 tool_call toolu_S parent=toolu_L", "ag1 tool_update toolu_S completed",
		"root session_message  ", // the child's reply to its parent
		`root subagent_update ag1 {"state":"idle","stopReason":"end_turn"}`,
	}
	if strings.Join(sessions, "\n") != strings.Join(want, "\n") {
		t.Errorf("sessions:\n%s", strings.Join(sessions, "\n"))
	}
}

func TestSubagentSessionEndings(t *testing.T) {
	t.Parallel()
	caps := acp.ClientCapabilities{Extra: map[string]json.RawMessage{"subagents": json.RawMessage("{}")}}
	for _, tc := range []struct{ status, want string }{
		{"failed", `{"state":"idle","stopReason":"error","error":{"code":-32603,"message":"boom"}}`},
		{"stopped", `{"state":"idle","stopReason":"cancelled"}`},
		{"", `{"state":"unknown"}`}, // the CLI exits
	} {
		p := newSubProbe(t, caps)
		p.frame(fmt.Sprintf(subStarted, true))
		p.frame(subTool) // left open
		if tc.status != "" {
			p.frame(fmt.Sprintf(subDone, tc.status, "boom"))
		} else {
			p.s.tr.SubagentsLost()
		}
		got := p.flush()
		if last := got[len(got)-1]; last != "root subagent_update ag1 "+tc.want {
			t.Errorf("%s: %s", tc.status, strings.Join(got, "\n"))
		}
		if tc.status != "" && !strings.Contains(strings.Join(got, "\n"), "ag1 tool_update toolu_S failed") {
			t.Errorf("%s: the open call did not end: %s", tc.status, strings.Join(got, "\n"))
		}
		// A background run: its requests belong to no prompt.
		if tu := p.s.tr.PermissionTurn(claude.CanUseToolRequest{ToolName: "Bash", ToolUseID: "toolu_X", AgentID: "ag1"}); tu != nil {
			t.Errorf("%s: a background run's request belongs to turn %+v", tc.status, tu)
		}
	}
}

// A subagent's to-do list is its own: shown as a tool call, not as the
// session's plan.
func TestSubagentPlanToolIsACall(t *testing.T) {
	t.Parallel()
	p := newSubProbe(t, acp.ClientCapabilities{})
	p.frame(fmt.Sprintf(subStarted, false))
	p.frame(`{"type":"assistant","message":{"id":"m2","model":"x","role":"assistant","content":[{"type":"tool_use","id":"toolu_T","name":"TodoWrite","input":{"todos":[{"content":"a","status":"pending","activeForm":"A"}]}}]},"parent_tool_use_id":"toolu_L","agent_id":"ag1"}`)
	p.frame(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_T","content":"ok"}]},"parent_tool_use_id":"toolu_L","agent_id":"ag1","tool_use_result":{"oldTodos":[],"newTodos":[{"content":"a","status":"pending","activeForm":"A"}]}}`)
	got := strings.Join(p.flush(), "\n")
	if strings.Contains(got, "plan") || !strings.Contains(got, "root tool_call toolu_T parent=toolu_L") {
		t.Errorf("got:\n%s", got)
	}
}

// A permission request of a background subagent belongs to no prompt, so
// cancelling the prompt that runs meanwhile does not withdraw it; a
// foreground subagent's belongs to its prompt.
func TestSubagentPermissionOwner(t *testing.T) {
	t.Parallel()
	for _, bg := range []bool{true, false} {
		p := newSubProbe(t, acp.ClientCapabilities{})
		prompt := &turn{Turn: translate.Turn{UUID: "u1"}, done: make(chan turnOutcome, 1), phase: turnSent}
		p.s.q.turns = append(p.s.q.turns, prompt)
		p.frame(`{"type":"command_lifecycle","command_uuid":"u1","state":"started"}`)
		p.frame(fmt.Sprintf(subStarted, bg))
		tu := p.s.tr.PermissionTurn(claude.CanUseToolRequest{ToolName: "Bash", ToolUseID: "toolu_B", AgentID: "ag1"})
		if (tu == &prompt.Turn) == bg || !bg && tu == nil {
			t.Errorf("background %v: the request belongs to %+v", bg, tu)
		}
		// The main loop's request belongs to the prompt, whatever runs
		// beside it.
		if tu := p.s.tr.PermissionTurn(claude.CanUseToolRequest{ToolName: "Bash", ToolUseID: "toolu_M"}); tu != &prompt.Turn {
			t.Errorf("background %v: a main-loop request belongs to %+v", bg, tu)
		}
	}
}
