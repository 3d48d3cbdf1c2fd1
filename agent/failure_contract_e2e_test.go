package agent_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// End-to-end tests of the session failure contract (seed 000) and of what
// clients without it see, through the real CLI and the fake API (issue 15,
// items 11–15).

// claudeLinks is an API error whose text carries Claude's own links.
const claudeLinks = "spend limit reached · ask your admin to raise it at https://claude.ai/admin-settings/usage (see https://docs.claude.com/en/api/errors)"

// TestFailureTitleKeepsClaudeLinksE2E (item 11): Claude's links stay in
// the title (the contract bans transport URLs, tokens, headers, env values
// and private paths, not Claude's words); the API endpoint does not
// appear; live, and in a legacy client's error and agent text, live and
// replayed.
//
// The capable client's half runs over the fake CLI, with the frames the
// real CLI writes for this error (the legacy half, on the real CLI, shows
// it writes them: the same text reaches the legacy client).
func TestFailureTitleKeepsClaudeLinksE2E(t *testing.T) {
	t.Parallel()
	h, sid := startFailures(t, airOn, onFakeCLI(fakeFailureWorld(map[string]clifake.Reply{"spend": realFrames("bad_request_links")})))
	r := responseRecord(t)(h.Prompt(sid, "spend"))
	for _, link := range []string{"https://claude.ai/admin-settings/usage", "https://docs.claude.com/en/api/errors"} {
		if !strings.Contains(r.Title, link) {
			t.Errorf("title lost %s: %q", link, r.Title)
		}
	}
	if strings.Contains(r.Title, "link removed") || strings.Contains(r.Title, "127.0.0.1") {
		t.Errorf("title %q", r.Title)
	}
	validWire(t, h)
	h.Close()

	// A legacy client: the JSON-RPC error and the agent text keep the links.
	hl := agenttest.Start(t)
	sl := hl.NewSession(hl.Sandbox.WorkDir)
	hl.API().Script(httpError(400, "invalid_request_error", claudeLinks))
	_, err := hl.Prompt(sl, "spend")
	wantRPCError(t, err, acp.CodeInternalError, "https://claude.ai/admin-settings/usage", "https://docs.claude.com/en/api/errors")
	if got := hl.AgentText(sl); !strings.Contains(got, "https://claude.ai/admin-settings/usage") {
		t.Errorf("legacy agent text %q", got)
	}
	hl.Close()
	// ... and so does its replay.
	h2 := agenttest.Start(t, agenttest.Options{Sandbox: hl.Sandbox})
	h2.Initialize(acp.ClientCapabilities{})
	load(t, h2, sl)
	if got := h2.AgentText(sl); !strings.Contains(got, "https://claude.ai/admin-settings/usage") || strings.Contains(got, "link removed") {
		t.Errorf("replayed agent text %q", got)
	}
}

// TestLegacyErrorTextLiveE2E (item 12): a client without the extension
// sees Claude's error text as agent text in the turn and the JSON-RPC
// error, as the reference adapter does; session/load shows the same text.
func TestLegacyErrorTextLiveE2E(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	sid := h.NewSession(h.Sandbox.WorkDir)
	h.API().Script(httpError(429, "rate_limit_error", "slow down please"))
	_, err := h.Prompt(sid, "hi")
	wantRPCError(t, err, acp.CodeInternalError, "API Error: Request rejected (429) · slow down please")
	live := h.AgentText(sid)
	if live != "API Error: Request rejected (429) · slow down please" {
		t.Fatalf("live agent text %q", live)
	}
	// The text comes before the error answer.
	if i, j := wireIndex(h, `"agent_message_chunk"`, "slow down please"), wireIndex(h, `"error":{"code":-32603`); i < 0 || j < i {
		t.Errorf("agent text at %d, error at %d", i, j)
	}
	h.Close()
	liveID := chunkIDs(h, sid)
	h2 := agenttest.Start(t, agenttest.Options{Sandbox: h.Sandbox})
	h2.Initialize(acp.ClientCapabilities{})
	load(t, h2, sid)
	if got := h2.AgentText(sid); got != live {
		t.Errorf("replayed agent text %q, live %q", got, live)
	}
	if got := chunkIDs(h2, sid); got != liveID || liveID == "" {
		t.Errorf("replayed message id %q, live %q", got, liveID)
	}
	h2.Close()
	// A capable client gets no prose (the record says it): the agent's
	// choice, over the fake CLI with the real CLI's frames of the same error
	// (TestStopReasonPropagationE2E shows it on the real CLI).
	hc, sc := startFailures(t, airOn, onFakeCLI(fakeFailureWorld(map[string]clifake.Reply{"hi": realFrames("rate_limit_429")})))
	responseRecord(t)(hc.Prompt(sc, "hi"))
	noAgentText(t, hc, sc, "API Error")
}

