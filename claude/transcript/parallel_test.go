package transcript

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// parallelFixture was written by the real CLI 2.1.332 against the fake
// API: the model answered "run two things" with text and two tool calls
// in one message (a slow Bash, then a Read), the Read finished first, and
// a second prompt followed. The CLI wrote the Read's call and result off
// the branch the conversation continues on. Only the API request copies
// were dropped and large attachments trimmed.
const parallelFixture = "testdata/cli-2.1.332-parallel.jsonl"

func TestParallelCallsRealCLI(t *testing.T) {
	recs, r := load(t, parallelFixture)
	var shape []string
	for _, rec := range recs {
		if rec.Type == TypeAttachment {
			continue
		}
		s := rec.Type
		for _, b := range rec.Message.Content {
			s += ":" + b.Type + strings.TrimPrefix(b.ID+b.ToolUseID, "toolu_")
		}
		shape = append(shape, s)
	}
	want := []string{
		"user:text",
		"assistant:text", "assistant:tool_use01bash",
		"assistant:tool_use02read", "user:tool_result02read", // off the branch, put back
		"user:tool_result01bash",
		"assistant:text", "user:text", "assistant:text",
	}
	if !slices.Equal(shape, want) {
		t.Fatalf("records =\n%v\nwant\n%v", shape, want)
	}
	if r.Len() != len(recs) {
		t.Errorf("Len %d, records %d", r.Len(), len(recs))
	}
	if got := r.LeafUUID(); got != recs[len(recs)-1].UUID {
		t.Errorf("LeafUUID %q, want the last record's %q", got, recs[len(recs)-1].UUID)
	}
	checkEveryCallAnswered(t, recs)
}

// checkEveryCallAnswered fails unless each tool_use has exactly one
// tool_result after it.
func checkEveryCallAnswered(t *testing.T, recs []*Record) {
	t.Helper()
	open := map[string]bool{}
	for _, rec := range recs {
		if rec.Message == nil {
			continue
		}
		for _, b := range rec.Message.Content {
			switch b.Type {
			case "tool_use":
				open[b.ID] = true
			case "tool_result":
				if !open[b.ToolUseID] {
					t.Errorf("result for %s with no open call before it", b.ToolUseID)
				}
				delete(open, b.ToolUseID)
			}
		}
	}
	if len(open) > 0 {
		t.Errorf("calls without a result: %v", open)
	}
}

// callLine is an assistant line of message msg holding one tool call.
func callLine(t *testing.T, id, parent, msg, call string) string {
	return assistantLine(t, id, parent, "", "message", obj{"id": msg, "role": "assistant", "model": "claude-opus-5-5",
		"content": []any{obj{"type": "tool_use", "id": call, "name": "Bash", "input": obj{"command": "true"}}}})
}

// resultLine is a user line with the result of call.
func resultLine(t *testing.T, id, parent, call string) string {
	return userLine(t, id, parent, "", "message", obj{"role": "user", "content": []any{
		obj{"type": "tool_result", "tool_use_id": call, "content": "ok"}}}, "sourceToolAssistantUUID", parent)
}

func TestParallelCalls(t *testing.T) {
	dir := t.TempDir()
	textLine := func(id, parent, msg string) string {
		return assistantLine(t, id, parent, "", "message", obj{"id": msg, "role": "assistant", "model": "claude-opus-5-5",
			"content": []any{obj{"type": "text", "text": "on it"}}})
	}
	for _, tc := range []struct {
		name  string
		lines []string
		want  []int // uid numbers, in the order replayed
	}{
		{"three calls, the first finishes last", []string{
			userLine(t, uid(1), "", "go"),
			textLine(uid(2), uid(1), "msg_a"),
			callLine(t, uid(3), uid(2), "msg_a", "t1"),
			callLine(t, uid(4), uid(3), "msg_a", "t2"),
			callLine(t, uid(5), uid(4), "msg_a", "t3"),
			resultLine(t, uid(6), uid(4), "t2"),
			resultLine(t, uid(7), uid(5), "t3"),
			resultLine(t, uid(8), uid(3), "t1"),
			assistantLine(t, uid(9), uid(8), "done"),
		}, []int{1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{"the last call finishes last", []string{
			userLine(t, uid(1), "", "go"),
			callLine(t, uid(3), uid(1), "msg_a", "t1"),
			callLine(t, uid(4), uid(3), "msg_a", "t2"),
			resultLine(t, uid(6), uid(3), "t1"),
			resultLine(t, uid(7), uid(4), "t2"),
			assistantLine(t, uid(9), uid(7), "done"),
		}, []int{1, 3, 4, 6, 7, 9}},
		{"no parallel calls: nothing added", []string{
			userLine(t, uid(1), "", "go"),
			callLine(t, uid(3), uid(1), "msg_a", "t1"),
			resultLine(t, uid(6), uid(3), "t1"),
			assistantLine(t, uid(9), uid(6), "done"),
		}, []int{1, 3, 6, 9}},
		{"a rewound prompt and another message stay off", []string{
			userLine(t, uid(1), "", "go"),
			textLine(uid(2), uid(1), "msg_a"),
			userLine(t, uid(3), uid(2), "abandoned prompt"),                 // rewound away
			textLine(uid(4), uid(2), "msg_b"),                               // another message (a retry)
			resultLine(t, uid(5), uid(2), "t9"),                             // answers no call of its parent
			userLine(t, uid(6), uid(2), "the prompt the user sent instead"), // the branch
			assistantLine(t, uid(7), uid(6), "done"),
		}, []int{1, 2, 6, 7}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".jsonl")
			writeLines(t, path, tc.lines...)
			recs, r := load(t, path)
			var want []string
			for _, n := range tc.want {
				want = append(want, uid(n))
			}
			if got := uuids(recs); !slices.Equal(got, want) {
				t.Errorf("records %v\nwant %v", got, want)
			}
			if got := r.LeafUUID(); got != want[len(want)-1] {
				t.Errorf("LeafUUID %s", got)
			}
		})
	}
}
