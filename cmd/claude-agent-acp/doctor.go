package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// doctor tells a person whether the agent can work here: is the CLI found,
// which version, and are credentials present. It never prints secrets.
func doctor(w io.Writer) int {
	ok := true
	fmt.Fprintln(w, "claude-agent-acp", agentVersion())
	found, err := claude.Locate()
	switch {
	case errors.Is(err, claude.ErrNotFound):
		fmt.Fprintln(w, "✗ Claude Code CLI not found: CLAUDE_CODE_EXECUTABLE is not set, and `claude` is not on PATH or beside this binary.")
		fmt.Fprintln(w, "  To fix it, "+installHint)
		return 1
	case err != nil:
		fmt.Fprintln(w, "✗ Claude Code CLI:", strings.TrimPrefix(err.Error(), "claude: "))
		fmt.Fprintln(w, "  To fix it, "+installHint)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	v, err := claude.Version(ctx, found.Path)
	if err != nil {
		fmt.Fprintln(w, "✗ Claude Code CLI found but not working:", err)
		ok = false
	} else {
		fmt.Fprintln(w, "✓ Claude Code CLI", v)
	}
	fmt.Fprintf(w, "  found %s: %s\n", found.How, found.Path)
	if found.TestInstall {
		fmt.Fprintln(w, "  This is the CLI the tests install (make deps), pinned to one version; editors that start this")
		fmt.Fprintln(w, "  binary get it too. For real use, "+installHint)
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

// installHint says how to get a CLI the agent finds.
const installHint = "install Claude Code (npm install -g @anthropic-ai/claude-code) so that `claude` is on PATH, or set CLAUDE_CODE_EXECUTABLE to its absolute path."

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
