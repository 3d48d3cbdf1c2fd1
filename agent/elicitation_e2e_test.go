package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// End-to-end tests of questions as forms (elicitation.go) with the real
// CLI: Claude's AskUserQuestion for a client that renders forms.

// twoQuestions is an AskUserQuestion input: a single select and a
// multi-select whose option holds ", " (the CLI's answer quotes it).
var twoQuestions = map[string]any{"questions": []any{
	map[string]any{"question": "Which color?", "header": "Color", "multiSelect": false, "options": []any{
		map[string]any{"label": "Red", "description": "warm"}, map[string]any{"label": "Blue", "description": "cool"}}},
	map[string]any{"question": "Which sizes?", "header": "Sizes", "multiSelect": true, "options": []any{
		map[string]any{"label": "S", "description": "small"}, map[string]any{"label": "M", "description": "medium"}, map[string]any{"label": "L, XL", "description": "large"}}},
}}

// formClient is the capabilities of a client that renders forms.
var formClient = acp.ClientCapabilities{Elicitation: &acp.ElicitationCapabilities{Form: &acp.ElicitationFormCapabilities{}}}

// answerWith makes the client answer every form with raw.
func answerWith(raw string) func(context.Context, json.RawMessage) (json.RawMessage, error) {
	return func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(raw), nil }
}

// askSession starts a harness whose client renders forms (form) or not,
// scripts Claude to ask twoQuestions and then say "thanks", and opens a
// session.
func askSession(t *testing.T, form bool) (*agenttest.Harness, string) {
	h := agenttest.Start(t)
	if form {
		h.Initialize(formClient)
	} else {
		h.Initialize(acp.ClientCapabilities{})
	}
	h.API().Script(toolUse("toolu_q", "AskUserQuestion", twoQuestions), fakeapi.Text("thanks"))
	return h, h.NewSession(h.Sandbox.WorkDir)
}

// lastToolResult is the text and error flag of the tool result Claude got
// last.
func lastToolResult(t *testing.T, h *agenttest.Harness) (string, bool) {
	t.Helper()
	reqs := h.API().MainRequests()
	rs := reqs[len(reqs)-1].ToolResults()
	if len(rs) != 1 {
		t.Fatalf("Claude got %d tool results, want 1: %+v", len(rs), rs)
	}
	return rs[0].Text, rs[0].IsError
}