// TestUnreachableAPIIsServiceE2E (item 13): with no retries, an
// unreachable API ends the turn as the CLI's server_error: category
// service with retry, per the contract's table (connection is for retries
// without an HTTP response, transport loss and worker shutdown). It runs
// over the fake CLI with the frames the real CLI writes for it
// (CLAUDE_CODE_MAX_RETRIES=0, ANTHROPIC_BASE_URL=http://127.0.0.1:1);
// TestSessionFailureReconnectE2E proves the same terminal failure, with
// these checks, on the real CLI.
func TestUnreachableAPIIsServiceE2E(t *testing.T) {
	t.Parallel()
	h, sid := startFailures(t, airOn, onFakeCLI(fakeFailureWorld(map[string]clifake.Reply{"anyone there": realFrames("connection_refused")})))
	r := responseRecord(t)(h.Prompt(sid, "anyone there"))
	if r.Category != "service" || !reflect.DeepEqual(r.Actions, []string{"retry"}) || r.Title == "" ||
		strings.Contains(r.Title, "127.0.0.1") || strings.Contains(r.Title, ":1") {
		t.Fatalf("terminal %+v", r)
	}
	if recs := infoRecords(t, h, sid); len(recs) != 0 {
		t.Errorf("no retries, no warnings: %+v", recs)
	}
}

// TestStartFailureTitleHasCauseE2E (item 14): when the CLI cannot start, a
// capable client's title gives the cause the legacy error has (not found,
// not executable, exited with …), scrubbed; the legacy error keeps it too.
func TestStartFailureTitleHasCauseE2E(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notExec := filepath.Join(dir, "claude-not-exec")
	exits := filepath.Join(dir, "claude-exits")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\nexit 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exits, []byte("#!/bin/sh\necho 'loading /home/alice/.claude/settings.json' >&2\necho 'fatal: ANTHROPIC_API_KEY=sk-ant-secret123456 rejected' >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, exe string
		want      []string
	}{
		{"not found", filepath.Join(dir, "no-such-claude"), []string{"Claude Code could not start: the Claude Code CLI was not found."}},
		{"not executable", notExec, []string{"Claude Code could not start: the Claude Code CLI is not executable (permission denied)."}},
		{"exits", exits, []string{"Claude Code could not start: it exited with code 3: fatal: ANTHROPIC_API_KEY=[redacted] rejected"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, sid := startFailures(t, airOn, agenttest.Options{Config: withExecutable(tc.exe)})
			r := responseRecord(t)(h.Prompt(sid, "hi"))
			for _, w := range tc.want {
				if !strings.HasPrefix(r.Title, w) {
					t.Errorf("title %q, want %q", r.Title, w)
				}
			}
			if r.Category != "connection" || !reflect.DeepEqual(r.Actions, []string{"retry", "new_session"}) ||
				strings.Contains(r.Title+r.Details, "sk-ant") || strings.Contains(r.Title+r.Details, dir) {
				t.Errorf("record %+v", r)
			}
			h.Close()
			hl := agenttest.Start(t, agenttest.Options{Config: withExecutable(tc.exe)})
			sl := hl.NewSession(hl.Sandbox.WorkDir)
			_, err := hl.Prompt(sl, "hi")
			wantRPCError(t, err, acp.CodeInternalError, "could not start")
		})
	}
}

