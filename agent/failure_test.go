package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/failure"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/airmeta"
	"github.com/claude-agent-acp/claude-agent-acp/agent/translate"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
)

// failureProbe is a session with no CLI and no goroutine, wired to a client
// connection that records every session/update: the unit tests drive it
// with CLI frames and look at what the client got.
type failureProbe struct {
	t *testing.T
	a *connection
	s *session

	mu      sync.Mutex
	updates []acp.SessionUpdate
	marks   int
}

func newFailureProbe(t *testing.T, capable bool) *failureProbe {
	t.Helper()
	a := New(Config{}).newConnection()
	agentIn, clientOut := io.Pipe()
	clientIn, agentOut := io.Pipe()
	a.attach(acp.NewConn(agentIn, agentOut, acp.Options{}), clientCaps{sessionFailure: capable})
	p := &failureProbe{t: t, a: a}
	m := acp.NewMux()
	acp.OnNotification(m, acp.MethodSessionUpdate, func(ctx context.Context, n *acp.SessionNotification) error {
		p.mu.Lock()
		p.updates = append(p.updates, n.Update)
		p.mu.Unlock()
		return nil
	})
	client := acp.NewConn(clientIn, clientOut, acp.Options{Handler: m})
	p.s = p.shadow("s1")
	t.Cleanup(func() {
		// Not client.Wait: acp.Conn.Wait races with a dispatch that is
		// still admitting a notification at shutdown (WaitGroup Add after
		// Wait); goleak in TestMain checks that everything ends.
		_ = a.conn.Close()
		_ = client.Close()
		<-a.conn.Done()
		<-client.Done()
	})
	return p
}

// shadow is a session without a goroutine or CLI, driven by the test
// itself.
func (p *failureProbe) shadow(id string) *session {
	quit := make(chan struct{})
	close(quit)
	s := &session{a: p.a, id: id, log: p.a.log, quit: quit, inbox: closedMailbox(), q: turnQueue{cancelledIDs: map[string]bool{}}}
	s.tr = p.a.newTranslator(id, "", p.a.log, now{s})
	s.adv = newFailures(p.a, id, p.a.log, &s.fail)
	return s
}

// frame feeds one CLI stdout line to the session.
func (p *failureProbe) frame(line string) {
	p.t.Helper()
	m, err := claude.DecodeMessage([]byte(line))
	if err != nil {
		p.t.Fatalf("bad frame %s: %v", line, err)
	}
	p.s.handle(m)
}

// startTurn registers a turn the CLI has started.
func (p *failureProbe) startTurn(uuid string) *turn {
	t := &turn{Turn: translate.Turn{UUID: uuid}, done: make(chan turnOutcome, 1), phase: turnSent}
	p.s.q.turns = append(p.s.q.turns, t)
	p.frame(`{"type":"command_lifecycle","command_uuid":"` + uuid + `","state":"started"}`)
	return t
}

