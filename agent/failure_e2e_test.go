package agent_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/acptest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// These tests drive the session failure extension end to end: the real
// CLI against the fake API for every condition the CLI can produce, and a
// small fake CLI (a shell script) for the worker shutdown, which only the
// CLI's Remote-Control bridge emits. Variants that only exercise the
// agent's own policy (negotiation, a legacy client's rendering) run over
// the in-process fake CLI playing the real CLI's recorded frames
// (clifake.Recorded, failure_fake_helpers_test.go); the real-CLI test of
// the same frames is named in each.

// airCaps declares the extension the way a JetBrains AIR client does.
func airCaps(air string) acp.ClientCapabilities {
	return acp.ClientCapabilities{Meta: map[string]json.RawMessage{"jetbrains": json.RawMessage(`{"air":` + air + `}`)}}
}

const airOn = `{"version":1,"capabilities":["sessionFailure"]}`

// startFailures starts an agent whose client negotiated the extension (or
// sent air as its declaration) and opens a session.
func startFailures(t *testing.T, air string, opts ...agenttest.Options) (*agenttest.Harness, string) {
	t.Helper()
	h := agenttest.Start(t, opts...)
	h.Initialize(airCaps(air))
	return h, h.NewSession(h.Sandbox.WorkDir)
}

type wireRecord struct {
	ID       string   `json:"id"`
	Revision int      `json:"revision"`
	Category string   `json:"category"`
	Severity string   `json:"severity"`
	Title    string   `json:"title"`
	Details  string   `json:"details"`
	Actions  []string `json:"actions"`
}

// recordOf decodes _meta.jetbrains.air.sessionFailure, checking the
// envelope and that the record has only the fields of version 1.
func recordOf(t *testing.T, meta map[string]json.RawMessage) (wireRecord, bool) {
	t.Helper()
	var jb struct {
		Air struct {
			Version        int             `json:"version"`
			SessionFailure json.RawMessage `json:"sessionFailure"`
		} `json:"air"`
	}
	if meta == nil || json.Unmarshal(meta["jetbrains"], &jb) != nil || jb.Air.SessionFailure == nil {
		return wireRecord{}, false
	}
	if jb.Air.Version != 1 {
		t.Errorf("air.version %d", jb.Air.Version)
	}
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(jb.Air.SessionFailure, &fields)
	for k := range fields {
		if !strings.Contains(" id revision category severity title details actions ", " "+k+" ") {
			t.Errorf("record field %q", k)
		}
	}
	if fields["actions"] == nil || fields["severity"] == nil {
		t.Errorf("record lacks actions or severity: %s", jb.Air.SessionFailure)
	}
	var r wireRecord
	if err := json.Unmarshal(jb.Air.SessionFailure, &r); err != nil {
		t.Fatal(err)
	}
	return r, true
}

// infoRecords returns the records the client got in session_info_update.
func infoRecords(t *testing.T, h *agenttest.Harness, sid string) []wireRecord {
	t.Helper()
	var out []wireRecord
	for _, u := range h.Updates(sid) {
		if u.SessionInfoUpdate != nil {
			if r, ok := recordOf(t, u.SessionInfoUpdate.Meta); ok {
				out = append(out, r)
			}
		}
	}
	return out
}

// responseRecord requires a successful end_turn answer with a record:
// responseRecord(t)(h.Prompt(sid, text)).
func responseRecord(t *testing.T) func(*acp.PromptResponse, error) wireRecord {
	return func(resp *acp.PromptResponse, err error) wireRecord {
		t.Helper()
		return checkResponseRecord(t, resp, err)
	}
}

func checkResponseRecord(t *testing.T, resp *acp.PromptResponse, err error) wireRecord {
	t.Helper()
	if err != nil {
		t.Fatalf("prompt failed: %v", err)
	}
	if resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("stop reason %q", resp.StopReason)
	}
	r, ok := recordOf(t, resp.Meta)
	if !ok {
		t.Fatalf("no record on the response: %+v", resp.Meta)
	}
	if r.Severity != "error" {
		t.Errorf("terminal record severity %q", r.Severity)
	}
	return r
}

