package agent

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/goal"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/airmeta"
	"github.com/claude-agent-acp/claude-agent-acp/agent/translate"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
)

// The goal extension (provider-neutral, experimental; see docs/subagents.md
// and the reference contract). Claude Code's `/goal <condition>` installs a
// session-scoped Stop hook that keeps Claude working until the condition
// holds. The goal belongs to the ACP session, not to one prompt: a prompt
// ends when its turn is quiescent while the goal stays active, and a
// cancelled prompt leaves the goal in place.
//
//   - initialize advertises _meta.goal = {version, controlMethod, actions}.
//   - The state goes out as session_info_update with _meta.goal: a snapshot
//     {objective, status, iterations?, lastReason?, createdAt?,
//     controlMethod}, or null once cleared. AIR clients also get it under
//     _meta.jetbrains.air.goal.
//   - `/goal <condition>` typed as a prompt publishes an active snapshot at
//     once (the CLI does not announce a new goal itself); `/goal clear`
//     publishes null. The CLI's active_goal frames are authoritative when
//     they come; while an optimistic snapshot waits for the CLI, frames that
//     disagree with it are stale and ignored. A /goal prompt that fails
//     restores the previous snapshot.
//   - CLI 2.1.332 writes active_goal frames only when CLAUDE_CODE_REMOTE is
//     set. Without them, each "Stop hook feedback" the hook injects counts
//     an iteration and carries its reason; that the goal was met the CLI
//     prints nowhere on stdout, but it records it in the transcript (a
//     goal_status attachment with met true, the evaluator's reason and the
//     iterations), so at the end of each turn of an active goal the
//     transcript's new records are read (goalMet): a met goal goes out as
//     status "complete" with its reason.
//   - session/load restores a goal the transcript shows as still active
//     (goalHistory): the snapshot goes out after the replay, before the
//     load's answer.
//   - `_session/goal {sessionId, action:"clear"}` clears the goal: it sends
//     `/goal clear`, with "now" priority while a turn runs (so it is not
//     queued behind the Stop-hook loop, which it ends), else as an ordinary
//     turn, and answers {} when that command has run.

// goalState is the session's goal as the client last saw it.
type goalState struct {
	snap    *goal.Snapshot
	sent    string // JSON last published ("" = nothing yet)
	pending *goalPending
	frames  bool  // this CLI reports active_goal itself
	read    int64 // how far goalMet has read the transcript
}

// busy reports a goal that keeps the CLI: one active, or a /goal command
// not yet confirmed.
func (g *goalState) busy() bool {
	return g.snap != nil && g.snap.Status == "active" || g.pending != nil
}

// goalPending is an optimistic snapshot waiting for the CLI.
type goalPending struct {
	clear     bool
	objective string
	prev      *goal.Snapshot
	turn      *turn
}

// goalInitialize announces the goal extension in initialize's _meta.
func goalInitialize(cc clientCaps, resp *acp.InitializeResponse) {
	resp.Meta = goal.Announce(resp.Meta, airmeta.Parse(cc.raw.Meta).Present)
}

// goalPrompt publishes the optimistic snapshot of a /goal prompt.
func (s *session) goalPrompt(t *turn) {
	var text strings.Builder
	for _, b := range t.msg.Content {
		if b.Type != "text" {
			return
		}
		text.WriteString(b.Text)
	}
	arg, ok := goal.Command(text.String())
	if !ok {
		return
	}
	p := &goalPending{clear: arg == "clear", objective: arg, prev: s.goal.snap, turn: t}
	s.goal.pending = p
	s.goal.read = s.a.transcriptSize(s.id) // goalMet: only what this goal's turns write
	if p.clear {
		s.publishGoal(nil)
	} else {
		s.publishGoal(&goal.Snapshot{Objective: arg, Status: "active", ControlMethod: goal.ControlMethod})
	}
}

// onActiveGoal maps the CLI's goal state.
func (s *session) onActiveGoal(g *claude.ActiveGoal) {
	s.goal.frames = true
	snap := goal.FromCLI(g.Value)
	if p := s.goal.pending; p != nil {
		if p.clear != (snap == nil) || snap != nil && snap.Objective != p.objective {
			return // older than the command the client just sent
		}
		s.goal.pending = nil
	}
	s.publishGoal(snap)
}

// goalFeedback counts a Stop-hook round of the goal when the CLI does not
// report the goal itself.
func (s *session) goalFeedback(u *claude.UserFrame) {
	g := s.goal.snap
	if s.goal.frames || g == nil || !u.IsSynthetic {
		return
	}
	for _, b := range u.Message.Content {
		if reason, ok := goal.Feedback(b.Text, g.Objective); b.Type == "text" && ok {
			s.publishGoal(g.Iterated(reason))
		}
	}
}

