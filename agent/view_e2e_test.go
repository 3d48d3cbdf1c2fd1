package agent_test

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// What the editor sees of subagent reports, Read results, titles,
// refusals, compaction and parallel tool calls, live and after
// session/load: the real CLI against the fake API.

// reload ends h1's agent and loads sid in a new agent on the same sandbox
// (its transcripts), as an editor reopening the session would.
func reload(t *testing.T, h1 *agenttest.Harness, sid string, caps acp.ClientCapabilities) *agenttest.Harness {
	t.Helper()
	h1.Close()
	h2 := agenttest.Start(t, agenttest.Options{Sandbox: h1.Sandbox})
	h2.Initialize(caps)
	var lr acp.LoadSessionResponse
	if err := h2.Client.Call(h2.Ctx(), acp.MethodSessionLoad, &acp.LoadSessionRequest{
		SessionID: acp.SessionID(sid), Cwd: h1.Sandbox.WorkDir, MCPServers: []acp.MCPServer{}}, &lr); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	return h2
}

// relatedThought joins the thought chunks of sid related to the launching
// call.
func relatedThought(h *agenttest.Harness, sid, launch string) string {
	var sb strings.Builder
	for _, u := range h.Updates(sid) {
		if c := u.AgentThoughtChunk; c != nil && c.Content.Text != nil && claudeMeta(c.Meta)["parentToolUseId"] == launch {
			sb.WriteString(c.Content.Text.Text)
		}
	}
	return sb.String()
}

// TestSubagentTextAfterThinking: the CLI sends a subagent's thinking and
// its text as two frames under one message id; a transcript client sees
// both, live and after session/load, and a sessions client sees both on
// the child session.
func TestSubagentTextAfterThinking(t *testing.T) {
	t.Parallel()
	script := func() []fakeapi.Step {
		return []fakeapi.Step{
			agentCall("toolu_agent1", "Think it over", "Think, then report.", false),
			onSub(fakeapi.Thinking("Weighing the options.", "The report after thinking.")),
			onMain(fakeapi.Text("Done.")),
		}
	}
	t.Run("transcript", func(t *testing.T) {
		h := agenttest.Start(t)
		h.API().Script(script()...)
		h.Initialize(transcriptCaps())
		sid := h.NewSession(h.Sandbox.WorkDir)
		if resp, err := h.Prompt(sid, "Delegate."); err != nil || resp.StopReason != acp.StopReasonEndTurn {
			t.Fatalf("prompt: %+v %v", resp, err)
		}
		check := func(h *agenttest.Harness, when string) {
			t.Helper()
			if _, sub := splitText(h, sid, "toolu_agent1"); sub != "The report after thinking." {
				t.Errorf("%s: subagent text %q", when, sub)
			}
			if th := relatedThought(h, sid, "toolu_agent1"); th != "Weighing the options." {
				t.Errorf("%s: subagent thought %q", when, th)
			}
		}
		check(h, "live")
		h2 := reload(t, h, sid, transcriptCaps())
		check(h2, "replay")
	})
	// The sessions variant is the agent's rendering of the same frames
	// for another client: it plays what the real CLI wrote for script
	// (recording subagent_thinking) over the fake CLI, and the transcript
	// variant proves them on the real one.
	t.Run("sessions", func(t *testing.T) {
		h := recordedHarness(t, "Delegate.", "subagent_thinking")
		h.Initialize(sessionsCaps())
		sid := h.NewSession(h.Sandbox.WorkDir)
		if resp, err := h.Prompt(sid, "Delegate."); err != nil || resp.StopReason != acp.StopReasonEndTurn {
			t.Fatalf("prompt: %+v %v", resp, err)
		}
		ups := subagentUpdates(h, sid)
		if len(ups) == 0 {
			t.Fatal("no child session")
		}
		child := ups[0].SessionID
		if got := h.AgentText(child); got != "The report after thinking." {
			t.Errorf("child text %q", got)
		}
		if got := h.ThoughtText(child); got != "Weighing the options." {
			t.Errorf("child thought %q", got)
		}
	})
}