// flush waits until every update sent so far has arrived (a marker sent
// behind them comes back) and returns them, markers left out.
func (p *failureProbe) flush() []acp.SessionUpdate {
	p.t.Helper()
	p.marks++
	mark := fmt.Sprintf("\x00mark%d", p.marks)
	p.s.a.notify(p.s.id, acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{
		Content: acp.ContentBlock{Text: &acp.TextContent{Text: mark}}}})
	deadline := time.Now().Add(5 * time.Second)
	for {
		p.mu.Lock()
		got := append([]acp.SessionUpdate(nil), p.updates...)
		p.mu.Unlock()
		var out []acp.SessionUpdate
		seen := false
		for _, u := range got {
			if c := u.AgentMessageChunk; c != nil && c.Content.Text != nil && strings.HasPrefix(c.Content.Text.Text, "\x00mark") {
				seen = seen || c.Content.Text.Text == mark
				continue
			}
			out = append(out, u)
		}
		if seen {
			return out
		}
		if time.Now().After(deadline) {
			p.t.Fatal("updates did not arrive")
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// records returns the failure records the client got so far.
func (p *failureProbe) records() []failure.Record {
	p.t.Helper()
	var out []failure.Record
	for _, u := range p.flush() {
		if u.SessionInfoUpdate != nil {
			if r, ok := recordIn(p.t, u.SessionInfoUpdate.Meta); ok {
				out = append(out, r)
			}
		}
	}
	return out
}

// texts returns the agent text chunks the client got so far.
func (p *failureProbe) texts() []string {
	var out []string
	for _, u := range p.flush() {
		if c := u.AgentMessageChunk; c != nil && c.Content.Text != nil {
			out = append(out, c.Content.Text.Text)
		}
	}
	return out
}

// recordIn decodes the record of a _meta, checking it has exactly the
// version-1 fields.
func recordIn(t *testing.T, meta map[string]json.RawMessage) (failure.Record, bool) {
	t.Helper()
	var env struct {
		Jetbrains struct {
			Air map[string]json.RawMessage `json:"air"`
		} `json:"jetbrains"`
	}
	b, _ := json.Marshal(meta)
	if json.Unmarshal(b, &env) != nil || env.Jetbrains.Air["sessionFailure"] == nil {
		return failure.Record{}, false
	}
	if string(env.Jetbrains.Air["version"]) != "1" {
		t.Errorf("air version %s", env.Jetbrains.Air["version"])
	}
	var fields map[string]any
	_ = json.Unmarshal(env.Jetbrains.Air["sessionFailure"], &fields)
	for k := range fields {
		switch k {
		case "id", "revision", "category", "severity", "title", "details", "actions":
		default:
			t.Errorf("record has a field %q", k)
		}
	}
	for _, k := range []string{"id", "revision", "category", "severity", "title", "actions"} {
		if _, ok := fields[k]; !ok {
			t.Errorf("record lacks %q: %v", k, fields)
		}
	}
	var r failure.Record
	if err := json.Unmarshal(env.Jetbrains.Air["sessionFailure"], &r); err != nil {
		t.Fatal(err)
	}
	return r, true
}

func outcomeOf(t *testing.T, tu *turn) turnOutcome {
	t.Helper()
	select {
	case o := <-tu.done:
		return o
	case <-time.After(5 * time.Second):
		t.Fatal("turn not settled")
		return turnOutcome{}
	}
}

func TestFailureNegotiation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		meta string
		want bool
	}{
		{`{"jetbrains":{"air":{"version":1,"capabilities":["sessionFailure"]}}}`, true},
		{`{"jetbrains":{"air":{"version":2,"capabilities":["diffPatch","sessionFailure"]}}}`, true},
		{`{"jetbrains":{"air":{"version":1.0,"capabilities":["sessionFailure"]}}}`, true},
		{`{"jetbrains":{"air":{"version":1e0,"capabilities":["sessionFailure"]}}}`, true},
		{`{"jetbrains":{"air":{"version":1,"capabilities":[1,"sessionFailure"]}}}`, true},
		{`{"jetbrains":{"air":{"version":1.5,"capabilities":["sessionFailure"]}}}`, false},
		{`{"jetbrains":{"air":{"version":"1","capabilities":["sessionFailure"]}}}`, false},
		{`{"jetbrains":{"air":{"version":0,"capabilities":["sessionFailure"]}}}`, false},
		{`{"jetbrains":{"air":{"version":-1,"capabilities":["sessionFailure"]}}}`, false},
		{`{"jetbrains":{"air":{"version":1e400,"capabilities":["sessionFailure"]}}}`, false},
		{`{"jetbrains":{"air":{"version":null,"capabilities":["sessionFailure"]}}}`, false},
		{`{"jetbrains":{"air":{"capabilities":["sessionFailure"]}}}`, false},
		{`{"jetbrains":{"air":{"version":1,"capabilities":[]}}}`, false},
		{`{"jetbrains":{"air":{"version":1,"capabilities":"sessionFailure"}}}`, false},
		{`{"jetbrains":{"air":{"version":1,"capabilities":[{"sessionFailure":true}]}}}`, false},
		{`{"jetbrains":{"air":{"version":1,"capabilities":["SessionFailure"]}}}`, false},
		{`{"jetbrains":{"air":{"version":1,"sessionFailure":{"version":1}}}}`, false},
		{`{"jetbrains":{"air":true}}`, false},
		{`{"jetbrains":{}}`, false},
		{`{}`, false},
		{`null`, false},
	} {
		var meta map[string]json.RawMessage
		_ = json.Unmarshal([]byte(tc.meta), &meta)
		if got := airmeta.Parse(meta).Has(failure.Capability); got != tc.want {
			t.Errorf("%s: got %v", tc.meta, got)
		}
		cc := readClientCaps(acp.ClientCapabilities{Meta: meta})
		if cc.sessionFailure != tc.want {
			t.Errorf("%s: clientCaps %v", tc.meta, cc.sessionFailure)
		}
	}
}

