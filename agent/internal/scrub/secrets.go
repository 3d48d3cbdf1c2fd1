package scrub

import (
	"bytes"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Known holds the secret values of this process: the agent adds the
// environment its CLIs get (agent.New) and each session's MCP server
// headers and env values (agent/mcp.go). It only grows: a value once known
// is never shown again, by any session, for the life of the process.
// Text, Credentials, Stream and the log handler read it; the agent's
// connection passes every frame it writes through Known.RedactJSON.
var Known = new(Secrets)

// MinSecretLen is the shortest value taken as a secret. A shorter one
// ("1", "true", a port) would redact ordinary text wherever it occurs.
const MinSecretLen = 6

// Secrets is a set of exact values to redact wherever they appear, whatever
// their shape: a gateway that echoes the agent's token back in an error
// body shows it in no recognisable form. Its methods are safe for
// concurrent use; reading costs no lock (the set is an immutable snapshot,
// replaced whole when a value is added).
type Secrets struct {
	mu   sync.Mutex // serialises Add
	snap atomic.Pointer[secretSet]
}

// secretSet is one immutable state of a Secrets.
type secretSet struct {
	values []string // longest first, so that a secret holding another goes whole
	forms  []finder // the values as they appear inside JSON strings
	first  [256]bool
	maxLen int
}

// Add adds values; empty, short (under MinSecretLen) and purely numeric
// values are ignored.
func (s *Secrets) Add(values ...string) {
	var add []string
	for _, v := range values {
		if secretValue(v) {
			add = append(add, v)
		}
	}
	if len(add) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.snap.Load()
	var vals []string
	if old != nil {
		vals = slices.Clone(old.values)
	}
	changed := false
	for _, v := range add {
		if !slices.Contains(vals, v) {
			vals = append(vals, v)
			changed = true
		}
	}
	if changed {
		s.snap.Store(newSecretSet(vals))
	}
}

func secretValue(v string) bool {
	if len(v) < MinSecretLen || strings.TrimSpace(v) == "" {
		return false
	}
	for _, r := range v {
		if r < '0' || r > '9' {
			return true
		}
	}
	return false // a number: a timeout, a port, a count
}

func newSecretSet(vals []string) *secretSet {
	slices.SortFunc(vals, func(a, b string) int { return len(b) - len(a) })
	set := &secretSet{values: vals}
	var seen []string
	for _, v := range vals {
		set.first[v[0]] = true
		set.maxLen = max(set.maxLen, len(v))
		for _, f := range jsonForms(v) {
			if !slices.Contains(seen, f) {
				seen = append(seen, f)
				set.forms = append(set.forms, newFinder(f))
			}
		}
	}
	slices.SortFunc(set.forms, func(a, b finder) int { return len(b.needle) - len(a.needle) })
	return set
}

// jsonForms is how v appears inside a JSON string: as our encoder writes
// it (HTML characters as they are) and as encoding/json's Marshal does
// (<, > and & escaped).
func jsonForms(v string) []string {
	var forms []string
	for _, html := range []bool{false, true} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		_ = enc.Encode(v)
		f := strings.TrimSuffix(strings.TrimSpace(b.String()), `"`)
		forms = append(forms, strings.TrimPrefix(f, `"`))
	}
	return forms
}

// AddEnv adds the secrets of an environment ("K=V" entries): the values
// of credential-looking variables (ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN,
// AWS_SECRET_ACCESS_KEY, …), the passwords of URLs with userinfo (proxy
// and base URLs), and the header values of ANTHROPIC_CUSTOM_HEADERS.
func (s *Secrets) AddEnv(env []string) {
	var vals []string
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || v == "" {
			continue
		}
		vals = append(vals, envSecrets(k, v, credentialName(k))...)
	}
	s.Add(vals...)
}

// AddServerEnv adds the secrets of an MCP server's environment. The
// client sets these for the server, and a token there may have any name,
// so every value counts except what is plainly configuration: paths,
// numbers, booleans, URLs without userinfo, and well-known variables.
func (s *Secrets) AddServerEnv(name, value string) {
	s.Add(envSecrets(name, value, credentialName(name) || !plainConfig(name, value))...)
}

// AddHeader adds the value of an MCP server's HTTP header, and the
// credential after its scheme ("Bearer abc…" adds abc… too), unless the
// header is one that carries no secret (Accept, Content-Type, …).
func (s *Secrets) AddHeader(name, value string) {
	if plainHeader(name) {
		return
	}
	s.Add(headerSecrets(value)...)
}

// envSecrets are the secrets in one variable: its value if secret, the
// password (and user:password) of a URL in it, the values of the headers
// it lists.
func envSecrets(name, value string, secret bool) []string {
	var out []string
	if secret {
		out = append(out, value)
		out = append(out, headerSecrets(value)...)
	}
	if u, err := url.Parse(value); err == nil && u.User != nil {
		if p, ok := u.User.Password(); ok {
			out = append(out, p, u.User.Username()+":"+p)
		}
	}
	if name == "ANTHROPIC_CUSTOM_HEADERS" {
		for _, line := range strings.Split(value, "\n") {
			if _, v, ok := strings.Cut(line, ":"); ok {
				out = append(out, headerSecrets(strings.TrimSpace(v))...)
			}
		}
	}
	return out
}

// AddURL adds the credentials a URL carries: the password of its userinfo
// (and user:password), and the values of credential-like query parameters
// (?api_key=, ?token=, ?sig=).
func (s *Secrets) AddURL(u *url.URL) {
	var vals []string
	if p, ok := u.User.Password(); ok {
		vals = append(vals, p, u.User.Username()+":"+p)
	}
	for k, vs := range u.Query() {
		if credentialName(k) || secretParam().MatchString(k) {
			vals = append(vals, vs...)
		}
	}
	s.Add(vals...)
}