// goalResult settles an optimistic snapshot at the end of its command's
// turn (or of a later one, if the command was cancelled before it ran):
// if the command failed or never ran, the previous snapshot comes back.
func (s *session) goalResult(r *claude.ResultMessage) {
	if g := s.goal.snap; g != nil && g.Status == "active" && !s.goal.frames && !r.IsError {
		s.goalMet(g.Objective, 0)
	}
	p := s.goal.pending
	if p == nil || p.turn != s.q.current && !p.turn.Settled {
		return
	}
	s.goal.pending = nil
	if p.turn == s.q.current && r.IsError || p.turn != s.q.current && p.turn.phase != turnRunning {
		s.publishGoal(p.prev)
	}
}

// goalMet reads the transcript's records written since the last look for
// the goal_status the CLI records when the goal's Stop hook is satisfied,
// off the session goroutine; a met goal is published "complete". The
// CLI may write the record just after the turn's result: a few more looks
// follow, 200 ms apart.
func (s *session) goalMet(objective string, try int) {
	from := s.goal.read
	go func() {
		path, err := transcript.Find(s.a.configDir(), s.id)
		var met *goal.Status
		end := from
		if err == nil {
			met, end = goal.ReadStatus(path, from, objective)
		}
		s.post(func() {
			g := s.goal.snap
			if g == nil || g.Objective != objective || g.Status != "active" || s.goal.frames {
				return
			}
			s.goal.read = max(s.goal.read, end)
			if met == nil {
				if try < 5 {
					time.AfterFunc(200*time.Millisecond, func() {
						s.post(func() {
							if g := s.goal.snap; g != nil && g.Objective == objective && g.Status == "active" {
								s.goalMet(objective, try+1)
							}
						})
					})
				}
				return
			}
			next := *g
			next.Status, next.LastReason = "complete", firstNonEmpty(met.Reason, g.LastReason)
			if met.Iterations > 0 {
				n := met.Iterations
				next.Iterations = &n
			}
			s.publishGoal(&next)
		})
	}()
}

// transcriptSize is the size of the session's transcript now (0 while it
// does not exist).
func (a *connection) transcriptSize(id string) int64 {
	path, err := transcript.Find(a.configDir(), id)
	if err != nil {
		return 0
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// publishGoal sends the snapshot if it changed.
func (s *session) publishGoal(snap *goal.Snapshot) {
	s.goal.snap = snap
	raw := json.RawMessage("null")
	if snap != nil {
		raw = mustJSON(snap)
	}
	if string(raw) == s.goal.sent || snap == nil && s.goal.sent == "" {
		s.goal.sent = string(raw) // (no "cleared" for a goal the client never saw)
		return
	}
	s.goal.sent = string(raw)
	s.a.mu.Lock()
	air := airmeta.Parse(s.a.client.raw.Meta).Present
	s.a.mu.Unlock()
	s.a.notify(s.id, acp.SessionUpdate{SessionInfoUpdate: &acp.SessionInfoUpdate{Meta: goal.WithMeta(nil, "goal", raw, air)}})
}

type goalRequest struct {
	SessionID acp.SessionID `json:"sessionId"`
	Action    string        `json:"action"`
}

func (r *goalRequest) Validate() error {
	if r.SessionID == "" {
		return &acp.FieldError{Path: "sessionId", Reason: "is required"}
	}
	if r.Action != "clear" {
		return &acp.FieldError{Path: "action", Reason: "is not a supported goal action (supported: clear)"}
	}
	return nil
}

// goalControl is _session/goal.
func (a *connection) goalControl(ctx context.Context, p *goalRequest) (struct{}, error) {
	s, err := a.session(p.SessionID)
	if err != nil {
		return struct{}{}, err
	}
	t := &turn{Turn: translate.Turn{UUID: uuid.NewString()}, done: make(chan turnOutcome, 1)}
	t.msg = claude.UserMessage{Content: []claude.ContentBlock{claude.TextBlock("/goal clear")}, UUID: t.UUID}
	if !s.do(func() {
		if s.q.current != nil && !s.q.current.Settled {
			t.msg.Priority = claude.PriorityNow // not behind the Stop-hook loop
		}
		s.goalPrompt(t)
		s.enqueue(t)
	}) {
		return struct{}{}, acp.NewSessionNotFound(string(p.SessionID))
	}
	acp.Async(ctx)
	select {
	case out := <-t.done:
		return struct{}{}, out.err
	case <-ctx.Done():
		return struct{}{}, ctx.Err()
	}
}

// restoreGoal gives the live session of a load the goal its history ends
// with, unless that session has shown a goal already (it was live before
// the load). The snapshot goes out before the load's answer.
func (a *connection) restoreGoal(id string, snap *goal.Snapshot) {
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