// TestQuestionsAsAForm: for a client that renders forms Claude may ask
// (AskUserQuestion is offered), its two questions come as one
// elicitation/create form tied to the tool card, after the card and
// instead of a permission request, and the answers (a pick, picks with
// "Other") reach Claude in the CLI's own words. A later session/load shows
// the question and the answer on the card.
func TestQuestionsAsAForm(t *testing.T) {
	t.Parallel()
	h, sid := askSession(t, true)
	h.Elicit = answerWith(`{"action":"accept","content":{"question_0":"Blue","question_1":["S","L, XL"],"question_1_custom":"XXL"}}`)
	if resp, err := h.Prompt(sid, "ask me"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	if !h.API().MainRequests()[0].HasTool("AskUserQuestion") {
		t.Error("Claude was not offered AskUserQuestion")
	}
	if n := len(h.Permissions()); n != 0 {
		t.Errorf("%d permission requests, want none (the form is the question)", n)
	}
	forms := h.Elicitations()
	if len(forms) != 1 {
		text, _ := lastToolResult(t, h)
		t.Fatalf("%d forms, want 1; the server said %q", len(forms), text)
	}
	var form struct {
		Mode            string `json:"mode"`
		SessionID       string `json:"sessionId"`
		ToolCallID      string `json:"toolCallId"`
		Message         string `json:"message"`
		RequestedSchema struct {
			Properties map[string]struct {
				Type  string `json:"type"`
				Title string `json:"title"`
				OneOf []struct {
					Const string `json:"const"`
				} `json:"oneOf"`
			} `json:"properties"`
		} `json:"requestedSchema"`
	}
	if err := json.Unmarshal(forms[0], &form); err != nil {
		t.Fatal(err)
	}
	p := form.RequestedSchema.Properties
	if form.Mode != "form" || form.SessionID != sid || form.ToolCallID != "toolu_q" ||
		p["question_0"].Title != "Color" || len(p["question_0"].OneOf) != 2 || p["question_1"].Type != "array" || p["question_1_custom"].Type != "string" {
		t.Errorf("form: %s", forms[0])
	}
	if card, ask := wireIndex(h, `"tool_call"`, "toolu_q"), wireIndex(h, "elicitation/create"); card < 0 || ask < card {
		t.Errorf("the form (line %d) came before its tool card (line %d)", ask, card)
	}
	text, isErr := lastToolResult(t, h)
	for _, want := range []string{`"Which color?"="Blue"`, `"Which sizes?"="S, "L, XL", XXL"`} {
		if isErr || !strings.Contains(text, want) {
			t.Errorf("Claude was told %q (error %v), want %s in it", text, isErr, want)
		}
	}
	calls, _ := toolCalls(t, h, sid)
	if c := calls["toolu_q"]; c == nil || c.status != acp.ToolCallStatusCompleted {
		t.Errorf("question card: %+v", c)
	}

	// Replay: the card shows the questions and the answer.
	h.Close()
	h2 := agenttest.Start(t, agenttest.Options{Sandbox: h.Sandbox})
	h2.Initialize(formClient)
	load(t, h2, sid)
	calls, _ = toolCalls(t, h2, sid)
	c := calls["toolu_q"]
	if c == nil || !strings.Contains(string(c.rawInput), "Which sizes?") || !strings.Contains(contentText(c.content), "XXL") {
		t.Errorf("replayed question card: %+v", c)
	}
}

// The variants of the question form whose point is the agent's handling
// of the answer (a decline, a cancel) run over the in-process fake CLI
// (clifake), whose model calls AskUserQuestion with twoQuestions and whose
// CLI asks can_use_tool for it as the real one does: the real CLI's side
// (it asks AskUserQuestion through can_use_tool, it tells Claude a denial
// as an error result and goes on, an interrupting denial ends the turn)
// stays proven by TestQuestionsAsAForm, TestQuestionsInBypassMode and
// TestPermissionReject (a denial's words reach Claude as an error result
// and the turn goes on).

// askModel is a fake model that calls AskUserQuestion (toolu_q) with
// twoQuestions at every prompt and says "thanks" once it has the tool's
// result, and remembers the requests it was asked.
type askModel struct {
	mu   sync.Mutex
	reqs []clifake.Request
}

func (m *askModel) reply(r clifake.Request) clifake.Reply {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs = append(m.reqs, r)
	if r.FollowUp {
		return clifake.Reply{Chunks: []string{"thanks"}}
	}
	return clifake.Reply{Tool: "AskUserQuestion", ToolName: "AskUserQuestion", ToolInput: twoQuestions, ToolID: "toolu_q"}
}

// lastResult is what the model was told of the tool last, and whether it
// was an error.
func (m *askModel) lastResult(t *testing.T) (string, bool) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.reqs) == 0 || !m.reqs[len(m.reqs)-1].FollowUp {
		t.Fatalf("the model was not told the tool's result: %+v", m.reqs)
	}
	r := m.reqs[len(m.reqs)-1]
	return r.ToolResult, r.ToolFailed
}

// askFakeSession is askSession over the fake CLI, for a client that
// renders forms.
func askFakeSession(t *testing.T) (*agenttest.Harness, *askModel, string) {
	m := &askModel{}
	h := fakeHarness(t, &clifake.World{Model: m.reply})
	h.Initialize(formClient)
	return h, m, h.NewSession(h.Sandbox.WorkDir)
}

// TestDeclinedQuestions: a declined form is a clear refusal Claude is
// told about (an error result, not an empty answer), and the turn goes on.
func TestDeclinedQuestions(t *testing.T) {
	t.Parallel()
	h, m, sid := askFakeSession(t)
	h.Elicit = answerWith(`{"action":"decline"}`)
	if resp, err := h.Prompt(sid, "ask me"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	if n := len(h.Elicitations()); n != 1 {
		t.Fatalf("%d forms, want 1", n)
	}
	if text, isErr := m.lastResult(t); !isErr || !strings.Contains(text, "declined") {
		t.Errorf("Claude was told %q (error %v), want the user declined", text, isErr)
	}
	if !strings.Contains(h.AgentText(sid), "thanks") {
		t.Errorf("the turn did not go on: %q", h.AgentText(sid))
	}
}

// TestCancelWithdrawsTheForm: session/cancel while a form is open
// withdraws it ($/cancel_request) and ends the turn cancelled.
func TestCancelWithdrawsTheForm(t *testing.T) {
	t.Parallel()
	h, _, sid := askFakeSession(t)
	withdrawn := make(chan struct{})
	h.Elicit = func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		<-ctx.Done()
		close(withdrawn)
		return nil, ctx.Err()
	}
	done := promptAsync(h, sid, "ask me")
	h.WaitFor("the form", 60*time.Second, func() bool { return len(h.Elicitations()) == 1 })
	h.Cancel(sid)
	select {
	case <-withdrawn:
	case <-time.After(30 * time.Second):
		t.Fatal("the form was not withdrawn")
	}
	r := <-done
	if r.err != nil || r.resp.StopReason != acp.StopReasonCancelled {
		t.Fatalf("prompt: %+v %v", r.resp, r.err)
	}
	if wireIndex(h, `"$/cancel_request"`) < 0 {
		t.Error("no $/cancel_request on the wire")
	}
}

