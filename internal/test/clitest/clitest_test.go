package clitest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestEnvIsHermetic checks that Env carries the required settings, fresh directories,
// and nothing from the outer environment but PATH.
func TestEnvIsHermetic(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-real-key")
	t.Setenv("ANTHROPIC_MODEL", "claude-outer")
	t.Setenv("CLAUDE_CODE_OAUTH_TOKEN", "outer-token")
	t.Setenv("CLAUDE_CODE_ENTRYPOINT", "outer")
	t.Setenv("SOME_OTHER_VAR", "x")
	env := Env(t, "http://127.0.0.1:1")

	got := map[string]string{}
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			t.Errorf("malformed entry %q", kv)
		}
		if _, dup := got[k]; dup {
			t.Errorf("duplicate %s", k)
		}
		got[k] = v
	}
	want := map[string]string{
		"ANTHROPIC_BASE_URL": "http://127.0.0.1:1", "ANTHROPIC_API_KEY": "sk-fake",
		"CLAUDE_CODE_MAX_RETRIES": "0", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
		"DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1",
		"CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS": "1", "CLAUDE_CODE_DISABLE_REFUSAL_RETRY": "1",
		"CLAUDE_CODE_DISABLE_REFUSAL_FALLBACK": "1", "IS_SANDBOX": "1", "TERM": "dumb",
		"PATH": os.Getenv("PATH"),
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	for _, k := range []string{"ANTHROPIC_MODEL", "CLAUDE_CODE_OAUTH_TOKEN", "CLAUDE_CODE_ENTRYPOINT", "SOME_OTHER_VAR"} {
		if _, ok := got[k]; ok {
			t.Errorf("%s leaked from the outer environment", k)
		}
	}
	home, cfg := got["HOME"], got["CLAUDE_CONFIG_DIR"]
	if home == os.Getenv("HOME") || cfg != filepath.Join(home, ".claude") {
		t.Errorf("HOME %q, CLAUDE_CONFIG_DIR %q: want a fresh home and a config dir inside it", home, cfg)
	}
	if fi, err := os.Stat(cfg); err != nil || !fi.IsDir() {
		t.Errorf("config dir missing: %v", err)
	}
	if other := Env(t, "x"); slices.Contains(other, "HOME="+home) {
		t.Error("two Env calls share a HOME")
	}
}

// TestWith checks overriding, adding and removing variables without touching Env.
func TestWith(t *testing.T) {
	sb := &Sandbox{Env: []string{"A=1", "B=2", "C=3"}}
	got := sb.With("B=20", "D=4", "C")
	if want := []string{"A=1", "B=20", "D=4"}; !slices.Equal(got, want) {
		t.Errorf("With = %q, want %q", got, want)
	}
	if want := []string{"A=1", "B=2", "C=3"}; !slices.Equal(sb.Env, want) {
		t.Errorf("Env changed to %q", sb.Env)
	}
}

// TestFindCLI checks the lookup order and the errors for a missing or non-executable CLI.
func TestFindCLI(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "node_modules", ".bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(bin, "claude")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CLAUDE_CODE_EXECUTABLE", "")
	t.Setenv("CLAUDE_AGENT_ACP_DEPS", dir)
	if got, err := findCLI(); err != nil || got != exe {
		t.Errorf("deps dir: %q, %v", got, err)
	}
	t.Setenv("CLAUDE_CODE_EXECUTABLE", filepath.Join(dir, "missing"))
	if _, err := findCLI(); err == nil {
		t.Error("missing executable accepted")
	}
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CLAUDE_CODE_EXECUTABLE", plain)
	if _, err := findCLI(); err == nil {
		t.Error("non-executable file accepted")
	}
	t.Setenv("CLAUDE_CODE_EXECUTABLE", "")
	t.Setenv("CLAUDE_AGENT_ACP_DEPS", "")
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Errorf("repo root %q has no go.mod", root)
	}
}