// TestAgentCardShowsReport: the Agent call's card shows the subagent's
// report, not the frame Claude Code wraps it in for the model ("[Subagent
// hand-back] …", the agentId line, the usage block), live and replayed.
func TestAgentCardShowsReport(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.API().Script(
		agentCall("toolu_agent1", "Survey", "Survey and report.", false),
		onSub(fakeapi.Text("Three files.\n- a.go\n- b.go")),
		onMain(fakeapi.Text("Done.")),
	)
	h.Initialize(acp.ClientCapabilities{})
	sid := h.NewSession(h.Sandbox.WorkDir)
	if resp, err := h.Prompt(sid, "Delegate."); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	check := func(h *agenttest.Harness, when string) {
		t.Helper()
		calls, _ := toolCalls(t, h, sid)
		c := calls["toolu_agent1"]
		if c == nil || c.status != acp.ToolCallStatusCompleted {
			t.Fatalf("%s: Agent call %+v", when, c)
		}
		if got := contentText(c.content); got != "Three files.\n- a.go\n- b.go" {
			t.Errorf("%s: Agent card shows %q, want the report alone", when, got)
		}
	}
	check(h, "live")
	// The model still gets the framed report: the premise of the test.
	if rs := h.API().MainRequests(); !strings.Contains(rs[len(rs)-1].ToolResults()[0].Text, "[Subagent hand-back]") {
		t.Errorf("the CLI no longer frames the report: %+v", rs[len(rs)-1].ToolResults())
	}
	check(reload(t, h, sid, acp.ClientCapabilities{}), "replay")
}

// dotPNG is a 1×1 PNG.
const dotPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

