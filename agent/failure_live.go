package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"strconv"
	"strings"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/scrub"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// This file connects the extension to the live session: the hooks the
// shared files call (outcome, onResult, onAssistant, onStarted, onExit)
// and the handler for the CLI frames only it cares about. For a client
// without the extension every hook leaves the legacy behaviour untouched,
// apart from the two advisories (model fallback, fast mode off), which are
// ACP notices for clients that declared session.notices (notices.go) and
// transcript lines for the others.

// failureFrame follows the untyped CLI frames that matter to failures:
// the worker's shutdown and the end of a login.
func (s *session) failureFrame(m claude.Message) {
	switch {
	case m.Type == "system" && m.Subtype == "worker_shutting_down":
		// Only the end of the stream that follows makes it a failure: a
		// turn that still completes is healthy.
		s.fail.shutdownArmed = true
	case m.Type == "auth_status":
		var st struct {
			IsAuthenticating bool   `json:"isAuthenticating"`
			Error            string `json:"error"`
		}
		if json.Unmarshal(m.Raw, &st) == nil && !st.IsAuthenticating && st.Error == "" {
			s.fail.recover(func(f *activeFailure) bool { return f.recovery == recoverAuth })
		}
	}
}

// typedOutcome is outcome's branch for capable clients: a failed result
// ends the turn normally and carries the record. ok is false when the
// legacy mapping applies (success, refusal, max_tokens, a legacy client).
func (s *session) typedOutcome(t *turn, r *claude.ResultMessage) (*acp.PromptResponse, bool) {
	if !s.fail.failuresOn() || r.StopReason == "refusal" || r.StopReason == "max_tokens" {
		return nil, false
	}
	kind, text, failed := classifyTerminal(t, r)
	if !failed {
		return nil, false
	}
	title, details := failureText(text)
	return s.fail.failedTurn(t, kind, title, details), true
}

// failureBoundary runs at every result, before the turn settles: a result
// is a confirmed attempt boundary for earlier turns' failures, and a failed
// result with no turn to carry it becomes a session-scoped record.
func (s *session) failureBoundary(t *turn, r *claude.ResultMessage) {
	if !s.fail.failuresOn() {
		s.legacyBackgroundFailure(t, r)
		return
	}
	s.fail.init()
	uuid := ""
	if t != nil {
		uuid = t.uuid
	}
	s.fail.recover(func(f *activeFailure) bool {
		return f.recovery == recoverNextAttempt && f.turn != "" && (f.turn != uuid || !r.IsError)
	})
	retryID := s.fail.retryID
	s.fail.retryID, s.fail.lastNotice.key = "", ""
	if t != nil || r.StopReason == "refusal" {
		return
	}
	kind, text, failed := classifyTerminal(&turn{}, r)
	if !failed {
		return
	}
	title, details := failureText(text)
	s.log.Warn("failure with no open turn", "kind", string(kind))
	id := retryID
	if id == "" {
		id = s.fail.sessionIncidentID()
	}
	s.fail.publish(s.fail.makeRecord(id, kind, severityError, title, details), kind, "")
}

// legacyBackgroundFailure shows a client without the extension a failed
// result of work no prompt asked for (Claude woken by a background task
// that finished, a scheduled wake-up): Claude's error text as agent text,
// as session/load replays it from the transcript and as a failed prompt
// shows it before its JSON-RPC error. There is no request to answer with
// an error. Login prompts are left out, as everywhere for these clients.
func (s *session) legacyBackgroundFailure(t *turn, r *claude.ResultMessage) {
	if t != nil || r.StopReason == "refusal" {
		return
	}
	_, text, failed := classifyTerminal(&turn{apiErrorText: s.tr.out.idleError}, r)
	if !failed || text == "" || loginHint().MatchString(text) {
		return
	}
	s.log.Warn("failure with no open turn", "error", r.APIError)
	s.tr.chunk(false, scrub.Text(text), s.tr.out.idleErrorID)
}

// isAuthError reports the SDK error kinds that are authentication
// failures: a legacy client gets them as ACP's authRequired (-32000),
// like the synthetic login message.
func isAuthError(sdkError string) bool {
	return sdkError == "authentication_failed" || sdkError == "oauth_org_not_allowed"
}

// failureSawAssistant notes a top-level assistant message: a real model
// answer proves that quota, login and session-scoped failures recovered.
func (s *session) failureSawAssistant(m *claude.AssistantMessage) {
	if m.ParentToolUseID != "" || m.IsAPIErrorMessage || m.Message.Model == claude.SyntheticModel || len(s.fail.active) == 0 {
		return
	}
	s.fail.recover(func(f *activeFailure) bool {
		return f.recovery == recoverRealAnswer || f.recovery == recoverAuth
	})
}

// failureStarted notes a new CLI runtime: failures that only a runtime
// replacement cures are over, and a shutdown notice of the old one no
// longer applies.
func (s *session) failureStarted(p *claude.Process) {
	s.fail.shutdownArmed = false
	s.fail.recover(func(f *activeFailure) bool { return f.recovery == recoverRuntime })
	if init := p.InitializeResponse(); init != nil {
		s.observeFastMode(init.FastModeState, init.Raw)
	}
}

