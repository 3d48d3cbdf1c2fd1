package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/faultcli"
)

// TestPromptAfterCancellingAnEarlySentPrompt: a session's first prompt is
// written behind its CLI's handshake, before the CLI reads its stdin (a
// slow start). The user cancels it and types another before the CLI is
// up. The first ends cancelled and never runs; the second waits until the
// CLI has taken the first back, then runs, and only its output reaches
// the editor.
func TestPromptAfterCancellingAnEarlySentPrompt(t *testing.T) {
	t.Parallel()
	w := newFakeCLIWorld(t, faultcli.EnvStart+"=slow")
	rc, dir := w.rc, w.dir
	w.initialize(t)
	ctx := context.Background()
	sid := w.newSession(t)
	prompt := func(text string, resp *acp.PromptResponse) error {
		return rc.client.Call(ctx, acp.MethodSessionPrompt, &acp.PromptRequest{SessionID: sid,
			Prompt: []acp.ContentBlock{{Text: &acp.TextContent{Text: text}}}}, resp)
	}
	var first acp.PromptResponse
	firstDone := make(chan error, 1)
	go func() { firstDone <- prompt("slow 2000 FIRST", &first) }()

	// Wait until the first prompt is written to the starting CLI.
	s := waitLive(t, rc.a, string(sid))
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
		var sent, up bool
		s.do(func() {
			up = s.cli.proc != nil
			for _, tr := range s.q.turns {
				sent = sent || tr.phase == turnSent
			}
		})
		if up {
			t.Fatal("the CLI was up before the first prompt went early; the test needs a slower start")
		}
		if sent {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first prompt never went to the starting CLI")
		}
	}
	if err := rc.client.Notify(ctx, acp.MethodSessionCancel, &acp.CancelNotification{SessionID: sid}); err != nil {
		t.Fatal(err)
	}
	if err := <-firstDone; err != nil || first.StopReason != acp.StopReasonCancelled {
		t.Fatalf("first prompt: %v, %q; want cancelled", err, first.StopReason)
	}
	var second acp.PromptResponse
	if err := prompt("slow 50 SECOND", &second); err != nil || second.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("second prompt: %v, %q; want end_turn", err, second.StopReason)
	}

	rc.mu.Lock()
	us := rc.updates
	rc.mu.Unlock()
	var text strings.Builder
	for _, u := range us {
		if c := u.AgentMessageChunk; c != nil && c.Content.Text != nil {
			text.WriteString(c.Content.Text.Text)
		}
	}
	if got := text.String(); strings.Contains(got, "FIRST") || !strings.Contains(got, "SECOND") {
		t.Errorf("the editor saw %q; want the second prompt's output only", got)
	}
	// The CLI got the first prompt, its withdrawal (and an interrupt, if
	// it had started the prompt before it read the withdrawal), then the
	// second.
	var frames []string
	for _, e := range faultcli.Trace(dir) {
		if e.What == "frame" && (strings.HasPrefix(e.Detail, "user") || strings.Contains(e.Detail, "cancel_async_message") || strings.Contains(e.Detail, "interrupt")) {
			frames = append(frames, strings.TrimSpace(e.Detail))
		}
	}
	want := strings.Join([]string{"user", "control_request cancel_async_message", "user"}, "|")
	orInterrupted := strings.Join([]string{"user", "control_request cancel_async_message", "control_request interrupt", "user"}, "|")
	if got := strings.Join(frames, "|"); got != want && got != orInterrupted {
		t.Errorf("the CLI got %q; want the first prompt, its withdrawal, the second prompt", frames)
	}
	if err := rc.client.Call(ctx, acp.MethodSessionClose, &acp.CloseSessionRequest{SessionID: sid}, &acp.CloseSessionResponse{}); err != nil {
		t.Fatal(err)
	}
}
