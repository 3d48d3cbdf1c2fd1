package agent_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/agent"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// TestFirstPromptFollowsTheHandshake: a session's first prompt goes to its
// CLI right behind the initialize and get_settings requests, without
// waiting for their answers (issue 16: the cold first answer). The real
// CLI runs behind a wrapper that copies its stdin to a log and holds the
// CLI back until the test opens a gate: before the CLI has answered
// anything, the log already holds the handshake and then the prompt; once
// the gate opens, the real CLI reads that prompt, written before its
// initialize was answered, and runs the turn as usual. That is what only
// the real CLI can show; the prompts the agent holds instead (the mode
// changed while the CLI started, a prompt too big to wait in the pipe,
// one behind it) are its own logic, on the fake CLI: TestHeldFirstPrompt
// (pipeline_test.go).
func TestFirstPromptFollowsTheHandshake(t *testing.T) {
	t.Parallel()
	lines := gatedFirstPrompt(t, "the first prompt")
	want := []string{`"subtype":"initialize"`, `"subtype":"get_settings"`, `"the first prompt"`}
	if len(lines) != len(want) {
		t.Fatalf("the CLI's stdin before it answered anything:\n%s\nwant the handshake, then the prompt", strings.Join(lines, "\n"))
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("line %d of the CLI's stdin: %.200s; want %s", i+1, lines[i], w)
		}
	}
}

// gatedFirstPrompt runs a first prompt against a gated CLI (see
// TestFirstPromptFollowsTheHandshake) and returns the CLI's stdin lines as
// they were when the prompt reached it.
func gatedFirstPrompt(t *testing.T, text string) []string {
	dir := t.TempDir()
	gate, stdinLog := filepath.Join(dir, "go"), filepath.Join(dir, "stdin.log")
	wrapper := filepath.Join(dir, "claude")
	var real string
	h := agenttest.Start(t, agenttest.Options{Config: func(c *agent.Config) {
		real = c.Executable
		c.Executable = wrapper
	}})
	script := "#!/bin/sh\ncase \"$*\" in *stream-json*)\n" +
		"  tee '" + stdinLog + "' | { while [ ! -e '" + gate + "' ]; do sleep 0.05; done; exec '" + real + "' \"$@\"; }\n" +
		"  exit;;\nesac\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	h.API().Script(fakeapi.Text("Answered."))
	sid := h.NewSession(h.Sandbox.WorkDir)
	done := make(chan error, 1)
	go func() {
		_, err := h.Prompt(sid, text)
		done <- err
	}()
	var lines []string
	h.WaitFor("the prompt on the CLI's stdin", 20*time.Second, func() bool {
		b, _ := os.ReadFile(stdinLog)
		lines = strings.Split(strings.TrimSpace(string(b)), "\n")
		return strings.Contains(string(b), "the first prompt")
	})
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the turn did not end")
	}
	if got := h.AgentText(sid); !strings.Contains(got, "Answered.") {
		t.Errorf("agent text %q", got)
	}
	return lines
}
