// Package scrub keeps secrets out of what people see: error titles and
// messages sent to the editor, agent text, and the agent's log. Errors
// carry the CLI's stderr and API error bodies, which can hold API keys,
// URLs, headers and private paths; a gateway may echo the agent's own
// credentials back in any shape; session failure titles must never show
// them (seed 000), and logs end up pasted into bug reports.
//
// Two layers, both in this package and nowhere else:
//
//   - The secret values the agent itself holds (Known: credential-looking
//     environment variables the CLI gets, MCP server headers and env
//     values, URL passwords), redacted wherever they appear, whatever their
//     shape (secrets.go), including across streamed chunks (stream.go) and
//     in every frame written to the editor (Secrets.RedactJSON).
//   - Patterns (the table below): credentials of recognisable shapes, and,
//     for what people see, transport URLs, endpoints, environment values
//     and private paths.
//
// Credentials applies the known values and the credential patterns (the
// log at debug level, which developers read, keeps paths and URLs); Text
// applies everything (errors, titles, the log at info and above).
package scrub

import (
	"net/url"
	"regexp"
	"strings"
	"sync"
	"unicode"
)

// Redacted replaces a secret.
const Redacted = "[redacted]"

// A pattern is one rule of the list. Rules run in the order of the table;
// a credential rule runs in Credentials and Text, a privacy rule in Text
// only. Each rule has cases in scrub_test.go (TestPatterns checks that
// none is without).
type pattern struct {
	name    string
	privacy bool
	re      *regexp.Regexp
	// replace rewrites one match (its submatches); nil replaces the whole
	// match with Redacted.
	replace func(m []string) string
}

var compile = regexp.MustCompile

