package agent_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/transcriptgen"
)

// editScript is a turn with thinking, text, a shell command, a file
// written and then edited, a plan (TodoWrite, or Task* tools when tasks
// is set) and a closing answer.
func editScript(file string, tasks bool) []fakeapi.Step {
	plan := []fakeapi.Step{fakeapi.ToolUse("toolu_todo1", "TodoWrite", map[string]any{"todos": []map[string]any{
		{"content": "Write the file", "status": "completed", "activeForm": "Writing the file"},
		{"content": "Fix the file", "status": "in_progress", "activeForm": "Fixing the file"}}})}
	if tasks {
		plan = []fakeapi.Step{
			fakeapi.ToolUse("toolu_task1", "TaskCreate", map[string]any{"subject": "Fix the file", "description": "f", "activeForm": "Fixing the file"}),
			fakeapi.ToolUse("toolu_task2", "TaskUpdate", map[string]any{"taskId": "1", "status": "in_progress"}),
		}
	}
	steps := []fakeapi.Step{
		{Kind: fakeapi.KindBlocks, Blocks: []fakeapi.Block{
			{Type: "thinking", Thinking: "I should look around first.", Signature: "sig"},
			{Type: "text", Text: "Let me check the directory."},
			{Type: "tool_use", ID: "toolu_bash1", Name: "Bash", Input: map[string]any{"command": "echo hello", "description": "Say hello"}},
		}},
		fakeapi.ToolUse("toolu_write1", "Write", map[string]any{"file_path": file, "content": "one\ntwo\n"}),
	}
	steps = append(steps, plan...)
	return append(steps,
		fakeapi.ToolUse("toolu_edit1", "Edit", map[string]any{"file_path": file, "old_string": "two", "new_string": "three"}),
		fakeapi.Text("Done: the file now says one and three."))
}

// TestLoadReplaysWhatLiveShowed runs a turn with text, a tool call, an
// edit and a plan, ends the agent, and loads the session in a new agent on
// the same config directory: the replayed updates equal the live ones
// (normalised: chunks joined per message, tool calls folded to their final
// state, the user's prompt added to the live side), and the loaded session
// answers a new prompt with the earlier conversation in the model's
// context. It runs for a plain client with TodoWrite plans, and for a
// client that shows terminal output (Zed's _meta.terminal_output) with
// Task* plans.
//
// The live turn of each variant runs on the real CLI: it proves the CLI's
// frames and the transcript it writes for them (TodoWrite in one, Task*
// tools in the other), which the replay must equal. The prompt after the
// load proves two things: that the real CLI started with --resume gives
// the model the stored conversation (its prompt and Claude's answer), a
// CLI behaviour the plain variant proves on the real CLI; and that the
// agent sends the loaded session's prompt to a CLI resumed on it, the
// agent's bookkeeping, which the terminal variant checks with the fake CLI
// behind the loading agent (fakeResume): it still loads the real CLI's
// transcript, and its resumed CLI reads it, but no third real CLI starts.
func TestLoadReplaysWhatLiveShowed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		caps       acp.ClientCapabilities
		env        []string
		tasks      bool
		fakeResume bool
	}{
		{name: "plain", env: []string{"CLAUDE_CODE_ENABLE_TASKS=0", "CLAUDE_CODE_ENABLE_TODO_TOOLS=1"}},
		{name: "terminal", caps: acp.ClientCapabilities{Meta: map[string]json.RawMessage{"terminal_output": json.RawMessage("true")}},
			env: []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1"}, tasks: true, fakeResume: true},
	} {
		t.Run(tc.name, func(t *testing.T) { loadEqualsLive(t, tc.caps, tc.env, tc.tasks, tc.fakeResume) })
	}
}