// TestNoQuestionsWithoutForms: a client that does not render forms keeps
// today's behaviour: AskUserQuestion is not offered to Claude.
func TestNoQuestionsWithoutForms(t *testing.T) {
	t.Parallel()
	h, sid := askSession(t, false)
	h.API().Script(fakeapi.Text("plain"))
	if _, err := h.Prompt(sid, "hi"); err != nil {
		t.Fatal(err)
	}
	if h.API().MainRequests()[0].HasTool("AskUserQuestion") {
		t.Error("AskUserQuestion was offered to a client without forms")
	}
}

// newAskerServer is a test MCP server (run by mcpServerMain) whose tool
// pick asks the user through MCP elicitation and returns what it got.
func newAskerServer() *mcp.Server {
	// MCP 2025-11-25, the newest version in which a server asks while
	// serving a call (later ones return input requests instead).
	s := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1.0.0"}, &mcp.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25"}})
	mcp.AddTool(s, &mcp.Tool{Name: "pick", Description: "Ask the user for a flavour"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			r, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Pick a flavour", RequestedSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"flavour": map[string]any{"type": "string", "enum": []string{"vanilla", "chocolate"}},
					"scoops":  map[string]any{"type": "integer"},
				},
				"required": []string{"flavour"},
			}})
			text := "elicitation failed"
			if err != nil {
				text += ": " + err.Error()
			}
			if err == nil {
				b, _ := json.Marshal(r)
				text = "got " + string(b)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})
	return s
}

// TestMCPServerElicitation: an MCP server's elicitation (forwarded by the
// CLI) becomes an elicitation/create form in the server's field order,
// tied to the server's running tool call, and the user's answer goes back
// to the server.
func TestMCPServerElicitation(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h := agenttest.Start(t)
	h.Initialize(formClient)
	sid, err := newSessionWith(t, h, map[string]any{
		"cwd": h.Sandbox.WorkDir,
		"mcpServers": []map[string]any{{"name": "asker", "command": exe, "args": []string{},
			"env": []map[string]string{{"name": mcpServerEnv, "value": "asker"}}}},
	})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	h.API().Script(toolUse("toolu_m", "mcp__asker__pick", map[string]any{}), fakeapi.Text("thanks"))
	h.Elicit = answerWith(`{"action":"accept","content":{"flavour":"chocolate","scoops":2}}`)
	if resp, err := h.Prompt(sid, "pick one"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	forms := h.Elicitations()
	if len(forms) != 1 {
		text, _ := lastToolResult(t, h)
		t.Fatalf("%d forms, want 1; the server said %q", len(forms), text)
	}
	f := string(forms[0])
	if !strings.Contains(f, `"toolCallId":"toolu_m"`) || !strings.Contains(f, `"message":"Pick a flavour"`) ||
		strings.Index(f, `"flavour"`) > strings.Index(f, `"scoops"`) {
		t.Errorf("form: %s", f)
	}
	text, _ := lastToolResult(t, h)
	if !strings.Contains(text, `"action":"accept"`) || !strings.Contains(text, `"flavour":"chocolate"`) {
		t.Errorf("the server got %q", text)
		h.DumpWire()
	}
}

// TestQuestionsInBypassMode: in a mode that asks for nothing
// (bypassPermissions), Claude's questions are still a form.
func TestQuestionsInBypassMode(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t, agenttest.Options{Env: []string{"IS_SANDBOX=1"}})
	h.Initialize(formClient)
	h.API().Script(toolUse("toolu_q", "AskUserQuestion", twoQuestions), fakeapi.Text("thanks"))
	sid := h.NewSession(h.Sandbox.WorkDir)
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionSetMode, &acp.SetSessionModeRequest{SessionID: acp.SessionID(sid), ModeID: "bypassPermissions"}, &acp.SetSessionModeResponse{}); err != nil {
		t.Fatalf("set mode: %v", err)
	}
	h.Elicit = answerWith(`{"action":"accept","content":{"question_0":"Red"}}`)
	if resp, err := h.Prompt(sid, "ask me"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	if len(h.Elicitations()) != 1 {
		t.Fatalf("%d forms, want 1", len(h.Elicitations()))
	}
	if text, isErr := lastToolResult(t, h); isErr || !strings.Contains(text, `"Which color?"="Red"`) {
		t.Errorf("Claude was told %q (error %v)", text, isErr)
	}
}