func TestFailureWireRecord(t *testing.T) {
	t.Parallel()
	base := map[string]json.RawMessage{
		"quota":     json.RawMessage(`{"x":1}`),
		"jetbrains": json.RawMessage(`{"air":{"goal":{"a":1}},"other":true}`),
	}
	rec := failure.Record{ID: "u1:error", Revision: 2, Category: "limit", Severity: "error", Title: "t", Actions: []string{}}
	meta := failure.Meta(base, rec)
	got, ok := recordIn(t, meta)
	if !ok || !reflect.DeepEqual(got, rec) {
		t.Fatalf("got %+v", got)
	}
	b, _ := json.Marshal(meta)
	for _, want := range []string{`"quota":{"x":1}`, `"goal":{"a":1}`, `"other":true`, `"actions":[]`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %s", b, want)
		}
	}
	if strings.Contains(string(b), "details") {
		t.Errorf("empty details must be omitted: %s", b)
	}
	if len(base["jetbrains"]) != len(`{"air":{"goal":{"a":1}},"other":true}`) {
		t.Error("the base _meta was modified")
	}
}

// TestFailureRetryThenError: api_retry warnings update the turn's one
// entry, and the terminal failure is a higher revision of the same id on
// the PromptResponse; a warning never ends the turn.
func TestFailureRetryThenError(t *testing.T) {
	t.Parallel()
	p := newFailureProbe(t, true)
	tu := p.startTurn("u1")
	p.frame(`{"type":"system","subtype":"api_retry","attempt":1,"max_retries":2,"retry_delay_ms":500,"error_status":429,"error":"rate_limit","uuid":"r1","session_id":"s1"}`)
	p.frame(`{"type":"system","subtype":"api_retry","attempt":2,"max_retries":2,"retry_delay_ms":900,"error_status":429,"error":"rate_limit","uuid":"r2","session_id":"s1"}`)
	recs := p.records()
	if len(recs) != 2 {
		t.Fatalf("records %+v", recs)
	}
	for i, r := range recs {
		want := failure.Record{ID: "u1:error", Revision: i + 1, Category: "limit", Severity: "warning",
			Title: []string{"Retrying Claude, attempt 1 of 2.", "Retrying Claude, attempt 2 of 2."}[i], Actions: []string{}}
		if !reflect.DeepEqual(r, want) {
			t.Errorf("warning %d: %+v", i, r)
		}
	}
	select {
	case <-tu.done:
		t.Fatal("a warning ended the turn")
	default:
	}
	p.frame(`{"type":"assistant","message":{"id":"x","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"API Error: Request rejected (429) · slow down"}]},"parent_tool_use_id":null,"error":"rate_limit","is_api_error_message":true,"uuid":"a1","session_id":"s1"}`)
	p.frame(`{"type":"result","subtype":"success","is_error":true,"result":"API Error: Request rejected (429) · slow down","stop_reason":"stop_sequence","api_error_status":429,"session_id":"s1","uuid":"res1"}`)
	o := outcomeOf(t, tu)
	if o.err != nil || o.resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("outcome %+v", o)
	}
	r, ok := recordIn(t, o.resp.Meta)
	want := failure.Record{ID: "u1:error", Revision: 3, Category: "limit", Severity: "error",
		Title: "API Error: Request rejected (429) · slow down", Actions: []string{"retry"}}
	if !ok || !reflect.DeepEqual(r, want) {
		t.Fatalf("terminal %+v", r)
	}
	// Claude's text is not assistant prose.
	if txt := p.texts(); len(txt) != 0 {
		t.Errorf("agent text: %q", txt)
	}
	// A network retry reconnects and is category connection.
	tu2 := p.startTurn("u2")
	p.frame(`{"type":"system","subtype":"api_retry","attempt":1,"max_retries":1,"retry_delay_ms":500,"error_status":null,"error":"unknown","uuid":"r3","session_id":"s1"}`)
	recs = p.records()
	if last := recs[len(recs)-1]; last.ID != "u2:error" || last.Category != "connection" || last.Title != "Reconnecting to Claude, attempt 1 of 1." {
		t.Errorf("network retry %+v", last)
	}
	p.frame(`{"type":"assistant","message":{"id":"m2","model":"claude-x","role":"assistant","content":[{"type":"text","text":"fine"}]},"parent_tool_use_id":null,"uuid":"a2","session_id":"s1"}`)
	p.frame(`{"type":"result","subtype":"success","is_error":false,"result":"fine","stop_reason":"end_turn","session_id":"s1","uuid":"res2"}`)
	if o := outcomeOf(t, tu2); o.resp == nil || o.resp.StopReason != acp.StopReasonEndTurn || o.resp.Meta != nil {
		t.Fatalf("a recovered turn ends plainly: %+v", o)
	}
	if act := p.s.fail.Active(); len(act) != 0 {
		t.Errorf("still active after success: %v", act)
	}
	// Authentication retries are not reported as warnings.
	p.startTurn("u3")
	n := len(p.records())
	p.frame(`{"type":"system","subtype":"api_retry","attempt":1,"max_retries":2,"retry_delay_ms":500,"error_status":401,"error":"authentication_failed","uuid":"r4","session_id":"s1"}`)
	if got := p.records(); len(got) != n {
		t.Errorf("an auth retry was published: %+v", got[n:])
	}
}

