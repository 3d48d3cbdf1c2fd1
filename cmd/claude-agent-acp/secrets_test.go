package main

import (
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/faultcli"
)

// The API key is in the environment and comes back in an API error body
// and in a CLI crash report, together with a URL, a header and a private
// path. None of them may reach what the user sees: ACP errors and updates,
// and the log on stderr at the default level.

const token = "sk-ant-api03-Zq9Zq9Zq9Zq9Zq9Zq9Zq9Zq9Zq9Zq9Zq9-leak"

// leakyMessage is an API error message that repeats what it should not.
// (A message naming x-api-key makes the CLI print its own canned "Invalid
// API key" instead, so the header here is another.)
var leakyMessages = []string{
	"refused for " + token + "; status at https://gateway.internal.example/status?t=" + token + ", trace in /home/alice/.claude/debug.log",
	"refused; authorization: Bearer " + token,
	"refused; anthropic-api-key: " + token + " cookie: session=" + token,
}

// checkNoLeaks fails for every secret, URL, header or private path found
// in the agent's output or its log.
func checkNoLeaks(t *testing.T, p *agentProc, more ...string) {
	t.Helper()
	p.in.Close()
	p.waitExit(30 * time.Second)
	for name, text := range map[string]string{"ACP output": strings.Join(p.seen, "\n"), "the log": p.stderr.String()} {
		for _, bad := range append([]string{token, "Zq9Zq9Zq9", "gateway.internal.example", "/home/alice", "x-api-key: sk"}, more...) {
			if i := strings.Index(text, bad); i >= 0 {
				t.Errorf("%s contains %q: …%s…", name, bad, text[max(0, i-80):min(len(text), i+len(bad)+40)])
			}
		}
	}
}

func TestNoSecretsInAPIErrors(t *testing.T) {
	t.Parallel()
	sb := clitest.NewSandbox(t)
	t.Cleanup(func() { clitest.NoOrphans(t) })
	p := startBinary(t, sb.WorkDir, sb.With("CLAUDE_CODE_EXECUTABLE="+sb.CLI, "ANTHROPIC_API_KEY="+token))
	p.initialize()
	sid := p.newSession(1)
	for i, status := range []int{400, 429, 500} {
		e := fakeapi.HTTPError(status, "", leakyMessages[i])
		e.Repeat = -1
		sb.API.Script(e)
		if m := p.call(2+i, "session/prompt", textPrompt(sid, "hi")); m.Error == nil {
			t.Fatalf("HTTP %d: want an error, got %s", status, m.raw)
		} else {
			t.Logf("HTTP %d: %s", status, m.Error.Message)
		}
	}
	checkNoLeaks(t, p, strings.TrimPrefix(sb.API.URL(), "http://"))
}

func TestNoSecretsInCrashReports(t *testing.T) {
	t.Parallel()
	p := startAgent(t, "ANTHROPIC_API_KEY="+token)
	p.initialize()
	sid := p.newSession(1)
	if m := p.call(2, "session/prompt", textPrompt(sid, "leak-exit")); m.Error == nil {
		t.Fatalf("want an error, got %s", m.raw)
	}
	checkNoLeaks(t, p)
}

func TestNoSecretsInStartupErrors(t *testing.T) {
	t.Parallel()
	p := startAgent(t, "ANTHROPIC_API_KEY="+token, faultcli.EnvStart+"=leak")
	p.initialize()
	sid := p.newSession(1)
	if m := p.call(2, "session/prompt", textPrompt(sid, "hi")); m.Error == nil {
		t.Fatalf("want an error, got %s", m.raw)
	}
	checkNoLeaks(t, p)
}
