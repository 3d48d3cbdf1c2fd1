package scrub

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

// patternCases are the cases of every rule in the patterns table, by rule
// name: what Text makes of the input. TestPatterns runs them and fails for
// a rule without a case, so the list and its tests stay in one place.
var patternCases = map[string][]struct{ in, want string }{
	"private-key": {
		{"key: -----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY----- done", "key: [redacted] done"},
		{"-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blb", "[redacted]"},
	},
	"jwt": {
		{"token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U here", "token [redacted] here"},
	},
	"anthropic-key": {
		{"API Error: 401 x-api-key: sk-ant-abc123def456", "API Error: 401 x-api-key: [redacted]"},
		{"key sk-proj-abcdefghijklmnop1234 refused", "key [redacted] refused"},
	},
	"aws-access-key": {
		{"credentials AKIAIOSFODNN7EXAMPLE were rejected", "credentials [redacted] were rejected"},
		{"ASIAY34FZKBOKMUTVV7A expired", "[redacted] expired"},
	},
	"github-token": {
		{"push with ghp_0123456789abcdefghijABCDEFGHIJ012345 failed", "push with [redacted] failed"},
		{"github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuv", "[redacted]"},
	},
	"slack-token": {
		{"xoxb-1234567890-abcdefghij", "[redacted]"},
	},
	"google-api-key": {
		{"key AIzaSyA1234567890abcdefghijklmnopqrstuv is invalid", "key [redacted] is invalid"},
	},
	"auth-header": {
		{"Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: [redacted]"},
		{"authorization: Negotiate YIIGhgYGKwYBBQUCoIIGejCCBnag", "authorization: [redacted]"},
		{"Authorization: Bearer abcdefghijkl", "Authorization: [redacted]"},
		{"Proxy-Authorization: Digest username=alice", "Proxy-Authorization: [redacted]"},
		{"refused; anthropic-api-key: abc cookie: session=xyz", "refused; anthropic-api-key: [redacted] cookie: [redacted]"},
	},
	"auth-scheme": {
		{"sent Basic dXNlcjpwYXNzd29yZA== to the proxy", "sent [redacted] to the proxy"},
		{"bearer abcdefgh1234 rejected", "[redacted] rejected"},
		{"Basic authentication is not supported", "Basic authentication is not supported"},
	},
	"json-credential": {
		{`{"headers":{"Authorization":"Basic dXNlcjpwYXNz"}}`, `{"headers":{"Authorization":"[redacted]"}}`},
		{`{"api_key": "abc\"def", "model": "x"}`, `{"api_key": "[redacted]", "model": "x"}`},
		{`{"clientSecret":"s3cr3t-value","max_tokens":"100"}`, `{"clientSecret":"[redacted]","max_tokens":"100"}`},
	},
	"assigned-credential": {
		{"GET ?api_key=abc123&limit=5 failed", "GET ?api_key=[redacted]&limit=5 failed"},
		{"password=hunter2 token='t0k3n' max_tokens=100", "password=[redacted] token=[redacted] max_tokens=100"},
		{"aws_secret_access_key = x", "aws_secret_access_key = x"}, // spaces: a sentence, not an assignment
		{"ANTHROPIC_API_KEY=sk-secret is invalid", "ANTHROPIC_API_KEY=[redacted] is invalid"},
	},
	"url-userinfo": {
		{"via http://alice:pw@proxy.corp", "via [link removed]"},
		{"see https://user:pw@claude.ai/x", "see [link removed]"},
	},
	"userinfo": {
		{"proxy alice:s3cret@proxy.corp:8080 refused", "proxy [redacted]@proxy.corp:8080 refused"},
		{"mail bob@example.com", "mail bob@example.com"},
	},
	"aws-secret-key": {
		{"secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY in use", "secret [redacted] in use"},
		{"commit 3b18e512dba79e4c8300dd08aeb37f8e728b8dad", "commit 3b18e512dba79e4c8300dd08aeb37f8e728b8dad"},
	},
	"env-assignment": {
		{"HTTPS_PROXY=proxy.corp set", "HTTPS_PROXY=[redacted] set"},
	},
	"endpoint-paren": {
		{"Unable to connect (127.0.0.1:8080)", "Unable to connect"},
		{"Unable to connect (https://gateway.example:8080)", "Unable to connect"},
		{"See https://support.claude.com/en/articles/1 for more (https://docs.anthropic.com/en/api/errors)", "See https://support.claude.com/en/articles/1 for more (https://docs.anthropic.com/en/api/errors)"},
	},
	"url": {
		{"ask your admin to raise it at https://claude.ai/admin-settings/usage", "ask your admin to raise it at https://claude.ai/admin-settings/usage"},
		{"Unable to reach https://api.anthropic.com/v1/messages", "Unable to reach [link removed]"},
		{"gateway https://llm.corp.example/v1 failed", "gateway [link removed] failed"},
		{"see http://claude.ai/x", "see [link removed]"},
		{"see https://claude.ai.evil.example/x", "see [link removed]"},
		{"see https://claude.ai/x?token=abc", "see [link removed]"},
		{"see https://claude.ai:8443/x", "see [link removed]"},
	},
	"host-port": {
		{"dial localhost:4000 failed", "dial [endpoint] failed"},
	},
	"path": {
		{"cannot read /home/alice/project/secret.txt", "cannot read [path]"},
		{"run /login first", "run /login first"},
	},
}

