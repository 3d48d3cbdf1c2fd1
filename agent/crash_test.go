package agent

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// TestPanicStopsOnlyItsSession: a panic on a session's goroutine while its
// turn runs (a bug of ours; here injected) answers that turn with an
// internal error, stops its CLI, and leaves the agent, the connection and
// another session working. Without crash.go the panic ends the process.
func TestPanicStopsOnlyItsSession(t *testing.T) {
	t.Parallel()
	w := newFakeCLIWorld(t)
	w.initialize(t)
	ctx := context.Background()
	prompt := func(sid acp.SessionID, text string) (*acp.PromptResponse, error) {
		var resp acp.PromptResponse
		err := w.rc.client.Call(ctx, acp.MethodSessionPrompt, &acp.PromptRequest{SessionID: sid,
			Prompt: []acp.ContentBlock{{Text: &acp.TextContent{Text: text}}}}, &resp)
		return &resp, err
	}
	sid := w.newSession(t)
	done := make(chan error, 1)
	go func() { _, err := prompt(sid, "slow 30000 never finishes"); done <- err }()
	s := waitLive(t, w.rc.a, string(sid))
	var cli *claude.Process
	for deadline := time.Now().Add(30 * time.Second); cli == nil; time.Sleep(time.Millisecond) {
		s.do(func() {
			if len(s.q.turns) > 0 && s.q.turns[0].phase == turnRunning {
				cli = s.cli.proc
			}
		})
		if time.Now().After(deadline) {
			t.Fatal("the turn never ran")
		}
	}

	if s.do(func() { panic("injected") }) {
		t.Error("do reported that the panicking step ran")
	}
	var rpcErr *acp.Error
	if err := <-done; !errors.As(err, &rpcErr) || rpcErr.Code != acp.CodeInternalError || rpcErr.Message != crashedMessage {
		t.Fatalf("the running prompt ended with %v, want the internal error", err)
	}
	select {
	case <-cli.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the stopped session's CLI still runs")
	}
	if _, err := prompt(sid, "again"); err == nil {
		t.Error("a prompt to the stopped session succeeded")
	} else {
		t.Logf("a prompt to the stopped session: %v", err)
	}

	other := w.newSession(t)
	if r, err := prompt(other, "hello"); err != nil || r.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("another session after the panic: %+v, %v", r, err)
	}
}
