package agent

// The session failure extension (JetBrains AIR "sessionFailure", version 1):
// failures, retries and notices reach clients that negotiated it as typed,
// durable transcript entries instead of assistant prose or opaque JSON-RPC
// errors. This file holds the negotiation, the wire record, the policy
// table and the per-session state (ids, revisions, internal recovery).
// failure_claude.go classifies what the CLI reports, failure_live.go wires
// it into the session, failure_replay.go restores records on session/load.
// docs/session-failures.md is the table a reader wants.

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

// airSessionFailure is the capability name a client lists to opt in.
const airSessionFailure = "sessionFailure"

// failuresOn reports whether this connection's client negotiated typed
// session failures.
func (f *failureState) failuresOn() bool { return f.enabled }

// failureRecord is the wire record under _meta.jetbrains.air.sessionFailure.
// It has exactly these fields: no phase, source, turn id or retry counter.
type failureRecord struct {
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
	severityWarning = "warning"
	severityError   = "error"
)

// Actions of version 1, in the order the adapter recommends them.
const (
	actionRetry      = "retry"
	actionLogin      = "login"
	actionNewSession = "new_session"
)

// failureMeta is the _meta object carrying rec, on either carrier
// (PromptResponse or session_info_update). Other _meta members, including
// other AIR payloads under jetbrains.air, are kept.
func failureMeta(base map[string]json.RawMessage, rec failureRecord) map[string]json.RawMessage {
	return airmeta.Set(base, airSessionFailure, mustJSON(rec))
}

// failureKind is the adapter's internal, fine-grained reason. It never goes
// on the wire; it selects the category, the actions, the adapter's own
// title (used only when Claude gave no text) and the recovery rule.
type failureKind string

