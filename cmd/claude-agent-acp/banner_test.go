package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestBannerOnlyOnATerminal: run with stdin on a character device (the
// null device stands in for a terminal: same file mode), the agent says
// what it is and how to try it, on stderr; on a pipe it says nothing.
func TestBannerOnlyOnATerminal(t *testing.T) {
	t.Parallel()
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	for _, tt := range []struct {
		name   string
		stdin  func(*exec.Cmd)
		banner bool
	}{
		{"terminal", func(c *exec.Cmd) { c.Stdin = null }, true},
		{"pipe", func(c *exec.Cmd) { c.Stdin = strings.NewReader("") }, false},
	} {
		cmd := exec.Command(agentBin)
		tt.stdin(cmd)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s", tt.name, err, stderr.String())
		}
		if stdout.Len() != 0 {
			t.Errorf("%s: stdout %q (it is the protocol's)", tt.name, stdout.String())
		}
		got := stderr.String()
		if !tt.banner {
			if got != "" {
				t.Errorf("%s: stderr %q", tt.name, got)
			}
			continue
		}
		lines := strings.Split(strings.TrimSpace(got), "\n")
		if len(lines) != 2 || !strings.Contains(lines[0], "ACP agent for Claude Code") ||
			!strings.Contains(lines[1], "claude-agent-acp doctor") || !strings.Contains(lines[1], "npx acpx --agent ") {
			t.Errorf("%s: banner %q", tt.name, got)
		}
	}
}
