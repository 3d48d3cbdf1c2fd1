package failure

import (
	"io"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// The failure model's pure rules. How a session uses them (turns, replay,
// the wire) is tested in package agent (failure_test.go there).

func newTestState(enabled bool) *State {
	f := New("s1", slog.New(slog.NewTextHandler(io.Discard, nil)), enabled, func(string, acp.SessionUpdate) error { return nil })
	return &f
}

func TestFailureClaudeMapping(t *testing.T) {
	for _, tc := range []struct {
		sdk, apiError, apiType, terminal, text string
		category                               string
		actions                                []string
	}{
		{sdk: "authentication_failed", category: "access", actions: []string{"login"}},
		{sdk: "oauth_org_not_allowed", category: "access", actions: []string{"login"}},
		{text: "Not logged in · Please run /login", category: "access", actions: []string{"login"}},
		{sdk: "verification_required", category: "access", actions: []string{"retry"}},
		{sdk: "cloud_credential_error", category: "access", actions: []string{"retry"}},
		{sdk: "billing_error", category: "limit", actions: []string{}},
		{sdk: "account_on_hold", category: "limit", actions: []string{}},
		{sdk: "rate_limit", category: "limit", actions: []string{"retry"}},
		{sdk: "rate_limit", apiError: "usage_limit_reached", text: "You've hit your 5-hour limit · resets 1pm", category: "limit", actions: []string{}},
		{sdk: "rate_limit", text: "API Error: Request rejected (429) · service_spend_limit_reached: x", category: "limit", actions: []string{}},
		{sdk: "max_output_tokens", category: "limit", actions: []string{}},
		{sdk: "invalid_request", terminal: "prompt_too_long", category: "limit", actions: []string{"new_session"}},
		{sdk: "invalid_request", category: "request", actions: []string{}},
		{sdk: "model_not_found", category: "request", actions: []string{}},
		{sdk: "unknown", apiType: "invalid_request_error", category: "request", actions: []string{}},
		{sdk: "overloaded", category: "service", actions: []string{"retry"}},
		{sdk: "server_error", category: "service", actions: []string{"retry"}},
		{sdk: "server_error", apiError: "connection_failed", category: "service", actions: []string{"retry"}},
		{sdk: "unknown", category: "service", actions: []string{"retry"}},
		{sdk: "", category: "service", actions: []string{"retry"}},
		{sdk: "some_future_kind", category: "service", actions: []string{"retry"}},
	} {
		k := ErrorKind(tc.sdk, tc.apiError, tc.apiType, tc.terminal, tc.text)
		rec := newTestState(true).MakeRecord("x", k, SeverityError, "", "")
		if rec.Category != tc.category || !reflect.DeepEqual(rec.Actions, tc.actions) {
			t.Errorf("%+v: kind %s → %s %v", tc, k, rec.Category, rec.Actions)
		}
		if rec.Title == "" || rec.Details != "" {
			t.Errorf("%+v: the adapter's title must apply: %+v", tc, rec)
		}
	}
	// Terminal subtypes.
	for _, tc := range []struct {
		r        claude.ResultMessage
		category string
		actions  []string
		failed   bool
	}{
		{claude.ResultMessage{Base: claude.Base{Subtype: "error_max_turns"}, IsError: true, Errors: []string{"Reached maximum number of turns (1)"}}, "limit", []string{"new_session"}, true},
		{claude.ResultMessage{Base: claude.Base{Subtype: "error_max_budget_usd"}, IsError: true}, "limit", []string{"new_session"}, true},
		{claude.ResultMessage{Base: claude.Base{Subtype: "error_max_structured_output_retries"}, IsError: true}, "service", []string{"retry"}, true},
		{claude.ResultMessage{Base: claude.Base{Subtype: "error_max_turns"}}, "", nil, false},
		{claude.ResultMessage{Base: claude.Base{Subtype: "success"}, Result: "Please run /login."}, "", nil, false},
		{claude.ResultMessage{Base: claude.Base{Subtype: "error_during_execution"}, IsError: true, Errors: []string{"[ede_diagnostic] result_type=user"}}, "service", []string{"retry"}, true},
	} {
		k, text, failed := ClassifyTerminal("", "", &tc.r)
		if failed != tc.failed {
			t.Errorf("%+v: failed %v", tc.r, failed)
			continue
		}
		if !failed {
			continue
		}
		if strings.Contains(text, "ede_diagnostic") {
			t.Errorf("diagnostics used as text: %q", text)
		}
		p := policyOf(k)
		if p.category != tc.category || !reflect.DeepEqual(append([]string{}, p.actions...), tc.actions) {
			t.Errorf("%s: %s %v", tc.r.Subtype, p.category, p.actions)
		}
	}
}

func TestFailureTitleRules(t *testing.T) {
	for _, tc := range []struct{ in, title, details string }{
		{"You've hit your 5-hour limit · resets 1:18pm (UTC)", "You've hit your 5-hour limit · resets 1:18pm (UTC)", ""},
		{"API Error: Repeated 529 Overloaded errors. The API is at capacity — check your inference gateway (127.0.0.1:40123).",
			"API Error: Repeated 529 Overloaded errors. The API is at capacity — check your inference gateway.", ""},
		{"Invalid API key · Please run /login", "Invalid API key · Please run /login", ""},
		{"See https://support.claude.com/en/articles/1 for more", "See https://support.claude.com/en/articles/1 for more", ""},
		{"Gateway https://llm.corp.example/v1 failed", "Gateway [link removed] failed", ""},
		{"bad key sk-ant-api03-abcdefABCDEF0123", "bad key [redacted]", ""},
		{"header x-api-key: sk-fake123 was rejected", "header x-api-key: [redacted] was rejected", ""},
		{"Authorization: Bearer abcdefgh12345678", "Authorization: [redacted]", ""},
		{"env ANTHROPIC_BASE_URL=http://10.0.0.1:8080 is wrong", "env ANTHROPIC_BASE_URL=[redacted] is wrong", ""},
		{"cannot read /home/alice/.claude/settings.json now", "cannot read [path] now", ""},
		{"cannot read ~/.claude/x.json", "cannot read [path]", ""},
		{"proxy at localhost:3128 refused", "proxy at [endpoint] refused", ""},
	} {
		title, details := Text(tc.in)
		if title != tc.title || details != tc.details {
			t.Errorf("%q:\n got %q / %q\nwant %q / %q", tc.in, title, details, tc.title, tc.details)
		}
	}
	long := "First paragraph that says what happened.\n\n" + strings.Repeat("More explanation. ", 30)
	title, details := Text(long)
	if title != "First paragraph that says what happened." || !strings.HasPrefix(details, "More explanation.") {
		t.Errorf("long text: %q / %q", title, details)
	}
	noBreak := strings.Repeat("word ", 100)
	title, details = Text(noBreak)
	if len([]rune(title)) > titleMax+1 || !strings.HasSuffix(title, "…") || details != strings.TrimSpace(noBreak) {
		t.Errorf("unbroken text: %q / %q", title, details)
	}
}