// promptUUID finds the uuid the CLI stored for the user message text: the
// live turn id.
func promptUUID(t *testing.T, h *agenttest.Harness, sid, text string) string {
	t.Helper()
	return storedPromptUUID(t, h.Sandbox.ConfigDir, sid, text) // v2sim_helpers_test.go
}

// wrapCLI returns an executable that runs the real CLI with extra flags.
func wrapCLI(t *testing.T, args ...string) string {
	t.Helper()
	cli := clitest.CLIPath(t)
	script := "#!/bin/sh\nexec '" + cli + "' " + strings.Join(args, " ") + ` "$@"` + "\n"
	path := filepath.Join(t.TempDir(), "claude-wrapped")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func withExecutable(path string) func(*agent.Config) {
	return func(c *agent.Config) { c.Executable = path }
}

// validWire checks every line of the conversation against the ACP schema,
// and each response against its method's result.
func validWire(t *testing.T, h *agenttest.Harness) {
	t.Helper()
	methods := map[string]string{}
	for _, l := range h.Wire() {
		acptest.ValidateMessage(t, []byte(l.Line))
		var env struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal([]byte(l.Line), &env)
		if env.ID == nil {
			continue
		}
		if env.Method != "" {
			methods[fmt.Sprintf("%v/%s", l.FromAgent, env.ID)] = env.Method
		} else if m := methods[fmt.Sprintf("%v/%s", !l.FromAgent, env.ID)]; m != "" {
			acptest.ValidateResponse(t, m, []byte(l.Line))
		}
	}
}

func noAgentText(t *testing.T, h *agenttest.Harness, sid string, words ...string) {
	t.Helper()
	got := h.AgentText(sid)
	for _, w := range words {
		if strings.Contains(got, w) {
			t.Errorf("agent text carries %q: %q", w, got)
		}
	}
}

func httpError(status int, typ, msg string) fakeapi.Step {
	s := fakeapi.HTTPError(status, typ, msg)
	s.Repeat = -1
	return s
}

// TestStopReasonPropagationE2E: one session, one condition per prompt, as
// the real CLI reports them. Refusals and the success path keep their stop
// reasons; every failure ends the turn with end_turn and its record.
func TestStopReasonPropagationE2E(t *testing.T) {
	t.Parallel()
	h, sid := startFailures(t, airOn, agenttest.Options{Config: withExecutable(wrapCLI(t, "--max-turns", "1"))})
	maxTok := fakeapi.Text("truncated")
	maxTok.StopReason, maxTok.Repeat = "max_tokens", -1
	type want struct {
		category string
		actions  []string
		title    string // a prefix
	}
	for _, tc := range []struct {
		prompt string
		steps  []fakeapi.Step
		stop   acp.StopReason
		rec    *want
	}{
		{"p-ok", []fakeapi.Step{fakeapi.Text("Fine.")}, acp.StopReasonEndTurn, nil},
		{"p-refusal", []fakeapi.Step{fakeapi.Refusal("", "cyber", "Looks like malware.")}, acp.StopReasonRefusal, nil},
		{"p-429", []fakeapi.Step{httpError(429, "rate_limit_error", "slow down please")}, acp.StopReasonEndTurn,
			&want{"limit", []string{"retry"}, "API Error: Request rejected (429) · slow down please"}},
		{"p-529", []fakeapi.Step{httpError(529, "overloaded_error", "Overloaded")}, acp.StopReasonEndTurn,
			&want{"service", []string{"retry"}, "API Error: 529 Overloaded."}},
		{"p-500", []fakeapi.Step{httpError(500, "api_error", "boom")}, acp.StopReasonEndTurn,
			&want{"service", []string{"retry"}, "API Error: 500 boom"}},
		{"p-400", []fakeapi.Step{httpError(400, "invalid_request_error", "bad field")}, acp.StopReasonEndTurn,
			&want{"request", []string{}, "API Error: 400 bad field"}},
		{"p-long", []fakeapi.Step{httpError(400, "invalid_request_error", "prompt is too long: 250000 tokens > 200000 maximum")}, acp.StopReasonEndTurn,
			&want{"limit", []string{"new_session"}, "Prompt is too long"}},
		{"p-maxtok", []fakeapi.Step{maxTok}, acp.StopReasonEndTurn,
			&want{"limit", []string{}, "API Error: Claude's response exceeded the"}},
		{"p-maxturns", []fakeapi.Step{fakeapi.ToolUse("toolu_1", "Bash", map[string]any{"command": "echo hi"}), fakeapi.Text("done")}, acp.StopReasonEndTurn,
			&want{"limit", []string{"new_session"}, "Reached maximum number of turns (1)"}},
		{"p-401", []fakeapi.Step{httpError(401, "authentication_error", "invalid x-api-key")}, acp.StopReasonEndTurn,
			&want{"access", []string{"login"}, ""}},
	} {
		h.API().Script(tc.steps...)
		resp, err := h.Prompt(sid, tc.prompt)
		if err != nil {
			t.Fatalf("%s: JSON-RPC error for a capable client: %v", tc.prompt, err)
		}
		if resp.StopReason != tc.stop {
			t.Fatalf("%s: stop reason %q", tc.prompt, resp.StopReason)
		}
		r, ok := recordOf(t, resp.Meta)
		if tc.rec == nil {
			if ok {
				t.Errorf("%s: unexpected record %+v", tc.prompt, r)
			}
			continue
		}
		if !ok {
			t.Fatalf("%s: no record", tc.prompt)
		}
		wantID := promptUUID(t, h, sid, tc.prompt) + ":error"
		if r.ID != wantID || r.Revision != 1 || r.Severity != "error" || r.Category != tc.rec.category ||
			!reflect.DeepEqual(r.Actions, tc.rec.actions) || !strings.HasPrefix(r.Title, tc.rec.title) || r.Title == "" {
			t.Errorf("%s: record %+v (want id %s, %+v)", tc.prompt, r, wantID, tc.rec)
		}
		if strings.Contains(r.Title+r.Details, "127.0.0.1") {
			t.Errorf("%s: the endpoint leaked: %q", tc.prompt, r.Title)
		}
	}
	// Claude's failure texts stayed out of the transcript; the refusal's
	// explanation is shown as before.
	noAgentText(t, h, sid, "API Error", "Reached maximum")
	if !strings.Contains(h.AgentText(sid), "Looks like malware.") {
		t.Errorf("refusal explanation missing: %q", h.AgentText(sid))
	}
	if recs := infoRecords(t, h, sid); len(recs) != 0 {
		t.Errorf("terminal failures of live turns go on the response only: %+v", recs)
	}
	validWire(t, h)
}

// TestSessionFailureBudgetE2E: --max-budget-usd spent.
func TestSessionFailureBudgetE2E(t *testing.T) {
	t.Parallel()
	h, sid := startFailures(t, airOn, agenttest.Options{Config: withExecutable(wrapCLI(t, "--max-budget-usd", "0.01"))})
	pricey := fakeapi.Text("pricey")
	pricey.Usage = map[string]any{"input_tokens": 1000000}
	h.API().Script(pricey)
	r := responseRecord(t)(h.Prompt(sid, "spend"))
	if r.Category != "limit" || !reflect.DeepEqual(r.Actions, []string{"new_session"}) || r.Title != "Reached maximum budget ($0.01)" {
		t.Fatalf("budget record %+v", r)
	}
}

// TestSessionFailureRetryE2E: the CLI's api_retry progress is a warning on
// the turn's id, and the final failure updates that record to an error.
func TestSessionFailureRetryE2E(t *testing.T) {
	t.Parallel()
	h, sid := startFailures(t, airOn, agenttest.Options{Env: []string{"CLAUDE_CODE_MAX_RETRIES=2"}})
	h.API().Script(httpError(429, "rate_limit_error", "slow down please"))
	r := responseRecord(t)(h.Prompt(sid, "busy"))
	id := promptUUID(t, h, sid, "busy") + ":error"
	warnings := infoRecords(t, h, sid)
	want := []wireRecord{
		{ID: id, Revision: 1, Category: "limit", Severity: "warning", Title: "Retrying Claude, attempt 1 of 2.", Actions: []string{}},
		{ID: id, Revision: 2, Category: "limit", Severity: "warning", Title: "Retrying Claude, attempt 2 of 2.", Actions: []string{}},
	}
	if !reflect.DeepEqual(warnings, want) {
		t.Fatalf("warnings %+v", warnings)
	}
	if r.ID != id || r.Revision != 3 || r.Category != "limit" || !reflect.DeepEqual(r.Actions, []string{"retry"}) {
		t.Fatalf("terminal %+v", r)
	}
	noAgentText(t, h, sid, "API Error")

	// Retries that then succeed leave the warning and end the turn plainly.
	ok := fakeapi.HTTPError(429, "rate_limit_error", "once")
	h.API().Script(ok, fakeapi.Text("Made it."))
	resp, err := h.Prompt(sid, "again")
	if err != nil || resp.StopReason != acp.StopReasonEndTurn || resp.Meta != nil {
		t.Fatalf("recovered turn %+v %v", resp, err)
	}
	all := infoRecords(t, h, sid)
	last := all[len(all)-1]
	if len(all) != 3 || last.ID != promptUUID(t, h, sid, "again")+":error" || last.Severity != "warning" {
		t.Fatalf("records %+v", all)
	}
	validWire(t, h)
}

// TestSessionFailureReconnectE2E: retries without an HTTP response are
// connection warnings ("Reconnecting"); the final failure, which the CLI
// reports as server_error, is a service error (the contract's table). It
// is also the real-CLI proof of the frames TestUnreachableAPIIsServiceE2E
// and TestRetryNoResponseReasonE2E play over the fake CLI.
func TestSessionFailureReconnectE2E(t *testing.T) {
	t.Parallel()
	h, sid := startFailures(t, airOn, agenttest.Options{Env: []string{"CLAUDE_CODE_MAX_RETRIES=1", "ANTHROPIC_BASE_URL=http://127.0.0.1:1"}})
	r := responseRecord(t)(h.Prompt(sid, "anyone there"))
	warnings := infoRecords(t, h, sid)
	if len(warnings) != 1 || warnings[0].Title != "Reconnecting to Claude, attempt 1 of 1." || warnings[0].Category != "connection" || warnings[0].ID != r.ID {
		t.Fatalf("warnings %+v", warnings)
	}
	if r.Category != "service" || r.Revision != 2 || !reflect.DeepEqual(r.Actions, []string{"retry"}) || r.Title == "" ||
		strings.Contains(r.Title, "127.0.0.1") || strings.Contains(r.Title, ":1") {
		t.Fatalf("terminal %+v", r)
	}
}

// TestUsageLimitFailureReplayE2E: a usage limit in OAuth mode is a typed
// limit failure live, and session/load restores it with the same id.
func TestUsageLimitFailureReplayE2E(t *testing.T) {
	t.Parallel()
	oauth := []string{"ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-fake"}
	h, sid := startFailures(t, airOn, agenttest.Options{Env: oauth})
	limit := fakeapi.HTTPError(429, "rate_limit_error", "limited")
	limit.Headers = map[string]string{
		"anthropic-ratelimit-unified-status":               "rejected",
		"anthropic-ratelimit-unified-reset":                "1900000000",
		"anthropic-ratelimit-unified-representative-claim": "five_hour",
	}
	h.API().Script(limit)
	r := responseRecord(t)(h.Prompt(sid, "hello"))
	id := promptUUID(t, h, sid, "hello") + ":error"
	if r.ID != id || r.Category != "limit" || len(r.Actions) != 0 || !strings.HasPrefix(r.Title, "You've hit your 5-hour limit · resets ") {
		t.Fatalf("live record %+v", r)
	}
	noAgentText(t, h, sid, "You've hit")
	h.Close()

	// A capable client loading the session gets the same record back at
	// its place, not the prose.
	h2 := agenttest.Start(t, agenttest.Options{Sandbox: h.Sandbox, Env: oauth})
	h2.Initialize(airCaps(airOn))
	load(t, h2, sid)
	replayed := infoRecords(t, h2, sid)
	if len(replayed) != 1 || replayed[0].ID != id || replayed[0].Title != r.Title || replayed[0].Category != "limit" || len(replayed[0].Actions) != 0 {
		t.Fatalf("replayed %+v", replayed)
	}
	noAgentText(t, h2, sid, "You've hit")
	if i, j := indexOf(h2.Updates(sid), isUserChunk), indexOf(h2.Updates(sid), isRecord); i < 0 || j < i {
		t.Errorf("the record is not after its prompt (%d, %d)", i, j)
	}
	h2.Close()

	// A legacy client gets the original transcript and no record.
	h3 := agenttest.Start(t, agenttest.Options{Sandbox: h.Sandbox, Env: oauth})
	h3.Initialize(acp.ClientCapabilities{})
	load(t, h3, sid)
	if len(infoRecords(t, h3, sid)) != 0 || !strings.Contains(h3.AgentText(sid), r.Title) {
		t.Fatalf("legacy replay: %q", h3.AgentText(sid))
	}
}

func load(t *testing.T, h *agenttest.Harness, sid string) {
	t.Helper()
	err := h.Client.Call(h.Ctx(), acp.MethodSessionLoad, &acp.LoadSessionRequest{
		SessionID: acp.SessionID(sid), Cwd: h.Sandbox.WorkDir, MCPServers: []acp.MCPServer{}}, &acp.LoadSessionResponse{})
	if err != nil {
		t.Fatalf("session/load: %v", err)
	}
}

func isUserChunk(u acp.SessionUpdate) bool { return u.UserMessageChunk != nil }
func isRecord(u acp.SessionUpdate) bool {
	return u.SessionInfoUpdate != nil && u.SessionInfoUpdate.Meta["jetbrains"] != nil
}

func indexOf(us []acp.SessionUpdate, f func(acp.SessionUpdate) bool) int {
	for i, u := range us {
		if f(u) {
			return i
		}
	}
	return -1
}

// TestModelRefusalFallbackHandlingE2E: the CLI's refusal fallback is a
// typed warning for capable clients and the historical transcript line for
// the others; --fallback-model is a typed notice in Claude's words.
func TestModelRefusalFallbackHandlingE2E(t *testing.T) {
	t.Parallel()
	env := []string{"CLAUDE_CODE_DISABLE_REFUSAL_FALLBACK"} // the hermetic env turns it off
	script := []fakeapi.Step{fakeapi.Refusal("", "cyber", "Looks like malware."), fakeapi.Text("Safe answer.")}

	h, sid := startFailures(t, airOn, agenttest.Options{Env: env})
	h.API().Script(script...)
	resp, err := h.Prompt(sid, "scan ports")
	if err != nil || resp.StopReason != acp.StopReasonEndTurn || resp.Meta != nil {
		t.Fatalf("%+v %v", resp, err)
	}
	recs := infoRecords(t, h, sid)
	if len(recs) != 1 {
		t.Fatalf("records %+v", recs)
	}
	r := recs[0]
	if r.Category != "unknown" || r.Severity != "warning" || len(r.Actions) != 0 || !strings.Contains(r.ID, sid+":notice:") ||
		strings.Contains(r.Title, "**") || !strings.Contains(r.Title, " declined this request (cyber); retried with ") || !strings.Contains(r.Title, "Looks like malware.") {
		t.Fatalf("advisory %+v", r)
	}
	if got := h.AgentText(sid); got != "Safe answer." {
		t.Fatalf("agent text %q", got)
	}
	h.Close()

	// The legacy client's rendering is the agent's: over the fake CLI, with
	// the frames the real CLI wrote above (recorded the same way).
	lh := agenttest.Start(t, onFakeCLI(fakeFailureWorld(map[string]clifake.Reply{"scan ports": realFrames("refusal_fallback")})))
	lsid := lh.NewSession(lh.Sandbox.WorkDir)
	if resp, err := lh.Prompt(lsid, "scan ports"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("legacy %+v %v", resp, err)
	}
	want := "**Model fallback:** " + r.Title[:strings.Index(r.Title, " Looks like malware.")] + "\n\nLooks like malware.Safe answer."
	if got := lh.AgentText(lsid); got != want {
		t.Fatalf("legacy text\n got %q\nwant %q", got, want)
	}
	for _, l := range lh.Wire() {
		if l.FromAgent && strings.Contains(l.Line, `"sessionFailure":{"id"`) {
			t.Fatalf("a legacy client got a record: %s", l.Line)
		}
	}
}

// TestModelFallbackNoticeE2E: --fallback-model engaged by an overloaded
// primary is a typed notice in Claude's words for a capable client, and
// nothing but the answer for a legacy one.
func TestModelFallbackNoticeE2E(t *testing.T) {
	t.Parallel()
	wrapped := wrapCLI(t, "--model", "claude-opus-4-5", "--fallback-model", "claude-sonnet-4-5")
	overloaded := httpError(529, "overloaded_error", "Overloaded")
	overloaded.Repeat = 3
	overloaded.Match = &fakeapi.Match{ModelContains: "opus"}
	script := []fakeapi.Step{overloaded, fakeapi.Text("From the fallback.")}
	opts := agenttest.Options{Env: []string{"CLAUDE_CODE_MAX_RETRIES=3"}, Config: withExecutable(wrapped)}

	h, sid := startFailures(t, airOn, opts)
	h.API().Script(script...)
	resp, err := h.Prompt(sid, "hi")
	if err != nil || resp.StopReason != acp.StopReasonEndTurn || resp.Meta != nil {
		t.Fatalf("%+v %v", resp, err)
	}
	var notices []wireRecord
	for _, r := range infoRecords(t, h, sid) {
		if strings.Contains(r.ID, ":notice:") {
			notices = append(notices, r)
		} else if r.Severity != "warning" || r.Category != "service" {
			t.Errorf("retry warning %+v", r)
		}
	}
	if len(notices) != 1 || notices[0].Title != "Switched to Sonnet 4.5 due to high demand for Opus 4.5" || notices[0].Category != "unknown" || notices[0].Severity != "warning" {
		t.Fatalf("notices %+v", notices)
	}
	if got := h.AgentText(sid); got != "From the fallback." {
		t.Fatalf("agent text %q", got)
	}
	h.Close()

	// The legacy client's rendering is the agent's: over the fake CLI, with
	// the frames the real CLI wrote above (recorded the same way).
	lh := agenttest.Start(t, onFakeCLI(fakeFailureWorld(map[string]clifake.Reply{"hi": realFrames("model_fallback")})))
	lsid := lh.NewSession(lh.Sandbox.WorkDir)
	if _, err := lh.Prompt(lsid, "hi"); err != nil {
		t.Fatal(err)
	}
	if got := lh.AgentText(lsid); got != "From the fallback." {
		t.Fatalf("legacy text %q", got)
	}
}

// TestSessionFailureProcessDeathE2E: the CLI killed mid-turn is a
// connection failure on the turn; the session continues afterwards.
func TestSessionFailureProcessDeathE2E(t *testing.T) {
	t.Parallel()
	h, sid := startFailures(t, airOn)
	h.API().Script(fakeapi.Hang(30), fakeapi.Text("back again"))
	type res struct {
		r   *acp.PromptResponse
		err error
	}
	done := make(chan res, 1)
	go func() {
		r, err := h.Prompt(sid, "long job")
		done <- res{r, err}
	}()
	h.WaitFor("streamed text", 30*time.Second, func() bool { return h.AgentText(sid) != "" })
	pids := clitest.LivePIDs(t)
	if len(pids) != 1 {
		t.Fatalf("want one CLI, found %v", pids)
	}
	if err := clitest.KillPID(pids[0]); err != nil {
		t.Fatal(err)
	}
	out := <-done
	r := checkResponseRecord(t, out.r, out.err)
	if r.Category != "connection" || !reflect.DeepEqual(r.Actions, []string{"new_session"}) || r.Title != "The connection to Claude was lost." || !strings.HasSuffix(r.ID, ":error") {
		t.Fatalf("record %+v", r)
	}
	resp, err := h.Prompt(sid, "are you there")
	if err != nil || resp.StopReason != acp.StopReasonEndTurn || resp.Meta != nil {
		t.Fatalf("after the crash: %+v %v", resp, err)
	}
}

// fakeShutdownCLI is a minimal stream-json CLI: it answers initialize and
// control requests, starts each prompt, and writes
// system/worker_shutting_down per $FAKE_SHUTDOWN: "active" (then exits
// mid-turn), "idle" (after a finished turn, then exits) or "healthy" (before
// finishing the turn normally, and keeps running).
const fakeShutdownCLI = `#!/bin/sh
field() { printf '%s\n' "$2" | sed -n 's/.*"'"$1"'":"\([^"]*\)".*/\1/p'; }
while IFS= read -r line; do
  case "$line" in
  *'"subtype":"initialize"'*)
    printf '{"type":"control_response","response":{"subtype":"success","request_id":"%s","response":{"commands":[],"agents":[],"models":[{"value":"default","displayName":"Default"}],"account":{},"pid":%d}}}\n' "$(field request_id "$line")" $$ ;;
  *'"type":"control_request"'*)
    printf '{"type":"control_response","response":{"subtype":"success","request_id":"%s","response":{}}}\n' "$(field request_id "$line")" ;;
  *'"type":"user"'*)
    printf '{"type":"command_lifecycle","command_uuid":"%s","state":"started"}\n' "$(field uuid "$line")"
    case "$FAKE_SHUTDOWN" in
    active) printf '{"type":"system","subtype":"worker_shutting_down","reason":"host_exit"}\n'; exit 0 ;;
    healthy) printf '{"type":"system","subtype":"worker_shutting_down","reason":"account_changed"}\n' ;;
    esac
    printf '{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"fake-model","content":[{"type":"text","text":"ok"}]},"parent_tool_use_id":null}\n'
    printf '{"type":"result","subtype":"success","is_error":false,"result":"ok","stop_reason":"end_turn","num_turns":1,"total_cost_usd":0}\n'
    if [ "$FAKE_SHUTDOWN" = idle ]; then
      printf '{"type":"system","subtype":"worker_shutting_down","reason":"host_exit"}\n'; exit 0
    fi ;;
  esac
done
`

// TestSessionFailureWorkerShutdownE2E: a shutdown notice followed by the end
// of the stream fails the open turn (or, idle, the session); a turn that
// still completes after the notice is healthy.
func TestSessionFailureWorkerShutdownE2E(t *testing.T) {
	t.Parallel()
	cli := filepath.Join(t.TempDir(), "fake-claude")
	if err := os.WriteFile(cli, []byte(fakeShutdownCLI), 0o755); err != nil {
		t.Fatal(err)
	}
	start := func(t *testing.T, mode string, caps acp.ClientCapabilities) (*agenttest.Harness, string) {
		h := agenttest.Start(t, agenttest.Options{Config: func(c *agent.Config) {
			c.Executable = cli
			c.Env = []string{"PATH=" + os.Getenv("PATH"), "FAKE_SHUTDOWN=" + mode}
		}})
		h.Initialize(caps)
		return h, h.NewSession(h.Sandbox.WorkDir)
	}
	t.Run("active", func(t *testing.T) {
		h, sid := start(t, "active", airCaps(airOn))
		r := responseRecord(t)(h.Prompt(sid, "hi"))
		if r.Category != "connection" || !reflect.DeepEqual(r.Actions, []string{"new_session"}) || r.Title != "The Claude worker is shutting down." || !strings.HasSuffix(r.ID, ":error") {
			t.Fatalf("record %+v", r)
		}
	})
	t.Run("active legacy", func(t *testing.T) {
		h, sid := start(t, "active", acp.ClientCapabilities{})
		_, err := h.Prompt(sid, "hi")
		var ae *acp.Error
		if !errors.As(err, &ae) || ae.Code != acp.CodeInternalError || !strings.Contains(ae.Message, "exited unexpectedly") {
			t.Fatalf("legacy %v", err)
		}
	})
	t.Run("idle", func(t *testing.T) {
		h, sid := start(t, "idle", airCaps(airOn))
		resp, err := h.Prompt(sid, "hi")
		if err != nil || resp.StopReason != acp.StopReasonEndTurn || resp.Meta != nil {
			t.Fatalf("%+v %v", resp, err)
		}
		h.WaitFor("session record", 10*time.Second, func() bool { return len(infoRecords(t, h, sid)) > 0 })
		r := infoRecords(t, h, sid)[0]
		if !strings.HasPrefix(r.ID, sid+":session-error:") || r.Category != "connection" || r.Title != "The Claude worker is shutting down." || r.Severity != "error" {
			t.Fatalf("record %+v", r)
		}
	})
	t.Run("healthy", func(t *testing.T) {
		h, sid := start(t, "healthy", airCaps(airOn))
		for i := 0; i < 2; i++ {
			resp, err := h.Prompt(sid, "hi")
			if err != nil || resp.StopReason != acp.StopReasonEndTurn || resp.Meta != nil {
				t.Fatalf("%+v %v", resp, err)
			}
		}
		if recs := infoRecords(t, h, sid); len(recs) != 0 {
			t.Fatalf("records %+v", recs)
		}
	})
}

// TestSessionFailureLegacyE2E: without a valid declaration, failures are
// the JSON-RPC errors they always were and no record appears anywhere.
// What it checks is the agent's negotiation, so each declaration runs over
// the fake CLI playing the real CLI's 429 frames; TestLegacyDecisionTableE2E
// proves, on the real CLI, that they are its frames and the same answer.
func TestSessionFailureLegacyE2E(t *testing.T) {
	t.Parallel()
	for _, air := range []string{
		`{"version":"1","capabilities":["sessionFailure"]}`,
		`{"version":1.5,"capabilities":["sessionFailure"]}`,
		`{"version":0,"capabilities":["sessionFailure"]}`,
		`{"version":-1,"capabilities":["sessionFailure"]}`,
		`{"capabilities":["sessionFailure"]}`,
		`{"version":1,"capabilities":[]}`,
		`{"version":1,"sessionFailure":{"version":1}}`,
	} {
		t.Run(air, func(t *testing.T) {
			t.Parallel()
			h, sid := startFailures(t, air, onFakeCLI(fakeFailureWorld(map[string]clifake.Reply{"hi": realFrames("rate_limit_429")})))
			_, err := h.Prompt(sid, "hi")
			var ae *acp.Error
			if !errors.As(err, &ae) || ae.Code != acp.CodeInternalError || ae.Message != "API Error: Request rejected (429) · slow down please" {
				t.Fatalf("got %v", err)
			}
			var data map[string]string
			if b, _ := json.Marshal(ae.Data); json.Unmarshal(b, &data) != nil || data["errorKind"] != "rate_limit" {
				t.Errorf("data %v", ae.Data)
			}
			for _, l := range h.Wire() {
				if l.FromAgent && strings.Contains(l.Line, `"sessionFailure":{"id"`) {
					t.Fatalf("record on the wire: %s", l.Line)
				}
			}
		})
	}
}