func loadEqualsLive(t *testing.T, caps acp.ClientCapabilities, env []string, tasks, fakeResume bool) {
	h1 := agenttest.Start(t, agenttest.Options{Env: env})
	file := filepath.Join(h1.Sandbox.WorkDir, "notes.txt")
	h1.API().Script(editScript(file, tasks)...)
	h1.Initialize(caps)
	sid := h1.NewSession(h1.Sandbox.WorkDir)
	prompt := []acp.ContentBlock{
		{Text: &acp.TextContent{Text: "Write notes.txt, then fix it."}},
		{ResourceLink: &acp.ResourceLink{Name: "README.md", URI: "file:///project/README.md"}},
	}
	resp, err := h1.PromptBlocks(h1.Ctx(), sid, prompt...)
	if err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("live prompt: %+v %v", resp, err)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "one\nthree\n" {
		t.Fatalf("file after the turn: %q %v", b, err)
	}
	live := h1.Updates(sid)
	h1.Close() // the agent process exits

	var h2 *agenttest.Harness
	var w *clifake.World
	var m *fakeModel
	if fakeResume {
		w, m = newFakeWorld()
		h2 = fakeHarness(t, w, agenttest.Options{Sandbox: h1.Sandbox, Env: env})
	} else {
		h2 = agenttest.Start(t, agenttest.Options{Sandbox: h1.Sandbox, Env: env})
	}
	h2.Initialize(caps)
	var lr acp.LoadSessionResponse
	err = h2.Client.Call(h2.Ctx(), acp.MethodSessionLoad, &acp.LoadSessionRequest{
		SessionID: acp.SessionID(sid), Cwd: h1.Sandbox.WorkDir, MCPServers: []acp.MCPServer{}}, &lr)
	if err != nil {
		t.Fatalf("session/load: %v", err)
	}
	replayed := h2.Updates(sid) // all before the answer
	if lr.Modes == nil || lr.Modes.CurrentModeID != "default" {
		t.Errorf("load answer modes: %+v", lr.Modes)
	}
	for _, u := range replayed {
		if c := u.UserMessageChunk; c != nil {
			if id, ok := c.MessageID.Get(); !ok || id == "" {
				t.Errorf("user chunk without messageId: %+v", c)
			}
		}
	}
	want := normalize(append(userChunks(prompt), live...))
	got := normalize(replayed)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replay differs from live (-live +replay):\n%s", diff)
	}
	var kinds []string
	for _, l := range got {
		kinds = append(kinds, strings.Fields(l)[0])
	}
	if k := strings.Join(kinds, " "); k != "user user thought agent tool tool plan plan tool agent" && k != "user user thought agent tool tool plan tool agent" {
		t.Errorf("replay shape %q", k)
	}

	if fakeResume {
		m.script("You asked me to write notes.txt.")
		if resp, err := h2.Prompt(sid, "What did I ask you before?"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
			t.Fatalf("prompt after load: %+v %v", resp, err)
		}
		last := m.last(t)
		if last.Session != sid || last.Prompt != "What did I ask you before?" || w.CLIs()[last.CLI].Flag("resume") != sid {
			t.Errorf("the prompt after load ran in session %s (%q), in a CLI started with --resume %q", last.Session, last.Prompt, w.CLIs()[last.CLI].Flag("resume"))
		}
		if !strings.Contains(h2.AgentText(sid), "You asked me to write notes.txt.") {
			t.Errorf("the answer after load: %q", h2.AgentText(sid))
		}
		return
	}
	h2.API().Script(fakeapi.Text("You asked me to write notes.txt."))
	if resp, err := h2.Prompt(sid, "What did I ask you before?"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt after load: %+v %v", resp, err)
	}
	reqs := h2.API().MainRequests()
	last := reqs[len(reqs)-1]
	if last.LastUserText != "What did I ask you before?" || !mentions(last, "Write notes.txt, then fix it.") || !mentions(last, "Done: the file now says one and three.") {
		t.Errorf("the prompt after load did not carry the earlier conversation: %+v", last.Messages)
	}
}