func TestPatterns(t *testing.T) {
	for _, p := range patterns() {
		cases := patternCases[p.name]
		if len(cases) == 0 {
			t.Errorf("pattern %q has no test case", p.name)
		}
		for _, tc := range cases {
			if got := Text(tc.in); got != tc.want {
				t.Errorf("%s: Text(%q) = %q, want %q", p.name, tc.in, got, tc.want)
			}
		}
	}
	for name := range patternCases {
		found := false
		for _, p := range patterns() {
			found = found || p.name == name
		}
		if !found {
			t.Errorf("cases for unknown pattern %q", name)
		}
	}
}

// TestCredentialsKeepsPathsAndURLs: the debug log's layer removes
// credentials only.
func TestCredentialsKeepsPathsAndURLs(t *testing.T) {
	in := "GET https://gw.example/v1?api_key=abc123 for /home/bob/x/y with Authorization: Basic dXNlcjpwYXNz"
	want := "GET https://gw.example/v1?api_key=[redacted] for /home/bob/x/y with Authorization: [redacted]"
	if got := Credentials(in); got != want {
		t.Errorf("Credentials = %q, want %q", got, want)
	}
}

func TestCredentialName(t *testing.T) {
	for name, want := range map[string]bool{
		"ANTHROPIC_API_KEY": true, "ANTHROPIC_AUTH_TOKEN": true, "AWS_SECRET_ACCESS_KEY": true,
		"AWS_SESSION_TOKEN": true, "apiKey": true, "clientSecret": true, "db-password": true,
		"X-Api-Key": true, "GITHUB_PAT": true, "CLAUDE_CODE_OAUTH_TOKEN": true,
		"MAX_TOKENS": false, "PWD": false, "HOME": false, "bypass": false, "keyboard": false,
		"CLAUDE_CODE_MAX_OUTPUT_TOKENS": false, "sessionId": false,
	} {
		if got := credentialName(name); got != want {
			t.Errorf("credentialName(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestHandler: every level loses credentials; info and above lose paths
// and URLs too; debug keeps those for developers.
func TestHandler(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(NewHandler(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	log.With("key", "sk-ant-abcdefghijkl").Warn("failed at /home/bob/x/y",
		"error", errors.New("Bearer abcdefghijkl"), slog.Group("g", "u", "https://internal.example/v1"))
	log.Debug("debug /home/bob/x/y", "line", []byte("token=abc123 at https://internal.example/v2"))
	out := buf.String()
	for _, secret := range []string{"sk-ant-abcdefghijkl", "failed at /home/bob", "Bearer abcdefghijkl", "internal.example/v1", "abc123"} {
		if strings.Contains(out, secret) {
			t.Errorf("%q reached the log:\n%s", secret, out)
		}
	}
	for _, kept := range []string{"debug /home/bob/x/y", "https://internal.example/v2"} {
		if !strings.Contains(out, kept) {
			t.Errorf("debug lost %q:\n%s", kept, out)
		}
	}
}
