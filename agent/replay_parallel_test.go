package agent

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReplayParallelCalls replays a real CLI 2.1.332 transcript in which
// the model called Bash and Read in one message and the Read finished
// first, so the CLI stored its call and result off the branch the
// conversation continues on: both calls are replayed, each completed.
func TestReplayParallelCalls(t *testing.T) {
	t.Parallel()
	rc := newReplayClient(t)
	_, us := rc.replay(t, "../claude/transcript/testdata/cli-2.1.332-parallel.jsonl")
	var got []string
	for _, u := range us {
		switch {
		case u.UserMessageChunk != nil:
			got = append(got, "user: "+u.UserMessageChunk.Content.Text.Text)
		case u.AgentMessageChunk != nil:
			got = append(got, "agent: "+u.AgentMessageChunk.Content.Text.Text)
		case u.ToolCall != nil:
			got = append(got, "tool_call: "+string(u.ToolCall.ToolCallID)+" "+string(u.ToolCall.Kind))
		case u.ToolCallUpdate != nil:
			if st, ok := u.ToolCallUpdate.Status.Get(); ok {
				got = append(got, "tool_call_update: "+string(u.ToolCallUpdate.ToolCallID)+" "+string(st))
			}
		}
	}
	want := []string{
		"user: run two things",
		"agent: Running both.",
		"tool_call: toolu_01bash execute",
		"tool_call: toolu_02read read",
		"tool_call_update: toolu_02read completed",
		"tool_call_update: toolu_01bash completed",
		"agent: Both ran.",
		"user: and again",
		"agent: Second answer.",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replay (-want +got):\n%s", diff)
	}
}
