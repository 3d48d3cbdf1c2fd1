package goal

import (
	"encoding/json"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
)

// TestGoalHistory follows the goal through transcript records as CLI
// 2.1.332 writes them: only a confirmed command changes it, Stop-hook
// evaluations count rounds, a met goal and /goal clear end it, subagent
// records do not count.
func TestGoalHistory(t *testing.T) {
	cmd := func(args string) *transcript.Record {
		return &transcript.Record{Type: transcript.TypeUser, Message: &transcript.Message{Role: "user", Content: transcript.Content{{
			Type: "text", Text: "<command-name>/goal</command-name>\n<command-message>goal</command-message>\n<command-args>" + args + "</command-args>"}}}}
	}
	out := func(text string) *transcript.Record {
		return &transcript.Record{Type: transcript.TypeSystem, Subtype: "local_command", Timestamp: "2026-11-29T14:23:24.110Z",
			Content: "<local-command-stdout>" + text + "</local-command-stdout>"}
	}
	status := func(cond string, met bool, reason string) *transcript.Record {
		a, _ := json.Marshal(map[string]any{"type": "goal_status", "met": met, "condition": cond, "reason": reason})
		return &transcript.Record{Type: transcript.TypeAttachment, Attachment: a}
	}
	side := cmd("from a subagent")
	side.IsSidechain = true
	for _, tc := range []struct {
		name string
		recs []*transcript.Record
		want string // "" for no goal
	}{
		{"set", []*transcript.Record{cmd("tests pass"), out("Goal set: tests pass")}, "tests pass 0 "},
		{"rounds", []*transcript.Record{cmd("tests pass"), out("Goal set: tests pass"), status("tests pass", false, "red"), status("other", false, "x"), status("tests pass", false, "still red")}, "tests pass 2 still red"},
		{"met", []*transcript.Record{cmd("tests pass"), out("Goal set: tests pass"), status("tests pass", true, "green")}, ""},
		{"cleared", []*transcript.Record{cmd("tests pass"), out("Goal set: tests pass"), cmd("clear"), out("Goal cleared: tests pass")}, ""},
		{"refused", []*transcript.Record{cmd("a"), out("Goal set: a"), cmd("b"), out("Goal condition is limited to 4000 characters (got 4001)")}, "a 0 "},
		{"never ran", []*transcript.Record{cmd("a"), out("Goal set: a"), cmd("clear")}, "a 0 "},
		{"subagent", []*transcript.Record{side, out("Goal set: from a subagent")}, ""},
	} {
		var g History
		for _, r := range tc.recs {
			g.Record(r)
		}
		got := ""
		if s := g.snap; s != nil {
			n := 0
			if s.Iterations != nil {
				n = *s.Iterations
			}
			got = s.Objective + " " + string(rune('0'+n)) + " " + s.LastReason
			if s.Status != "active" || s.CreatedAt != 1795962204110 {
				t.Errorf("%s: %+v", tc.name, s)
			}
		}
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
