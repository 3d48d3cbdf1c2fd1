package goal

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"

	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/promptconv"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
)

// History follows the session's goal through a replayed transcript, so
// that session/load can hand the loaded session the goal Claude Code
// resumes with. What CLI 2.1.332 stores:
//
//   - the user's `/goal <condition>` or `/goal clear` as a command record,
//     then a system/local_command record with its output: "Goal set: …",
//     "Goal cleared: …" or "No goal set" (anything else means the command
//     did not take, e.g. a condition that is too long);
//   - a goal_status attachment after each Stop-hook evaluation: met false
//     with the reason (one iteration), or met true when the goal is done
//     and the CLI cleared it.
//
// Only the main conversation counts; the command's confirmation is what
// changes the goal, so a /goal that failed or never ran changes nothing.
type History struct {
	snap    *Snapshot // the goal as of the records so far (nil: none)
	pending string    // the argument of a /goal command waiting for its output
}

var goalOutputRE = sync.OnceValue(func() *regexp.Regexp {

	return regexp.MustCompile(`(?s)<local-command-stdout>(.*?)</local-command-stdout>`)

})

// Record notes one record of the active branch.
func (g *History) Record(rec *transcript.Record) {
	if rec == nil || rec.IsSidechain {
		return
	}
	switch rec.Type {
	case transcript.TypeUser:
		if rec.Message == nil || rec.IsMeta {
			return
		}
		if text, ok := promptconv.UserText(claude.Content(rec.Message.Content).Text()); ok {
			if arg, ok := Command(text); ok {
				g.pending = arg
			}
		}
	case transcript.TypeSystem:
		if rec.Subtype != "local_command" || g.pending == "" {
			return
		}
		arg := g.pending
		g.pending = ""
		out := rec.Content
		if m := goalOutputRE().FindStringSubmatch(out); m != nil {
			out = m[1]
		}
		out = strings.TrimSpace(out)
		switch {
		case arg == "clear" && (strings.HasPrefix(out, "Goal cleared") || strings.HasPrefix(out, "No goal set")):
			g.snap = nil
		case arg != "clear" && strings.HasPrefix(out, "Goal set:"):
			g.snap = &Snapshot{Objective: arg, Status: "active", ControlMethod: ControlMethod}
			if t := rec.Time(); !t.IsZero() {
				g.snap.CreatedAt = t.UnixMilli()
			}
		}
	case transcript.TypeAttachment:
		var a struct {
			Type      string `json:"type"`
			Met       bool   `json:"met"`
			Condition string `json:"condition"`
			Reason    string `json:"reason"`
		}
		if g.snap == nil || json.Unmarshal(rec.Attachment, &a) != nil || a.Type != "goal_status" ||
			strings.TrimSpace(a.Condition) != g.snap.Objective {
			return
		}
		if a.Met {
			g.snap = nil
			return
		}
		g.snap = g.snap.Iterated(a.Reason)
	}
}

// Goal is the goal the history ends with (nil: none).
func (g *History) Goal() *Snapshot { return g.snap }
