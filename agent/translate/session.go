package translate

import (
	"strings"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// What the session asks of its translator beyond Translate: the turn's
// output is over, the CLI went away, is anything still running, and the
// few facts the session needs from what was translated.

// Reset forgets the turn's output (the message being streamed, the
// blocks, held text), as a turn ends. The context window and what is in
// it outlast the turn.
func (tr *Translator) Reset() { tr.out.reset() }

// CLIGone forgets what lived only in the CLI that ended: its session-only
// scheduled jobs and its subagents (their cards end as unknown).
func (tr *Translator) CLIGone() {
	tr.sched.cliGone()
	tr.SubagentsLost()
}

// Running reports work the CLI does in the background that the session
// follows: a command moved to the background, a subagent not done.
func (tr *Translator) Running() bool {
	if len(tr.bgTasks) > 0 {
		return true
	}
	for _, c := range tr.sub.byLaunch {
		if !c.done {
			return true
		}
	}
	return false
}

// Busy reports whether the CLI has work of the session to do, now or
// later: Running, or scheduled work (a cron job, a wake-up) still to fire
// at now. A CLI closed meanwhile would take it with it.
func (tr *Translator) Busy(now time.Time) bool {
	return tr.Running() || tr.sched.busy(now)
}

// EndCompaction ends the /compact in progress, if any, with why.
func (tr *Translator) EndCompaction(why string) { tr.compaction.end(tr, why) }

// ContextLeft shows what a compaction left of the context (the boundary's
// token counts).
func (tr *Translator) ContextLeft(b *claude.CompactBoundary) { tr.compaction.contextLeft(tr, b) }

// IdleError is Claude's error text for work of no prompt (its synthetic
// message) and that message's id: what the session shows when the work's
// result failed.
func (tr *Translator) IdleError() (text, messageID string) {
	return tr.out.idleError, tr.out.idleErrorID
}

// AskingSize notes that the CLI is asked for the context window: usage
// waits for the answer (LearnSize), so the first report has the right size.
func (tr *Translator) AskingSize() { tr.out.sizePending = true }

// ExpectModelEcho notes a set_model the session sent: the CLI echoes it as
// local command output ("Set model to …"), which is not conversation.
// ModelEchoRefused takes the note back (the CLI refused the switch).
func (tr *Translator) ExpectModelEcho()  { tr.modelEchoes++ }
func (tr *Translator) ModelEchoRefused() { tr.modelEchoes = max(0, tr.modelEchoes-1) }

// IsModelEcho reports whether text (a user message's) is the CLI's local
// command output for a model switch: "Set model to …".
func IsModelEcho(text string) bool {
	out, ok := localCommandOutput(text)
	return ok && strings.HasPrefix(out, modelEchoPrefix)
}

// UserMessage shows a prompt of the user's (history: the live client
// showed it as the user typed it), as chunks of one message.
func (tr *Translator) UserMessage(messageID string, blocks []acp.ContentBlock) {
	for _, b := range blocks {
		tr.notify(tr.id, acp.SessionUpdate{UserMessageChunk: &acp.ContentChunk{
			Content: b, MessageID: acp.Some(acp.MessageID(messageID)),
		}})
	}
}

// Cwd is the session's working directory, which paths are shown against.
func (tr *Translator) Cwd() string { return tr.cwd }

// SetCwd changes it (a session restarted in another directory).
func (tr *Translator) SetCwd(cwd string) { tr.cwd = cwd }

// ForgetStreamed forgets which messages streamed: in a replay nothing
// streams, and each record is one block whose text must go out.
func (tr *Translator) ForgetStreamed() { clear(tr.out.streamed) }

// TerminalTask is the CLI task id of the background command shown as
// terminal id (terminal/cancel stops it); ok is false when none runs.
func (tr *Translator) TerminalTask(terminalID string) (taskID string, ok bool) {
	for _, bg := range tr.bgTasks {
		if !bg.foreground && bg.ts.id == terminalID {
			return bg.taskID, true
		}
	}
	return "", false
}

// SubagentRunning reports whether the subagent with this agent id (a
// child session's id) runs.
func (tr *Translator) SubagentRunning(agentID string) bool {
	c := tr.sub.byAgent[agentID]
	return c != nil && !c.done
}