// headerSecrets is a header value and, after a scheme word, its credential.
func headerSecrets(v string) []string {
	out := []string{v}
	if scheme, rest, ok := strings.Cut(v, " "); ok && authScheme(scheme) {
		out = append(out, strings.TrimSpace(rest))
	}
	return out
}

func authScheme(w string) bool {
	switch strings.ToLower(w) {
	case "bearer", "basic", "token", "negotiate", "digest", "ntlm", "aws4-hmac-sha256":
		return true
	}
	return false
}

// plainHeader reports whether a header carries no secret.
func plainHeader(name string) bool {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "accept", "accept-encoding", "accept-language", "content-type", "user-agent",
		"mcp-protocol-version", "cache-control", "connection", "host", "origin", "referer":
		return true
	}
	return false
}

// plainEnv reports whether a variable carries no secret.
func plainEnv(upper string) bool {
	switch upper {
	case "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "TZ", "TMPDIR", "PWD",
		"NODE_ENV", "DEBUG", "PYTHONPATH", "NODE_PATH", "NODE_OPTIONS", "LOG_LEVEL":
		return true
	}
	return false
}

// plainConfig reports whether an MCP server variable is configuration
// rather than a credential.
func plainConfig(name, value string) bool {
	upper := strings.ToUpper(name)
	if plainEnv(upper) || strings.HasPrefix(upper, "LC_") {
		return true
	}
	for _, suffix := range []string{"_PATH", "_DIR", "_HOME", "_HOST", "_PORT", "_LEVEL", "_MODE", "_TIMEOUT", "_ENV", "_REGION"} {
		if strings.HasSuffix(upper, suffix) {
			return true
		}
	}
	switch strings.ToLower(value) {
	case "true", "false", "yes", "no", "on", "off":
		return true
	}
	if strings.HasPrefix(value, "/") || strings.HasPrefix(value, "~") || strings.HasPrefix(value, ".") {
		return true
	}
	if u, err := url.Parse(value); err == nil && u.Scheme != "" && u.Host != "" && u.User == nil && u.RawQuery == "" {
		return true
	}
	return false
}

// Redact replaces every known secret in s with Redacted.
func (s *Secrets) Redact(text string) string {
	set := s.snap.Load()
	if set == nil {
		return text
	}
	for _, v := range set.values {
		if strings.Contains(text, v) {
			text = strings.ReplaceAll(text, v, Redacted)
		}
	}
	return text
}

// RedactJSON replaces every known secret inside the strings of a JSON
// frame with Redacted, and returns frame itself when there is none (the
// common case costs a scan and no allocation). An occurrence that starts
// inside an escape sequence (the "n" of "\n") is not the secret and stays,
// so the frame remains valid JSON.
func (s *Secrets) RedactJSON(frame []byte) []byte {
	set := s.snap.Load()
	if set == nil {
		return frame
	}
	for i := range set.forms {
		f := &set.forms[i]
		if j := f.index(frame, 0); j >= 0 {
			frame = f.replace(frame, j)
		}
	}
	return frame
}

// A finder looks for one needle, by its rarest byte: a frame is searched
// with IndexByte for that byte (a fast scan whatever the frame holds)
// instead of for the needle's first byte, often a common letter.
type finder struct {
	needle []byte
	anchor int // index of the needle's rarest byte
}

func newFinder(needle string) finder {
	f := finder{needle: []byte(needle)}
	best := -1
	for i := 0; i < len(needle); i++ {
		if r := byteRarity(needle[i]); r > best {
			best, f.anchor = r, i
		}
	}
	return f
}

// index returns the first occurrence of the needle in b at or after from
// that does not start inside an escape sequence, or -1.
func (f *finder) index(b []byte, from int) int {
	a := f.needle[f.anchor]
	for i := from + f.anchor; i < len(b); {
		j := bytes.IndexByte(b[i:], a)
		if j < 0 {
			return -1
		}
		start := i + j - f.anchor
		i += j + 1
		if start+len(f.needle) <= len(b) && bytes.Equal(b[start:start+len(f.needle)], f.needle) && !escaped(b, start) {
			return start
		}
	}
	return -1
}

// replace rewrites b with every occurrence of the needle from first on
// replaced; b itself is not changed (it may be a buffer the caller reuses).
func (f *finder) replace(b []byte, first int) []byte {
	out := make([]byte, 0, len(b))
	last := 0
	for j := first; j >= 0; j = f.index(b, last) {
		out = append(out, b[last:j]...)
		out = append(out, Redacted...)
		last = j + len(f.needle)
	}
	return append(out, b[last:]...)
}

// escaped reports whether b[i] follows an odd number of backslashes: it
// is then part of an escape sequence.
func escaped(b []byte, i int) bool {
	n := 0
	for i > 0 && b[i-1] == '\\' {
		n++
		i--
	}
	return n%2 == 1
}

// commonBytes lists the bytes of English text and JSON, most frequent
// first; any byte not listed is rarer than all of them.
const commonBytes = ` etaoinsrhldcum"fpgwyb,:.v{}k_-/\1T0ISA2CxENRjMOLDP3q5z4HB9678WFGU[]=()VYKJ'`

func byteRarity(b byte) int {
	if i := strings.IndexByte(commonBytes, b); i >= 0 {
		return i
	}
	return len(commonBytes)
}
