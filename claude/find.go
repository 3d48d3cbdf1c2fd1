package claude

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// depsCLI is where scripts/install-deps.sh puts the pinned CLI, relative to
// the repository root (or to $CLAUDE_AGENT_ACP_DEPS without the ".deps").
var depsCLI = filepath.Join(".deps", "node_modules", ".bin", "claude")

// agentModule is the module path of the agent's own source tree; a
// checkout's go.mod names it.
const agentModule = "github.com/claude-agent-acp/claude-agent-acp"

// FindExecutable locates the Claude Code CLI. In order it tries
//
//  1. $CLAUDE_CODE_EXECUTABLE: an absolute path, or a bare command name
//     looked up on PATH as in 2 (an error if it is relative, not found or
//     not executable: a misconfiguration should not silently pick another
//     CLI),
//  2. `claude` on $PATH, absolute entries only (a PATH entry such as "."
//     or "node_modules/.bin" would name a file of whatever directory the
//     agent was started in),
//  3. $CLAUDE_AGENT_ACP_DEPS/node_modules/.bin/claude: the project's test
//     install, found only through this explicit setting (make test sets it),
//  4. locations tied to the agent's own installation, from its executable
//     with symlinks resolved: `claude` in the same directory (a package
//     that ships the CLI beside the agent), and, when the executable is
//     <checkout>/bin/claude-agent-acp built by `make build` in the agent's
//     own source checkout (its go.mod names this module),
//     <checkout>/.deps/node_modules/.bin/claude.
//
// Nothing is looked up relative to the working directory or its parents:
// an editor starts the agent inside repositories nobody vetted, and a
// repository that ships .deps/node_modules/.bin/claude (or any other
// `claude`) must not get its program run. The error, when nothing is found,
// wraps [ErrNotFound] and says how to fix it.
func FindExecutable() (string, error) {
	f, err := Locate()
	return f.Path, err
}

// Located is a Claude Code CLI that FindExecutable found, and how.
type Located struct {
	Path string
	// How names the rule that found it, for a person: "on PATH", "in
	// CLAUDE_CODE_EXECUTABLE", "beside this binary", ...
	How string
	// TestInstall marks the pinned CLI that scripts/install-deps.sh puts
	// in a checkout's .deps for the tests (rules 3 and 4), which is not
	// meant for real use.
	TestInstall bool
}

// Locate is FindExecutable, saying which rule found the CLI (for doctor).
func Locate() (Located, error) {
	exe, err := os.Executable()
	if err != nil {
		exe = ""
	}
	return locate(exe)
}

// findExecutable is FindExecutable for an agent whose executable is self
// ("" when unknown).
func findExecutable(self string) (string, error) {
	f, err := locate(self)
	return f.Path, err
}

// locate is Locate for an agent whose executable is self ("" when
// unknown).
func locate(self string) (Located, error) {
	if p := os.Getenv("CLAUDE_CODE_EXECUTABLE"); p != "" {
		switch {
		case filepath.IsAbs(p):
		case !strings.ContainsRune(p, filepath.Separator) && !strings.ContainsRune(p, '/'):
			// A bare command name: looked up on PATH, never in the
			// working directory.
			found, err := exec.LookPath(p)
			if err != nil || !filepath.IsAbs(found) {
				return Located{}, fmt.Errorf("claude: CLAUDE_CODE_EXECUTABLE is not usable: %q is not on PATH", p)
			}
			p = found
		default:
			return Located{}, errors.New("claude: CLAUDE_CODE_EXECUTABLE is not usable: it must be an absolute path (a relative one would name a file of the working directory)")
		}
		if err := checkExecutable(p); err != nil {
			return Located{}, fmt.Errorf("claude: CLAUDE_CODE_EXECUTABLE is not usable: %w", err)
		}
		return Located{Path: p, How: "in CLAUDE_CODE_EXECUTABLE"}, nil
	}
	// exec.LookPath already refuses a result relative to the working
	// directory (exec.ErrDot) unless GODEBUG=execerrdot=0; the IsAbs check
	// holds either way.
	if p, err := exec.LookPath("claude"); err == nil && filepath.IsAbs(p) {
		return Located{Path: p, How: "on PATH"}, nil
	}
	if d := os.Getenv("CLAUDE_AGENT_ACP_DEPS"); d != "" && filepath.IsAbs(d) {
		p := filepath.Join(d, "node_modules", ".bin", "claude")
		if checkExecutable(p) == nil {
			return Located{Path: p, How: "through CLAUDE_AGENT_ACP_DEPS (the pinned test install)", TestInstall: true}, nil
		}
	}
	for i, p := range installedNextTo(self) {
		if checkExecutable(p) == nil {
			if i == 0 {
				return Located{Path: p, How: "beside this binary"}, nil
			}
			return Located{Path: p, How: "in the .deps of this binary's source checkout (the pinned test install)", TestInstall: true}, nil
		}
	}
	return Located{}, ErrNotFound
}

