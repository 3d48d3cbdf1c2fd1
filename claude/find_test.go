package claude

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
)

// writeScript writes an executable shell script.
func writeScript(t *testing.T, path, body string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestFindExecutable(t *testing.T) {
	// Not parallel: it changes the environment and the working directory.
	dir := t.TempDir()
	script := writeScript(t, filepath.Join(dir, "bin", "claude"), "exit 0")
	notExec := filepath.Join(dir, "plain")
	os.WriteFile(notExec, nil, 0o644)
	deps := filepath.Join(dir, "deps")
	depsCLI := writeScript(t, filepath.Join(deps, "node_modules", ".bin", "claude"), "exit 0")
	// A repository nobody vetted ships a claude in every place a lookup
	// relative to the working directory could find.
	repo := filepath.Join(dir, "repo")
	writeScript(t, filepath.Join(repo, ".deps", "node_modules", ".bin", "claude"), "exit 0")
	writeScript(t, filepath.Join(repo, "node_modules", ".bin", "claude"), "exit 0")
	writeScript(t, filepath.Join(repo, "claude"), "exit 0")
	nested := filepath.Join(repo, "a", "b")
	os.MkdirAll(nested, 0o755)
	empty := filepath.Join(dir, "empty")
	os.MkdirAll(empty, 0o755)

	for _, tt := range []struct {
		name, exe, path, deps, wd, want string
		wantErr                         bool
	}{
		{name: "env var", exe: script, path: "", wd: empty, want: script},
		{name: "env var missing", exe: filepath.Join(dir, "nope"), wd: empty, wantErr: true},
		{name: "env var not executable", exe: notExec, wd: empty, wantErr: true},
		{name: "env var command name on PATH", exe: "claude", path: filepath.Dir(script), wd: repo, want: script},
		{name: "env var command name not on PATH", exe: "claude", wd: repo, wantErr: true},
		{name: "env var relative path", exe: "./claude", wd: repo, wantErr: true},
		{name: "env var relative dir", exe: "node_modules/.bin/claude", wd: repo, wantErr: true},
		{name: "PATH", path: filepath.Dir(script), wd: empty, want: script},
		{name: "deps env", deps: deps, wd: empty, want: depsCLI},
		{name: "relative deps env", deps: ".deps", wd: repo, wantErr: true},
		{name: "not from the working directory", wd: repo, wantErr: true},
		{name: "not from its parents", wd: nested, wantErr: true},
		{name: "not from relative PATH entries", path: ".:node_modules/.bin:.deps/node_modules/.bin", wd: repo, wantErr: true},
		{name: "nothing", wd: empty, wantErr: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CLAUDE_CODE_EXECUTABLE", tt.exe)
			t.Setenv("PATH", tt.path)
			t.Setenv("CLAUDE_AGENT_ACP_DEPS", tt.deps)
			t.Chdir(tt.wd)
			got, err := FindExecutable()
			if tt.wantErr {
				if err == nil {
					t.Errorf("found %s", got)
				}
				if tt.exe == "" && !errors.Is(err, ErrNotFound) {
					t.Errorf("err = %v", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestFindExecutableNextToAgent: the locations tied to the agent's own
// installation, from its (symlink-resolved) executable.
func TestFindExecutableNextToAgent(t *testing.T) {
	t.Setenv("CLAUDE_CODE_EXECUTABLE", "")
	t.Setenv("PATH", "")
	t.Setenv("CLAUDE_AGENT_ACP_DEPS", "")
	dir := t.TempDir()

	// A package that ships the CLI beside the agent; the agent is reached
	// through a symlink elsewhere.
	pkg := filepath.Join(dir, "pkg")
	agent := writeScript(t, filepath.Join(pkg, "claude-agent-acp"), "exit 0")
	beside := writeScript(t, filepath.Join(pkg, "claude"), "exit 0")
	link := filepath.Join(dir, "links", "claude-agent-acp")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(agent, link); err != nil {
		t.Fatal(err)
	}
	if got, err := findExecutable(link); err != nil || got != beside {
		t.Errorf("beside the agent: %q, %v; want %q", got, err, beside)
	}

	// The agent's own checkout, built with make build.
	checkout := filepath.Join(dir, "checkout")
	os.MkdirAll(checkout, 0o755)
	os.WriteFile(filepath.Join(checkout, "go.mod"), []byte("module "+agentModule+"\n\ngo 1.26\n"), 0o644)
	built := writeScript(t, filepath.Join(checkout, "bin", "claude-agent-acp"), "exit 0")
	pinned := writeScript(t, filepath.Join(checkout, ".deps", "node_modules", ".bin", "claude"), "exit 0")
	if got, err := findExecutable(built); err != nil || got != pinned {
		t.Errorf("own checkout: %q, %v; want %q", got, err, pinned)
	}

	// Another project's bin/ (its go.mod names another module), or a bin/
	// without go.mod, or the agent deeper inside a checkout: no walking.
	other := filepath.Join(dir, "other")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "go.mod"), []byte("module example.com/other\n"), 0o644)
	writeScript(t, filepath.Join(other, ".deps", "node_modules", ".bin", "claude"), "exit 0")
	for _, self := range []string{
		writeScript(t, filepath.Join(other, "bin", "claude-agent-acp"), "exit 0"),
		writeScript(t, filepath.Join(checkout, "bin", "x", "claude-agent-acp"), "exit 0"),
		writeScript(t, filepath.Join(checkout, "cmd", "claude-agent-acp", "claude-agent-acp"), "exit 0"),
		"",
	} {
		if got, err := findExecutable(self); !errors.Is(err, ErrNotFound) {
			t.Errorf("agent at %q: found %q, %v", self, got, err)
		}
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ok := writeScript(t, filepath.Join(dir, "ok"), `echo "2.1.332 (Claude Code)"`)
	broken := writeScript(t, filepath.Join(dir, "broken"), `echo "cannot load libfoo" >&2; exit 3`)
	garbage := writeScript(t, filepath.Join(dir, "garbage"), `echo hello`)
	hang := writeScript(t, filepath.Join(dir, "hang"), `sleep 300 & wait`)

	if v, err := Version(context.Background(), ok); err != nil || v != "2.1.332" {
		t.Errorf("ok: %q, %v", v, err)
	}
	if _, err := Version(context.Background(), broken); err == nil || !strings.Contains(err.Error(), "cannot load libfoo") {
		t.Errorf("broken: %v", err)
	}
	if _, err := Version(context.Background(), garbage); err == nil || !strings.Contains(err.Error(), "unexpected") {
		t.Errorf("garbage: %v", err)
	}
	if _, err := Version(context.Background(), filepath.Join(dir, "missing")); err == nil {
		t.Error("missing: no error")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := Version(ctx, hang); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("hang: %v", err)
	}
}

func TestVersionOfRealCLI(t *testing.T) {
	t.Parallel()
	v, err := Version(context.Background(), clitest.CLIPath(t))
	if err != nil || !strings.Contains(v, ".") {
		t.Errorf("%q, %v", v, err)
	}
}

func TestArgs(t *testing.T) {
	t.Parallel()
	base := "--output-format stream-json --verbose --input-format stream-json"
	for _, tt := range []struct {
		name string
		opts Options
		want string
	}{
		{"zero", Options{}, base},
		{"all", Options{
			Thinking: Thinking{Type: "enabled", BudgetTokens: 1024, Display: "summarized"}, Effort: "high",
			MaxTurns: 5, MaxBudgetUSD: 1.5, Model: "m", Agent: "a", PermissionPromptTool: "mcp__x__y",
			Continue: true, Resume: "r", AllowedTools: []string{"Read", "Bash(ls)"}, DisallowedTools: []string{"AskUserQuestion"},
			Tools: []string{}, SettingSources: []string{"user", "project"}, StrictMCPConfig: true,
			PermissionMode: PermissionPlan, AllowDangerouslySkipPermissions: true, FallbackModel: "f",
			IncludeHookEvents: true, IncludePartialMessages: true, ReplayUserMessages: true,
			AddDirs: []string{"/a", "/b"}, ForkSession: true, ResumeSessionAt: "u", SessionID: "s",
			NoSessionPersistence: true, Settings: `{"x":1}`, ExtraArgs: []string{"--debug"},
		}, base + " --max-thinking-tokens=1024 --thinking-display=summarized --effort=high --max-turns=5" +
			" --max-budget-usd=1.5 --model=m --agent=a --permission-prompt-tool=mcp__x__y --continue --resume=r" +
			" --allowedTools=Read,Bash(ls) --disallowedTools=AskUserQuestion --tools= --setting-sources=user,project" +
			" --strict-mcp-config --permission-mode=plan --allow-dangerously-skip-permissions --fallback-model=f" +
			" --include-hook-events --include-partial-messages --replay-user-messages --add-dir=/a --add-dir=/b" +
			` --fork-session --resume-session-at=u --session-id=s --no-session-persistence --settings {"x":1} --debug`},
		{"adaptive", Options{Thinking: Thinking{Type: "enabled"}}, base + " --thinking=adaptive"},
		{"disabled", Options{Thinking: Thinking{Type: "disabled"}}, base + " --thinking=disabled"},
		{"prompt tool from fallback handler", Options{OnControlRequest: func(context.Context, ControlRequest) (any, error) { return nil, nil }},
			base + " --permission-prompt-tool=stdio"},
	} {
		got, err := tt.opts.args("")
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if diff := cmp.Diff(strings.Split(tt.want, " "), got); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tt.name, diff)
		}
	}
	if _, err := (&Options{Thinking: Thinking{Type: "lots"}}).args(""); err == nil {
		t.Error("bad thinking type accepted")
	}
}

func TestEnv(t *testing.T) {
	t.Parallel()
	o := Options{Entrypoint: "mine"}
	got := o.env([]string{"A=1", "NODE_OPTIONS=x", "DEBUG=y", "CLAUDE_CODE_SDK_READS_SESSION_STATE=0"})
	want := []string{"A=1", "CLAUDE_CODE_SDK_READS_SESSION_STATE=0", "CLAUDE_CODE_ENTRYPOINT=mine", "CLAUDE_CODE_STARTUP_FAILURE_RESULTS=1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	got = (&Options{}).env([]string{"CLAUDE_CODE_ENTRYPOINT=sdk-py"})
	want = []string{"CLAUDE_CODE_ENTRYPOINT=sdk-py", "CLAUDE_CODE_SDK_READS_SESSION_STATE=1", "CLAUDE_CODE_STARTUP_FAILURE_RESULTS=1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}
