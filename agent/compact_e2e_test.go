package agent_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// compactOutput is a compaction call's rawOutput.
type compactOutput struct {
	Trigger    string `json:"trigger"`
	PreTokens  uint64 `json:"preTokens"`
	PostTokens uint64 `json:"postTokens"`
}

// TestCompactedThreadReloadsWhatClaudeKept: /compact keeps the last answer
// verbatim (the boundary's preservedSegment; no later line points at it).
// After session/load the thread shows it after the compaction, as Claude
// sees it after the summary, and the compaction card has the figures it
// had live, not zeros.
func TestCompactedThreadReloadsWhatClaudeKept(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.API().Script(fakeapi.Text("First answer."), fakeapi.Text("Second answer."),
		fakeapi.Text("<summary>We said hello twice.</summary>"), fakeapi.Text("After compact."))
	h.Initialize(acp.ClientCapabilities{})
	sid := h.NewSession(h.Sandbox.WorkDir)
	for _, p := range []string{"Hello there.", "Second prompt.", "/compact", "Next."} {
		if resp, err := h.Prompt(sid, p); err != nil || resp.StopReason != acp.StopReasonEndTurn {
			t.Fatalf("%s: %+v %v", p, resp, err)
		}
	}
	reqs := h.API().MainRequests()
	if last := string(reqs[len(reqs)-1].Body); !strings.Contains(last, "Second answer.") || strings.Contains(last, "First answer.") {
		t.Fatalf("the model after the compaction should know the kept answer only: %.2000s", last)
	}
	live := compactionCard(t, h, sid)
	if live.Trigger != "manual" || live.PreTokens == 0 || live.PostTokens == 0 {
		t.Fatalf("live compaction %+v", live)
	}

	h2 := reload(t, h, sid, acp.ClientCapabilities{})
	if got := compactionCard(t, h2, sid); got != live {
		t.Errorf("replayed compaction %+v, live %+v", got, live)
	}
	var thread []string
	for _, u := range h2.Updates(sid) {
		switch {
		case u.ToolCall != nil && u.ToolCall.Title == "Compact conversation":
			thread = append(thread, "compaction: "+contentText(u.ToolCall.Content))
		case u.UserMessageChunk != nil && u.UserMessageChunk.Content.Text != nil:
			thread = append(thread, "user: "+u.UserMessageChunk.Content.Text.Text)
		case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
			thread = append(thread, "agent: "+u.AgentMessageChunk.Content.Text.Text)
		}
	}
	want := []string{
		"compaction: Conversation compacted (" + itoa(live.PreTokens) + " → " + itoa(live.PostTokens) + " tokens).",
		"agent: Second answer.",
		"user: /compact", "agent: Compacted",
		"user: Next.", "agent: After compact.",
	}
	if strings.Join(thread, "\n") != strings.Join(want, "\n") {
		t.Errorf("replayed thread\n%s\nwant\n%s", strings.Join(thread, "\n"), strings.Join(want, "\n"))
	}
}

// compactionCard is the rawOutput of the session's (last) compaction call.
func compactionCard(t *testing.T, h *agenttest.Harness, sid string) compactOutput {
	t.Helper()
	calls, _ := toolCalls(t, h, sid)
	var out compactOutput
	for _, c := range calls {
		if c.title == "Compact conversation" && c.rawOutput != nil {
			if err := json.Unmarshal(c.rawOutput, &out); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out
}

func itoa(n uint64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
