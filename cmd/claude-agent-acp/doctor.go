package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// doctor tells a person whether the agent can work here: is the CLI found,
// which version, and are credentials present. It never prints secrets.
func doctor(w io.Writer) int {
	ok := true
	fmt.Fprintln(w, "claude-agent-acp", agentVersion())
	exe, err := claude.FindExecutable()
	if err != nil {
		fmt.Fprintln(w, "✗ Claude Code CLI:", err)
		fmt.Fprintln(w, "  Install it with `npm install -g @anthropic-ai/claude-code`, or set CLAUDE_CODE_EXECUTABLE.")
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	v, err := claude.Version(ctx, exe)
	if err != nil {
		fmt.Fprintln(w, "✗ Claude Code CLI found but not working:", err)
		ok = false
	} else {
		fmt.Fprintln(w, "✓ Claude Code CLI", v)
	}
	switch src := credentialSource(); src {
	case "":
		fmt.Fprintln(w, "✗ No credentials found. Run `claude /login`, or set ANTHROPIC_API_KEY.")
		ok = false
	default:
		fmt.Fprintln(w, "✓ Credentials:", src)
	}
	if !ok {
		return 1
	}
	return 0
}

// credentialSource names where credentials come from, without values.
func credentialSource() string {
	for _, k := range []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"} {
		if os.Getenv(k) != "" {
			return k + " is set"
		}
	}
	for _, k := range []string{"CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX"} {
		if os.Getenv(k) != "" {
			return k + " is set (cloud provider credentials)"
		}
	}
	dir := os.Getenv("CLAUDE_CONFIG_DIR")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".claude")
	}
	if _, err := os.Stat(filepath.Join(dir, ".credentials.json")); err == nil {
		return "a Claude login in the Claude config directory"
	}
	return ""
}
