// Package failure is the typed failure model of a session: the session
// failure extension (JetBrains AIR "sessionFailure", version 1), through
// which failures, retries and notices reach clients that negotiated it as
// typed, durable transcript entries instead of assistant prose or opaque
// JSON-RPC errors, and the advisories every client gets in its own form.
//
// failure.go holds the wire record, the kinds, the policy table and the
// per-session State (ids, revisions, internal recovery); classify.go
// classifies what the CLI reports; live.go is what a live session asks of
// it (a turn's outcome, an attempt boundary, a lost CLI); advisor.go tells
// the user what is not Claude's answer (notices, fallbacks, fast mode, a
// transcript not saved); replay.go restores records on session/load.
// docs/session-failures.md is the table a reader wants.
//
// The package knows the CLI's frames (claude) and ACP's updates (acp) but
// not the session: it settles no turn and sends through the function it is
// given. Package agent owns a State and an Advisor per session, on the
// session goroutine.
package failure

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/airmeta"
)

// Capability is the capability name a client lists to opt in.
const Capability = "sessionFailure"

// On reports whether this connection's client negotiated typed session
// failures.
func (f *State) On() bool { return f.enabled }

// Record is the wire record under _meta.jetbrains.air.sessionFailure.
// It has exactly these fields: no phase, source, turn id or retry counter.
type Record struct {
	ID       string   `json:"id"`
	Revision int      `json:"revision"`
	Category string   `json:"category"`
	Severity string   `json:"severity"`
	Title    string   `json:"title"`
	Details  string   `json:"details,omitempty"`
	Actions  []string `json:"actions"`
}

// Severities.
const (
	SeverityWarning = "warning"
	SeverityError   = "error"
)

// Actions of version 1, in the order the adapter recommends them.
const (
	actionRetry      = "retry"
	actionLogin      = "login"
	actionNewSession = "new_session"
)

// Meta is the _meta object carrying rec, on either carrier
// (PromptResponse or session_info_update). Other _meta members, including
// other AIR payloads under jetbrains.air, are kept.
func Meta(base map[string]json.RawMessage, rec Record) map[string]json.RawMessage {
	b, err := json.Marshal(rec)
	if err != nil {
		panic(err) // a Record always encodes
	}
	return airmeta.Set(base, Capability, b)
}

// Kind is the adapter's internal, fine-grained reason. It never goes
// on the wire; it selects the category, the actions, the adapter's own
// title (used only when Claude gave no text) and the recovery rule.
type Kind string

const (
	KindAdvisory     Kind = "advisory"      // model fallback, fast mode off
	KindAuthRequired Kind = "auth_required" // rejected or missing login
	KindAccessDenied Kind = "access_denied" // verification / cloud credentials
	KindQuota        Kind = "quota"         // usage, spend, billing, account on hold
	KindRateLimited  Kind = "rate_limited"  // a plain, transient rate limit
	KindOutputLimit  Kind = "output_limit"  // max_output_tokens
	KindContext      Kind = "context"       // prompt too long, turn limit
	KindBudget       Kind = "budget"        // --max-budget-usd spent
	KindBadRequest   Kind = "bad_request"   // invalid request, unknown model
	KindOverloaded   Kind = "overloaded"    // 529
	KindProvider     Kind = "provider"      // 5xx, unknown or unrecognised kinds
	KindInternal     Kind = "internal"      // an adapter invariant failed
	KindNetwork      Kind = "network"       // the API could not be reached
	KindTransport    Kind = "transport"     // the CLI process was lost
	KindStartup      Kind = "startup"       // the CLI would not start
	KindShutdown     Kind = "shutdown"      // worker_shutting_down, then EOF
)

// recovery says when a published failure stops being active internally.
// Recovery never touches the transcript: no clear record is sent.
type recovery int

const (
	recoverNever       recovery = iota // notices
	recoverNextAttempt                 // turn-scoped: a later attempt boundary
	recoverRealAnswer                  // quota, session-scoped: a real model answer
	recoverAuth                        // a successful auth_status (or a real answer)
	recoverRuntime                     // the CLI runtime was replaced
)

type failurePolicy struct {
	category string
	actions  []string
	title    string // adapter text, only when Claude said nothing
	recovery recovery
}