// TestResumeContinuesWithoutReplay resumes a session in a new agent: no
// history is sent, and the next prompt continues the conversation, in a
// CLI started with --resume. It runs on the in-process fake CLI: that the
// real CLI started with --resume brings the stored conversation to the
// model is proven by TestLoadReplaysWhatLiveShowed (its prompt after the
// load) and TestLoadUnknownAndCorrupt.
func TestResumeContinuesWithoutReplay(t *testing.T) {
	t.Parallel()
	w, m := newFakeWorld()
	m.script("The code word is heron.")
	h1 := fakeHarness(t, w)
	sid := h1.NewSession(h1.Sandbox.WorkDir)
	if _, err := h1.Prompt(sid, "Pick a code word."); err != nil {
		t.Fatal(err)
	}
	h1.Close()

	h2 := fakeHarness(t, w, agenttest.Options{Sandbox: h1.Sandbox})
	h2.Initialize(acp.ClientCapabilities{})
	var rr acp.ResumeSessionResponse
	if err := h2.Client.Call(h2.Ctx(), acp.MethodSessionResume, &acp.ResumeSessionRequest{
		SessionID: acp.SessionID(sid), Cwd: h1.Sandbox.WorkDir}, &rr); err != nil {
		t.Fatalf("session/resume: %v", err)
	}
	for _, u := range h2.Updates(sid) {
		if u.UserMessageChunk != nil || u.AgentMessageChunk != nil || u.ToolCall != nil {
			t.Errorf("resume replayed history: %+v", u)
		}
	}
	m.script("It was heron.")
	if _, err := h2.Prompt(sid, "What was the code word?"); err != nil {
		t.Fatal(err)
	}
	last := m.last(t)
	if last.Session != sid || !inHistory(last, "Pick a code word.") {
		t.Errorf("resumed prompt lacks the history: session %s, history %q", last.Session, last.History)
	}
	if cli := w.CLIs()[last.CLI]; cli.Flag("resume") != sid {
		t.Errorf("the resumed prompt ran in a CLI started with %q", cli.Flag("resume"))
	}
}

// TestForkContinuesIndependently forks a session: the fork has a new id,
// starts from the source's history, and neither sees the other's later
// prompts. It is the real CLI's proof of --fork-session (the fake CLI
// copies what it does, clifake/fork.go): the transcript the real CLI
// writes for the fork is listed, and loaded, under the fork's own first
// prompt, not the source's (TestForkIsTitledByItsOwnPrompt checks the
// rest of the titles on the fake CLI). The load runs in an agent with the
// fake CLI behind it: what it reads is the real CLI's transcript, and
// only its background resume would need a CLI. Its two real CLIs are the
// least that proves --fork-session: the source's, which writes the
// transcript the fork copies (and whose later prompt must not see the
// fork's), and the fork's.
func TestForkContinuesIndependently(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.API().Script(fakeapi.Text("Noted: blue."))
	src := h.NewSession(h.Sandbox.WorkDir)
	if _, err := h.Prompt(src, "My colour is blue."); err != nil {
		t.Fatal(err)
	}
	var fr acp.ForkSessionResponse
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionFork, &acp.ForkSessionRequest{
		SessionID: acp.SessionID(src), Cwd: h.Sandbox.WorkDir}, &fr); err != nil {
		t.Fatalf("session/fork: %v", err)
	}
	fork := string(fr.SessionID)
	if fork == src || !transcript.ValidSessionID(fork) {
		t.Fatalf("fork id %q (source %q)", fork, src)
	}
	h.API().Script(fakeapi.Text("fork answer"), fakeapi.Text("source answer"))
	if _, err := h.Prompt(fork, "In the fork: make it green."); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Prompt(src, "In the source: still blue?"); err != nil {
		t.Fatal(err)
	}
	reqs := h.API().MainRequests()
	forkReq, srcReq := reqs[len(reqs)-2], reqs[len(reqs)-1]
	if !mentions(forkReq, "My colour is blue.") {
		t.Errorf("the fork lacks the source's history: %+v", forkReq.Messages)
	}
	if mentions(srcReq, "In the fork: make it green.") {
		t.Errorf("the source sees the fork's prompt: %+v", srcReq.Messages)
	}
	if h.AgentText(fork) != "fork answer" || !strings.HasSuffix(h.AgentText(src), "source answer") {
		t.Errorf("fork text %q, source text %q", h.AgentText(fork), h.AgentText(src))
	}
	for _, id := range []string{src, fork} {
		if _, err := transcript.Find(h.Sandbox.ConfigDir, id); err != nil {
			t.Errorf("transcript of %s: %v", id, err)
		}
	}
	var lr acp.ListSessionsResponse
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionList, &acp.ListSessionsRequest{}, &lr); err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{}
	for _, s := range lr.Sessions {
		listed[string(s.SessionID)], _ = s.Title.Get()
	}
	if listed[fork] != "In the fork: make it green." || strings.Contains(listed[src], "fork") {
		t.Errorf("session/list titles the fork %q and the source %q", listed[fork], listed[src])
	}
	h.Close()
	h2 := fakeHarness(t, &clifake.World{}, agenttest.Options{Sandbox: h.Sandbox})
	h2.Initialize(acp.ClientCapabilities{})
	if err := h2.Client.Call(h2.Ctx(), acp.MethodSessionLoad, &acp.LoadSessionRequest{
		SessionID: acp.SessionID(fork), Cwd: h.Sandbox.WorkDir, MCPServers: []acp.MCPServer{}}, &acp.LoadSessionResponse{}); err != nil {
		t.Fatal(err)
	}
	if got := titles(h2, fork); len(got) != 1 || got[0] != "In the fork: make it green." {
		t.Errorf("the loaded fork's titles %q", got)
	}
	if text := h2.AgentText(fork); !strings.Contains(text, "Noted: blue.") || !strings.Contains(text, "fork answer") || strings.Contains(text, "source answer") {
		t.Errorf("the loaded fork's history %q", text)
	}
}

