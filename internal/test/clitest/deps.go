package clitest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// RepoRoot returns the repository root: the nearest directory at or above the working
// directory that holds go.mod. Tests run in their package's directory, so this finds
// the same root from every package.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// DepsDir returns where scripts/install-deps.sh puts the npm packages (the CLI, acpx,
// the TypeScript reference): $CLAUDE_AGENT_ACP_DEPS, else .deps under [RepoRoot].
func DepsDir() (string, error) {
	if d := os.Getenv("CLAUDE_AGENT_ACP_DEPS"); d != "" {
		return d, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, ".deps"), nil
}

// Dep returns the absolute path of rel (for example "node_modules/.bin/acpx") under
// [DepsDir]. When it is missing the test is skipped, or fails under CI, the same way
// as [CLIPath]; what names the dependency in that message.
func Dep(t testing.TB, what, rel string) string {
	t.Helper()
	dir, err := DepsDir()
	var path string
	if err == nil {
		path, err = filepath.Abs(filepath.Join(dir, rel))
	}
	if err == nil {
		_, err = os.Stat(path)
	}
	if err != nil {
		missing(t, fmt.Sprintf("%s not installed (%v); run make deps", what, err))
	}
	return path
}

// missing skips the test, or fails it when $CI is set: CI must not silently skip the
// tests that need the installed dependencies.
func missing(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}
