// Package goal is the model of the goal extension (provider-neutral,
// experimental; docs/subagents.md): Claude Code's `/goal <condition>`
// installs a session-scoped Stop hook that keeps Claude working until the
// condition holds. This package has what a goal looks like on the wire (a
// Snapshot under _meta.goal, and under _meta.jetbrains.air.goal for AIR
// clients), how the CLI's frames, prompts and transcript records say what
// it is (Command, FromCLI, Feedback, ReadStatus, History), and nothing
// that sends: package agent keeps each session's goal and publishes it.
// It never imports package agent (internal/test/archtest).
package goal

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"

	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/airmeta"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

const ControlMethod = "_session/goal"

// Snapshot is the wire snapshot. The CLI's tokens_at_start is
// bookkeeping and is not exposed.
type Snapshot struct {
	Objective     string `json:"objective"`
	Status        string `json:"status"`
	Iterations    *int   `json:"iterations,omitempty"`
	LastReason    string `json:"lastReason,omitempty"`
	CreatedAt     int64  `json:"createdAt,omitempty"`
	ControlMethod string `json:"controlMethod"`
}

var goalCommandRE = sync.OnceValue(func() *regexp.Regexp {

	return regexp.MustCompile(`^/goal\s+(\S[\s\S]*)$`)

})

// Command recognises `/goal <condition>` and `/goal clear` (a bare
// `/goal` only shows the goal and changes nothing).
func Command(text string) (arg string, ok bool) {
	m := goalCommandRE().FindStringSubmatch(strings.TrimSpace(text))
	if m == nil {
		return "", false
	}
	return strings.TrimSpace(m[1]), true
}

var stopFeedbackRE = sync.OnceValue(func() *regexp.Regexp {

	return regexp.MustCompile(`(?s)^Stop hook feedback:\n\[(.*?)\]: (.*)$`)

})

// Status is the CLI's goal_status transcript attachment.
type Status struct {
	Type       string `json:"type"`
	Met        bool   `json:"met"`
	Condition  string `json:"condition"`
	Reason     string `json:"reason"`
	Iterations int    `json:"iterations"`
}

// ReadStatus reads the transcript's whole lines from offset from and
// returns the goal_status of the main conversation that says objective is
// met, if any, and the offset read up to.
func ReadStatus(path string, from int64, objective string) (*Status, int64) {
	f, err := os.Open(path)
	if err != nil {
		return nil, from
	}
	defer f.Close()
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return nil, from
	}
	b, err := io.ReadAll(io.LimitReader(f, 64<<20))
	if err != nil {
		return nil, from
	}
	whole := bytes.LastIndexByte(b, '\n') + 1
	var met *Status
	for _, line := range bytes.Split(b[:whole], []byte("\n")) {
		if !bytes.Contains(line, []byte(`"goal_status"`)) {
			continue
		}
		var rec struct {
			Type        string `json:"type"`
			IsSidechain bool   `json:"isSidechain"`
			Attachment  Status `json:"attachment"`
		}
		if json.Unmarshal(line, &rec) != nil || rec.Type != "attachment" || rec.IsSidechain {
			continue
		}
		if a := rec.Attachment; a.Type == "goal_status" && a.Met && strings.TrimSpace(a.Condition) == objective {
			met = &a
		}
	}
	return met, from + int64(whole)
}

// WithMeta sets key in a _meta object, and for AIR clients also under
// jetbrains.air (next to version 1), keeping what is there.
func WithMeta(meta map[string]json.RawMessage, key string, v json.RawMessage, air bool) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(meta)+2)
	for k, x := range meta {
		out[k] = x
	}
	out[key] = v
	if air {
		out = airmeta.Set(out, key, v)
	}
	return out
}

// Announce is initialize's _meta with the goal extension announced (also
// under jetbrains.air for AIR clients).
func Announce(meta map[string]json.RawMessage, air bool) map[string]json.RawMessage {
	c, _ := json.Marshal(map[string]any{"version": 1, "controlMethod": ControlMethod, "actions": []string{"clear"}})
	return WithMeta(meta, "goal", c, air)
}

// FromCLI is the snapshot of the CLI's active_goal frame (nil: no goal).
func FromCLI(v *claude.GoalState) *Snapshot {
	if v == nil {
		return nil
	}
	n := v.Iterations
	return &Snapshot{
		Objective: strings.TrimSpace(v.Condition), Status: "active", Iterations: &n,
		LastReason: v.LastReason, CreatedAt: v.SetAt, ControlMethod: ControlMethod,
	}
}

// Iterated is the goal after one more Stop-hook round that ended with
// reason.
func (s Snapshot) Iterated(reason string) *Snapshot {
	n := 1
	if s.Iterations != nil {
		n = *s.Iterations + 1
	}
	s.Iterations, s.LastReason = &n, strings.TrimSpace(reason)
	return &s
}

// Feedback recognises the Stop hook's feedback for the goal with
// objective in a synthetic user message's text, and returns its reason.
func Feedback(text, objective string) (reason string, ok bool) {
	m := stopFeedbackRE().FindStringSubmatch(text)
	if m == nil || strings.TrimSpace(m[1]) != objective {
		return "", false
	}
	return m[2], true
}