const (
	kindAdvisory     failureKind = "advisory"      // model fallback, fast mode off
	kindAuthRequired failureKind = "auth_required" // rejected or missing login
	kindAccessDenied failureKind = "access_denied" // verification / cloud credentials
	kindQuota        failureKind = "quota"         // usage, spend, billing, account on hold
	kindRateLimited  failureKind = "rate_limited"  // a plain, transient rate limit
	kindOutputLimit  failureKind = "output_limit"  // max_output_tokens
	kindContext      failureKind = "context"       // prompt too long, turn limit
	kindBudget       failureKind = "budget"        // --max-budget-usd spent
	kindBadRequest   failureKind = "bad_request"   // invalid request, unknown model
	kindOverloaded   failureKind = "overloaded"    // 529
	kindProvider     failureKind = "provider"      // 5xx, unknown or unrecognised kinds
	kindInternal     failureKind = "internal"      // an adapter invariant failed
	kindNetwork      failureKind = "network"       // the API could not be reached
	kindTransport    failureKind = "transport"     // the CLI process was lost
	kindStartup      failureKind = "startup"       // the CLI would not start
	kindShutdown     failureKind = "shutdown"      // worker_shutting_down, then EOF
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
var failurePolicies = sync.OnceValue(func() map[failureKind]failurePolicy {
	return map[failureKind]failurePolicy{
		kindAdvisory:     {"unknown", nil, "Claude reported a notice.", recoverNever},
		kindAuthRequired: {"access", []string{actionLogin}, "Sign in to continue using Claude.", recoverAuth},
		kindAccessDenied: {"access", []string{actionRetry}, "Claude could not access the account or provider credentials.", recoverNextAttempt},
		kindQuota:        {"limit", nil, "The Claude account has no available quota.", recoverRealAnswer},
		kindRateLimited:  {"limit", []string{actionRetry}, "Claude is temporarily rate limited.", recoverNextAttempt},
		kindOutputLimit:  {"limit", nil, "Claude's response reached the output token limit.", recoverNextAttempt},
		kindContext:      {"limit", []string{actionNewSession}, "This Claude turn reached its configured limit.", recoverNextAttempt},
		kindBudget:       {"limit", []string{actionNewSession}, "This Claude session reached its configured budget.", recoverNextAttempt},
		kindBadRequest:   {"request", nil, "Claude could not process this request.", recoverNextAttempt},
		kindOverloaded:   {"service", []string{actionRetry}, "Claude is temporarily overloaded.", recoverNextAttempt},
		kindProvider:     {"service", []string{actionRetry}, "The model provider reported an error.", recoverNextAttempt},
		kindInternal:     {"service", []string{actionRetry, actionNewSession}, "Claude Agent encountered an internal error.", recoverNextAttempt},
		kindNetwork:      {"connection", []string{actionRetry}, "Claude could not reach the model provider.", recoverNextAttempt},
		kindTransport:    {"connection", []string{actionNewSession}, "The connection to Claude was lost.", recoverRuntime},
		kindShutdown:     {"connection", []string{actionNewSession}, "The Claude worker is shutting down.", recoverRuntime},
		kindStartup:      {"connection", []string{actionRetry, actionNewSession}, "Claude Code could not start.", recoverRuntime},
	}
})

// policyOf returns the policy of k; an unknown kind is a provider failure,
// never a success.
func policyOf(k failureKind) failurePolicy {
	if p, ok := failurePolicies()[k]; ok {
		return p
	}
	return failurePolicies()[kindProvider]
}

// activeFailure is a published record the adapter still considers current.
type activeFailure struct {
	rec      failureRecord
	kind     failureKind
	turn     string // the live turn it belongs to; "" for session scope
	recovery recovery
}

// failureState is the per-session bookkeeping of the extension. It is owned
// by the session goroutine and never serialized.
type failureState struct {
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
	shown  map[string]failureRecord
	active map[string]*activeFailure

	// lastNotice lets consecutive updates of one notice reuse its id.
	lastNotice struct{ key, id, title, turn string }
	// retryID is the id of a background (no turn) api_retry incident in
	// progress, so its retries update one entry.
	retryID string
	// shutdownArmed is set by system/worker_shutting_down: the end of the
	// stream that follows is a worker shutdown, not a lost transport.
	shutdownArmed bool
	// fastMode is the last fast_mode_state the CLI reported.
	fastMode string
	// replayUser is the uuid of the last user prompt seen during replay.
	replayUser string
}

// newFailureState is the failure bookkeeping of session id: enabled when
// the client negotiated the extension, publishing through the editor
// connection.
func newFailureState(a *connection, id string, log *slog.Logger) failureState {
	a.mu.Lock()
	enabled := a.client.sessionFailure
	a.mu.Unlock()
	return failureState{sessionID: id, log: log, enabled: enabled, send: a.send}
}

func (f *failureState) init() {
	if f.revisions != nil {
		return
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	f.epoch = hex.EncodeToString(b[:])
	f.revisions = map[string]int{}
	f.shown = map[string]failureRecord{}
	f.active = map[string]*activeFailure{}
}

// turnFailureID is the id of a live turn's failure: the user-message uuid
// the CLI persisted, so history replay finds the same id.
func turnFailureID(turnUUID string) string { return turnUUID + ":error" }

// sessionIncidentID returns a fresh id for a session-scoped incident.
func (f *failureState) sessionIncidentID() string {
	f.init()
	f.seq++
	return fmt.Sprintf("%s:session-error:%s:%d", f.sessionID, f.epoch, f.seq)
}

// noticeID returns a fresh id in the notice namespace.
func (f *failureState) noticeID() string {
	f.init()
	f.seq++
	return fmt.Sprintf("%s:notice:%s:%d", f.sessionID, f.epoch, f.seq)
}

// historyFailureID is the id of a replayed failure with no user message
// before it.
func historyFailureID(sessionID, messageUUID string) string {
	return sessionID + ":history-error:" + messageUUID
}

// makeRecord builds the next revision of id. Warnings carry no actions:
// recovery is still in progress. A record that says what the client
// already shows for id keeps that revision: the contract allows a higher
// revision only for a real new user-facing status (an identical retry
// warning is none), and the client ignores the same revision again.
func (f *failureState) makeRecord(id string, kind failureKind, severity, title, details string) failureRecord {
	rec := f.nextRecord(id, kind, severity, title, details)
	if prev, ok := f.shown[id]; ok && prev.Revision == f.revisions[id] && sameStatus(prev, rec) {
		rec.Revision = prev.Revision
	}
	return rec
}

// sameStatus reports whether two records show the user the same thing.
func sameStatus(a, b failureRecord) bool {
	return a.Category == b.Category && a.Severity == b.Severity && a.Title == b.Title &&
		a.Details == b.Details && slices.Equal(a.Actions, b.Actions)
}

// nextRecord is makeRecord's record, one revision past the last.
func (f *failureState) nextRecord(id string, kind failureKind, severity, title, details string) failureRecord {
	f.init()
	p := policyOf(kind)
	actions := []string{}
	if severity == severityError {
		actions = append(actions, p.actions...)
	}
	if title == "" {
		title, details = p.title, ""
	}
	return failureRecord{
		ID: id, Revision: f.revisions[id] + 1,
		Category: p.category, Severity: severity,
		Title: title, Details: details, Actions: actions,
	}
}

// commit records that rec reached the client: its revision is used, and it
// is active until its recovery rule says otherwise.
func (f *failureState) commit(rec failureRecord, kind failureKind, turn string) {
	f.init()
	f.revisions[rec.ID] = rec.Revision
	f.shown[rec.ID] = rec
	if kind != kindAdvisory {
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
func (f *failureState) publish(rec failureRecord, kind failureKind, turn string) bool {
	if prev, ok := f.shown[rec.ID]; ok && prev.Revision == rec.Revision {
		f.commit(rec, kind, turn) // the client has it (makeRecord)
		return true
	}
	u := acp.SessionUpdate{SessionInfoUpdate: &acp.SessionInfoUpdate{Meta: failureMeta(nil, rec)}}
	if err := f.send(f.sessionID, u); err != nil {
		f.log.Error("failed to publish session failure", "id", rec.ID, "error", err)
		return false
	}
	f.commit(rec, kind, turn)
	return true
}

// failedTurn is a turn's terminal failure for a capable client: the turn
// ends normally (end_turn) and the record rides on the PromptResponse.
func (f *failureState) failedTurn(t *turn, kind failureKind, title, details string) *acp.PromptResponse {
	rec := f.makeRecord(turnFailureID(t.uuid), kind, severityError, title, details)
	f.commit(rec, kind, t.uuid)
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn, Meta: failureMeta(nil, rec)}
}

// sessionFailure publishes a terminal failure that has no open turn to
// carry it (background work, an idle CLI dying).
func (f *failureState) sessionFailure(kind failureKind, title, details string) {
	f.log.Warn("session failure outside a turn", "kind", string(kind))
	f.publish(f.makeRecord(f.sessionIncidentID(), kind, severityError, title, details), kind, "")
}

// recover ends the internal activity of every record whose rule matches;
// the transcript keeps them.
func (f *failureState) recover(match func(*activeFailure) bool) {
	for id, a := range f.active {
		if match(a) {
			delete(f.active, id)
		}
	}
}

// activeFailures lists the ids that are still active (tests and logs).
func (f *failureState) activeFailures() map[string]failureKind {
	out := map[string]failureKind{}
	for id, a := range f.active {
		out[id] = a.kind
	}
	return out
}
