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

// TestPermissionAskedDuringALoadComesAfterTheHistory: the streaming turn of
// a live session asks for a permission while a load of that session
// replays the history. The request and the tool call it shows reach the
// editor after the history's last update; answered, the turn goes on.
func TestPermissionAskedDuringALoadComesAfterTheHistory(t *testing.T) {
	f := newLoadFixture(t, "")
	rc, st, cwd, sid := f.rc, f.st, f.cwd, f.sid
	ctx := context.Background()
	if err := <-rc.startLoad(t, st.SessionID, cwd); err != nil {
		t.Fatalf("first session/load: %v", err)
	}
	asked := make(chan int, 1)
	rc.mu.Lock()
	rc.onPermission = func(p *acp.RequestPermissionRequest, updates int) *acp.RequestPermissionResponse {
		asked <- updates
		return &acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Selected: &acp.SelectedPermissionOutcome{OptionID: p.Options[0].OptionID}}}
	}
	rc.mu.Unlock()
	// The turn streams for 100 ms, then asks.
	var resp acp.PromptResponse
	prompted := make(chan error, 1)
	go func() {
		prompted <- rc.client.Call(ctx, acp.MethodSessionPrompt, &acp.PromptRequest{SessionID: sid,
			Prompt: []acp.ContentBlock{{Text: &acp.TextContent{Text: "ask-after 100"}}}}, &resp)
	}()
	base := 0
	for deadline := time.Now().Add(30 * time.Second); base == 0; time.Sleep(time.Millisecond) {
		rc.mu.Lock()
		for _, u := range rc.updates {
			if c := u.AgentMessageChunk; c != nil && c.Content.Text != nil && c.Content.Text.Text == "." {
				base = len(rc.updates)
				break
			}
		}
		rc.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatal("the turn never streamed")
		}
	}
	// A replay of about 200 ms (20 ms between batches): the turn asks
	// while it runs.
	defer func() { replayBatchHook = nil }()
	replayBatchHook = func(int) { time.Sleep(20 * time.Millisecond) }
	if err := <-rc.startLoad(t, st.SessionID, cwd); err != nil {
		t.Fatalf("second session/load: %v", err)
	}
	replayBatchHook = nil
	if err := <-prompted; err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("the asking turn: %v, %q; want end_turn", err, resp.StopReason)
	}
	var at int
	select {
	case at = <-asked:
	default:
		t.Fatal("the turn never asked")
	}
	rc.mu.Lock()
	us := rc.updates[base:]
	rc.mu.Unlock()
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
		t.Errorf("the asking turn's tool call came at %d, in the middle of the history (%d is its last update); the request came after %d updates", tool, last, at-base)
	}
	if err := rc.client.Call(ctx, acp.MethodSessionClose, &acp.CloseSessionRequest{SessionID: sid}, &acp.CloseSessionResponse{}); err != nil {
		t.Fatal(err)
	}
}
