package failure

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/scrub"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// Advisories for the user that are not part of the conversation: Claude
// Code's system/informational frames (a permission rule that was not saved,
// a hook that gave no verdict, a refused plugin), API retries, the model
// fallback, fast mode turning off, a transcript that is not saved. Clients
// that declared
// clientCapabilities.session.notices get them as ACP `notice` updates;
// the others get agent text, as the reference adapter wrote it. When the
// AIR session-failure extension is negotiated, its typed records carry the
// advisories it defines (State) and notices carry only the rest.

// noticeTitleMax is the longest title a notice carries; longer text goes
// into the description under a generic title, so that a title stays a
// line a client can show on its own.
const noticeTitleMax = 256

// An Advisor tells the user about what is not Claude's answer, in the form
// the client negotiated: a typed session-failure warning (AIR), an ACP
// notice, or a line of agent text. It is owned by the session goroutine.
// Its methods take the uuid of the turn the CLI is working on ("": none).
type Advisor struct {
	sessionID string
	notices   bool   // the client declared session.notices
	fail      *State // the session's typed failures, for AIR clients
	sink      func(sessionID string, u acp.SessionUpdate)
	fastMode  string // the last fast_mode_state the CLI reported
}

// NewAdvisor is session id's advisor: notices when the client declared
// session.notices, typed warnings through fail when it negotiated them,
// sending through sink.
func NewAdvisor(id string, notices bool, fail *State, sink func(sessionID string, u acp.SessionUpdate)) Advisor {
	return Advisor{sessionID: id, notices: notices, fail: fail, sink: sink}
}

// Rebind moves the advisor to another client connection (a shared session
// taken over by a new connection).
func (v *Advisor) Rebind(notices bool, sink func(sessionID string, u acp.SessionUpdate)) {
	v.notices, v.sink = notices, sink
}

// sendNotice sends a notice; a title too long to stand alone moves, with
// the description after it, into the description under generic.
func (v *Advisor) sendNotice(sev acp.NoticeSeverity, title, description, generic string) {
	title, description = strings.TrimSpace(title), strings.TrimSpace(description)
	if title == "" || utf8.RuneCountInString(title) > noticeTitleMax {
		description = strings.TrimSpace(title + "\n\n" + description)
		title = generic
	}
	n := &acp.Notice{Severity: sev, Title: title}
	if description != "" {
		n.Description = acp.Some(description)
	}
	v.sink(v.sessionID, acp.SessionUpdate{Notice: n})
}

// OnInformational shows one of Claude Code's notices. With notices, level
// "info" is dropped (it is chatter a notice area need not show); without
// them every level is agent text, bold-labelled unless it is "info", and
// marked _meta.claudeCode.kind "informational" so that a client can tell
// it from Claude's answer.
//
// With the AIR extension, notices of every other level (the refusal-retry
// "safeguards stopped the response above · continuing once with that
// noted", rules not saved, hooks without a verdict) are typed warnings in
// the notice namespace, never assistant prose.
func (v *Advisor) OnInformational(turnUUID string, b *claude.Informational) {
	text := strings.TrimSpace(b.Content)
	if text == "" {
		return
	}
	level := strings.ToLower(firstNonEmpty(b.Level, "info"))
	r, n := utf8.DecodeRuneInString(level)
	label := string(unicode.ToUpper(r)) + level[n:]
	if v.fail.On() && level != "info" {
		title, details := Text(text)
		v.publishNotice(turnUUID, "informational:"+text, title, details)
		return
	}
	if v.notices {
		sev := acp.NoticeSeverityInfo
		switch level {
		case "info":
			return
		case "warning":
			sev = acp.NoticeSeverityWarning
		case "error":
			sev = acp.NoticeSeverityError
		}
		v.sendNotice(sev, text, "", label)
		return
	}
	if level != "info" {
		text = "**" + label + ":** " + text
	}
	meta, _ := json.Marshal(map[string]string{"kind": "informational", "level": level})
	v.sink(v.sessionID, acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{
		Content: acp.ContentBlock{Text: &acp.TextContent{Text: text}},
		Meta:    map[string]json.RawMessage{"claudeCode": meta},
	}})
}

