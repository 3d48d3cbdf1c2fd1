package agent

import (
	"context"
	"encoding/json"
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
	// Not parallel: it sets replayHeadStart and replayBatchHook, which every replay reads.
	f := newLoadFixture(t, "")
	live := func(u acp.SessionUpdate) bool {
		c := u.AgentMessageChunk
		return c != nil && c.Content.Text != nil && strings.Contains(c.Content.Text.Text, "LIVE")
	}
	// A turn that streams a tagged chunk every 5 ms for a second and a
	// half; the second load's replay takes a while (10 ms between
	// batches), so that chunks streamed meanwhile would land among its
	// updates.
	us := loadWhileATurnRuns(t, f, "slow 1500 LIVE", live, 10*time.Millisecond)
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
}

// TestPermissionAskedDuringALoadComesAfterTheHistory: the streaming turn of
// a live session asks for a permission while a load of that session
// replays the history. The request and the tool call it shows reach the
// editor after the history's last update; answered, the turn goes on.
func TestPermissionAskedDuringALoadComesAfterTheHistory(t *testing.T) {
	// Not parallel: it sets replayHeadStart and replayBatchHook, which every replay reads.
	f := newLoadFixture(t, "")
	asked := make(chan bool, 1)
	f.rc.mu.Lock()
	f.rc.onPermission = func(p *acp.RequestPermissionRequest) *acp.RequestPermissionResponse {
		asked <- true
		return &acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Selected: &acp.SelectedPermissionOutcome{OptionID: p.Options[0].OptionID}}}
	}
	f.rc.mu.Unlock()
	dot := func(u acp.SessionUpdate) bool {
		c := u.AgentMessageChunk
		return c != nil && c.Content.Text != nil && c.Content.Text.Text == "."
	}
	// The turn streams for 100 ms, then asks, while a replay of about
	// 200 ms (20 ms between batches) runs.
	us := loadWhileATurnRuns(t, f, "ask-after 100", dot, 20*time.Millisecond)
	select {
	case <-asked:
	default:
		t.Fatal("the turn never asked")
	}
	turns := func(u acp.SessionUpdate) bool { // the asking turn's own updates
		if c := u.AgentMessageChunk; c != nil && c.Content.Text != nil {
			text := strings.TrimLeft(c.Content.Text.Text, ".") // chunks that queued up are merged
			return text == "" || text == "let me run a command" || strings.HasPrefix(text, "asked:")
		}
		if c := u.ToolCall; c != nil {
			return strings.HasPrefix(string(c.ToolCallID), "toolu_fake_")
		}
		if c := u.ToolCallUpdate; c != nil {
			return strings.HasPrefix(string(c.ToolCallID), "toolu_fake_")
		}
		return false
	}
	last := -1
	for i, u := range us {
		if len(historyUpdates([]acp.SessionUpdate{u})) == 1 && !turns(u) {
			last = i
		}
	}
	if last < 0 {
		t.Fatal("the second load replayed nothing")
	}
	// The tool call the request shows goes out with it, among the
	// updates, whose order is the wire's (the request's own position is
	// not: the client runs its handler beside the notifications').
	tool := -1
	for i, u := range us {
		if (u.ToolCall != nil || u.ToolCallUpdate != nil) && turns(u) {
			tool = i
			break
		}
	}
	if tool <= last {
		for i := max(0, tool-3); i < len(us) && i <= last+2; i++ {
			b, _ := json.Marshal(us[i])
			t.Logf("%d: %.200s", i, b)
		}
		t.Errorf("the asking turn's tool call came at %d, in the middle of the history (%d is its last update)", tool, last)
	}
}

// loadWhileATurnRuns loads f's session, starts prompt in it, and once a
// chunk of its turn (turnChunk) has come, loads the session again with
// gap between the replay's batches. Once the turn has ended end_turn it
// closes the session and returns the updates that came after the turn's
// first chunks.
func loadWhileATurnRuns(t *testing.T, f *loadFixture, prompt string, turnChunk func(acp.SessionUpdate) bool, gap time.Duration) []acp.SessionUpdate {
	t.Helper()
	rc, ctx := f.rc, context.Background()
	if err := <-rc.startLoad(t, f.st.SessionID, f.cwd); err != nil {
		t.Fatalf("first session/load: %v", err)
	}
	var resp acp.PromptResponse
	prompted := make(chan error, 1)
	go func() {
		prompted <- rc.client.Call(ctx, acp.MethodSessionPrompt, &acp.PromptRequest{SessionID: f.sid,
			Prompt: []acp.ContentBlock{{Text: &acp.TextContent{Text: prompt}}}}, &resp)
	}()
	base := 0
	for deadline := time.Now().Add(30 * time.Second); base == 0; time.Sleep(time.Millisecond) {
		rc.mu.Lock()
		for _, u := range rc.updates {
			if turnChunk(u) {
				base = len(rc.updates)
				break
			}
		}
		rc.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatal("the turn never streamed")
		}
	}
	defer func() { replayBatchHook = nil }()
	replayBatchHook = func(int) { time.Sleep(gap) }
	if err := <-rc.startLoad(t, f.st.SessionID, f.cwd); err != nil {
		t.Fatalf("second session/load: %v", err)
	}
	replayBatchHook = nil
	if err := <-prompted; err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("the turn %q: %v, %q; want end_turn", prompt, err, resp.StopReason)
	}
	if err := rc.client.Call(ctx, acp.MethodSessionClose, &acp.CloseSessionRequest{SessionID: f.sid}, &acp.CloseSessionResponse{}); err != nil {
		t.Fatal(err)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.updates[base:]
}
