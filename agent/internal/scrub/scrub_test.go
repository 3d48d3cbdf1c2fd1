package scrub

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"API Error: 401 x-api-key: sk-ant-abc123def456", "API Error: 401 x-api-key: [redacted]"},
		{"Unable to connect (127.0.0.1:8080)", "Unable to connect"},
		{"ANTHROPIC_API_KEY=sk-secret is invalid", "ANTHROPIC_API_KEY=[redacted] is invalid"},
		{"cannot read /home/alice/project/secret.txt", "cannot read [path]"},
		{"run /login first", "run /login first"},
		{"Authorization: Bearer abcdefghijkl", "Authorization: [redacted]"},
		// Claude's own links stay; transport URLs and endpoints go.
		{"ask your admin to raise it at https://claude.ai/admin-settings/usage", "ask your admin to raise it at https://claude.ai/admin-settings/usage"},
		{"See https://support.claude.com/en/articles/1 for more (https://docs.anthropic.com/en/api/errors)", "See https://support.claude.com/en/articles/1 for more (https://docs.anthropic.com/en/api/errors)"},
		{"Unable to reach https://api.anthropic.com/v1/messages", "Unable to reach [link removed]"},
		{"gateway https://llm.corp.example/v1 failed", "gateway [link removed] failed"},
		{"see http://claude.ai/x", "see [link removed]"},
		{"see https://claude.ai.evil.example/x", "see [link removed]"},
		{"see https://user:pw@claude.ai/x", "see [link removed]"},
		{"see https://claude.ai/x?token=abc", "see [link removed]"},
		{"see https://claude.ai:8443/x", "see [link removed]"},
		{"Unable to connect (https://gateway.example:8080)", "Unable to connect"},
	} {
		if got := Text(tc.in); got != tc.want {
			t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestHandler: info and above are scrubbed (message, attributes, errors,
// groups); debug keeps everything for developers.
func TestHandler(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(NewHandler(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	log.With("key", "sk-ant-abcdefghijkl").Warn("failed at /home/bob/x/y",
		"error", errors.New("Bearer abcdefghijkl"), slog.Group("g", "u", "https://internal.example/v1"))
	log.Debug("debug /home/bob/x/y")
	out := buf.String()
	for _, secret := range []string{"sk-ant-abcdefghijkl", "failed at /home/bob", "Bearer abcdefghijkl", "internal.example"} {
		if strings.Contains(out, secret) {
			t.Errorf("%q reached the log:\n%s", secret, out)
		}
	}
	if !strings.Contains(out, "debug /home/bob/x/y") {
		t.Errorf("debug was scrubbed:\n%s", out)
	}
}
