package agent

import (
	"strings"

	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
)

// replayFailureRecord restores typed failures while session/load replays a
// transcript. The replayer calls it for every record of the active branch,
// in order, before it replays the record itself; when it reports true the
// record's own text must not be replayed (a capable client gets the typed
// record in its place). For clients without the extension it does nothing
// and reports false, so they get the original transcript.
//
// Only the CLI's synthetic usage-limit messages are recognised: assistant
// records of model <synthetic> whose text starts with one of the CLI's own
// stable prefixes, never arbitrary model prose. Each occurrence becomes an
// error record (category limit, no actions, title = the stored text) in a
// session_info_update at its position. Its id is that of the live failure,
// <user message uuid>:error, taken from the prompt before it, or
// <session id>:history-error:<message uuid> when there is none. The latest
// one stays active until a later real model answer; the state is mirrored
// into the live session of the same id, so the next real answer there
// recovers it too.
//
// s may be the replayer's shadow session; it is only used from the
// replaying goroutine.
func (s *session) replayFailureRecord(rec *transcript.Record) (suppress bool) {
	if rec == nil || rec.IsSidechain || rec.Message == nil || !s.failuresOn() {
		return false
	}
	s.fail.init()
	switch rec.Type {
	case transcript.TypeUser:
		if isPromptRecord(rec) {
			s.fail.replayUser = rec.UUID
		}
		return false
	case transcript.TypeAssistant:
	default:
		return false
	}
	if rec.Message.Model != transcript.SyntheticModel {
		s.recover(func(f *activeFailure) bool { return f.recovery == recoverRealAnswer || f.recovery == recoverAuth })
		s.mirrorFailures()
		return false
	}
	text := blocksText(rec.Message.Content)
	if !isUsageLimitText(text) {
		return false // "No response requested.", local commands: no recovery either
	}
	id := historyFailureID(s.id, rec.UUID)
	if s.fail.replayUser != "" {
		id = turnFailureID(s.fail.replayUser)
	}
	title, details := failureText(text)
	rec2 := s.makeRecord(id, kindQuota, severityError, title, details)
	if !s.publish(rec2, kindQuota, "") {
		return false // the client did not get the record: keep the prose
	}
	// Only the latest usage limit is current; older ones are history.
	s.recover(func(f *activeFailure) bool { return f.kind == kindQuota && f.rec.ID != id })
	s.mirrorFailures()
	return true
}

// isPromptRecord reports a user record that is a prompt the user sent (its
// uuid is the live turn id), not a tool result or a CLI-injected message.
func isPromptRecord(r *transcript.Record) bool {
	if r.IsMeta || r.IsCompactSummary || hiddenOrigin(r.Origin) {
		return false
	}
	for _, b := range r.Message.Content {
		if b.Type == "tool_result" {
			return false
		}
		if b.Type == "text" && strings.HasPrefix(b.Text, "[Request interrupted by user") {
			return false
		}
	}
	return true
}

// mirrorFailures copies the replay's revisions and active usage limits to
// the live session of the same id, when s is a replay's shadow.
func (s *session) mirrorFailures() {
	live := s.a.liveSession(s.id)
	if live == nil || live == s {
		return
	}
	revs := make(map[string]int, len(s.fail.revisions))
	for id, r := range s.fail.revisions {
		revs[id] = r
	}
	active := map[string]activeFailure{}
	for id, f := range s.fail.active {
		active[id] = *f
	}
	live.do(func() {
		live.fail.init()
		for id, r := range revs {
			if r > live.fail.revisions[id] {
				live.fail.revisions[id] = r
			}
		}
		live.recover(func(f *activeFailure) bool {
			_, still := active[f.rec.ID]
			return f.kind == kindQuota && f.turn == "" && !still
		})
		for id, f := range active {
			live.fail.active[id] = &f
		}
	})
}
