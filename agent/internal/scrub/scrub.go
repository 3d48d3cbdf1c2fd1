// Package scrub keeps secrets out of what people see: error titles and
// messages sent to the editor, and the agent's log at info level and
// above. Errors carry the CLI's stderr and API error bodies, which can
// hold API keys, URLs, headers and private paths; session failure titles
// must never show them (seed 000), and logs end up pasted into bug
// reports.
package scrub

import "regexp"

var (
	// endpointParen is "(127.0.0.1:8080)" or "(https://gateway…)": Claude
	// names the endpoint it could not reach; the title does without it.
	endpointParen = regexp.MustCompile(`\s*\((?:[a-zA-Z][a-zA-Z0-9+.-]*://[^()\s]*|(?:localhost|\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-fA-F:]+\])(?::\d+)?[^()\s]*)\)`)
	urlPattern    = regexp.MustCompile("\\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\\s)>\\]\"'`]+")
	hostPort      = regexp.MustCompile(`\b(?:localhost|\d{1,3}(?:\.\d{1,3}){3}):\d+\b`)
	secretPattern = regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_-]+|\bsk-[A-Za-z0-9_-]{16,}|(?i:\bbearer\s+)[A-Za-z0-9._~+/=-]{8,}`)
	headerPattern = regexp.MustCompile(`(?i)\b(x-api-key|authorization|proxy-authorization|cookie|set-cookie|anthropic-[a-z-]+)\s*[:=]\s*[^\s,;]+`)
	envPattern    = regexp.MustCompile(`\b([A-Z][A-Z0-9_]{2,})=[^\s,;]+`)
	// pathPattern is an absolute or home-relative path of two or more
	// segments; "/login" and "/usage-credits" (slash commands) stay.
	pathPattern = regexp.MustCompile("(^|[\\s(='\"`])((?:~|[A-Za-z]:)?[/\\\\][^\\s/\\\\'\"`()]+(?:[/\\\\][^\\s'\"`()]*)+)")
)

// Text removes what must never reach a user-visible title, an error
// message or the log: environment values, transport URLs and endpoints,
// API keys, auth headers and private paths.
func Text(s string) string {
	s = envPattern.ReplaceAllString(s, "$1=[redacted]")
	s = endpointParen.ReplaceAllString(s, "")
	s = urlPattern.ReplaceAllString(s, "[link removed]")
	s = hostPort.ReplaceAllString(s, "[endpoint]")
	s = secretPattern.ReplaceAllString(s, "[redacted]")
	s = headerPattern.ReplaceAllString(s, "$1: [redacted]")
	s = pathPattern.ReplaceAllString(s, "$1[path]")
	return s
}