// TestRetryNoResponseReasonE2E (item 15): a retry because the API sent no
// response headers in time says why it waits (the CLI's no_response). The
// CLI arms that first-byte watchdog only for first-party requests it
// tracks, which the fake API does not get; so the real CLI's retry frames
// (an unreachable endpoint, recorded: clifake's connection_refused_retry)
// get the no_response member exactly as the CLI's schema writes it, and
// the fake CLI plays them. The real CLI's retry frames themselves are
// TestSessionFailureReconnectE2E's.
func TestRetryNoResponseReasonE2E(t *testing.T) {
	t.Parallel()
	frames := clifake.Recorded("connection_refused_retry")
	for i, f := range frames {
		frames[i] = strings.Replace(f, `"subtype":"api_retry",`, `"subtype":"api_retry","no_response":{"waited_ms":10000,"retry_wait_ms":20000},`, 1)
	}
	h, sid := startFailures(t, airOn, onFakeCLI(fakeFailureWorld(map[string]clifake.Reply{"anyone there": {Frames: frames}})))
	r := responseRecord(t)(h.Prompt(sid, "anyone there"))
	recs := infoRecords(t, h, sid)
	if len(recs) != 1 || recs[0].Severity != "warning" || recs[0].Category != "connection" || recs[0].ID != r.ID ||
		recs[0].Title != "Reconnecting to Claude, attempt 1 of 1. No response after 10s; waiting up to 20s." {
		t.Fatalf("warnings %+v", recs)
	}
}

// TestRefusalRetryNoticeTypedE2E (item 15): the CLI's refusal-retry notice
// ("… safeguards stopped the response above · continuing once with that
// noted") is a typed warning for a capable client, not assistant prose; a
// legacy client keeps the transcript line.
func TestRefusalRetryNoticeTypedE2E(t *testing.T) {
	t.Parallel()
	env := []string{"CLAUDE_CODE_DISABLE_REFUSAL_RETRY"} // the hermetic env turns it off
	script := []fakeapi.Step{fakeapi.Refusal("", "cyber", "Looks like malware."), fakeapi.Text("Safe answer.")}
	h, sid := startFailures(t, airOn, agenttest.Options{Env: env})
	h.API().Script(script...)
	resp, err := h.Prompt(sid, "scan ports")
	if err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("%+v %v", resp, err)
	}
	recs := infoRecords(t, h, sid)
	if len(recs) != 1 || recs[0].Severity != "warning" || recs[0].Category != "unknown" || !strings.Contains(recs[0].ID, sid+":notice:") ||
		!strings.Contains(recs[0].Title, "safeguards stopped the response above") || strings.Contains(recs[0].Title, "**") {
		t.Fatalf("records %+v", recs)
	}
	if got := h.AgentText(sid); got != "Safe answer." {
		t.Errorf("agent text %q", got)
	}
	validWire(t, h)
	h.Close()

	// The legacy client's rendering is the agent's: over the fake CLI, with
	// the frames the real CLI wrote above (recorded the same way).
	lh := agenttest.Start(t, onFakeCLI(fakeFailureWorld(map[string]clifake.Reply{"scan ports": realFrames("refusal_retry_notice")})))
	lsid := lh.NewSession(lh.Sandbox.WorkDir)
	if _, err := lh.Prompt(lsid, "scan ports"); err != nil {
		t.Fatal(err)
	}
	if got := lh.AgentText(lsid); !strings.Contains(got, "safeguards stopped the response above") || !strings.HasSuffix(got, "Safe answer.") {
		t.Errorf("legacy agent text %q", got)
	}
}