// TestStopReasonPropagation (unit part): refusals and the max_tokens stop
// reason keep their stop reasons for capable clients, success carries no
// record, and failures end the turn normally with the record.
func TestStopReasonPropagation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, frames string
		stop         acp.StopReason
		category     string
	}{
		{"success", `{"type":"result","subtype":"success","is_error":false,"result":"ok","stop_reason":"end_turn"}`, acp.StopReasonEndTurn, ""},
		{"refusal", `{"type":"result","subtype":"success","is_error":true,"stop_reason":"refusal"}`, acp.StopReasonRefusal, ""},
		{"max_tokens", `{"type":"result","subtype":"success","is_error":true,"stop_reason":"max_tokens"}`, acp.StopReasonMaxTokens, ""},
		{"max_turns not error", `{"type":"result","subtype":"error_max_turns","is_error":false}`, acp.StopReasonMaxTurnRequests, ""},
		{"max_turns", `{"type":"result","subtype":"error_max_turns","is_error":true,"errors":["Reached maximum number of turns (1)"]}`, acp.StopReasonEndTurn, "limit"},
		{"budget", `{"type":"result","subtype":"error_max_budget_usd","is_error":true,"errors":["Reached maximum budget ($0.01)"]}`, acp.StopReasonEndTurn, "limit"},
		{"unknown error", `{"type":"result","subtype":"success","is_error":true,"result":""}`, acp.StopReasonEndTurn, "service"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newFailureProbe(t, true)
			tu := p.startTurn("u1")
			p.frame(tc.frames)
			o := outcomeOf(t, tu)
			if o.err != nil || o.resp.StopReason != tc.stop {
				t.Fatalf("outcome %+v %v", o.resp, o.err)
			}
			r, ok := recordIn(t, o.resp.Meta)
			if ok != (tc.category != "") || r.Category != tc.category {
				t.Fatalf("record %v %+v", ok, r)
			}
			if ok && (r.ID != "u1:error" || r.Severity != "error" || r.Title == "") {
				t.Errorf("record %+v", r)
			}
		})
	}
	// A legacy client keeps the JSON-RPC error with errorKind.
	p := newFailureProbe(t, false)
	tu := p.startTurn("u1")
	p.frame(`{"type":"assistant","message":{"id":"x","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"API Error: 500"}]},"parent_tool_use_id":null,"error":"server_error","is_api_error_message":true}`)
	p.frame(`{"type":"result","subtype":"success","is_error":true,"result":"API Error: 500","stop_reason":"stop_sequence"}`)
	o := outcomeOf(t, tu)
	var ae *acp.Error
	if o.resp != nil || o.err == nil || !asError(o.err, &ae) || ae.Code != acp.CodeInternalError || ae.Message != "API Error: 500" {
		t.Fatalf("legacy outcome %+v %v", o.resp, o.err)
	}
}

func asError(err error, target **acp.Error) bool {
	e, ok := err.(*acp.Error)
	if ok {
		*target = e
	}
	return ok
}

