package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/faultcli"
)

// TestContextWindowAskedOnceTheCLIAnswers: the question for the context
// window (get_context_usage) does not reach the CLI while it prepares the
// first prompt's model request, which it would hold up (the real CLI
// answers it on the same thread: a cold first answer about 20 ms later).
// The prompt goes right behind the handshake; the question goes once the
// CLI has streamed the first delta of its answer. A session whose CLI is
// idle when it comes up is asked at once.
func TestContextWindowAskedOnceTheCLIAnswers(t *testing.T) {
	t.Parallel()
	w := newFakeCLIWorld(t)
	rc, dir := w.rc, w.dir
	w.initialize(t)
	ctx := context.Background()
	// What each fake CLI read and did, in order: its stdin frames and the
	// first delta of a turn it streamed.
	events := func() map[int][]string {
		byPID := map[int][]string{}
		for _, e := range faultcli.Trace(dir) {
			switch {
			case e.What == "answer":
				byPID[e.PID] = append(byPID[e.PID], "answer")
			case e.What == "frame" && (strings.HasPrefix(e.Detail, "user") || strings.Contains(e.Detail, "get_context_usage")):
				byPID[e.PID] = append(byPID[e.PID], strings.Fields(e.Detail)[len(strings.Fields(e.Detail))-1])
			}
		}
		return byPID
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("what each fake CLI read and streamed: %v", events())
		}
	})

	// A prompt sent with the session: its answer takes 300 ms to start.
	sid := w.newSession(t)
	var resp acp.PromptResponse
	if err := rc.client.Call(ctx, acp.MethodSessionPrompt, &acp.PromptRequest{SessionID: sid,
		Prompt: []acp.ContentBlock{{Text: &acp.TextContent{Text: "late 300"}}}}, &resp); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %v, %q", err, resp.StopReason)
	}
	waitFor(t, "the question for the context window", func() bool {
		for _, ev := range events() {
			if strings.Join(ev, " ") == "user answer get_context_usage" {
				return true
			}
		}
		return false
	})

	// A session left idle: its CLI is asked as soon as it is up.
	idle := w.newSession(t)
	s := waitLive(t, rc.a, string(idle))
	waitFor(t, "the idle CLI's question", func() bool {
		var up bool
		s.do(func() { up = s.cli.proc != nil })
		if !up {
			return false
		}
		n := 0
		for _, ev := range events() {
			if strings.Join(ev, " ") == "get_context_usage" {
				n++
			}
		}
		return n == 1
	})
}

// waitFor polls ok for up to 10 s.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: timed out", what)
		}
	}
}