// patterns is the list, in the order it is applied; it is built on first
// use (the agent's start stays cheap: cmd TestInitIsCheap).
var patterns = sync.OnceValue(func() []pattern {
	return []pattern{
		// Credentials, by shape.
		{name: "private-key", re: compile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)`)},
		{name: "jwt", re: compile(`\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`)},
		{name: "anthropic-key", re: compile(`\bsk-ant-[A-Za-z0-9_-]+|\bsk-[A-Za-z0-9_-]{16,}`)},
		{name: "aws-access-key", re: compile(`\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)[A-Z0-9]{16}\b`)},
		{name: "github-token", re: compile(`\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})\b`)},
		{name: "slack-token", re: compile(`\bxox[abprse]-[A-Za-z0-9-]{10,}`)},
		{name: "google-api-key", re: compile(`\bAIza[0-9A-Za-z_-]{35}\b`)},
		// An auth header's whole value, scheme and credential: "Authorization:
		// Basic dXNl…" loses both words, not just the scheme.
		{name: "auth-header", re: compile(`(?i)\b(x-api-key|api-key|x-auth-token|authorization|proxy-authorization|cookie|set-cookie|anthropic-[a-z-]+)(\s*[:=]\s*)(?:(?:basic|bearer|negotiate|digest|ntlm|token|aws4-hmac-sha256)\s+)?[^\s,;"']+`),
			replace: func(m []string) string { return m[1] + ": " + Redacted }},
		// A credential after its scheme word, anywhere: "Bearer abc…",
		// "Basic dXNl…", "Negotiate YII…". Basic and Negotiate are common
		// words, so their credential must look encoded.
		{name: "auth-scheme", re: compile(`(?i)\b(bearer|basic|negotiate|digest|ntlm)\s+([A-Za-z0-9._~+/=-]{8,})`),
			replace: func(m []string) string {
				if !strings.EqualFold(m[1], "bearer") && !looksEncoded(m[2]) {
					return m[0]
				}
				return Redacted
			}},
		// "api_key": "…" and the like in JSON (headers objects included).
		{name: "json-credential", re: compile(`"([A-Za-z_][A-Za-z0-9_.-]*)"(\s*:\s*)"((?:[^"\\]|\\.)*)"`),
			replace: func(m []string) string {
				if !credentialName(m[1]) || m[3] == Redacted {
					return m[0]
				}
				return `"` + m[1] + `"` + m[2] + `"` + Redacted + `"`
			}},
		// api_key=…, password=…, token=… in any case (query strings, config
		// lines, environment dumps).
		{name: "assigned-credential", re: compile(`\b([A-Za-z_][A-Za-z0-9_.-]*)=("(?:[^"\\]|\\.)*"|'[^']*'|[^\s,;&"'<>]+)`),
			replace: func(m []string) string {
				if !credentialName(m[1]) || strings.HasPrefix(m[2], "[redacted") {
					return m[0]
				}
				return m[1] + "=" + Redacted
			}},
		// user:password@ in a URL, and user:password@host without a scheme.
		{name: "url-userinfo", re: compile(`\b([a-zA-Z][a-zA-Z0-9+.-]*://)[^\s/@"'<>]+@`),
			replace: func(m []string) string { return m[1] + "redacted@" }},
		{name: "userinfo", re: compile(`(^|[\s"'(<=,;])[^\s:@/"'()<>,;=]+:[^\s@/"'()<>]+@([A-Za-z0-9][A-Za-z0-9-]*(?:\.[A-Za-z0-9-]+)*)`),
			replace: func(m []string) string { return m[1] + Redacted + "@" + m[2] }},
		// A 40-character AWS secret access key on its own (after its name it
		// is an assigned credential already). Git hashes (lower-case hex) are
		// left alone.
		{name: "aws-secret-key", re: compile(`(^|[^A-Za-z0-9/+=])([A-Za-z0-9/+]{40})($|[^A-Za-z0-9/+=])`),
			replace: func(m []string) string {
				if !mixedCase(m[2]) {
					return m[0]
				}
				return m[1] + Redacted + m[3]
			}},

		// What people must not see beyond credentials.
		{name: "env-assignment", privacy: true, re: compile(`\b([A-Z][A-Z0-9_]{2,})=[^\s,;]+`),
			replace: func(m []string) string { return m[1] + "=" + Redacted }},
		// "(127.0.0.1:8080)" or "(https://gateway…)": Claude names the
		// endpoint it could not reach; the title does without it.
		{name: "endpoint-paren", privacy: true, re: compile(`\s*\((?:[a-zA-Z][a-zA-Z0-9+.-]*://[^()\s]*|(?:localhost|\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-fA-F:]+\])(?::\d+)?[^()\s]*)\)`),
			replace: func(m []string) string {
				if inner := strings.TrimSuffix(strings.TrimLeft(m[0], " \t\n("), ")"); ClaudeLink(inner) {
					return m[0]
				}
				return ""
			}},
		{name: "url", privacy: true, re: compile("\\b[a-zA-Z][a-zA-Z0-9+.-]*://(?:\\[redacted\\]|[^\\s)>\\]\"'`])+"),
			replace: func(m []string) string {
				if ClaudeLink(m[0]) {
					return m[0]
				}
				return "[link removed]"
			}},
		{name: "host-port", privacy: true, re: compile(`\b(?:localhost|\d{1,3}(?:\.\d{1,3}){3}):\d+\b`),
			replace: func([]string) string { return "[endpoint]" }},
		// An absolute or home-relative path of two or more segments; "/login"
		// and "/usage-credits" (slash commands) stay.
		{name: "path", privacy: true, re: compile("(^|[\\s(='\"`])((?:~|[A-Za-z]:)?[/\\\\][^\\s/\\\\'\"`()]+(?:[/\\\\][^\\s'\"`()]*)+)"),
			replace: func(m []string) string { return m[1] + "[path]" }},
	}
})

// Text removes what must never reach a user-visible title, an error
// message or the log at info level: the secrets the agent holds,
// credentials of any recognisable shape, environment values, transport
// URLs and endpoints, and private paths. Claude's own links (help,
// settings and billing pages on Claude's and Anthropic's sites, see
// ClaudeLink) are part of Claude's user-facing text and stay.
func Text(s string) string { return apply(Known.Redact(s), true) }

// Credentials removes the secrets the agent holds and credentials of any
// recognisable shape, and keeps the rest (paths, URLs without userinfo):
// for the log at debug level, which developers read.
func Credentials(s string) string { return apply(Known.Redact(s), false) }