// chunkIDs joins the message ids of the agent text chunks of sid.
func chunkIDs(h *agenttest.Harness, sid string) string {
	var ids []string
	for _, u := range h.Updates(sid) {
		if c := u.AgentMessageChunk; c != nil {
			id, _ := c.MessageID.Get()
			ids = append(ids, string(id))
		}
	}
	return strings.Join(ids, ",")
}

// cloudCredentials makes the real CLI use Bedrock with no AWS credentials
// to find: it retries twice with "attempt 0 of 0", then fails with
// cloud_credential_error, without any network.
var cloudCredentials = agenttest.Options{Env: []string{"CLAUDE_CODE_USE_BEDROCK=1", "AWS_REGION=us-east-1",
	"AWS_SHARED_CREDENTIALS_FILE=/nonexistent", "AWS_CONFIG_FILE=/nonexistent", "AWS_EC2_METADATA_DISABLED=true"}}

// TestRevisionsCarryARealChangeE2E (issue 37, item 8): a record's higher
// revision shows the user something new. The CLI's two identical retries
// of a cloud credential that did not load ("attempt 0 of 0") are one
// warning, without the empty counter; the failure is the next revision.
func TestRevisionsCarryARealChangeE2E(t *testing.T) {
	t.Parallel()
	h, sid := startFailures(t, airOn, cloudCredentials)
	final := responseRecord(t)(h.Prompt(sid, "hi"))
	recs := append(infoRecords(t, h, sid), final)
	if len(recs) != 2 {
		t.Fatalf("records %+v, want one warning and the failure", recs)
	}
	for i, r := range recs {
		if r.Revision != i+1 || r.ID != recs[0].ID {
			t.Errorf("record %d: %+v", i, r)
		}
		if strings.Contains(r.Title, " 0 of 0") {
			t.Errorf("a counter of nothing: %q", r.Title)
		}
	}
	if recs[0].Severity != "warning" || recs[0].Title != "Reconnecting to Claude." {
		t.Errorf("warning %+v", recs[0])
	}
	if final.Category != "access" || !strings.Contains(final.Title, "Could not load AWS credentials") {
		t.Errorf("failure %+v", final)
	}
	validWire(t, h)
}

