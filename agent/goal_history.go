package agent

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"

	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/promptconv"
	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
)

// goalHistory follows the session's goal through a replayed transcript, so
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
type goalHistory struct {
	snap    *goalSnapshot
	pending string // the argument of a /goal command waiting for its output
}

var goalOutputRE = sync.OnceValue(func() *regexp.Regexp {

	return regexp.MustCompile(`(?s)<local-command-stdout>(.*?)</local-command-stdout>`)

})

// record notes one record of the active branch.
func (g *goalHistory) record(rec *transcript.Record) {
	if rec == nil || rec.IsSidechain {
		return
	}
	switch rec.Type {
	case transcript.TypeUser:
		if rec.Message == nil || rec.IsMeta {
			return
		}
		if text, ok := promptconv.UserText(blocksText(rec.Message.Content)); ok {
			if arg, ok := goalCommand(text); ok {
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
			g.snap = &goalSnapshot{Objective: arg, Status: "active", ControlMethod: goalControlMethod}
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
		next := *g.snap
		n := 1
		if next.Iterations != nil {
			n = *next.Iterations + 1
		}
		next.Iterations, next.LastReason = &n, strings.TrimSpace(a.Reason)
		g.snap = &next
	}
}

// restoreGoal gives the live session of a load the goal its history ends
// with, unless that session has shown a goal already (it was live before
// the load). The snapshot goes out before the load's answer.
func (a *connection) restoreGoal(id string, snap *goalSnapshot) {
	live := a.liveSession(id)
	if live == nil || snap == nil {
		return
	}
	live.do(func() {
		if live.goal.sent == "" && live.goal.snap == nil && live.goal.pending == nil {
			live.goal.read = live.a.transcriptSize(live.id) // goalMet: what follows the history
			live.publishGoal(snap)
		}
	})
}
