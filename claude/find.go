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

// FindExecutable locates the Claude Code CLI. In order it tries
//
//  1. $CLAUDE_CODE_EXECUTABLE (an error if set but not executable: a
//     misconfiguration should not silently pick another CLI),
//  2. `claude` on $PATH,
//  3. $CLAUDE_AGENT_ACP_DEPS/node_modules/.bin/claude,
//  4. .deps/node_modules/.bin/claude in the working directory or any parent,
//  5. the same next to the running executable or in any parent of it.
//
// The last three find the project's own test install. The error, when
// nothing is found, wraps [ErrNotFound] and says how to fix it.
func FindExecutable() (string, error) {
	if p := os.Getenv("CLAUDE_CODE_EXECUTABLE"); p != "" {
		if err := checkExecutable(p); err != nil {
			return "", fmt.Errorf("claude: CLAUDE_CODE_EXECUTABLE is not usable: %w", err)
		}
		return p, nil
	}
	if p, err := exec.LookPath("claude"); err == nil {
		return p, nil
	}
	if d := os.Getenv("CLAUDE_AGENT_ACP_DEPS"); d != "" {
		p := filepath.Join(d, "node_modules", ".bin", "claude")
		if checkExecutable(p) == nil {
			return p, nil
		}
	}
	if wd, err := os.Getwd(); err == nil {
		if p, ok := findUpward(wd); ok {
			return p, nil
		}
	}
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		if p, ok := findUpward(filepath.Dir(exe)); ok {
			return p, nil
		}
	}
	return "", ErrNotFound
}

// findUpward looks for depsCLI in dir and each of its parents.
func findUpward(dir string) (string, bool) {
	for {
		p := filepath.Join(dir, depsCLI)
		if checkExecutable(p) == nil {
			return p, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
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
