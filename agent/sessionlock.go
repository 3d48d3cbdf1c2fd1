package agent

import (
	"github.com/claude-agent-acp/claude-agent-acp/acp"
)

// A session open in two agent processes (two editor windows that load and
// prompt one thread) would have two CLIs continuing one transcript: its
// history forks, and one window's turns vanish on the next load. Each CLI
// of a stored session therefore runs under the session's lock
// (claude.Options.LockSession, sessionSetup): a second process that tries
// to run the session fails to start its CLI, before anything is written,
// and its window is told why. session/load and session/resume fail with
// this error before replaying anything (claude.CheckSessionLock: a load
// is answered before its CLI starts, so it asks the lock first), a
// prompt in a session whose CLI had stopped (hibernated, or resumed
// elsewhere meanwhile) fails with it, and the session works again once
// the other window has closed it or gone idle.

// openElsewhereText says what happened and what to do.
const openElsewhereText = "This conversation is open in another window: another Claude agent is working on it. " +
	"Close it there, then try again here: two windows writing one conversation would split its history."

// sessionOpenElsewhere is the request's error for a session whose CLI
// could not start because another process runs it.
func sessionOpenElsewhere() *acp.Error {
	return acp.NewInternalError(openElsewhereText).WithData(map[string]string{"reason": "session_open_elsewhere"})
}