// TestLegacyDecisionTableE2E (issue 37, item 7): a client without the
// extension, one condition per prompt, as the real CLI reports them: the
// answers docs/session-failures.md lists. ACP's stop reasons stay (max
// turns, max output tokens, refusal); every authentication condition is
// -32000 with Claude's words (oauth_org_not_allowed was -32603); other
// failures are -32603 with Claude's words, which the thread also shows,
// and their kind in the error's data. It is the real-CLI proof of the
// frames TestRefusal, TestMaxTokens, TestAuthError, TestRateLimitError and
// TestSessionFailureLegacyE2E play over the fake CLI.
func TestLegacyDecisionTableE2E(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t, agenttest.Options{Config: withExecutable(wrapCLI(t, "--max-turns", "1"))})
	h.Initialize(acp.ClientCapabilities{})
	sid := h.NewSession(h.Sandbox.WorkDir)
	maxTok := fakeapi.Text("truncated")
	maxTok.StopReason, maxTok.Repeat = "max_tokens", -1
	for _, tc := range []struct {
		prompt string
		steps  []fakeapi.Step
		stop   acp.StopReason // or
		code   int
		text   string // in the error's message, or the thread
	}{
		{"p-ok", []fakeapi.Step{fakeapi.Text("Fine.")}, acp.StopReasonEndTurn, 0, "Fine."},
		{"p-refusal", []fakeapi.Step{fakeapi.Refusal("", "cyber", "Looks like malware.")}, acp.StopReasonRefusal, 0, "Looks like malware."},
		{"p-maxtok", []fakeapi.Step{maxTok}, acp.StopReasonMaxTokens, 0, "Claude's response exceeded the"},
		{"p-maxturns", []fakeapi.Step{fakeapi.ToolUse("toolu_1", "Bash", map[string]any{"command": "echo hi"}), fakeapi.Text("done")},
			acp.StopReasonMaxTurnRequests, 0, ""},
		{"p-429", []fakeapi.Step{httpError(429, "rate_limit_error", "slow down please")}, "", acp.CodeInternalError,
			"API Error: Request rejected (429) · slow down please"},
		{"p-401", []fakeapi.Step{httpError(401, "authentication_error", "invalid x-api-key")}, "", acp.CodeAuthRequired, "API key"},
		{"p-org", []fakeapi.Step{httpError(403, "permission_error", "OAuth authentication is currently not allowed for this organization.")},
			"", acp.CodeAuthRequired, ""},
	} {
		before := h.AgentText(sid)
		h.API().Script(tc.steps...)
		resp, err := h.Prompt(sid, tc.prompt)
		shown := strings.TrimPrefix(h.AgentText(sid), before)
		if tc.code != 0 {
			ae := wantRPCError(t, err, tc.code, tc.text)
			if ae.Message == "" || strings.Contains(ae.Message, "127.0.0.1") {
				t.Errorf("%s: message %q", tc.prompt, ae.Message)
			}
			if tc.code == acp.CodeInternalError && !strings.Contains(shown, tc.text) {
				t.Errorf("%s: the thread does not show %q: %q", tc.prompt, tc.text, shown)
			}
			if tc.prompt == "p-429" {
				var data map[string]string
				if b, _ := json.Marshal(ae.Data); json.Unmarshal(b, &data) != nil || data["errorKind"] != "rate_limit" {
					t.Errorf("%s: data %v", tc.prompt, ae.Data)
				}
			}
			continue
		}
		if err != nil || resp.StopReason != tc.stop {
			t.Fatalf("%s: %+v %v, want %s", tc.prompt, resp, err, tc.stop)
		}
		if !strings.Contains(shown, tc.text) {
			t.Errorf("%s: the thread shows %q, want %q", tc.prompt, shown, tc.text)
		}
	}
	for _, l := range h.Wire() {
		if l.FromAgent && strings.Contains(l.Line, `"sessionFailure"`) {
			t.Fatalf("record on the wire: %s", l.Line)
		}
	}
	validWire(t, h)
}

// TestLegacyBackgroundFailureShowsTextE2E (issue 37, item 7): Claude,
// woken by a background command that finished after the turn, fails on
// its own. A client without the extension sees Claude's error text in the
// thread (there is no request to answer with an error), live and after
// session/load; before, it saw nothing.
func TestLegacyBackgroundFailureShowsTextE2E(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.Initialize(acp.ClientCapabilities{})
	gate := filepath.Join(t.TempDir(), "go-on")
	h.API().Script(
		toolUse("toolu_bg", "Bash", map[string]any{"command": "while [ ! -e '" + gate + "' ]; do sleep 0.1; done; echo done",
			"description": "Wait for the test", "run_in_background": true}),
		fakeapi.Text("Started."),
		httpError(429, "rate_limit_error", "slow down please"),
	)
	sid := h.NewSession(h.Sandbox.WorkDir)
	if resp, err := h.Prompt(sid, "start it"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	const want = "API Error: Request rejected (429) · slow down please"
	h.WaitFor("the background failure in the thread", 60*time.Second, func() bool {
		return strings.Contains(h.AgentText(sid), want)
	})
	if got := h.AgentText(sid); got != "Started."+want {
		t.Errorf("thread %q", got)
	}
	h2 := reload(t, h, sid, acp.ClientCapabilities{})
	if got := h2.AgentText(sid); got != "Started."+want {
		t.Errorf("replayed thread %q", got)
	}
}