// TestCloseStopsTheCLI closes a live session: the answer comes after its
// CLI is gone, a prompt to it is -32002, and closing again (or closing an
// id never seen) succeeds. (Fake CLI: how the agent stops a real CLI is
// proven by the close tests of close_e2e_test.go.)
func TestCloseStopsTheCLI(t *testing.T) {
	t.Parallel()
	w, m := newFakeWorld()
	h := fakeHarness(t, w)
	m.script("hi")
	sid := h.NewSession(h.Sandbox.WorkDir)
	other := h.NewSession(h.Sandbox.WorkDir)
	if _, err := h.Prompt(sid, "hello"); err != nil {
		t.Fatal(err)
	}
	m.script("hi")
	if _, err := h.Prompt(other, "hello"); err != nil {
		t.Fatal(err)
	}
	if live := len(w.Live()); live != 2 || liveFor(w, sid) != 1 {
		t.Errorf("%d CLIs run before close (%d of the closed session), want 2 (1)", live, liveFor(w, sid))
	}
	closeReq := &acp.CloseSessionRequest{SessionID: acp.SessionID(sid)}
	for i := range 2 {
		if err := h.Client.Call(h.Ctx(), acp.MethodSessionClose, closeReq, &acp.CloseSessionResponse{}); err != nil {
			t.Fatalf("session/close #%d: %v", i+1, err)
		}
		if liveFor(w, sid) != 0 {
			t.Errorf("session/close #%d answered before its CLI was gone", i+1)
		}
	}
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionClose, &acp.CloseSessionRequest{SessionID: "9b0e7c1e-0000-4000-8000-000000000000"}, &acp.CloseSessionResponse{}); err != nil {
		t.Fatalf("session/close of an unknown id: %v", err)
	}
	if live := w.Live(); len(live) != 1 || live[0].Session() != other {
		t.Errorf("%d CLIs run after close, want only the other session's", len(live))
	}
	_, err := h.Prompt(sid, "are you there?")
	wantSessionNotFound(t, err, sid)
	m.script("still here")
	if _, err := h.Prompt(other, "and you?"); err != nil {
		t.Fatalf("the other session stopped working: %v", err)
	}
}

