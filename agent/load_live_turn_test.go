package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
)

// TestLoadOfALiveSessionWhileATurnStreams: session/load of a session whose
// turn is streaming. The history goes out whole, and the turn's output
// waits behind it, then goes on: none of the turn's chunks comes in the
// middle of the history, and the turn ends as usual.
func TestLoadOfALiveSessionWhileATurnStreams(t *testing.T) {
	f := newLoadFixture(t, "")
	rc, st, cwd, sid := f.rc, f.st, f.cwd, f.sid
	ctx := context.Background()
	if err := <-rc.startLoad(t, st.SessionID, cwd); err != nil {
		t.Fatalf("first session/load: %v", err)
	}
	// A turn that streams a tagged chunk every 5 ms for a second and a half.
	var resp acp.PromptResponse
	prompted := make(chan error, 1)
	go func() {
		prompted <- rc.client.Call(ctx, acp.MethodSessionPrompt, &acp.PromptRequest{SessionID: sid,
			Prompt: []acp.ContentBlock{{Text: &acp.TextContent{Text: "slow 1500 LIVE"}}}}, &resp)
	}()
	live := func(u acp.SessionUpdate) bool {
		c := u.AgentMessageChunk
		return c != nil && c.Content.Text != nil && strings.Contains(c.Content.Text.Text, "LIVE")
	}
	base := 0
	for deadline := time.Now().Add(30 * time.Second); base == 0; time.Sleep(time.Millisecond) {
		rc.mu.Lock()
		for _, u := range rc.updates {
			if live(u) {
				base = len(rc.updates)
				break
			}
		}
		rc.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatal("the turn never streamed")
		}
	}
	// The second load's replay takes a while (10 ms between batches), so
	// that chunks streamed meanwhile would land among its updates.
	defer func() { replayBatchHook = nil }()
	replayBatchHook = func(int) { time.Sleep(10 * time.Millisecond) }
	if err := <-rc.startLoad(t, st.SessionID, cwd); err != nil {
		t.Fatalf("second session/load: %v", err)
	}
	replayBatchHook = nil
	if err := <-prompted; err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("the streaming turn: %v, %q; want end_turn", err, resp.StopReason)
	}
	rc.mu.Lock()
	us := rc.updates[base:]
	rc.mu.Unlock()
	first, last, after := -1, -1, 0
	for i, u := range us {
		if len(historyUpdates([]acp.SessionUpdate{u})) == 1 && !live(u) {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		t.Fatal("the second load replayed nothing")
	}
	for i, u := range us {
		switch {
		case !live(u):
		case i > first && i < last:
			t.Fatalf("a chunk of the streaming turn came at %d, in the middle of the history (%d to %d)", i, first, last)
		case i > last:
			after++
		}
	}
	if after == 0 {
		t.Error("no chunk of the streaming turn came after the history")
	}
	if err := rc.client.Call(ctx, acp.MethodSessionClose, &acp.CloseSessionRequest{SessionID: sid}, &acp.CloseSessionResponse{}); err != nil {
		t.Fatal(err)
	}
}
