package agent_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// TestFirstPromptFollowsTheHandshake: a session's first prompt goes to its
// CLI right behind the initialize and get_settings requests, without
// waiting for their answers (issue 16: the cold first answer). The real
// CLI runs behind a wrapper that copies its stdin to a log and holds the
// CLI back until the test opens a gate: before the CLI has answered
// anything, the log already holds the handshake and then the prompt. If
// the mode changed after the CLI was spawned, the prompt waits instead,
// and the change reaches the CLI before it; so does a prompt too big for
// the pipe's buffer. Either way, once the gate
// opens, the turn runs as usual.
func TestFirstPromptFollowsTheHandshake(t *testing.T) {
	t.Parallel()
	t.Run("pipelined", func(t *testing.T) {
		lines := gatedFirstPrompt(t, false, "the first prompt")
		want := []string{`"subtype":"initialize"`, `"subtype":"get_settings"`, `"the first prompt"`}
		if len(lines) != len(want) {
			t.Fatalf("the CLI's stdin before it answered anything:\n%s\nwant the handshake, then the prompt", strings.Join(lines, "\n"))
		}
		for i, w := range want {
			if !strings.Contains(lines[i], w) {
				t.Errorf("line %d of the CLI's stdin: %.200s; want %s", i+1, lines[i], w)
			}
		}
	})
	t.Run("mode changed while starting", func(t *testing.T) {
		lines := gatedFirstPrompt(t, true, "the first prompt")
		mode, prompt := -1, -1
		for i, l := range lines {
			if strings.Contains(l, `"set_permission_mode"`) && strings.Contains(l, `"acceptEdits"`) && mode < 0 {
				mode = i
			}
			if strings.Contains(l, `"the first prompt"`) && prompt < 0 {
				prompt = i
			}
		}
		if mode < 0 || prompt < mode {
			t.Fatalf("the CLI's stdin:\n%s\nwant the mode change before the prompt", strings.Join(lines, "\n"))
		}
	})
	t.Run("behind a held prompt", func(t *testing.T) {
		// A prompt that comes while an earlier one is held (too big to
		// wait in the pipe) is held too: the CLI gets them in order.
		lines := gatedPrompts(t, "the first prompt "+strings.Repeat("x", 40<<10), "the second prompt")
		first, second := -1, -1
		for i, l := range lines {
			if strings.Contains(l, `"the first prompt `) && first < 0 {
				first = i
			}
			if strings.Contains(l, `"the second prompt"`) && second < 0 {
				second = i
			}
		}
		if first < 0 || second < first {
			t.Fatalf("the CLI's stdin:\n%.2000s\nwant the first prompt before the second", strings.Join(lines, "\n"))
		}
	})
	t.Run("too big to wait in the pipe", func(t *testing.T) {
		// More than the pipe's buffer could hold while the CLI does not
		// read: written once the CLI is up, so the session never waits.
		gatedFirstPrompt(t, false, "the first prompt "+strings.Repeat("x", 40<<10))
	})
}

// gatedFirstPrompt runs a first prompt against a gated CLI (see
// TestFirstPromptFollowsTheHandshake) and returns the CLI's stdin lines as
// they were when the prompt reached it.
func gatedFirstPrompt(t *testing.T, changeMode bool, text string) []string {
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
	if changeMode {
		var sm acp.SetSessionModeResponse
		if err := h.Client.Call(h.Ctx(), acp.MethodSessionSetMode, &acp.SetSessionModeRequest{SessionID: acp.SessionID(sid), ModeID: "acceptEdits"}, &sm); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := h.Prompt(sid, text)
		done <- err
	}()
	if held := changeMode || len(text) > 32<<10; held {
		// Held: nothing but the handshake reaches the CLI before it answers.
		time.Sleep(300 * time.Millisecond)
		if b, _ := os.ReadFile(stdinLog); strings.Contains(string(b), "the first prompt") {
			t.Errorf("the prompt went to the CLI before it had answered (it should have been held):\n%.300s", b)
		}
		if err := os.WriteFile(gate, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
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

// gatedPrompts sends a big first prompt (held while the CLI starts) and,
// once the agent has queued it, a small second one, against a gated CLI
// (see TestFirstPromptFollowsTheHandshake). Neither may reach the CLI
// before it answers; it returns the CLI's stdin lines once both turns
// have ended.
func gatedPrompts(t *testing.T, big, small string) []string {
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
	h.API().Script(fakeapi.Text("Answered."), fakeapi.Text("Answered again."))
	sid := h.NewSession(h.Sandbox.WorkDir)
	done := make(chan error, 2)
	go func() {
		_, err := h.Prompt(sid, big)
		done <- err
	}()
	// The handshake is on the CLI's stdin once the session has spawned it
	// and queued the big prompt behind it.
	h.WaitFor("the handshake on the CLI's stdin", 20*time.Second, func() bool {
		b, _ := os.ReadFile(stdinLog)
		return strings.Contains(string(b), `"get_settings"`)
	})
	time.Sleep(100 * time.Millisecond)
	go func() {
		_, err := h.Prompt(sid, small)
		done <- err
	}()
	time.Sleep(300 * time.Millisecond)
	if b, _ := os.ReadFile(stdinLog); strings.Contains(string(b), "prompt") {
		t.Errorf("a prompt went to the CLI before it had answered (both should be held):\n%.300s", b)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(60 * time.Second):
			t.Fatal("the turns did not end")
		}
	}
	b, err := os.ReadFile(stdinLog)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}