// TestListPagesAndFilters lists stored sessions: newest first, filtered by
// cwd, with titles and timestamps, in pages of 1000 with a cursor. (Fake
// CLI: that session/list reads what the real CLI stores is proven by
// TestListsSessionWithHugeFirstPrompt and TestForkContinuesIndependently.)
func TestListPagesAndFilters(t *testing.T) {
	t.Parallel()
	w, m := newFakeWorld()
	h := fakeHarness(t, w)
	m.script("ok")
	sid := h.NewSession(h.Sandbox.WorkDir)
	if _, err := h.Prompt(sid, "Title me please"); err != nil {
		t.Fatal(err)
	}
	otherCwd := filepath.Join(t.TempDir(), "elsewhere")
	old := time.Now().Add(-time.Hour)
	for i := range 1001 {
		path, _, err := transcriptgen.WriteSession(h.Sandbox.ConfigDir, transcriptgen.Options{
			Cwd: otherCwd, Messages: 2, Seed: int64(i)})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, old, old); err != nil {
			t.Fatal(err)
		}
	}
	m.script("ok")
	if _, err := h.Prompt(sid, "touch the transcript"); err != nil {
		t.Fatal(err)
	}

	list := func(req *acp.ListSessionsRequest) *acp.ListSessionsResponse {
		t.Helper()
		var resp acp.ListSessionsResponse
		if err := h.Client.Call(h.Ctx(), acp.MethodSessionList, req, &resp); err != nil {
			t.Fatalf("session/list: %v", err)
		}
		return &resp
	}
	mine := list(&acp.ListSessionsRequest{Cwd: acp.Some(h.Sandbox.WorkDir)})
	if len(mine.Sessions) != 1 || string(mine.Sessions[0].SessionID) != sid || mine.Sessions[0].Cwd != h.Sandbox.WorkDir {
		t.Fatalf("cwd-filtered list: %+v", mine.Sessions)
	}
	if title, _ := mine.Sessions[0].Title.Get(); title == "" {
		t.Errorf("no title: %+v", mine.Sessions[0])
	}
	if at, _ := mine.Sessions[0].UpdatedAt.Get(); !parses(at) {
		t.Errorf("updatedAt %q is not ISO 8601", at)
	}

	first := list(&acp.ListSessionsRequest{})
	cursor, ok := first.NextCursor.Get()
	if len(first.Sessions) != 1000 || !ok || string(first.Sessions[0].SessionID) != sid {
		t.Fatalf("first page: %d sessions, cursor %q, first %v", len(first.Sessions), cursor, first.Sessions[0].SessionID)
	}
	second := list(&acp.ListSessionsRequest{Cursor: acp.Some(cursor)})
	if len(second.Sessions) != 2 || second.NextCursor.IsSet() {
		t.Fatalf("second page: %d sessions, cursor %v", len(second.Sessions), second.NextCursor)
	}
	seen := map[acp.SessionID]bool{}
	for _, s := range append(first.Sessions, second.Sessions...) {
		if seen[s.SessionID] {
			t.Fatalf("%s listed twice", s.SessionID)
		}
		seen[s.SessionID] = true
	}

	err := h.Client.Call(h.Ctx(), acp.MethodSessionList, &acp.ListSessionsRequest{Cursor: acp.Some("bogus")}, &acp.ListSessionsResponse{})
	wantCode(t, err, acp.CodeInvalidParams)
	err = h.Client.Call(h.Ctx(), acp.MethodSessionList, &acp.ListSessionsRequest{Cwd: acp.Some("relative/dir")}, &acp.ListSessionsResponse{})
	wantCode(t, err, acp.CodeInvalidParams)
}