// settleStartFailure answers a turn whose CLI could not start.
func (s *session) settleStartFailure(t *turn, err error) {
	if !s.fail.failuresOn() {
		s.q.settle(t, nil, startError(err))
		return
	}
	text := "Claude Code could not start: " + startCause(err)
	if errors.Is(err, claude.ErrSessionLocked) {
		text = openElsewhereText // sessionlock.go
	}
	title, details := failureText(text)
	s.q.settle(t, s.fail.failedTurn(t, kindStartup, title, details), nil)
}

// startCause says why the CLI could not start, in words for people: the
// CLI's own error result when it wrote one, else what happened to the
// process (not found, not executable, exited with …, killed, no answer in
// time) with the last line it wrote on stderr. failureText scrubs it.
func startCause(err error) string {
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

// settleLost answers a turn whose CLI went away (it exited, or a write to
// it failed). There is no Claude text: the adapter's title applies.
func (s *session) settleLost(t *turn, err error) {
	if !s.fail.failuresOn() {
		s.q.settle(t, nil, exitError(err))
		return
	}
	kind := kindTransport
	if s.fail.shutdownArmed {
		kind = kindShutdown
	}
	s.q.settle(t, s.fail.failedTurn(t, kind, "", ""), nil)
}

// settleNoResult answers a turn whose result never came although the CLI
// finished it (it went idle): for capable clients a service failure the
// user can retry, with the adapter's words (there are no Claude words to
// use; seed 000 names this case); for legacy clients a JSON-RPC error
// saying what happened.
func (s *session) settleNoResult(t *turn) {
	const what = "Claude Code finished the turn without reporting its result"
	if !s.fail.failuresOn() {
		s.q.settle(t, nil, acp.NewInternalError(what+"; its answer may be incomplete. Send your prompt again to continue."))
		return
	}
	s.q.settle(t, s.fail.failedTurn(t, kindInternal, what+". Try again.", ""), nil)
}

// failureExitIdle reports a CLI that ended with no turn open: after a
// worker shutdown notice, or when it died on its own.
func (s *session) failureExitIdle(err error) {
	armed := s.fail.shutdownArmed
	s.fail.shutdownArmed = false
	if !s.fail.failuresOn() {
		return
	}
	switch {
	case armed:
		s.fail.sessionFailure(kindShutdown, "", "")
	case err != nil && !errors.Is(err, claude.ErrClosed):
		s.fail.sessionFailure(kindTransport, "", "")
	}
}

// onAPIRetry turns the CLI's retry progress into a warning on the turn's
// failure id (or a background incident's), with the progress in the title.
// The terminal failure, if any, is a higher revision of the same id.
func (v *advisor) onAPIRetry(current *turn, b *claude.APIRetry) {
	if !v.fail.failuresOn() {
		return
	}
	kind, ok := retryKind(b)
	if !ok {
		return
	}
	title := retryTitle(b)
	if nr := b.NoResponse; nr != nil {
		// The API sent no response headers in time: say why it waits.
		title += fmt.Sprintf(" No response after %s; waiting up to %s.", seconds(nr.WaitedMS), seconds(nr.RetryWaitMS))
	}
	var id, turnID string
	if t := current; t != nil {
		id, turnID = turnFailureID(t.uuid), t.uuid
	} else {
		if v.fail.retryID == "" {
			v.fail.retryID = v.fail.sessionIncidentID()
		}
		id = v.fail.retryID
	}
	v.fail.publish(v.fail.makeRecord(id, kind, severityWarning, title, ""), kind, turnID)
}

// retryTitle is the retry progress: "Retrying Claude, attempt 2 of 10."
// (with an HTTP status), "Reconnecting to Claude, …" (without). A counter
// is shown only when it counts something: the CLI also retries, once or
// twice, errors it calls transient with attempt 0 of max_retries 0 (a
// cloud credential that did not load), and "attempt 0 of 0" tells the user
// nothing.
func retryTitle(b *claude.APIRetry) string {
	what := "Retrying Claude"
	if b.ErrorStatus == nil {
		what = "Reconnecting to Claude"
	}
	if b.MaxRetries < 1 || b.Attempt < 1 {
		return what + "."
	}
	return fmt.Sprintf("%s, attempt %d of %d.", what, b.Attempt, b.MaxRetries)
}

// seconds renders a duration in milliseconds as seconds: "180s", "1.5s".
func seconds(ms int64) string {
	if ms%1000 == 0 || ms >= 10_000 {
		return fmt.Sprintf("%ds", (ms+500)/1000)
	}
	return strconv.FormatFloat(float64(ms)/1000, 'f', 1, 64) + "s"
}

// onRefusalFallback reports that the CLI retried a refused request on
// another model: a typed warning for AIR clients, else a notice for
// clients that take notices, else the historical transcript line; never
// two of them. A persistent swap (not a revert, not a one-response local
// retry) also moves the session's model picker to the fallback model.
func (v *advisor) onRefusalFallback(current *turn, b *claude.ModelRefusalFallback) {
	category := ""
	if b.APIRefusalCategory != "" {
		category = " (" + b.APIRefusalCategory + ")"
	}
	outcome := "The session will continue on " + b.FallbackModel + "."
	switch {
	case b.Direction == "revert":
		outcome = "The session stays on " + b.OriginalModel + "."
	case b.Scope == "local":
		outcome = "Only that response came from " + b.FallbackModel + "; the session stays on " + b.OriginalModel + "."
	}
	summary := b.OriginalModel + " declined this request" + category + "; retried with " + b.FallbackModel + ". " + outcome
	if !v.fail.failuresOn() {
		if v.notices {
			v.sendNotice(acp.NoticeSeverityWarning, summary, b.APIRefusalExplanation, "Model fallback")
			return
		}
		text := "**Model fallback:** " + summary
		if b.APIRefusalExplanation != "" {
			text += "\n\n" + b.APIRefusalExplanation
		}
		v.transcriptLine(text)
		return
	}
	title, details := strings.TrimSpace(scrub.Text(summary)), strings.TrimSpace(scrub.Text(b.APIRefusalExplanation))
	if details != "" && len([]rune(title))+1+len([]rune(details)) <= titleMax {
		title, details = title+" "+details, ""
	}
	v.publishNotice(current, "model_refusal_fallback", title, details)
}

// onModelFallback reports --fallback-model taking over (overload, missing
// model) in Claude's own words, as a typed warning or a notice. Other
// clients never saw it and still do not.
func (v *advisor) onModelFallback(current *turn, b *claude.ModelFallback) {
	air, notices := v.fail.failuresOn(), v.notices
	if !air && !notices {
		return
	}
	text := b.Content
	if text == "" && b.FallbackModel != "" {
		text = fmt.Sprintf("Switched to %s because %s was unavailable.", b.FallbackModel, firstNonEmpty(b.OriginalModel, "the selected model"))
	}
	if !air {
		v.sendNotice(acp.NoticeSeverityWarning, text, "", "Model fallback")
		return
	}
	title, details := failureText(text)
	v.publishNotice(current, "model_fallback", title, details)
}

// fastModeReasons explain why the CLI turned fast mode off. Routine
// reasons (the SDK opt-in, the user's preference) are absent: they are no
// news to the user.
var fastModeReasons = map[string]string{
	"free":                 "not available on the free plan",
	"extra_usage_disabled": "requires extra usage to be enabled for this account",
	"model_not_allowed":    "not available for the selected model",
	"not_first_party":      "only available with the Anthropic API",
	"disabled_by_env":      "disabled by an environment setting",
	"network_error":        "could not be confirmed because of a network error",
}

// observeFastMode follows the CLI's fast_mode_state (in the initialize
// response, system/init and every result) and says once when fast mode
// that was on is turned off for a reason the user should know.
func (v *advisor) observeFastMode(current *turn, state string, raw json.RawMessage) {
	if state == "" {
		return
	}
	prev := v.fail.fastMode
	v.fail.fastMode = state
	if state != "off" || (prev != "on" && prev != "cooldown") {
		return
	}
	var r struct {
		Reason string `json:"fast_mode_disabled_reason"`
	}
	_ = json.Unmarshal(raw, &r)
	why, ok := fastModeReasons[r.Reason]
	if !ok {
		return
	}
	switch {
	case v.fail.failuresOn():
	case v.notices:
		v.sendNotice(acp.NoticeSeverityWarning, "Fast mode turned off: "+why+".", "", "Fast mode turned off")
		return
	default:
		v.transcriptLine("**Fast mode turned off:** " + why + ".")
		return
	}
	v.publishNotice(current, "fast_mode_off", "Fast mode turned off: "+why+".", "")
}

// publishNotice publishes a warning in the :notice: namespace. Consecutive
// updates of one notice within one turn reuse its id with a higher
// revision; a later occurrence gets a new id even with the same words.
func (v *advisor) publishNotice(current *turn, key, title, details string) {
	v.fail.init()
	turn := ""
	if current != nil {
		turn = current.uuid
	}
	ln := v.fail.lastNotice
	var id string
	if ln.key == key && ln.turn == turn {
		if ln.title == title {
			return // nothing new to show
		}
		id = ln.id
	} else {
		id = v.fail.noticeID()
	}
	if v.fail.publish(v.fail.makeRecord(id, kindAdvisory, severityWarning, title, details), kindAdvisory, "") {
		v.fail.lastNotice.key, v.fail.lastNotice.id, v.fail.lastNotice.title, v.fail.lastNotice.turn = key, id, title, turn
	}
}

// transcriptLine is a legacy client's notice: plain agent text with no
// message id, exactly as the reference adapter wrote it.
func (v *advisor) transcriptLine(text string) {
	v.sink(v.sessionID, acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{
		Content: acp.ContentBlock{Text: &acp.TextContent{Text: text}}}})
}
