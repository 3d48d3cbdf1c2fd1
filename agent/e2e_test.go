package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

func TestPlainTurn(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.API().Script(fakeapi.Text("Hello from Claude."))
	sid := h.NewSession(h.Sandbox.WorkDir)
	resp, err := h.Prompt(sid, "say hi")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("stop reason %q", resp.StopReason)
	}
	if got := h.AgentText(sid); got != "Hello from Claude." {
		t.Fatalf("agent text %q", got)
	}
	reqs := h.API().MainRequests()
	if len(reqs) != 1 || reqs[0].LastUserText != "say hi" {
		t.Fatalf("API saw %d requests: %+v", len(reqs), reqs)
	}
	// Chunks carry the API message id; a usage_update with cost ends the turn.
	var sawID, sawCost bool
	for _, u := range h.Updates(sid) {
		if c := u.AgentMessageChunk; c != nil {
			if id, ok := c.MessageID.Get(); ok && strings.HasPrefix(string(id), "msg_") {
				sawID = true
			}
		}
		if u.UsageUpdate != nil && u.UsageUpdate.Cost != nil {
			sawCost = true
		}
	}
	if !sawID || !sawCost {
		t.Fatalf("messageId seen %v, cost seen %v", sawID, sawCost)
	}
}

func TestThinkingAndTwoTurns(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.API().Script(fakeapi.Thinking("Let me think.", "First answer."), fakeapi.Text("Second answer."))
	sid := h.NewSession(h.Sandbox.WorkDir)
	if _, err := h.Prompt(sid, "one"); err != nil {
		t.Fatal(err)
	}
	if got := h.ThoughtText(sid); got != "Let me think." {
		t.Fatalf("thought %q", got)
	}
	if _, err := h.Prompt(sid, "two"); err != nil {
		t.Fatal(err)
	}
	if got := h.AgentText(sid); got != "First answer.Second answer." {
		t.Fatalf("text %q", got)
	}
	reqs := h.API().MainRequests()
	if len(reqs) != 2 || len(reqs[1].Messages) < 3 {
		t.Fatalf("the second request should carry the history: %+v", reqs)
	}
}

// TestQueuedPrompt: a second prompt sent while the first one's reply is on
// its way waits its turn, and both end end_turn with their text. The
// agent's queueing is the point; it runs on the fake CLI, and the real
// CLI's runs of messages queued in it are proven by the real-CLI tests
// that queue (TestThousandQueuedPromptsDoNotBlockControl, the steering
// tests).
func TestQueuedPrompt(t *testing.T) {
	t.Parallel()
	w, model := cfScripted(clifake.Reply{Delay: 500 * time.Millisecond, Chunks: []string{"first done"}}, cfText("second done"))
	h := startCF(t, w)
	sid := h.NewSession(h.Sandbox.WorkDir)
	type res struct {
		r   *acp.PromptResponse
		err error
	}
	c1, c2 := make(chan res, 1), make(chan res, 1)
	go func() { r, err := h.Prompt(sid, "first"); c1 <- res{r, err} }()
	// The second prompt comes while the first one's reply is on its way.
	h.WaitFor("the first prompt at the model", 20*time.Second, func() bool { return len(model.requests()) > 0 })
	go func() { r, err := h.Prompt(sid, "second"); c2 <- res{r, err} }()
	r1, r2 := <-c1, <-c2
	if r1.err != nil || r2.err != nil || r1.r.StopReason != acp.StopReasonEndTurn || r2.r.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("first %+v, second %+v", r1, r2)
	}
	if got := h.AgentText(sid); !strings.Contains(got, "first done") || !strings.Contains(got, "second done") {
		t.Fatalf("text %q", got)
	}
}

// TestCancelMidStream: session/cancel while text streams answers the
// prompt cancelled; the session goes on, and nothing of the cancelled turn
// follows its answer. The agent's cancel is the point (fake CLI); the
// real CLI's interrupt frames are the golden "cancel" scenario's.
func TestCancelMidStream(t *testing.T) {
	t.Parallel()
	w, _ := cfScripted(cfHang(), cfText("after cancel"))
	h := startCF(t, w)
	sid := h.NewSession(h.Sandbox.WorkDir)
	done := make(chan *acp.PromptResponse, 1)
	go func() {
		r, err := h.Prompt(sid, "think forever")
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	h.WaitFor("streamed text", 30*time.Second, func() bool { return h.AgentText(sid) != "" })
	h.Cancel(sid)
	r := <-done
	if r == nil || r.StopReason != acp.StopReasonCancelled {
		t.Fatalf("got %+v, want cancelled", r)
	}
	n := len(h.Updates(sid))
	// The session keeps working, and nothing of the cancelled turn follows
	// its answer.
	resp, err := h.Prompt(sid, "again")
	if err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("next prompt: %+v %v", resp, err)
	}
	after := h.Updates(sid)[n:]
	for _, u := range after {
		if c := u.AgentMessageChunk; c != nil && !strings.Contains("after cancel", c.Content.Text.Text) {
			t.Fatalf("output of the cancelled turn after its answer: %q", c.Content.Text.Text)
		}
	}
}

