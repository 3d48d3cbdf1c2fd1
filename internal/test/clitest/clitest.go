// Package clitest runs the real, pinned Claude Code CLI hermetically in tests: against a
// [fakeapi.Server] on 127.0.0.1, with a fresh HOME and config directory, no inherited
// ANTHROPIC_* or CLAUDE_* variables, and no leftover processes.
//
//	sb := clitest.NewSandbox(t)
//	sb.API.Script(fakeapi.Text("hi"))
//	p := sb.StartStreamJSON(ctx, t)
//	p.SendUser("say hi")
//	frames, err := p.ReadUntil(ctx, "result")
//
// The CLI is found by [CLIPath]; `make deps` (scripts/install-deps.sh) installs it.
package clitest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clienv"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// ownerVar marks the environment of every CLI started through this package, so that
// [NoOrphans] can tell this test's processes from those of tests running in parallel.
const ownerVar = "CLITEST_OWNER"

// CLIPath returns the pinned real claude executable: $CLAUDE_CODE_EXECUTABLE, else
// node_modules/.bin/claude under [DepsDir]. When it is missing the test is skipped, or
// fails under CI ($CI set), since CI must not silently skip the real-CLI tests.
func CLIPath(t testing.TB) string {
	t.Helper()
	path, err := findCLI()
	if err != nil {
		missing(t, fmt.Sprintf("real claude CLI not available (%v); run make deps", err))
	}
	return path
}

// findCLI resolves the CLI location without touching a test.
func findCLI() (string, error) {
	path := os.Getenv("CLAUDE_CODE_EXECUTABLE")
	if path == "" {
		deps, err := DepsDir()
		if err != nil {
			return "", err
		}
		path = filepath.Join(deps, "node_modules", ".bin", "claude")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	info, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	if info.IsDir() || info.Mode()&0o111 == 0 {
		return "", fmt.Errorf("%s is not an executable file", filepath.Base(abs))
	}
	return abs, nil
}

// hermeticVars are shared with the other harness (see internal/test/clienv).
var hermeticVars = clienv.Hermetic

// Env returns a complete, minimal environment for running the CLI against apiURL: the
// outer PATH, a fresh HOME and CLAUDE_CONFIG_DIR, ANTHROPIC_BASE_URL and the hermetic
// settings. Nothing else is inherited, in particular no ANTHROPIC_* or CLAUDE_* variable
// of the developer's shell, so a real key or config can never leak into a test.
func Env(t testing.TB, apiURL string) []string {
	t.Helper()
	env, _, _ := newEnv(t, apiURL)
	return env
}

func newEnv(t testing.TB, apiURL string) (env []string, home, configDir string) {
	home = t.TempDir()
	configDir = filepath.Join(home, ".claude")
	if err := os.MkdirAll(configDir, 0o700); err != nil {
		t.Fatalf("clitest: %v", err)
	}
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	env = append([]string{
		"PATH=" + path,
		"HOME=" + home,
		"CLAUDE_CONFIG_DIR=" + configDir,
		"ANTHROPIC_BASE_URL=" + apiURL,
		ownerVar + "=" + ownerMark(t),
		// The CLI runs under a reaper, which is the test binary itself
		// (claude.ReaperMain): built with -race, it would sleep a second
		// at exit (the race runtime's atexit_sleep_ms), and every CLI's
		// end with it: a second per session closed, per test.
		"GORACE=atexit_sleep_ms=0",
	}, hermeticVars...)
	return env, home, configDir
}

// ownerMark identifies this test process and test in a child's environment.
func ownerMark(t testing.TB) string { return fmt.Sprintf("%d/%s", os.Getpid(), t.Name()) }

// Sandbox is everything one test needs to run the real CLI: a fake API, fresh
// directories and the environment that ties them together.
type Sandbox struct {
	API       *fakeapi.Server
	Home      string // the CLI's HOME
	ConfigDir string // CLAUDE_CONFIG_DIR: transcripts go to ConfigDir/projects/…
	WorkDir   string // a fresh directory to use as the CLI's cwd
	Env       []string
	CLI       string // the CLI executable
}

// NewSandbox finds the CLI (skipping the test when it is missing, see [CLIPath]) and
// starts a fake API; both are cleaned up with the test.
func NewSandbox(t testing.TB) *Sandbox {
	t.Helper()
	cli := CLIPath(t)
	api := fakeapi.New(t)
	env, home, configDir := newEnv(t, api.URL())
	work := filepath.Join(t.TempDir(), "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatalf("clitest: %v", err)
	}
	return &Sandbox{API: api, Home: home, ConfigDir: configDir, WorkDir: work, Env: env, CLI: cli}
}

// With returns a copy of Env with changes: "KEY=VALUE" sets or replaces a variable, and a
// bare "KEY" removes it.
func (s *Sandbox) With(kv ...string) []string {
	return withEnv(s.Env, kv...)
}

func withEnv(env []string, kv ...string) []string {
	out := append([]string(nil), env...)
	for _, e := range kv {
		key, _, set := strings.Cut(e, "=")
		out = removeKey(out, key)
		if set {
			out = append(out, e)
		}
	}
	return out
}

func removeKey(env []string, key string) []string {
	out := env[:0]
	for _, e := range env {
		if k, _, _ := strings.Cut(e, "="); k != key {
			out = append(out, e)
		}
	}
	return out
}

// Command prepares the CLI with the sandbox's environment and work directory, in its own
// process group. When ctx ends the whole group is killed, and at test cleanup any group
// still alive is killed and awaited, so no test leaves a claude (or its tools) behind.
func (s *Sandbox) Command(ctx context.Context, t testing.TB, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, s.CLI, args...)
	cmd.Env = s.Env
	cmd.Dir = s.WorkDir
	SetGroup(cmd)
	cmd.Cancel = func() error { return KillGroup(cmd) }
	cmd.WaitDelay = 5 * time.Second
	t.Cleanup(func() {
		if cmd.Process == nil {
			return
		}
		_ = KillGroup(cmd)
		waitGone(cmd.Process.Pid, 5*time.Second)
	})
	return cmd
}
