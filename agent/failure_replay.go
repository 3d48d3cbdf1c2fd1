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
// one stays active until a later real model answer; the replayer mirrors
// the state into the live session of the same id once the replay is over
// (mirrorFailures), so the next real answer there recovers it too.
func (f *failureState) replayFailureRecord(rec *transcript.Record) (suppress bool) {
	if rec == nil || rec.IsSidechain || rec.Message == nil || !f.failuresOn() {
		return false
	}
	f.init()
	switch rec.Type {
	case transcript.TypeUser:
		if isPromptRecord(rec) {
			f.replayUser = rec.UUID
		}
		return false
	case transcript.TypeAssistant:
	default:
		return false
	}
	if rec.Message.Model != transcript.SyntheticModel {
		f.recover(func(a *activeFailure) bool { return a.recovery == recoverRealAnswer || a.recovery == recoverAuth })
		return false
	}
	text := blocksText(rec.Message.Content)
	if !isUsageLimitText(text) {
		return false // "No response requested.", local commands: no recovery either
	}
	id := historyFailureID(f.sessionID, rec.UUID)
	if f.replayUser != "" {
		id = turnFailureID(f.replayUser)
	}
	title, details := failureText(text)
	rec2 := f.makeRecord(id, kindQuota, severityError, title, details)
	if !f.publish(rec2, kindQuota, "") {
		return false // the client did not get the record: keep the prose
	}
	// Only the latest usage limit is current; older ones are history.
	f.recover(func(a *activeFailure) bool { return a.kind == kindQuota && a.rec.ID != id })
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
// the live session of the same id.
func (rp *replayer) mirrorFailures() {
	if !rp.fail.failuresOn() || rp.fail.revisions == nil {
		return
	}
	live := rp.a.liveSession(rp.id)
	if live == nil {
		return
	}
	src := &rp.fail

	revs := make(map[string]int, len(src.revisions))
	for id, r := range src.revisions {
		revs[id] = r
	}
	active := map[string]activeFailure{}
	for id, f := range src.active {
		active[id] = *f
	}
	live.do(func() {
		live.fail.init()
		for id, r := range revs {
			if r > live.fail.revisions[id] {
				live.fail.revisions[id] = r
			}
		}
		live.fail.recover(func(f *activeFailure) bool {
			_, still := active[f.rec.ID]
			return f.kind == kindQuota && f.turn == "" && !still
		})
		for id, f := range active {
			live.fail.active[id] = &f
		}
	})
}