// TestDeleteRemovesTheSession deletes a live session: its CLI stops, its
// transcript is gone from disk and from the list, and deleting again
// succeeds. (Fake CLI: delete removes the transcript file the CLI
// wrote; the real CLI's transcript is found by the tests that load it.)
func TestDeleteRemovesTheSession(t *testing.T) {
	t.Parallel()
	w, m := newFakeWorld()
	h := fakeHarness(t, w)
	m.script("ok")
	sid := h.NewSession(h.Sandbox.WorkDir)
	if _, err := h.Prompt(sid, "remember me"); err != nil {
		t.Fatal(err)
	}
	if _, err := transcript.Find(h.Sandbox.ConfigDir, sid); err != nil {
		t.Fatalf("transcript before delete: %v", err)
	}
	for i := range 2 {
		if err := h.Client.Call(h.Ctx(), acp.MethodSessionDelete, &acp.DeleteSessionRequest{SessionID: acp.SessionID(sid)}, &acp.DeleteSessionResponse{}); err != nil {
			t.Fatalf("session/delete #%d: %v", i+1, err)
		}
		if liveFor(w, sid) != 0 {
			t.Errorf("session/delete #%d answered while its CLI runs", i+1)
		}
	}
	if _, err := transcript.Find(h.Sandbox.ConfigDir, sid); !errors.Is(err, transcript.ErrNotFound) {
		t.Errorf("transcript after delete: %v", err)
	}
	var lr acp.ListSessionsResponse
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionList, &acp.ListSessionsRequest{}, &lr); err != nil || len(lr.Sessions) != 0 {
		t.Errorf("list after delete: %+v %v", lr.Sessions, err)
	}
	_, err := h.Prompt(sid, "still there?")
	wantSessionNotFound(t, err, sid)
}