// TestCancelRequestOnPrompt: the client withdrawing its prompt request
// ($/cancel_request) cancels the turn: the agent answers it "cancelled"
// on the wire. Agent logic, on the fake CLI.
func TestCancelRequestOnPrompt(t *testing.T) {
	t.Parallel()
	w, _ := cfScripted(cfHang())
	h := startCF(t, w)
	sid := h.NewSession(h.Sandbox.WorkDir)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := h.PromptBlocks(ctx, sid, acp.ContentBlock{Text: &acp.TextContent{Text: "wait"}})
		done <- err
	}()
	h.WaitFor("streamed text", 30*time.Second, func() bool { return h.AgentText(sid) != "" })
	cancel() // our client sends $/cancel_request
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	// The agent answered the prompt "cancelled" on the wire.
	h.WaitFor("cancelled answer", 10*time.Second, func() bool {
		for _, l := range h.Wire() {
			if l.FromAgent && strings.Contains(l.Line, `"stopReason":"cancelled"`) {
				return true
			}
		}
		return false
	})
}

// TestRefusal: a refusal keeps ACP's refusal stop reason and shows its
// explanation. It runs over the fake CLI with the real CLI's refusal
// frames (clifake.Recorded); that the real CLI writes them, and the same
// answer on the real CLI, is TestLegacyDecisionTableE2E's p-refusal.
func TestRefusal(t *testing.T) {
	t.Parallel()
	w := fakeFailureWorld(map[string]clifake.Reply{"write malware": realFrames("refusal")})
	h := agenttest.Start(t, onFakeCLI(w))
	sid := h.NewSession(h.Sandbox.WorkDir)
	resp, err := h.Prompt(sid, "write malware")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != acp.StopReasonRefusal {
		t.Fatalf("stop reason %q", resp.StopReason)
	}
	if got := h.AgentText(sid); !strings.Contains(got, "Looks like malware.") {
		t.Fatalf("the refusal explanation should be shown: %q", got)
	}
}

// TestMaxTokens: Claude's output cut at max_tokens (after the CLI's own
// retries) keeps ACP's max_tokens stop reason. Over the fake CLI with the
// real CLI's frames; the real-CLI proof is TestLegacyDecisionTableE2E's
// p-maxtok.
func TestMaxTokens(t *testing.T) {
	t.Parallel()
	w := fakeFailureWorld(map[string]clifake.Reply{"write a novel": realFrames("max_output_tokens")})
	h := agenttest.Start(t, onFakeCLI(w))
	sid := h.NewSession(h.Sandbox.WorkDir)
	resp, err := h.Prompt(sid, "write a novel")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != acp.StopReasonMaxTokens {
		t.Fatalf("stop reason %q", resp.StopReason)
	}
}

// TestAuthError: a rejected key is ACP's authRequired with Claude's own
// words. Over the fake CLI with the real CLI's 401 frames; the real-CLI
// proof, with the same checks, is TestLegacyDecisionTableE2E's p-401.
func TestAuthError(t *testing.T) {
	t.Parallel()
	w := fakeFailureWorld(map[string]clifake.Reply{"hi": realFrames("auth_401")})
	h := agenttest.Start(t, onFakeCLI(w))
	sid := h.NewSession(h.Sandbox.WorkDir)
	_, err := h.Prompt(sid, "hi")
	ae := wantRPCError(t, err, acp.CodeAuthRequired)
	// Claude's own words for a rejected key, not a generic failure.
	if !strings.Contains(ae.Message, "API key") {
		t.Fatalf("the message should be Claude's own: %q", ae.Message)
	}
}