// OnAPIRetry turns the CLI's retry progress into a warning on the turn's
// failure id (or a background incident's), with the progress in the title.
// The terminal failure, if any, is a higher revision of the same id.
func (v *Advisor) OnAPIRetry(turnUUID string, b *claude.APIRetry) {
	if !v.fail.On() {
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
	if turnUUID != "" {
		id, turnID = turnFailureID(turnUUID), turnUUID
	} else {
		if v.fail.retryID == "" {
			v.fail.retryID = v.fail.SessionIncidentID()
		}
		id = v.fail.retryID
	}
	v.fail.publish(v.fail.MakeRecord(id, kind, SeverityWarning, title, ""), kind, turnID)
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

// OnRefusalFallback reports that the CLI retried a refused request on
// another model: a typed warning for AIR clients, else a notice for
// clients that take notices, else the historical transcript line; never
// two of them. A persistent swap (not a revert, not a one-response local
// retry) also moves the session's model picker to the fallback model.
func (v *Advisor) OnRefusalFallback(turnUUID string, b *claude.ModelRefusalFallback) {
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
	if !v.fail.On() {
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
	v.publishNotice(turnUUID, "model_refusal_fallback", title, details)
}

// OnModelFallback reports --fallback-model taking over (overload, missing
// model) in Claude's own words, as a typed warning or a notice. Other
// clients never saw it and still do not.
func (v *Advisor) OnModelFallback(turnUUID string, b *claude.ModelFallback) {
	air, notices := v.fail.On(), v.notices
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
	title, details := Text(text)
	v.publishNotice(turnUUID, "model_fallback", title, details)
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

// FastModeReason explains, in words for people, why the CLI turned fast
// mode off; ok is false for the routine reasons.
func FastModeReason(reason string) (why string, ok bool) {
	why, ok = fastModeReasons[reason]
	return why, ok
}

// ObserveFastMode follows the CLI's fast_mode_state (in the initialize
// response, system/init and every result) and says once when fast mode
// that was on is turned off for a reason the user should know.
func (v *Advisor) ObserveFastMode(turnUUID string, state string, raw json.RawMessage) {
	if state == "" {
		return
	}
	prev := v.fastMode
	v.fastMode = state
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
	case v.fail.On():
	case v.notices:
		v.sendNotice(acp.NoticeSeverityWarning, "Fast mode turned off: "+why+".", "", "Fast mode turned off")
		return
	default:
		v.transcriptLine("**Fast mode turned off:** " + why + ".")
		return
	}
	v.publishNotice(turnUUID, "fast_mode_off", "Fast mode turned off: "+why+".", "")
}

// publishNotice publishes a warning in the :notice: namespace. Consecutive
// updates of one notice within one turn reuse its id with a higher
// revision; a later occurrence gets a new id even with the same words.
func (v *Advisor) publishNotice(turn, key, title, details string) {
	v.fail.init()
	ln := v.fail.lastNotice
	var id string
	if ln.key == key && ln.turn == turn {
		if ln.title == title {
			return // nothing new to show
		}
		id = ln.id
	} else {
		id = v.fail.NoticeID()
	}
	if v.fail.publish(v.fail.MakeRecord(id, KindAdvisory, SeverityWarning, title, details), KindAdvisory, "") {
		v.fail.lastNotice.key, v.fail.lastNotice.id, v.fail.lastNotice.title, v.fail.lastNotice.turn = key, id, title, turn
	}
}

// transcriptLine is a legacy client's notice: plain agent text with no
// message id, exactly as the reference adapter wrote it.
func (v *Advisor) transcriptLine(text string) {
	v.sink(v.sessionID, acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{
		Content: acp.ContentBlock{Text: &acp.TextContent{Text: text}}}})
}

// NotSaved tells the user that the conversation is not being saved, in
// the form the client negotiated; why tells one reason from another, so
// that a reason that persists is shown once a turn.
func (v *Advisor) NotSaved(turnUUID, why, title, details string) {
	switch {
	case v.fail.On():
		v.publishNotice(turnUUID, "not_saved:"+why, title, details)
	case v.notices:
		v.sendNotice(acp.NoticeSeverityWarning, title, details, "Conversation not saved")
	default:
		v.transcriptLine("**Warning:** " + title + " " + details)
	}
}