// TestModelRefusalFallbackHandling (unit part): a typed warning in the
// notice namespace for capable clients, the exact transcript line for the
// others, never both; advisories neither clear nor are cleared by errors.
func TestModelRefusalFallbackHandling(t *testing.T) {
	t.Parallel()
	frame := `{"type":"system","subtype":"model_refusal_fallback","trigger":"refusal","direction":"retry","scope":"session","original_model":"claude-opus-5-5","fallback_model":"claude-opus-4-8","api_refusal_category":"cyber","api_refusal_explanation":"Looks like malware.","content":"Opus 5.5's safeguards flagged this session. Learn more: https://support.example/x","session_id":"s1","uuid":"f1"}`
	legacy := newFailureProbe(t, false)
	legacy.startTurn("u1")
	legacy.frame(frame)
	want := "**Model fallback:** claude-opus-5-5 declined this request (cyber); retried with claude-opus-4-8. The session will continue on claude-opus-4-8.\n\nLooks like malware."
	if got := legacy.texts(); len(got) != 1 || got[0] != want || len(legacy.records()) != 0 {
		t.Fatalf("legacy line %q", got)
	}

	p := newFailureProbe(t, true)
	tu := p.startTurn("u1")
	p.frame(frame)
	recs := p.records()
	r := recs[0]
	if r.Category != "unknown" || r.Severity != "warning" || len(r.Actions) != 0 || !strings.Contains(r.ID, "s1:notice:") ||
		strings.Contains(r.Title, "**") || r.Title != "claude-opus-5-5 declined this request (cyber); retried with claude-opus-4-8. The session will continue on claude-opus-4-8. Looks like malware." {
		t.Fatalf("advisory %+v", r)
	}
	// An error of the same turn does not clear the advisory, nor the
	// reverse; a real answer does not clear it either.
	p.frame(`{"type":"result","subtype":"success","is_error":true,"result":"API Error: 500","stop_reason":"stop_sequence"}`)
	outcomeOf(t, tu)
	act := p.s.fail.Active()
	if act[r.ID] != failure.KindAdvisory || act["u1:error"] != failure.KindProvider {
		t.Fatalf("active %v", act)
	}
	tu2 := p.startTurn("u2")
	p.frame(`{"type":"system","subtype":"model_refusal_fallback","direction":"retry","original_model":"a","fallback_model":"b","session_id":"s1"}`)
	p.frame(`{"type":"assistant","message":{"id":"m","model":"b","role":"assistant","content":[{"type":"text","text":"hi"}]},"parent_tool_use_id":null}`)
	p.frame(`{"type":"result","subtype":"success","is_error":false,"result":"hi","stop_reason":"end_turn"}`)
	outcomeOf(t, tu2)
	act = p.s.fail.Active()
	if act[r.ID] != failure.KindAdvisory {
		t.Errorf("the advisory was cleared: %v", act)
	}
	if _, ok := act["u1:error"]; ok {
		t.Errorf("an earlier turn's failure survived a later attempt: %v", act)
	}
	for _, txt := range p.texts() {
		if strings.Contains(txt, "Model fallback") || strings.Contains(txt, "declined") {
			t.Errorf("duplicate transcript line for a capable client")
		}
	}
	recs = p.records()
	second := recs[len(recs)-1]
	if second.ID == r.ID || second.Title != "a declined this request; retried with b. The session will continue on b." {
		t.Errorf("a new occurrence needs a new id: %+v", second)
	}
	// Variants of the outcome sentence.
	for _, tc := range []struct{ frame, want string }{
		{`{"type":"system","subtype":"model_refusal_fallback","direction":"revert","original_model":"a","fallback_model":"b"}`, "**Model fallback:** a declined this request; retried with b. The session stays on a."},
		{`{"type":"system","subtype":"model_refusal_fallback","direction":"retry","scope":"local","original_model":"a","fallback_model":"b"}`, "**Model fallback:** a declined this request; retried with b. Only that response came from b; the session stays on a."},
	} {
		lp := newFailureProbe(t, false)
		lp.frame(tc.frame)
		if got := lp.texts(); len(got) != 1 || got[0] != tc.want {
			t.Errorf("got %q", got)
		}
	}
	// --fallback-model: Claude's own words for capable clients, nothing
	// for the others (as before).
	fb := `{"type":"system","subtype":"model_fallback","trigger":"overloaded","original_model":"claude-opus-4-5","fallback_model":"claude-sonnet-4-5","content":"Switched to Sonnet 4.5 due to high demand for Opus 4.5"}`
	lp := newFailureProbe(t, false)
	lp.frame(fb)
	if got := lp.flush(); len(got) != 0 {
		t.Errorf("legacy got something for model_fallback: %+v", got)
	}
	cp := newFailureProbe(t, true)
	cp.frame(fb)
	if r := cp.records()[0]; r.Title != "Switched to Sonnet 4.5 due to high demand for Opus 4.5" || r.Category != "unknown" || !strings.Contains(r.ID, ":notice:") {
		t.Errorf("model_fallback notice %+v", r)
	}
}

func TestFailureFastModeNotice(t *testing.T) {
	t.Parallel()
	initOn := `{"type":"system","subtype":"init","model":"m","fast_mode_state":"on","session_id":"s1"}`
	offRoutine := `{"type":"result","subtype":"success","is_error":false,"result":"","fast_mode_state":"off","fast_mode_disabled_reason":"sdk_opt_in_required"}`
	offBlocked := `{"type":"result","subtype":"success","is_error":false,"result":"","fast_mode_state":"off","fast_mode_disabled_reason":"extra_usage_disabled"}`

	lp := newFailureProbe(t, false)
	lp.frame(initOn)
	lp.frame(offBlocked)
	lp.frame(offBlocked) // the same report again: no repeat
	lines := lp.texts()
	if len(lines) != 1 || lines[0] != "**Fast mode turned off:** requires extra usage to be enabled for this account." {
		t.Fatalf("legacy lines %q", lines)
	}

	p := newFailureProbe(t, true)
	p.frame(initOn)
	p.frame(offBlocked)
	r := p.records()
	if len(r) != 1 || r[0].Title != "Fast mode turned off: requires extra usage to be enabled for this account." ||
		r[0].Severity != "warning" || r[0].Category != "unknown" || !strings.Contains(r[0].ID, ":notice:") {
		t.Fatalf("notice %+v", r)
	}
	if txt := p.texts(); len(txt) != 0 {
		t.Errorf("capable client got the transcript line too: %q", txt)
	}
	// A routine reason, or fast mode that was never on, says nothing.
	q := newFailureProbe(t, true)
	q.frame(initOn)
	q.frame(offRoutine)
	q.frame(offBlocked)
	if got := q.records(); len(got) != 0 {
		t.Errorf("notice for a routine reason: %+v", got)
	}
}