// TestRateLimitError: an API error is a JSON-RPC error with Claude's
// words, and the session goes on. Over the fake CLI with the real CLI's
// 429 frames; the real-CLI proof of the error is
// TestLegacyDecisionTableE2E's p-429.
func TestRateLimitError(t *testing.T) {
	t.Parallel()
	w := fakeFailureWorld(map[string]clifake.Reply{"hi": realFrames("rate_limit_429"), "again": fakeText("ok now")})
	h := agenttest.Start(t, onFakeCLI(w))
	sid := h.NewSession(h.Sandbox.WorkDir)
	_, err := h.Prompt(sid, "hi")
	wantRPCError(t, err, acp.CodeInternalError, "429", "slow down please")
	// The session still works after an API error.
	if resp, err := h.Prompt(sid, "again"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("after the error: %+v %v", resp, err)
	}
}

// TestBadPromptContent: the agent refuses what it cannot take (audio, an
// unknown session, a relative cwd) before any of it reaches Claude. The
// session it opens runs on the fake CLI: the checks are the agent's own.
func TestBadPromptContent(t *testing.T) {
	t.Parallel()
	h := startCF(t, &clifake.World{})
	sid := h.NewSession(h.Sandbox.WorkDir)
	_, err := h.PromptBlocks(h.Ctx(), sid, acp.ContentBlock{Audio: &acp.AudioContent{Data: "AAAA", MimeType: "audio/wav"}})
	wantRPCError(t, err, acp.CodeInvalidParams) // audio
	_, err = h.Prompt("no-such-session", "hi")
	wantRPCError(t, err, acp.CodeResourceNotFound)
	var resp acp.NewSessionResponse
	err = h.Client.Call(h.Ctx(), acp.MethodSessionNew, &acp.NewSessionRequest{Cwd: "relative/dir", MCPServers: []acp.MCPServer{}}, &resp)
	wantRPCError(t, err, acp.CodeInvalidParams, "cwd") // relative cwd
}

func TestResourcesReachClaude(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.API().Script(fakeapi.Text("seen"))
	sid := h.NewSession(h.Sandbox.WorkDir)
	_, err := h.PromptBlocks(h.Ctx(), sid,
		acp.ContentBlock{Text: &acp.TextContent{Text: "look at"}},
		acp.ContentBlock{ResourceLink: &acp.ResourceLink{URI: "file:///src/main.go", Name: "main.go"}},
		acp.ContentBlock{Resource: &acp.EmbeddedResource{Resource: acp.EmbeddedResourceResource{
			TextResourceContents: &acp.TextResourceContents{URI: "file:///src/util.go", Text: "package util"}}}},
	)
	if err != nil {
		t.Fatal(err)
	}
	req := h.API().MainRequests()[0]
	body := string(req.Body)
	for _, want := range []string{"[@main.go](file:///src/main.go)", `<context ref=\"file:///src/util.go\">`, "package util"} {
		if !strings.Contains(body, want) {
			t.Errorf("the API request lacks %q", want)
		}
	}
}

// TestCLIKilledMidTurn: a CLI killed mid-turn fails the turn for a legacy
// client, and the agent goes on: the session with a new CLI, and new
// sessions. The agent's side of it runs over the fake CLI; that the real
// CLI, killed mid-turn, resumes its cut transcript is
// TestSessionFailureProcessDeathE2E's.
func TestCLIKilledMidTurn(t *testing.T) {
	t.Parallel()
	w := fakeFailureWorld(map[string]clifake.Reply{
		"long job":      {Chunks: []string{"working", "on and on"}, Every: time.Hour},
		"are you there": fakeText("back again"),
		"hello":         fakeText("other session works"),
	})
	h := agenttest.Start(t, onFakeCLI(w))
	sid := h.NewSession(h.Sandbox.WorkDir)
	done := promptAsync(h, sid, "long job")
	h.WaitFor("streamed text", 30*time.Second, func() bool { return h.AgentText(sid) != "" })
	live := w.Live()
	if len(live) != 1 {
		t.Fatalf("want one CLI, found %d", len(live))
	}
	w.Kill(live[0].N())
	wantRPCError(t, (<-done).err, acp.CodeInternalError, "exited unexpectedly")
	// The same session continues (the CLI restarts with --resume) ...
	resp, err := h.Prompt(sid, "are you there")
	if err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("after the crash: %+v %v", resp, err)
	}
	// ... and a new session works too.
	sid2 := h.NewSession(h.Sandbox.WorkDir)
	if resp, err := h.Prompt(sid2, "hello"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("new session: %+v %v", resp, err)
	}
}