// installedNextTo lists the CLI locations tied to the agent executable
// self, in order (see FindExecutable).
func installedNextTo(self string) []string {
	if self == "" || !filepath.IsAbs(self) {
		return nil
	}
	if real, err := filepath.EvalSymlinks(self); err == nil {
		self = real
	}
	dir := filepath.Dir(self)
	paths := []string{filepath.Join(dir, "claude")}
	if filepath.Base(dir) == "bin" && isAgentCheckout(filepath.Dir(dir)) {
		paths = append(paths, filepath.Join(filepath.Dir(dir), depsCLI))
	}
	return paths
}

// isAgentCheckout reports whether dir is a source checkout of the agent:
// its go.mod declares the agent's module.
func isAgentCheckout(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`) == agentModule
		}
	}
	return false
}

// checkExecutable reports whether p is an existing, executable regular file
// (following symlinks).
func checkExecutable(p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	if st.IsDir() {
		return errors.New("is a directory")
	}
	if !isExecutable(p, st) {
		return errors.New("not executable")
	}
	return nil
}

// versionTimeout bounds `claude --version` when ctx has no deadline.
const versionTimeout = 10 * time.Second

// Version runs `path --version` and returns the version number it prints
// (for example "2.1.332"). It fails with a clear error, not a hang, when the
// CLI is missing, broken, or does not answer within ctx's deadline (10 s
// when ctx has none).
func Version(ctx context.Context, path string) (string, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, versionTimeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, path, "--version")
	setProcessGroup(cmd)
	cmd.Cancel = func() error {
		signalGroup(cmd.Process.Pid, syscall.SIGKILL)
		return nil
	}
	cmd.WaitDelay = time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = newLimitedWriter(&stderr, stderrTailSize)
	err := runProcess(cmd)
	if ctx.Err() != nil {
		return "", fmt.Errorf("claude: `claude --version` did not finish: %w", ctx.Err())
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg != "" {
			return "", fmt.Errorf("claude: `claude --version` failed: %w: %s", err, msg)
		}
		return "", fmt.Errorf("claude: `claude --version` failed: %w", err)
	}
	out := strings.TrimSpace(stdout.String())
	v, _, _ := strings.Cut(out, " ")
	if v == "" || !strings.ContainsAny(v[:1], "0123456789") {
		return "", fmt.Errorf("claude: unexpected `claude --version` output %q", truncate(out, 80))
	}
	return v, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// limitedWriter keeps the first n bytes written and discards the rest.
type limitedWriter struct {
	w *bytes.Buffer
	n int
}

func newLimitedWriter(w *bytes.Buffer, n int) *limitedWriter { return &limitedWriter{w, n} }

func (l *limitedWriter) Write(p []byte) (int, error) {
	if room := l.n - l.w.Len(); room > 0 {
		if len(p) > room {
			l.w.Write(p[:room])
		} else {
			l.w.Write(p)
		}
	}
	return len(p), nil
}