// failurePolicies is the Claude mapping table of docs/session-failures.md,
// built on first use.
var failurePolicies = sync.OnceValue(func() map[Kind]failurePolicy {
	return map[Kind]failurePolicy{
		KindAdvisory:     {"unknown", nil, "Claude reported a notice.", recoverNever},
		KindAuthRequired: {"access", []string{actionLogin}, "Sign in to continue using Claude.", recoverAuth},
		KindAccessDenied: {"access", []string{actionRetry}, "Claude could not access the account or provider credentials.", recoverNextAttempt},
		KindQuota:        {"limit", nil, "The Claude account has no available quota.", recoverRealAnswer},
		KindRateLimited:  {"limit", []string{actionRetry}, "Claude is temporarily rate limited.", recoverNextAttempt},
		KindOutputLimit:  {"limit", nil, "Claude's response reached the output token limit.", recoverNextAttempt},
		KindContext:      {"limit", []string{actionNewSession}, "This Claude turn reached its configured limit.", recoverNextAttempt},
		KindBudget:       {"limit", []string{actionNewSession}, "This Claude session reached its configured budget.", recoverNextAttempt},
		KindBadRequest:   {"request", nil, "Claude could not process this request.", recoverNextAttempt},
		KindOverloaded:   {"service", []string{actionRetry}, "Claude is temporarily overloaded.", recoverNextAttempt},
		KindProvider:     {"service", []string{actionRetry}, "The model provider reported an error.", recoverNextAttempt},
		KindInternal:     {"service", []string{actionRetry, actionNewSession}, "Claude Agent encountered an internal error.", recoverNextAttempt},
		KindNetwork:      {"connection", []string{actionRetry}, "Claude could not reach the model provider.", recoverNextAttempt},
		KindTransport:    {"connection", []string{actionNewSession}, "The connection to Claude was lost.", recoverRuntime},
		KindShutdown:     {"connection", []string{actionNewSession}, "The Claude worker is shutting down.", recoverRuntime},
		KindStartup:      {"connection", []string{actionRetry, actionNewSession}, "Claude Code could not start.", recoverRuntime},
	}
})

// policyOf returns the policy of k; an unknown kind is a provider failure,
// never a success.
func policyOf(k Kind) failurePolicy {
	if p, ok := failurePolicies()[k]; ok {
		return p
	}
	return failurePolicies()[KindProvider]
}

// activeFailure is a published record the adapter still considers current.
type activeFailure struct {
	rec      Record
	kind     Kind
	turn     string // the live turn it belongs to; "" for session scope
	recovery recovery
}

// State is the per-session bookkeeping of the extension. It is owned
// by the session goroutine and never serialized.
type State struct {
	sessionID string
	log       *slog.Logger
	enabled   bool // the client negotiated the extension
	// send delivers a session update and says whether it went out: a
	// record is active only once the client has it.
	send func(sessionID string, u acp.SessionUpdate) error

	epoch     string         // per adapter session, so ids never repeat across restarts
	seq       int            // last session-scoped incident / notice number
	revisions map[string]int // last revision sent per id
	// shown is the last record the client got per id: a record that would
	// show nothing new keeps its revision and is not sent again.
	shown  map[string]Record
	active map[string]*activeFailure

	// lastNotice lets consecutive updates of one notice reuse its id.
	lastNotice struct{ key, id, title, turn string }
	// retryID is the id of a background (no turn) api_retry incident in
	// progress, so its retries update one entry.
	retryID string
	// shutdownArmed is set by system/worker_shutting_down: the end of the
	// stream that follows is a worker shutdown, not a lost transport.
	shutdownArmed bool
	// replayUser is the uuid of the last user prompt seen during replay.
	replayUser string
}

// New is the failure bookkeeping of session id: enabled when the client
// negotiated the extension, publishing through send, which says whether
// the update went out.
func New(id string, log *slog.Logger, enabled bool, send func(sessionID string, u acp.SessionUpdate) error) State {
	return State{sessionID: id, log: log, enabled: enabled, send: send}
}

// Rebind moves the state to another client connection (a shared session
// taken over by a new connection), which may have negotiated otherwise.
func (f *State) Rebind(enabled bool, send func(sessionID string, u acp.SessionUpdate) error) {
	f.enabled, f.send = enabled, send
}

