// Package scrub keeps secrets out of what people see: error titles and
// messages sent to the editor, and the agent's log at info level and
// above. Errors carry the CLI's stderr and API error bodies, which can
// hold API keys, URLs, headers and private paths; session failure titles
// must never show them (seed 000), and logs end up pasted into bug
// reports.
package scrub

import (
	"net/url"
	"regexp"
	"strings"
	"sync"
)

var (
	// endpointParen is "(127.0.0.1:8080)" or "(https://gateway…)": Claude
	// names the endpoint it could not reach; the title does without it.
	endpointParen = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\s*\((?:[a-zA-Z][a-zA-Z0-9+.-]*://[^()\s]*|(?:localhost|\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-fA-F:]+\])(?::\d+)?[^()\s]*)\)`)
	})
	urlPattern = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile("\\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\\s)>\\]\"'`]+")
	})
	hostPort = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(?:localhost|\d{1,3}(?:\.\d{1,3}){3}):\d+\b`)
	})
	secretPattern = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_-]+|\bsk-[A-Za-z0-9_-]{16,}|(?i:\bbearer\s+)[A-Za-z0-9._~+/=-]{8,}`)
	})
	headerPattern = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(x-api-key|authorization|proxy-authorization|cookie|set-cookie|anthropic-[a-z-]+)\s*[:=]\s*[^\s,;]+`)
	})
	envPattern = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b([A-Z][A-Z0-9_]{2,})=[^\s,;]+`)
	})
	// pathPattern is an absolute or home-relative path of two or more
	// segments; "/login" and "/usage-credits" (slash commands) stay.
	pathPattern = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile("(^|[\\s(='\"`])((?:~|[A-Za-z]:)?[/\\\\][^\\s/\\\\'\"`()]+(?:[/\\\\][^\\s'\"`()]*)+)")
	})
)

// Text removes what must never reach a user-visible title, an error
// message or the log: environment values, transport URLs and endpoints,
// API keys, auth headers and private paths. Claude's own links (help,
// settings and billing pages on Claude's and Anthropic's sites, see
// ClaudeLink) are part of Claude's user-facing text and stay.
func Text(s string) string {
	s = envPattern().ReplaceAllString(s, "$1=[redacted]")
	s = endpointParen().ReplaceAllStringFunc(s, func(m string) string {
		if inner := strings.TrimSuffix(strings.TrimLeft(m, " \t\n("), ")"); ClaudeLink(inner) {
			return m
		}
		return ""
	})
	s = urlPattern().ReplaceAllStringFunc(s, func(u string) string {
		if ClaudeLink(u) {
			return u
		}
		return "[link removed]"
	})
	s = hostPort().ReplaceAllString(s, "[endpoint]")
	s = secretPattern().ReplaceAllString(s, "[redacted]")
	s = headerPattern().ReplaceAllString(s, "$1: [redacted]")
	s = pathPattern().ReplaceAllString(s, "$1[path]")
	return s
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
