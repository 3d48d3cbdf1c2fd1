package failure

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"strings"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// What a live session asks of its failures: the hooks at a result, an
// answer, a new CLI, a lost one, and the frames only failures care about.
// For a client without the extension (On false) every hook leaves the
// legacy behaviour to the session and reports so.

// Frame follows the untyped CLI frames that matter to failures: the
// worker's shutdown and the end of a login.
func (f *State) Frame(m claude.Message) {
	switch {
	case m.Type == "system" && m.Subtype == "worker_shutting_down":
		// Only the end of the stream that follows makes it a failure: a
		// turn that still completes is healthy.
		f.shutdownArmed = true
	case m.Type == "auth_status":
		var st struct {
			IsAuthenticating bool   `json:"isAuthenticating"`
			Error            string `json:"error"`
		}
		if json.Unmarshal(m.Raw, &st) == nil && !st.IsAuthenticating && st.Error == "" {
			f.recover(func(a *activeFailure) bool { return a.recovery == recoverAuth })
		}
	}
}

// Outcome is a turn's answer for a capable client: a failed result ends
// the turn normally and carries the record. ok is false when the legacy
// mapping applies (success, refusal, max_tokens, a legacy client).
// apiError and apiErrorText are the turn's synthetic error message's.
func (f *State) Outcome(turnUUID, apiError, apiErrorText string, r *claude.ResultMessage) (*acp.PromptResponse, bool) {
	if !f.On() || r.StopReason == "refusal" || r.StopReason == "max_tokens" {
		return nil, false
	}
	kind, text, failed := ClassifyTerminal(apiError, apiErrorText, r)
	if !failed {
		return nil, false
	}
	title, details := Text(text)
	return f.failedTurn(turnUUID, kind, title, details), true
}

// Boundary runs at every result, before the turn settles (turnUUID "":
// the result of work no prompt asked for): a result is a confirmed attempt
// boundary for earlier turns' failures, and a failed result with no turn
// to carry it becomes a session-scoped record. Only for a capable client.
func (f *State) Boundary(turnUUID string, r *claude.ResultMessage) {
	if !f.On() {
		return
	}
	f.init()
	f.recover(func(a *activeFailure) bool {
		return a.recovery == recoverNextAttempt && a.turn != "" && (a.turn != turnUUID || !r.IsError)
	})
	retryID := f.retryID
	f.retryID, f.lastNotice.key = "", ""
	if turnUUID != "" || r.StopReason == "refusal" {
		return
	}
	kind, text, failed := ClassifyTerminal("", "", r)
	if !failed {
		return
	}
	title, details := Text(text)
	f.log.Warn("failure with no open turn", "kind", string(kind))
	id := retryID
	if id == "" {
		id = f.SessionIncidentID()
	}
	f.publish(f.MakeRecord(id, kind, SeverityError, title, details), kind, "")
}

// SawAssistant notes a top-level assistant message: a real model answer
// proves that quota, login and session-scoped failures recovered.
func (f *State) SawAssistant(m *claude.AssistantMessage) {
	if m.ParentToolUseID != "" || m.IsAPIErrorMessage || m.Message.Model == claude.SyntheticModel || len(f.active) == 0 {
		return
	}
	f.recover(func(a *activeFailure) bool {
		return a.recovery == recoverRealAnswer || a.recovery == recoverAuth
	})
}

// Started notes a new CLI runtime: failures that only a runtime
// replacement cures are over, and a shutdown notice of the old one no
// longer applies.
func (f *State) Started() {
	f.shutdownArmed = false
	f.recover(func(a *activeFailure) bool { return a.recovery == recoverRuntime })
}

// Disarm forgets a worker shutdown notice: the CLI it was about is gone
// and its turns are answered.
func (f *State) Disarm() { f.shutdownArmed = false }

// StartFailed is the answer for a capable client to a turn whose CLI
// could not start; openElsewhere is the text for a transcript another
// agent holds (claude.ErrSessionLocked).
func (f *State) StartFailed(turnUUID string, err error, openElsewhere string) *acp.PromptResponse {
	text := "Claude Code could not start: " + StartCause(err)
	if errors.Is(err, claude.ErrSessionLocked) {
		text = openElsewhere
	}
	title, details := Text(text)
	return f.failedTurn(turnUUID, KindStartup, title, details)
}

// StartCause says why the CLI could not start, in words for people: the
// CLI's own error result when it wrote one, else what happened to the
// process (not found, not executable, exited with …, killed, no answer in
// time) with the last line it wrote on stderr. Text scrubs it.
func StartCause(err error) string {
	var se *claude.StartupError
	var ee *claude.ExitError
	switch {
	case errors.As(err, &se) && len(se.Errors) > 0:
		return strings.Join(se.Errors, "; ")
	case errors.Is(err, claude.ErrNotFound), errors.Is(err, fs.ErrNotExist), errors.Is(err, exec.ErrNotFound):
		return "the Claude Code CLI was not found. Install it (npm install -g @anthropic-ai/claude-code) or set CLAUDE_CODE_EXECUTABLE to its absolute path."
	case errors.Is(err, fs.ErrPermission):
		return "the Claude Code CLI is not executable (permission denied)."
	case errors.Is(err, claude.ErrStartupTimeout):
		return "it did not answer in time."
	case errors.As(err, &ee):
		what := fmt.Sprintf("it exited with code %d", ee.ExitCode)
		if ee.Signal != 0 {
			what = fmt.Sprintf("it was killed by signal %v", ee.Signal)
		}
		if line := lastLine(ee.Stderr); line != "" {
			return what + ": " + line
		}
		return what + "."
	case se != nil && se.Reason != nil:
		return strings.TrimPrefix(se.Reason.Error(), "claude: ")
	case err != nil:
		return strings.TrimPrefix(err.Error(), "claude: ")
	}
	return "unknown error."
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// Lost is the answer for a capable client to a turn whose CLI went away
// (it exited, or a write to it failed). There is no Claude text: the
// adapter's title applies.
func (f *State) Lost(turnUUID string) *acp.PromptResponse {
	kind := KindTransport
	if f.shutdownArmed {
		kind = KindShutdown
	}
	return f.failedTurn(turnUUID, kind, "", "")
}

// NoResultText is what a turn whose result never came although the CLI
// finished it (it went idle) is answered with (seed 000 names this case).
const NoResultText = "Claude Code finished the turn without reporting its result"

// NoResult is the answer for a capable client to a turn whose result
// never came: a service failure the user can retry, with the adapter's
// words (there are no Claude words to use).
func (f *State) NoResult(turnUUID string) *acp.PromptResponse {
	return f.failedTurn(turnUUID, KindInternal, NoResultText+". Try again.", "")
}

// ExitIdle reports a CLI that ended with no turn open: after a worker
// shutdown notice, or when it died on its own.
func (f *State) ExitIdle(err error) {
	armed := f.shutdownArmed
	f.shutdownArmed = false
	if !f.On() {
		return
	}
	switch {
	case armed:
		f.sessionFailure(KindShutdown, "", "")
	case err != nil && !errors.Is(err, claude.ErrClosed):
		f.sessionFailure(KindTransport, "", "")
	}
}