// TestReadResultsWithoutText: a Read of an image shows the image, and a
// subagent's Read (whose result comes without Claude Code's structured
// copy) shows the text it read, live and replayed.
func TestReadResultsWithoutText(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	png, _ := base64.StdEncoding.DecodeString(dotPNG)
	img, txt := filepath.Join(h.Sandbox.WorkDir, "dot.png"), filepath.Join(h.Sandbox.WorkDir, "notes.md")
	if err := os.WriteFile(img, png, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(txt, []byte("alpha\nbeta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.API().Script(
		onMain(toolUse("toolu_img", "Read", map[string]any{"file_path": img})),
		agentCall("toolu_agent1", "Read notes", "Read the notes.", false),
		onSub(toolUse("toolu_subread", "Read", map[string]any{"file_path": txt})),
		onSub(fakeapi.Text("They say alpha and beta.")),
		onMain(fakeapi.Text("Done.")),
	)
	h.Initialize(acp.ClientCapabilities{})
	sid := h.NewSession(h.Sandbox.WorkDir)
	if resp, err := h.Prompt(sid, "Look at the image, then delegate."); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	check := func(h *agenttest.Harness, when string) {
		t.Helper()
		calls, _ := toolCalls(t, h, sid)
		c := calls["toolu_img"]
		if c == nil || c.status != acp.ToolCallStatusCompleted || len(c.content) != 1 || c.content[0].Content == nil ||
			c.content[0].Content.Content.Image == nil {
			t.Fatalf("%s: image Read %+v", when, c)
		}
		if im := c.content[0].Content.Content.Image; im.Data != dotPNG || im.MimeType != "image/png" {
			t.Errorf("%s: image %q %q", when, im.MimeType, im.Data)
		}
		c = calls["toolu_subread"]
		if c == nil || c.status != acp.ToolCallStatusCompleted {
			t.Fatalf("%s: subagent Read %+v", when, c)
		}
		if got := contentText(c.content); got != "```markdown\nalpha\nbeta\n```" {
			t.Errorf("%s: subagent Read shows %q", when, got)
		}
	}
	check(h, "live")
	check(reload(t, h, sid, acp.ClientCapabilities{}), "replay")
}

// TestRefusalShowsClaudesText: a refusal the API gives no explanation for
// ends the prompt with stopReason refusal after Claude Code's own text
// about it (what was flagged, what to try), the same text session/load
// shows.
func TestRefusalShowsClaudesText(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.API().Script(fakeapi.Refusal("I was about to", "", ""))
	h.Initialize(acp.ClientCapabilities{})
	sid := h.NewSession(h.Sandbox.WorkDir)
	resp, err := h.Prompt(sid, "Do something dubious.")
	if err != nil || resp.StopReason != acp.StopReasonRefusal {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	live := h.AgentText(sid)
	for _, want := range []string{"I was about to", "safeguards flagged this message", "Try rephrasing the request"} {
		if !strings.Contains(live, want) {
			t.Errorf("live agent text %q lacks %q", live, want)
		}
	}
	h2 := reload(t, h, sid, acp.ClientCapabilities{})
	if replayed := h2.AgentText(sid); replayed != live {
		t.Errorf("replayed agent text %q, live %q", replayed, live)
	}
}

// TestCompactShowsProgress: /compact shows as a "Compact conversation"
// tool call, in progress and then completed with the token counts, and the
// context it left is reported (not zero), live; session/load shows the
// completed compaction.
func TestCompactShowsProgress(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.API().Script(fakeapi.Text("First answer."), fakeapi.Text("<summary>We said hello.</summary>"), fakeapi.Text("After compact."))
	h.Initialize(acp.ClientCapabilities{})
	sid := h.NewSession(h.Sandbox.WorkDir)
	if resp, err := h.Prompt(sid, "Hello there."); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	before := len(h.Updates(sid))
	if resp, err := h.Prompt(sid, "/compact"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("/compact: %+v %v", resp, err)
	}
	var statuses []acp.ToolCallStatus
	var id acp.ToolCallID
	var out struct {
		Trigger    string `json:"trigger"`
		PreTokens  uint64 `json:"preTokens"`
		PostTokens uint64 `json:"postTokens"`
	}
	var used []uint64 // usage_update after the compaction completed
	for _, u := range h.Updates(sid)[before:] {
		switch {
		case u.ToolCall != nil && u.ToolCall.Title == "Compact conversation":
			id = u.ToolCall.ToolCallID
			statuses = append(statuses, u.ToolCall.Status)
			if u.ToolCall.Kind != acp.ToolKindThink || claudeMeta(u.ToolCall.Meta)["toolName"] != "compact" {
				t.Errorf("compaction call %+v", u.ToolCall)
			}
		case u.ToolCallUpdate != nil && u.ToolCallUpdate.ToolCallID == id && id != "":
			if st, ok := u.ToolCallUpdate.Status.Get(); ok {
				statuses = append(statuses, st)
			}
			if u.ToolCallUpdate.RawOutput != nil {
				if err := json.Unmarshal(u.ToolCallUpdate.RawOutput, &out); err != nil {
					t.Error(err)
				}
			}
		case u.UsageUpdate != nil && len(statuses) == 2:
			used = append(used, u.UsageUpdate.Used)
		}
	}
	if want := []acp.ToolCallStatus{acp.ToolCallStatusInProgress, acp.ToolCallStatusCompleted}; !slices.Equal(statuses, want) {
		t.Errorf("compaction statuses %v, want %v", statuses, want)
	}
	if out.Trigger != "manual" || out.PreTokens == 0 || out.PostTokens == 0 {
		t.Errorf("compaction rawOutput %+v", out)
	}
	if len(used) == 0 || slices.Contains(used, 0) || used[len(used)-1] != out.PostTokens {
		t.Errorf("context after compaction %v, want the %d tokens it left", used, out.PostTokens)
	}
	if resp, err := h.Prompt(sid, "Next."); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt after /compact: %+v %v", resp, err)
	}
	if n := len(h.API().Requests()); n != 3 {
		t.Errorf("%d model requests, want 3 (two answers and the summary)", n)
	}

	h2 := reload(t, h, sid, acp.ClientCapabilities{})
	calls, _ := toolCalls(t, h2, sid)
	var replayed *callState
	for _, c := range calls {
		if c.title == "Compact conversation" {
			replayed = c
		}
	}
	if replayed == nil || replayed.status != acp.ToolCallStatusCompleted || !strings.Contains(contentText(replayed.content), "compacted") {
		t.Errorf("replayed compaction %+v", replayed)
	}
}

// titles lists the session_info_update titles of sid, in order.
func titles(h *agenttest.Harness, sid string) []string {
	var out []string
	for _, u := range h.Updates(sid) {
		if i := u.SessionInfoUpdate; i != nil {
			if t, ok := i.Title.Get(); ok {
				out = append(out, t)
			}
		}
	}
	return out
}

// TestLiveSessionTitle: a new session is titled after its first prompt
// (one line; cut to 200 characters, which TestLongPromptTitle checks) as
// soon as the prompt is accepted, keeps that title over later prompts, and
// takes Claude Code's name when the session is renamed (/rename); the fake
// API sees no request but the prompts', and session/load shows the same
// title.
func TestLiveSessionTitle(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.API().Script(fakeapi.Text("Answer.").Times(-1))
	h.Initialize(acp.ClientCapabilities{})
	sid := h.NewSession(h.Sandbox.WorkDir)
	for i, p := range []string{"  Please fix the login\n bug in auth.go  ", "Another one.", "/rename My renamed session", "Third."} {
		if resp, err := h.Prompt(sid, p); err != nil || resp.StopReason != acp.StopReasonEndTurn {
			t.Fatalf("prompt %q: %+v %v", p, resp, err)
		}
		if i == 0 {
			if got := titles(h, sid); !slices.Equal(got, []string{"Please fix the login bug in auth.go"}) {
				t.Errorf("titles after the first prompt %q", got)
			}
		}
	}
	want := []string{"Please fix the login bug in auth.go", "My renamed session"}
	if got := titles(h, sid); !slices.Equal(got, want) {
		t.Errorf("titles %q, want %q", got, want)
	}
	if n := len(h.API().Requests()); n != 3 {
		t.Errorf("%d model requests for three prompts and a /rename", n)
	}

	// The cut of a long prompt is the agent's alone:
	// TestLongPromptTitle checks it over the fake CLI.

	// The load's replay sends the stored name; the resumed CLI's report of
	// the same name is not sent again (unless it came first).
	h2 := reload(t, h, sid, acp.ClientCapabilities{})
	if got := titles(h2, sid); len(got) == 0 || len(got) > 2 || slices.ContainsFunc(got, func(s string) bool { return s != "My renamed session" }) {
		t.Errorf("titles after load %q", got)
	}
}

// TestLongPromptTitle: the title of a session whose first prompt is long
// is the prompt cut to 200 characters, with "…". The title is the agent's
// own (title.go), so the test runs over the in-process fake CLI
// (clifake); TestLiveSessionTitle keeps the titles the real CLI stores
// and reports.
func TestLongPromptTitle(t *testing.T) {
	t.Parallel()
	w, _ := newFakeWorld()
	h := fakeHarness(t, w)
	h.Initialize(acp.ClientCapabilities{})
	long := strings.Repeat("word ", 60) // 300 characters
	sid := h.NewSession(h.Sandbox.WorkDir)
	if _, err := h.Prompt(sid, long); err != nil {
		t.Fatal(err)
	}
	if got := titles(h, sid); len(got) != 1 || len([]rune(got[0])) > 201 || !strings.HasSuffix(got[0], "…") || !strings.HasPrefix(long, strings.TrimSuffix(got[0], "…")) {
		t.Errorf("title of a long prompt %q", got)
	}
}

// TestReplayParallelToolResults: the model calls two tools in one message;
// Claude Code stores the call and result that finished first off the
// branch the conversation continues on. After session/load every tool
// call is announced and then completed, in the order live showed them,
// and the replay equals the live session.
func TestReplayParallelToolResults(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	file := filepath.Join(h.Sandbox.WorkDir, "a.txt")
	if err := os.WriteFile(file, []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.API().Script(
		fakeapi.Step{Kind: fakeapi.KindBlocks, Blocks: []fakeapi.Block{
			{Type: "text", Text: "Running both."},
			{Type: "tool_use", ID: "toolu_slow", Name: "Bash", Input: map[string]any{"command": "sleep 0.5 && echo one", "description": "Slow echo"}},
			{Type: "tool_use", ID: "toolu_read", Name: "Read", Input: map[string]any{"file_path": file}},
		}},
		fakeapi.Text("Both ran."),
	)
	h.Permission = choose("allow_once")
	h.Initialize(acp.ClientCapabilities{})
	sid := h.NewSession(h.Sandbox.WorkDir)
	prompt := []acp.ContentBlock{{Text: &acp.TextContent{Text: "Run two things."}}}
	if resp, err := h.PromptBlocks(h.Ctx(), sid, prompt...); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	live := h.Updates(sid)

	h2 := reload(t, h, sid, acp.ClientCapabilities{})
	calls, order := toolCalls(t, h2, sid)
	if !slices.Equal(order, []string{"toolu_slow", "toolu_read"}) {
		t.Fatalf("replayed calls %v", order)
	}
	for _, id := range order {
		if st := calls[id].status; st != acp.ToolCallStatusCompleted {
			t.Errorf("replayed %s ends %s", id, st)
		}
	}
	if got := contentText(calls["toolu_read"].content); !strings.Contains(got, "alpha") {
		t.Errorf("replayed Read shows %q", got)
	}
	if diff := cmp.Diff(normalize(append(userChunks(prompt), live...)), normalize(h2.Updates(sid))); diff != "" {
		t.Errorf("replay differs from live (-live +replay):\n%s", diff)
	}
}