func apply(s string, privacy bool) string {
	table := patterns()
	for i := range table {
		p := &table[i]
		if p.privacy && !privacy {
			continue
		}
		s = p.run(s)
	}
	return s
}

func (p *pattern) run(s string) string {
	re := p.re
	if p.replace == nil {
		return re.ReplaceAllLiteralString(s, Redacted)
	}
	idx := re.FindAllStringSubmatchIndex(s, -1)
	if idx == nil {
		return s
	}
	var b strings.Builder
	last := 0
	m := make([]string, re.NumSubexp()+1)
	for _, loc := range idx {
		for i := range m {
			if loc[2*i] >= 0 {
				m[i] = s[loc[2*i]:loc[2*i+1]]
			} else {
				m[i] = ""
			}
		}
		b.WriteString(s[last:loc[0]])
		b.WriteString(p.replace(m))
		last = loc[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// credentialWord reports whether a name segment makes a name a
// credential's: api_key, ACCESS_TOKEN, clientSecret, db-password.
func credentialWord(w string) bool {
	switch strings.ToLower(w) {
	case "key", "apikey", "token", "secret", "password", "passwd", "pwd", "pass", "passphrase",
		"auth", "authorization", "credential", "credentials", "cookie", "signature", "sig",
		"privatekey", "accesskey", "pat", "jwt", "bearer":
		return true
	}
	return false
}

// credentialName reports whether a variable, parameter or field name names
// a credential: one of its segments (split at _ . - and lower-to-upper case
// changes) is a credential word. PWD (the working directory) is not one.
func credentialName(name string) bool {
	if name == "PWD" || name == "OLDPWD" {
		return false
	}
	var seg []rune
	prevLower := false
	check := func() bool {
		ok := credentialWord(string(seg))
		seg = seg[:0]
		return ok
	}
	for _, r := range name {
		switch {
		case r == '_' || r == '.' || r == '-':
			if check() {
				return true
			}
			prevLower = false
			continue
		case unicode.IsUpper(r) && prevLower:
			if check() {
				return true
			}
		}
		seg = append(seg, r)
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
	}
	return check()
}

// looksEncoded reports whether a word after "Basic" or "Negotiate" is an
// encoded credential rather than prose ("Basic authentication"): it has a
// digit, base64 punctuation, or two capitals beyond the first letter.
func looksEncoded(s string) bool {
	upper := 0
	for i, r := range s {
		switch {
		case r >= '0' && r <= '9', r == '+', r == '/', r == '=':
			return true
		case i > 0 && r >= 'A' && r <= 'Z':
			upper++
		}
	}
	return upper >= 2
}

// mixedCase reports whether s has capitals, small letters and digits, as a
// random key has and a word, a path or a hash rarely does.
func mixedCase(s string) bool {
	var up, low, dig bool
	for _, r := range s {
		switch {
		case r >= 'A' && r <= 'Z':
			up = true
		case r >= 'a' && r <= 'z':
			low = true
		case r >= '0' && r <= '9':
			dig = true
		}
	}
	return up && low && dig
}

// claudeSites are the sites Claude's user-facing texts link to (usage and
// billing settings, help articles, documentation, status).
var claudeSites = []string{"claude.ai", "claude.com", "anthropic.com"}

// secretParam is a query parameter that may carry a credential.
var secretParam = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)key|token|secret|sig|auth|code|session|pass|cred`)
})

// ClaudeLink reports whether u is one of Claude's own links: an https URL
// on Claude's or Anthropic's sites, without credentials, port or
// credential-like parameters, and not an API endpoint (api.*). Transport
// URLs (the API base URL, gateways, proxies, localhost) never are.
func ClaudeLink(u string) bool {
	p, err := url.Parse(u)
	if err != nil || p.Scheme != "https" || p.User != nil || p.Port() != "" || p.Opaque != "" {
		return false
	}
	host := strings.ToLower(p.Hostname())
	if strings.HasPrefix(host, "api.") || strings.Contains(host, ".api.") {
		return false
	}
	for k := range p.Query() {
		if secretParam().MatchString(k) {
			return false
		}
	}
	for _, site := range claudeSites {
		if host == site || strings.HasSuffix(host, "."+site) {
			return true
		}
	}
	return false
}
