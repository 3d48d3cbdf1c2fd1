package failure

import (
	"github.com/claude-agent-acp/claude-agent-acp/claude"
	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
)

// ReplayRecord restores typed failures while session/load replays a
// transcript. The replayer calls it for every record of the active branch,
// in order, before it replays the record itself; prompt says whether rec
// is a prompt the user sent (its uuid is the live turn's id). When it
// reports true the record's own text must not be replayed (a capable
// client gets the typed record in its place). For clients without the
// extension it does nothing and reports false, so they get the original
// transcript.
//
// Only the CLI's synthetic usage-limit messages are recognised: assistant
// records of model <synthetic> whose text starts with one of the CLI's own
// stable prefixes, never arbitrary model prose. Each occurrence becomes an
// error record (category limit, no actions, title = the stored text) in a
// session_info_update at its position. Its id is that of the live failure,
// <user message uuid>:error, taken from the prompt before it, or
// <session id>:history-error:<message uuid> when there is none. The latest
// one stays active until a later real model answer; the replayer hands the
// state to the live session of the same id once the replay is over
// (Snapshot, Restore), so the next real answer there recovers it too.
func (f *State) ReplayRecord(rec *transcript.Record, prompt bool) (suppress bool) {
	if rec == nil || rec.IsSidechain || rec.Message == nil || !f.On() {
		return false
	}
	f.init()
	switch rec.Type {
	case transcript.TypeUser:
		if prompt {
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
	text := claude.Content(rec.Message.Content).Text()
	if !IsUsageLimitText(text) {
		return false // "No response requested.", local commands: no recovery either
	}
	id := historyFailureID(f.sessionID, rec.UUID)
	if f.replayUser != "" {
		id = turnFailureID(f.replayUser)
	}
	title, details := Text(text)
	rec2 := f.MakeRecord(id, KindQuota, SeverityError, title, details)
	if !f.publish(rec2, KindQuota, "") {
		return false // the client did not get the record: keep the prose
	}
	// Only the latest usage limit is current; older ones are history.
	f.recover(func(a *activeFailure) bool { return a.kind == KindQuota && a.rec.ID != id })
	return true
}

// A Snapshot is what a replay found that the live session of the same id
// must know: the revisions sent and the usage limits still active. It is
// taken on the replay's goroutine and restored on the session's.
type Snapshot struct {
	revisions map[string]int
	active    map[string]activeFailure
}

// Snapshot copies the replay's revisions and active failures; ok is false
// when there is nothing to hand over.
func (f *State) Snapshot() (_ Snapshot, ok bool) {
	if !f.On() || f.revisions == nil {
		return Snapshot{}, false
	}
	s := Snapshot{revisions: make(map[string]int, len(f.revisions)), active: map[string]activeFailure{}}
	for id, r := range f.revisions {
		s.revisions[id] = r
	}
	for id, a := range f.active {
		s.active[id] = *a
	}
	return s, true
}

// Restore takes a replay's Snapshot into the live session's state: its
// revisions where they are higher, and its active usage limits in place of
// the ones it no longer has.
func (f *State) Restore(s Snapshot) {
	f.init()
	for id, r := range s.revisions {
		if r > f.revisions[id] {
			f.revisions[id] = r
		}
	}
	f.recover(func(a *activeFailure) bool {
		_, still := s.active[a.rec.ID]
		return a.kind == KindQuota && a.turn == "" && !still
	})
	for id, a := range s.active {
		f.active[id] = &a
	}
}