// TestFailureRecoveryState checks every internal recovery rule; none of
// them sends anything.
func TestFailureRecoveryState(t *testing.T) {
	t.Parallel()
	p := newFailureProbe(t, true)
	synthetic := `{"type":"assistant","message":{"id":"x","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"%s"}]},"parent_tool_use_id":null,"error":"%s","is_api_error_message":true}`
	real := `{"type":"assistant","message":{"id":"m","model":"claude-x","role":"assistant","content":[{"type":"text","text":"hi"}]},"parent_tool_use_id":null}`
	result := `{"type":"result","subtype":"success","is_error":true,"result":"","stop_reason":"stop_sequence"}`
	ok := `{"type":"result","subtype":"success","is_error":false,"result":"hi","stop_reason":"end_turn"}`

	// Quota: active until a real model answer; synthetic text does not count.
	t1 := p.startTurn("q1")
	p.frame(strings.Replace(strings.Replace(synthetic, "%s", "You've hit your weekly limit · resets Monday", 1), "%s", "rate_limit", 1))
	p.frame(result)
	outcomeOf(t, t1)
	// Auth: until a successful auth_status.
	t2 := p.startTurn("a1")
	p.frame(strings.Replace(strings.Replace(synthetic, "%s", "Invalid API key · Please run /login", 1), "%s", "authentication_failed", 1))
	p.frame(result)
	outcomeOf(t, t2)
	if got := p.s.fail.Active(); got["q1:error"] != failure.KindQuota || got["a1:error"] != failure.KindAuthRequired {
		t.Fatalf("active %v", got)
	}
	t3 := p.startTurn("n1")
	p.frame(strings.Replace(strings.Replace(synthetic, "%s", "No response requested.", 1), "%s", "", 1))
	p.frame(ok)
	outcomeOf(t, t3)
	if got := p.s.fail.Active(); got["q1:error"] != failure.KindQuota {
		t.Fatalf("a synthetic message recovered the quota: %v", got)
	}
	p.frame(`{"type":"auth_status","isAuthenticating":false,"output":[],"error":"still bad"}`)
	if got := p.s.fail.Active(); got["a1:error"] != failure.KindAuthRequired {
		t.Fatalf("an erroring auth_status recovered the login: %v", got)
	}
	p.frame(`{"type":"auth_status","isAuthenticating":false,"output":[]}`)
	if got := p.s.fail.Active(); got["a1:error"] != "" || got["q1:error"] != failure.KindQuota {
		t.Fatalf("after auth_status: %v", got)
	}
	t4 := p.startTurn("r1")
	p.frame(real)
	p.frame(ok)
	outcomeOf(t, t4)
	if got := p.s.fail.Active(); len(got) != 0 {
		t.Fatalf("a real answer must recover the quota: %v", got)
	}
	// Transport loss: until the runtime is replaced, not by a real answer.
	t5 := &turn{Turn: translate.Turn{UUID: "x1"}, done: make(chan turnOutcome, 1)}
	p.s.settleLost(t5, nil)
	o := outcomeOf(t, t5)
	if r, _ := recordIn(t, o.resp.Meta); r.Category != "connection" || !reflect.DeepEqual(r.Actions, []string{"new_session"}) || r.Title != "The connection to Claude was lost." {
		t.Fatalf("transport %+v", r)
	}
	p.frame(real)
	if got := p.s.fail.Active(); got["x1:error"] != failure.KindTransport {
		t.Fatalf("a real answer recovered a lost transport: %v", got)
	}
	p.s.fail.Started() // a new CLI
	if got := p.s.fail.Active(); len(got) != 0 {
		t.Fatalf("runtime replacement: %v", got)
	}
	// No clear records were ever sent: every update is a first revision
	// or a notice.
	for _, r := range p.records() {
		if r.Revision != 1 {
			t.Errorf("unexpected republication %+v", r)
		}
	}
}

