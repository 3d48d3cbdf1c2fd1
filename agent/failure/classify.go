package failure

import (
	"regexp"
	"strings"
	"sync"
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

// IsUsageLimitText reports whether text is one of the CLI's synthetic
// usage-limit messages.
func IsUsageLimitText(text string) bool {
	for _, p := range usageLimitPrefixes {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}

// ClassifyTerminal decides whether a turn's result is a failure and which.
// Refusals and the max_tokens stop reason are not failures: they keep their
// ACP stop reasons for every client. apiError and apiErrorText are what the
// turn's top-level synthetic assistant message said (its error kind and
// text), if it had one.
func ClassifyTerminal(apiError, apiErrorText string, r *claude.ResultMessage) (kind Kind, text string, failed bool) {
	errs := userErrors(r.Errors)
	switch r.Subtype {
	case "error_max_budget_usd":
		return KindBudget, errs, r.IsError
	case "error_max_turns":
		return KindContext, errs, r.IsError
	case "error_max_structured_output_retries":
		return KindProvider, errs, r.IsError
	}
	if !r.IsError {
		return "", "", false
	}
	// Claude's top-level assistant error text first, then the result.
	text = firstNonEmpty(apiErrorText, r.Result, errs)
	return ErrorKind(apiError, r.APIError, r.APIErrorType, r.TerminalReason, text), text, true
}

// ErrorKind maps the SDK's error kind (SDKAssistantMessageError) plus the
// refinements the CLI gives (api_error, the HTTP error type, the terminal
// reason, a usage-limit text) to a failure kind. Unknown kinds are provider
// failures: they never become success.
func ErrorKind(sdkError, apiError, apiErrorType, terminalReason, text string) Kind {
	switch {
	case IsUsageLimitText(text), apiError == "usage_limit_reached", strings.Contains(text, "spend_limit"):
		return KindQuota
	case terminalReason == "prompt_too_long":
		return KindContext
	}
	// An unreachable API ends the turn as server_error (api_error
	// connection_failed): a provider failure (service) by the contract's
	// table, whose connection category is for retries without an HTTP
	// response, transport loss and worker shutdown (retryKind, KindTransport,
	// KindShutdown).
	switch sdkError {
	case "authentication_failed", "oauth_org_not_allowed":
		return KindAuthRequired
	case "verification_required", "cloud_credential_error":
		return KindAccessDenied
	case "billing_error", "account_on_hold":
		return KindQuota
	case "rate_limit":
		return KindRateLimited
	case "overloaded":
		return KindOverloaded
	case "invalid_request", "model_not_found":
		return KindBadRequest
	case "max_output_tokens":
		return KindOutputLimit
	case "", "unknown":
		if LoginHint().MatchString(text) {
			return KindAuthRequired // the synthetic login message
		}
		if apiErrorType == "invalid_request_error" {
			return KindBadRequest // a 400 the SDK could not name
		}
	}
	return KindProvider
}

// retryKind classifies a system/api_retry; ok is false for retries the
// extension does not report (authentication: the terminal failure says it).
func retryKind(b *claude.APIRetry) (Kind, bool) {
	switch {
	case b.Error == "authentication_failed" || b.Error == "oauth_org_not_allowed":
		return "", false
	case b.ErrorStatus == nil:
		return KindNetwork, true // no HTTP response at all
	}
	return ErrorKind(b.Error, "", "", "", ""), true
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

// Text turns Claude's text into a title and, only when it does not
// fit, details. It never passes on URLs, endpoints, tokens, headers,
// environment values or private paths. "" means Claude said nothing usable
// and the policy's own title applies.
func Text(text string) (title, details string) {
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

// LoginHint matches Claude's synthetic "please log in" text: a failure
// that only a login cures, whatever the SDK called it.
var LoginHint = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\brun /login\b|\bclaude /login\b`)
})

// IsAuthError reports the SDK error kinds that are authentication
// failures: a legacy client gets them as ACP's authRequired (-32000),
// like the synthetic login message.
func IsAuthError(sdkError string) bool {
	return sdkError == "authentication_failed" || sdkError == "oauth_org_not_allowed"
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