// TestLoadUnknownAndCorrupt: an unknown id is -32002 with data.sessionId
// for load and resume and fork; a transcript with a corrupt line and a
// torn last line still loads, in the permission mode of its last prompt,
// and the real CLI resumes it.
func TestLoadUnknownAndCorrupt(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.Initialize(acp.ClientCapabilities{})
	unknown := "0d4c5d4e-1111-4222-8333-444455556666"
	err := h.Client.Call(h.Ctx(), acp.MethodSessionLoad, &acp.LoadSessionRequest{
		SessionID: acp.SessionID(unknown), Cwd: h.Sandbox.WorkDir, MCPServers: []acp.MCPServer{}}, &acp.LoadSessionResponse{})
	wantSessionNotFound(t, err, unknown)
	err = h.Client.Call(h.Ctx(), acp.MethodSessionResume, &acp.ResumeSessionRequest{
		SessionID: "not-a-uuid", Cwd: h.Sandbox.WorkDir}, &acp.ResumeSessionResponse{})
	wantSessionNotFound(t, err, "not-a-uuid")
	err = h.Client.Call(h.Ctx(), acp.MethodSessionFork, &acp.ForkSessionRequest{
		SessionID: acp.SessionID(unknown), Cwd: h.Sandbox.WorkDir}, &acp.ForkSessionResponse{})
	wantSessionNotFound(t, err, unknown)

	path, st, err := transcriptgen.WriteSession(h.Sandbox.ConfigDir, transcriptgen.Options{
		Cwd: h.Sandbox.WorkDir, Messages: 24, PermissionMode: "acceptEdits"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	// A line that is not JSON in the middle would need a rewrite; a garbage
	// line and a torn last line at the end are what crashes leave.
	if _, err := f.WriteString("this is not json\n{\"type\":\"user\",\"uuid\":\"torn"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var lr acp.LoadSessionResponse
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionLoad, &acp.LoadSessionRequest{
		SessionID: acp.SessionID(st.SessionID), Cwd: h.Sandbox.WorkDir, MCPServers: []acp.MCPServer{}}, &lr); err != nil {
		t.Fatalf("load of a transcript with corrupt lines: %v", err)
	}
	if lr.Modes == nil || lr.Modes.CurrentModeID != "acceptEdits" {
		t.Errorf("the mode of the last prompt was not restored: %+v", lr.Modes)
	}
	prompts, tools := map[acp.MessageID]bool{}, 0
	for _, u := range h.Updates(st.SessionID) {
		if c := u.UserMessageChunk; c != nil {
			prompts[c.MessageID.Or("")] = true
		}
		if u.ToolCall != nil {
			tools++
		}
	}
	// TodoWrite may be reported as a plan rather than a tool call.
	if len(prompts) != st.Turns || tools > st.ToolCalls || tools < st.ToolCalls-st.Tools["TodoWrite"] {
		t.Errorf("replayed %d prompts and %d tool calls, want %d and %d", len(prompts), tools, st.Turns, st.ToolCalls)
	}
	// The generated session resumes in the real CLI: its history reaches
	// the model.
	h.API().Script(fakeapi.Text("continuing"))
	if _, err := h.Prompt(st.SessionID, "go on"); err != nil {
		t.Fatalf("prompt after loading a generated transcript: %v", err)
	}
	reqs := h.API().MainRequests()
	if last := reqs[len(reqs)-1]; !mentions(last, "Turn 0: ") || !mentions(last, fmt.Sprintf("Turn %d: ", st.Turns-1)) {
		t.Errorf("the model did not see the generated history: %d messages", len(last.Messages))
	}
}

// normalize reduces updates to what a client shows: consecutive chunks of
// one kind and message joined, tool calls folded into their final state at
// the place they first appeared, usage and other bookkeeping dropped.
func normalize(us []acp.SessionUpdate) []string {
	var out []string
	tools := map[string]int{} // tool call id → index in out
	state := map[string]map[string]json.RawMessage{}
	lastKind, lastID := "", ""
	for _, u := range us {
		var kind string
		var c *acp.ContentChunk
		switch {
		case u.UserMessageChunk != nil:
			kind, c = "user", u.UserMessageChunk
		case u.AgentMessageChunk != nil:
			kind, c = "agent", u.AgentMessageChunk
		case u.AgentThoughtChunk != nil:
			kind, c = "thought", u.AgentThoughtChunk
		}
		if c != nil {
			id, _ := c.MessageID.Get()
			if kind == "user" {
				id = "" // live prompts carry no id; the replay's is checked elsewhere
			}
			b, _ := json.Marshal(c.Content)
			if kind == lastKind && string(id) == lastID && c.Content.Text != nil && len(out) > 0 && strings.HasPrefix(out[len(out)-1], kind+" "+string(id)+" text:") {
				out[len(out)-1] += c.Content.Text.Text
				continue
			}
			lastKind, lastID = kind, string(id)
			if c.Content.Text != nil {
				out = append(out, kind+" "+string(id)+" text:"+c.Content.Text.Text)
			} else {
				out = append(out, kind+" "+string(id)+" "+string(b))
			}
			continue
		}
		var id string
		var fields map[string]json.RawMessage
		switch {
		case u.ToolCall != nil:
			id = string(u.ToolCall.ToolCallID)
			b, _ := json.Marshal(u.ToolCall)
			_ = json.Unmarshal(b, &fields)
		case u.ToolCallUpdate != nil:
			id = string(u.ToolCallUpdate.ToolCallID)
			b, _ := json.Marshal(u.ToolCallUpdate)
			_ = json.Unmarshal(b, &fields)
		case u.Plan != nil:
			b, _ := json.Marshal(u.Plan)
			out = append(out, "plan "+string(b))
			lastKind = ""
			continue
		default:
			continue // usage, commands, modes, session info
		}
		lastKind = ""
		if state[id] == nil {
			state[id] = map[string]json.RawMessage{}
			tools[id] = len(out)
			out = append(out, "")
		}
		for k, v := range fields {
			switch k {
			case "sessionUpdate":
			case "_meta": // keys accumulate: terminal output, then its exit
				var old, add map[string]json.RawMessage
				_ = json.Unmarshal(state[id][k], &old)
				_ = json.Unmarshal(v, &add)
				if old == nil {
					old = map[string]json.RawMessage{}
				}
				maps.Copy(old, add)
				state[id][k], _ = json.Marshal(old)
			default:
				state[id][k] = v
			}
		}
		b, _ := json.Marshal(state[id])
		out[tools[id]] = "tool " + string(b)
	}
	return out
}

// userChunks is what the replay sends for a prompt the client sent.
func userChunks(prompt []acp.ContentBlock) []acp.SessionUpdate {
	var out []acp.SessionUpdate
	for _, b := range prompt {
		out = append(out, acp.SessionUpdate{UserMessageChunk: &acp.ContentChunk{Content: b}})
	}
	return out
}

// mentions reports whether a request's messages contain text.
func mentions(r fakeapi.Request, text string) bool {
	for _, m := range r.Messages {
		if strings.Contains(m.Text, text) {
			return true
		}
	}
	return false
}

func parses(ts string) bool {
	_, err := time.Parse(time.RFC3339Nano, ts)
	return err == nil
}

func wantCode(t *testing.T, err error, code int) {
	t.Helper()
	var rpc *acp.Error
	if !errors.As(err, &rpc) || int(rpc.Code) != code {
		t.Errorf("error %v, want code %d", err, code)
	}
}

func wantSessionNotFound(t *testing.T, err error, id string) {
	t.Helper()
	var rpc *acp.Error
	if !errors.As(err, &rpc) || rpc.Code != acp.CodeResourceNotFound {
		t.Fatalf("error %v, want -32002", err)
	}
	var data struct {
		SessionID string `json:"sessionId"`
	}
	if json.Unmarshal(rpc.Data, &data) != nil || data.SessionID != id {
		t.Errorf("error data %s, want sessionId %q", rpc.Data, id)
	}
}

// TestForkIsTitledByItsOwnPrompt: a fork is titled after its source,
// marked as a fork, until its own first prompt titles it, live, in
// session/list and after session/load; the source keeps its title. (The
// CLI started with --fork-session writes the source's last prompt as the
// fork's, which titled the fork in session/list.) It runs on the fake CLI,
// which forks as the real one does (clifake/fork.go); that session/list
// titles the real CLI's fork by its own prompt is proven by
// TestForkContinuesIndependently.
func TestForkIsTitledByItsOwnPrompt(t *testing.T) {
	t.Parallel()
	w, m := newFakeWorld()
	h := fakeHarness(t, w)
	m.script("a1", "a2", "f1", "f2")
	h.Initialize(acp.ClientCapabilities{})
	src := h.NewSession(h.Sandbox.WorkDir)
	for _, p := range []string{"alpha one", "alpha two"} {
		if _, err := h.Prompt(src, p); err != nil {
			t.Fatal(err)
		}
	}
	var fr acp.ForkSessionResponse
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionFork, &acp.ForkSessionRequest{
		SessionID: acp.SessionID(src), Cwd: h.Sandbox.WorkDir}, &fr); err != nil {
		t.Fatalf("session/fork: %v", err)
	}
	fork := string(fr.SessionID)
	if got := titles(h, fork); len(got) != 1 || !strings.HasPrefix(got[0], "alpha ") || !strings.HasSuffix(got[0], " (fork)") {
		t.Errorf("the fork's titles before its own prompt: %q", got)
	}
	for _, p := range []string{"beta on the fork", "gamma on the fork"} {
		if _, err := h.Prompt(fork, p); err != nil {
			t.Fatal(err)
		}
	}
	if got := titles(h, fork); len(got) != 2 || got[1] != "beta on the fork" {
		t.Errorf("the fork's live titles %q, want its first own prompt last", got)
	}
	listed := map[string]string{}
	var lr acp.ListSessionsResponse
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionList, &acp.ListSessionsRequest{}, &lr); err != nil {
		t.Fatal(err)
	}
	for _, s := range lr.Sessions {
		listed[string(s.SessionID)], _ = s.Title.Get()
	}
	if listed[fork] != "beta on the fork" || !strings.HasPrefix(listed[src], "alpha ") {
		t.Errorf("session/list titles the fork %q and the source %q", listed[fork], listed[src])
	}
	h.Close()
	h2 := fakeHarness(t, w, agenttest.Options{Sandbox: h.Sandbox})
	h2.Initialize(acp.ClientCapabilities{})
	if err := h2.Client.Call(h2.Ctx(), acp.MethodSessionLoad, &acp.LoadSessionRequest{
		SessionID: acp.SessionID(fork), Cwd: h.Sandbox.WorkDir, MCPServers: []acp.MCPServer{}}, &acp.LoadSessionResponse{}); err != nil {
		t.Fatal(err)
	}
	if got := titles(h2, fork); len(got) != 1 || got[0] != "beta on the fork" {
		t.Errorf("the loaded fork's titles %q", got)
	}
}