func (f *State) init() {
	if f.revisions != nil {
		return
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	f.epoch = hex.EncodeToString(b[:])
	f.revisions = map[string]int{}
	f.shown = map[string]Record{}
	f.active = map[string]*activeFailure{}
}

// turnFailureID is the id of a live turn's failure: the user-message uuid
// the CLI persisted, so history replay finds the same id.
func turnFailureID(turnUUID string) string { return turnUUID + ":error" }

// SessionIncidentID returns a fresh id for a session-scoped incident.
func (f *State) SessionIncidentID() string {
	f.init()
	f.seq++
	return fmt.Sprintf("%s:session-error:%s:%d", f.sessionID, f.epoch, f.seq)
}

// NoticeID returns a fresh id in the notice namespace.
func (f *State) NoticeID() string {
	f.init()
	f.seq++
	return fmt.Sprintf("%s:notice:%s:%d", f.sessionID, f.epoch, f.seq)
}

// historyFailureID is the id of a replayed failure with no user message
// before it.
func historyFailureID(sessionID, messageUUID string) string {
	return sessionID + ":history-error:" + messageUUID
}

// MakeRecord builds the next revision of id. Warnings carry no actions:
// recovery is still in progress. A record that says what the client
// already shows for id keeps that revision: the contract allows a higher
// revision only for a real new user-facing status (an identical retry
// warning is none), and the client ignores the same revision again.
func (f *State) MakeRecord(id string, kind Kind, severity, title, details string) Record {
	rec := f.nextRecord(id, kind, severity, title, details)
	if prev, ok := f.shown[id]; ok && prev.Revision == f.revisions[id] && sameStatus(prev, rec) {
		rec.Revision = prev.Revision
	}
	return rec
}

// sameStatus reports whether two records show the user the same thing.
func sameStatus(a, b Record) bool {
	return a.Category == b.Category && a.Severity == b.Severity && a.Title == b.Title &&
		a.Details == b.Details && slices.Equal(a.Actions, b.Actions)
}

// nextRecord is MakeRecord's record, one revision past the last.
func (f *State) nextRecord(id string, kind Kind, severity, title, details string) Record {
	f.init()
	p := policyOf(kind)
	actions := []string{}
	if severity == SeverityError {
		actions = append(actions, p.actions...)
	}
	if title == "" {
		title, details = p.title, ""
	}
	return Record{
		ID: id, Revision: f.revisions[id] + 1,
		Category: p.category, Severity: severity,
		Title: title, Details: details, Actions: actions,
	}
}

// commit records that rec reached the client: its revision is used, and it
// is active until its recovery rule says otherwise.
func (f *State) commit(rec Record, kind Kind, turn string) {
	f.init()
	f.revisions[rec.ID] = rec.Revision
	f.shown[rec.ID] = rec
	if kind != KindAdvisory {
		f.lastNotice.key = ""
	}
	r := policyOf(kind).recovery
	if turn == "" && r == recoverNextAttempt {
		r = recoverRealAnswer // session scope has no attempt boundary
	}
	f.active[rec.ID] = &activeFailure{rec: rec, kind: kind, turn: turn, recovery: r}
}

// publish sends rec in a session_info_update; the record becomes active
// only once the send succeeded.
func (f *State) publish(rec Record, kind Kind, turn string) bool {
	if prev, ok := f.shown[rec.ID]; ok && prev.Revision == rec.Revision {
		f.commit(rec, kind, turn) // the client has it (MakeRecord)
		return true
	}
	u := acp.SessionUpdate{SessionInfoUpdate: &acp.SessionInfoUpdate{Meta: Meta(nil, rec)}}
	if err := f.send(f.sessionID, u); err != nil {
		f.log.Error("failed to publish session failure", "id", rec.ID, "error", err)
		return false
	}
	f.commit(rec, kind, turn)
	return true
}

// failedTurn is a turn's terminal failure for a capable client: the turn
// ends normally (end_turn) and the record rides on the PromptResponse.
func (f *State) failedTurn(turnUUID string, kind Kind, title, details string) *acp.PromptResponse {
	rec := f.MakeRecord(turnFailureID(turnUUID), kind, SeverityError, title, details)
	f.commit(rec, kind, turnUUID)
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn, Meta: Meta(nil, rec)}
}

// sessionFailure publishes a terminal failure that has no open turn to
// carry it (background work, an idle CLI dying).
func (f *State) sessionFailure(kind Kind, title, details string) {
	f.log.Warn("session failure outside a turn", "kind", string(kind))
	f.publish(f.MakeRecord(f.SessionIncidentID(), kind, SeverityError, title, details), kind, "")
}

// recover ends the internal activity of every record whose rule matches;
// the transcript keeps them.
func (f *State) recover(match func(*activeFailure) bool) {
	for id, a := range f.active {
		if match(a) {
			delete(f.active, id)
		}
	}
}

// Active lists the ids that are still active, with their kinds (tests and
// logs).
func (f *State) Active() map[string]Kind {
	out := map[string]Kind{}
	for id, a := range f.active {
		out[id] = a.kind
	}
	return out
}
