package agent

import (
	"strings"
	"unicode/utf8"

	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/scrub"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// usageLimitPrefixes are the stable prefixes of the CLI's own synthetic
// usage-limit messages (USAGE_LIMIT_ERROR_PREFIXES in the Agent SDK; the
// CLI uses the same list). Only a <synthetic> message starting with one of
// them is a usage limit: arbitrary model prose never is.
var usageLimitPrefixes = []string{
	"You've hit your",
	"You've reached your",
	"You're out of usage credits",
	"Your org is out of usage · add funds to continue",
	"Your org is out of usage · contact your admin",
	"Your seat type doesn't include usage credits",
	"Your seat type doesn't include usage",
	"Your usage allocation has been disabled by your admin",
	"Your group's usage limit is set to $0",
	"Fable 5 requires usage credits",
	"You're out of extra usage",
	"Your seat type doesn't include extra usage",
}

func isUsageLimitText(text string) bool {
	for _, p := range usageLimitPrefixes {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}

// classifyTerminal decides whether a turn's result is a failure and which.
// Refusals and the max_tokens stop reason are not failures: they keep their
// ACP stop reasons for every client.
func classifyTerminal(t *turn, r *claude.ResultMessage) (kind failureKind, text string, failed bool) {
	errs := userErrors(r.Errors)
	switch r.Subtype {
	case "error_max_budget_usd":
		return kindBudget, errs, r.IsError
	case "error_max_turns":
		return kindContext, errs, r.IsError
	case "error_max_structured_output_retries":
		return kindProvider, errs, r.IsError
	}
	if !r.IsError {
		return "", "", false
	}
	// Claude's top-level assistant error text first, then the result.
	text = firstNonEmpty(t.apiErrorText, r.Result, errs)
	return errorKind(t.apiError, r.APIError, r.APIErrorType, r.TerminalReason, text), text, true
}

// errorKind maps the SDK's error kind (SDKAssistantMessageError) plus the
// refinements the CLI gives (api_error, the HTTP error type, the terminal
// reason, a usage-limit text) to a failure kind. Unknown kinds are provider
// failures: they never become success.
func errorKind(sdkError, apiError, apiErrorType, terminalReason, text string) failureKind {
	switch {
	case isUsageLimitText(text), apiError == "usage_limit_reached", strings.Contains(text, "spend_limit"):
		return kindQuota
	case terminalReason == "prompt_too_long":
		return kindContext
	}
	// An unreachable API ends the turn as server_error (api_error
	// connection_failed): a provider failure (service) by the contract's
	// table, whose connection category is for retries without an HTTP
	// response, transport loss and worker shutdown (retryKind, kindTransport,
	// kindShutdown).
	switch sdkError {
	case "authentication_failed", "oauth_org_not_allowed":
		return kindAuthRequired
	case "verification_required", "cloud_credential_error":
		return kindAccessDenied
	case "billing_error", "account_on_hold":
		return kindQuota
	case "rate_limit":
		return kindRateLimited
	case "overloaded":
		return kindOverloaded
	case "invalid_request", "model_not_found":
		return kindBadRequest
	case "max_output_tokens":
		return kindOutputLimit
	case "", "unknown":
		if loginHint().MatchString(text) {
			return kindAuthRequired // the synthetic login message
		}
		if apiErrorType == "invalid_request_error" {
			return kindBadRequest // a 400 the SDK could not name
		}
	}
	return kindProvider
}

// retryKind classifies a system/api_retry; ok is false for retries the
// extension does not report (authentication: the terminal failure says it).
func retryKind(b *claude.APIRetry) (failureKind, bool) {
	switch {
	case b.Error == "authentication_failed" || b.Error == "oauth_org_not_allowed":
		return "", false
	case b.ErrorStatus == nil:
		return kindNetwork, true // no HTTP response at all
	}
	return errorKind(b.Error, "", "", "", ""), true
}

// userErrors joins the result's error strings that are meant for people;
// the CLI's bracketed diagnostics ("[ede_diagnostic] …") are not.
func userErrors(errs []string) string {
	var out []string
	for _, e := range errs {
		if e = strings.TrimSpace(e); e != "" && !strings.HasPrefix(e, "[") {
			out = append(out, e)
		}
	}
	return strings.Join(out, "; ")
}

// titleMax is how long a title may reasonably be; longer text is split
// into a title and details.
const titleMax = 300

// failureText turns Claude's text into a title and, only when it does not
// fit, details. It never passes on URLs, endpoints, tokens, headers,
// environment values or private paths. "" means Claude said nothing usable
// and the policy's own title applies.
func failureText(text string) (title, details string) {
	text = strings.TrimSpace(scrub.Text(text))
	if utf8.RuneCountInString(text) <= titleMax {
		return text, ""
	}
	// The first paragraph, when it fits, is the title; the rest explains.
	if i := strings.Index(text, "\n\n"); i > 0 && utf8.RuneCountInString(text[:i]) <= titleMax {
		return strings.TrimSpace(text[:i]), strings.TrimSpace(text[i:])
	}
	cut := text[:runeOffset(text, titleMax)]
	if j := strings.LastIndex(cut, ". "); j >= titleMax/4 {
		return text[:j+1], strings.TrimSpace(text[j+1:])
	}
	if k := strings.LastIndexAny(cut, " \n"); k >= titleMax/4 {
		cut = cut[:k]
	}
	return strings.TrimSpace(cut) + "…", text
}

func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}
