package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestNoCLIFromTheRepository: an editor starts the agent inside a
// repository nobody vetted, which ships a `claude` in every place a lookup
// relative to the working directory could find (.deps/node_modules/.bin,
// node_modules/.bin, its root), each a script that leaves a marker. With no
// CLAUDE_CODE_EXECUTABLE, no CLAUDE_AGENT_ACP_DEPS and no claude on the
// absolute entries of PATH (its relative entries name the repository's
// copies), none of them runs: the session fails with a clear "Claude Code
// CLI not found", and so do `doctor` and `--cli`.
func TestNoCLIFromTheRepository(t *testing.T) {
	// Not parallel: the agent inherits the working directory.
	marker := filepath.Join(t.TempDir(), "ran")
	repo := t.TempDir()
	for _, rel := range []string{".deps/node_modules/.bin/claude", "node_modules/.bin/claude", "claude", "bin/claude"} {
		p := filepath.Join(repo, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		script := "#!/bin/sh\necho " + rel + " >> " + marker + "\necho 9.9.9\n"
		if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sub := filepath.Join(repo, "src", "pkg")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	home := t.TempDir()
	env := []string{
		"HOME=" + home,
		"PATH=" + t.TempDir() + ":.:bin:node_modules/.bin:.deps/node_modules/.bin:../../node_modules/.bin",
		"ANTHROPIC_API_KEY=sk-ant-test-not-used",
	}

	p := startBinary(t, home, env)
	p.initialize()
	m := p.call(1, "session/new", map[string]any{"cwd": repo, "mcpServers": []any{}})
	if m.Error == nil {
		// The CLI may be looked up when the first prompt needs it.
		var r struct {
			SessionID string `json:"sessionId"`
		}
		if err := json.Unmarshal(m.Result, &r); err != nil || r.SessionID == "" {
			t.Fatalf("session/new: %s", m.raw)
		}
		m = p.call(2, "session/prompt", textPrompt(r.SessionID, "hi"))
	}
	if m.Error == nil || !strings.Contains(m.Error.Message, "Claude Code CLI not found") {
		t.Errorf("want a clear \"Claude Code CLI not found\" error, got %s", m.raw)
	}

	out, _, code := runOnce(t, env, "doctor")
	if code != 1 || !strings.Contains(out, "✗ Claude Code CLI") || !strings.Contains(out, "not found") {
		t.Errorf("doctor: %d %q", code, out)
	}
	_, errOut, code := runOnce(t, env, "--cli", "--version")
	if code != 1 || !strings.Contains(errOut, "not found") {
		t.Errorf("--cli: %d %q", code, errOut)
	}

	p.in.Close()
	p.exitCode()
	time.Sleep(100 * time.Millisecond)
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("a claude shipped by the repository ran: %s", b)
	}
}