// TestUsageLimitFailureReplay replays a transcript the real CLI wrote
// (two usage limits in OAuth mode, then a real answer).
func TestUsageLimitFailureReplay(t *testing.T) {
	t.Parallel()
	recs := readFixture(t, "testdata/failure/usage-limit.jsonl")
	if len(recs) != 6 {
		t.Fatalf("fixture has %d records", len(recs))
	}
	const u1, u2 = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"

	// Capable client: typed records at their positions, prose suppressed.
	p := newFailureProbe(t, true)
	var suppressed []int
	for i, r := range recs[:4] {
		if replayFailure(&p.s.fail, r) {
			suppressed = append(suppressed, i)
		}
	}
	if !reflect.DeepEqual(suppressed, []int{1, 3}) {
		t.Fatalf("suppressed %v", suppressed)
	}
	got := p.records()
	want := []failure.Record{
		{ID: u1 + ":error", Revision: 1, Category: "limit", Severity: "error", Title: "You've hit your 5-hour limit · resets Mar 17, 2030, 5:46pm (UTC)", Actions: []string{}},
		{ID: u2 + ":error", Revision: 1, Category: "limit", Severity: "error", Title: "You've hit your weekly limit · resets Mar 17, 2030, 6:46pm (UTC)", Actions: []string{}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("replayed\n%+v\nwant\n%+v", got, want)
	}
	if act := p.s.fail.Active(); !reflect.DeepEqual(act, map[string]failure.Kind{u2 + ":error": failure.KindQuota}) {
		t.Fatalf("only the latest stays active: %v", act)
	}
	for _, r := range recs[4:] {
		if replayFailure(&p.s.fail, r) {
			t.Fatal("a real answer was suppressed")
		}
	}
	if act := p.s.fail.Active(); len(act) != 0 {
		t.Fatalf("a later real answer recovers it: %v", act)
	}

	// Legacy client: nothing typed, nothing suppressed.
	lp := newFailureProbe(t, false)
	for _, r := range recs {
		if replayFailure(&lp.s.fail, r) {
			t.Fatal("legacy replay suppressed a record")
		}
	}
	if got := lp.flush(); len(got) != 0 {
		t.Fatalf("legacy got %+v", got)
	}

	// No user message before it: the history id. A later synthetic
	// message that is not a limit does not recover it; sidechains and
	// model prose with the same words are not limits.
	hp := newFailureProbe(t, true)
	limit := *recs[1]
	if !replayFailure(&hp.s.fail, &limit) {
		t.Fatal("not recognised")
	}
	noResp := limit
	noResp.UUID = "nr"
	noResp.Message = &transcript.Message{Role: "assistant", Model: transcript.SyntheticModel, Content: transcript.Content{{Type: "text", Text: "No response requested."}}}
	prose := noResp
	prose.Message = &transcript.Message{Role: "assistant", Model: "claude-x", Content: transcript.Content{{Type: "text", Text: "You've hit your stride!"}}}
	side := limit
	side.IsSidechain = true
	if replayFailure(&hp.s.fail, &noResp) || replayFailure(&hp.s.fail, &side) {
		t.Fatal("suppressed what is not a limit")
	}
	r := hp.records()
	if len(r) != 1 || r[0].ID != "s1:history-error:"+limit.UUID {
		t.Fatalf("history id %+v", r)
	}
	if act := hp.s.fail.Active(); act[r[0].ID] != failure.KindQuota {
		t.Fatalf("active %v", act)
	}
	if replayFailure(&hp.s.fail, &prose) {
		t.Fatal("model prose suppressed")
	}
	if act := hp.s.fail.Active(); len(act) != 0 {
		t.Fatalf("a real answer recovers: %v", act)
	}
}

// TestUsageLimitReplayReachesLiveSession: the replay hands its active
// limit to the live session, whose next real answer recovers it.
func TestUsageLimitReplayReachesLiveSession(t *testing.T) {
	t.Parallel()
	recs := readFixture(t, "testdata/failure/usage-limit.jsonl")
	p := newFailureProbe(t, true)
	live := newSession(p.a, "s1", claude.Options{}, claude.PermissionDefault)
	p.a.mu.Lock()
	p.a.sessions["s1"] = live
	p.a.mu.Unlock()
	defer live.close()
	rp := newReplayer(p.a, "s1", &sessionSetup{})
	for _, r := range recs[:4] {
		replayFailure(&rp.fail, r)
	}
	rp.mirrorFailures()
	var act map[string]failure.Kind
	live.do(func() { act = live.fail.Active() })
	if len(act) != 1 || act["22222222-2222-4222-8222-222222222222:error"] != failure.KindQuota {
		t.Fatalf("live active %v", act)
	}
	live.do(func() {
		live.fail.SawAssistant(&claude.AssistantMessage{Message: claude.APIMessage{Model: "claude-x"}})
		act = live.fail.Active()
	})
	if len(act) != 0 {
		t.Fatalf("live still active %v", act)
	}
}

func readFixture(t *testing.T, path string) []*transcript.Record {
	t.Helper()
	r, err := transcript.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	recs, err := r.Collect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestFailureIdentityAndRevisions: session-scoped incidents and notices get fresh ids from
// a per-session epoch; identical text never reuses one across occurrences.
func TestFailureIdentityAndRevisions(t *testing.T) {
	t.Parallel()
	p := newFailureProbe(t, true)
	a, b := p.s.fail.SessionIncidentID(), p.s.fail.SessionIncidentID()
	n := p.s.fail.NoticeID()
	other := p.shadow("s1")
	c := other.fail.SessionIncidentID()
	ids := []string{a, b, n, c}
	sort.Strings(ids)
	for i := 1; i < len(ids); i++ {
		if ids[i] == ids[i-1] {
			t.Fatalf("duplicate ids %v", ids)
		}
	}
	if !strings.HasPrefix(a, "s1:session-error:") || !strings.HasPrefix(n, "s1:notice:") || !strings.HasSuffix(b, ":2") {
		t.Errorf("ids %v", ids)
	}
	// A failed result with no turn is a session-scoped record.
	p.frame(`{"type":"result","subtype":"success","is_error":true,"result":"API Error: 529 Overloaded","stop_reason":"stop_sequence"}`)
	p.frame(`{"type":"result","subtype":"success","is_error":true,"result":"API Error: 529 Overloaded","stop_reason":"stop_sequence"}`)
	r := p.records()
	if len(r) != 2 || r[0].ID == r[1].ID || !strings.HasPrefix(r[0].ID, "s1:session-error:") || r[0].Title != r[1].Title {
		t.Fatalf("background failures %+v", r)
	}
}

// TestFailureRevisionOnlyForANewStatus: an api_retry that would show what
// the entry already shows (the CLI's identical retries) keeps its revision
// and is not sent again; a counter of nothing ("attempt 0 of 0") is left
// out of the title; the next real change is the next revision.
func TestFailureRevisionOnlyForANewStatus(t *testing.T) {
	t.Parallel()
	p := newFailureProbe(t, true)
	tu := p.startTurn("u1")
	for _, uuid := range []string{"r1", "r2"} {
		p.frame(`{"type":"system","subtype":"api_retry","attempt":0,"max_retries":0,"retry_delay_ms":276,"error_status":null,"error":"cloud_credential_error","uuid":"` + uuid + `","session_id":"s1"}`)
	}
	p.frame(`{"type":"system","subtype":"api_retry","attempt":1,"max_retries":3,"retry_delay_ms":500,"error_status":null,"error":"unknown","uuid":"r3","session_id":"s1"}`)
	p.frame(`{"type":"system","subtype":"api_retry","attempt":1,"max_retries":3,"retry_delay_ms":500,"error_status":null,"error":"unknown","uuid":"r4","session_id":"s1"}`)
	recs := p.records()
	want := []failure.Record{
		{ID: "u1:error", Revision: 1, Category: "connection", Severity: "warning", Title: "Reconnecting to Claude.", Actions: []string{}},
		{ID: "u1:error", Revision: 2, Category: "connection", Severity: "warning", Title: "Reconnecting to Claude, attempt 1 of 3.", Actions: []string{}},
	}
	if !reflect.DeepEqual(recs, want) {
		t.Fatalf("records %+v, want %+v", recs, want)
	}
	p.frame(`{"type":"result","subtype":"success","is_error":true,"result":"API Error: Could not load AWS credentials","stop_reason":"stop_sequence","session_id":"s1","uuid":"res1"}`)
	o := outcomeOf(t, tu)
	if r, ok := recordIn(t, o.resp.Meta); !ok || r.Revision != 3 || r.Severity != "error" {
		t.Fatalf("terminal %+v", r)
	}
}

// TestFailureNegotiationHugeVersion (issue 37, item 9): air.version is
// "a finite integer greater than or equal to 1", past 2^53 too.
func TestFailureNegotiationHugeVersion(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"1e16", "9007199254740993", "1e300"} {
		meta := map[string]json.RawMessage{"jetbrains": json.RawMessage(`{"air":{"version":` + v + `,"capabilities":["sessionFailure"]}}`)}
		if !readClientCaps(acp.ClientCapabilities{Meta: meta}).sessionFailure {
			t.Errorf("version %s does not enable the extension", v)
		}
	}
}
