package claude

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
)

var (
	// ErrNotFound means no Claude Code CLI executable was found.
	ErrNotFound = errors.New("claude: Claude Code CLI not found; install it (npm install -g @anthropic-ai/claude-code) so that `claude` is on PATH, or set CLAUDE_CODE_EXECUTABLE to its absolute path")

	// ErrClosed is returned by calls on a process that Close or Kill has
	// stopped, and by Err when the process ended because of them.
	ErrClosed = errors.New("claude: process closed")

	// ErrStartupTimeout means the CLI did not answer initialize within
	// Options.StartupTimeout.
	ErrStartupTimeout = errors.New("claude: CLI did not answer initialize in time")

	// ErrSessionNotFound means --resume named a session the CLI does not
	// have (in this working directory and config directory).
	ErrSessionNotFound = errors.New("claude: session not found")

	// ErrSessionInUse means --session-id named a session that already
	// exists.
	ErrSessionInUse = errors.New("claude: session ID already in use")

	// ErrRootBypass means bypassPermissions was requested while running as
	// root; the CLI refuses that unless IS_SANDBOX=1.
	ErrRootBypass = errors.New("claude: bypassPermissions cannot be used as root (set IS_SANDBOX=1 in a sandbox)")

	// ErrUnsupported is matched (with errors.Is) by a [ControlError] for a
	// request subtype the CLI does not know.
	ErrUnsupported = errors.New("claude: unsupported control request")
)

// An ExitError reports that the CLI process ended on its own with a non-zero
// status or a signal. Stderr is the tail of what it wrote on stderr (at most
// about 2 KiB), which usually says why.
type ExitError struct {
	// ExitCode is the exit status, or -1 when a signal ended the process.
	ExitCode int
	// Signal is the signal that ended the process, if any.
	Signal syscall.Signal
	Stderr string
}

func (e *ExitError) Error() string {
	var b strings.Builder
	if e.Signal != 0 {
		fmt.Fprintf(&b, "claude: Claude Code process killed by signal %v", e.Signal)
	} else {
		fmt.Fprintf(&b, "claude: Claude Code process exited with code %d", e.ExitCode)
	}
	if s := strings.TrimSpace(e.Stderr); s != "" {
		b.WriteString(": ")
		b.WriteString(s)
	}
	return b.String()
}

// A StartupError reports that [Start] could not bring the CLI up: it could
// not be executed, exited before answering initialize, refused the
// options, or did not answer in time. errors.Is matches the sentinel that
// classifies it (ErrSessionNotFound, ErrSessionInUse, ErrRootBypass,
// ErrStartupTimeout) and errors.As finds the underlying *ExitError.
type StartupError struct {
	// Reason is one of the sentinels above, or nil when unclassified.
	Reason error
	// Errors are the texts of an error result the CLI wrote before exiting
	// (for example "No conversation found with session ID: …").
	Errors []string
	// FailureReason is the CLI's startup_failure_reason code, when it gave
	// one (for example "bypass_root" or "cwd_unavailable"), so that a host
	// can offer the fix instead of a retry.
	FailureReason string
	// Stderr is the tail of the CLI's stderr.
	Stderr string
	// Err is the underlying failure: an *ExitError, an exec error, a
	// *ControlError from initialize, or a context error.
	Err error
}

func (e *StartupError) Error() string {
	var b strings.Builder
	b.WriteString("claude: starting Claude Code failed")
	add := func(s string) {
		if s = strings.TrimSpace(strings.TrimPrefix(s, "claude: ")); s != "" {
			b.WriteString(": ")
			b.WriteString(s)
		}
	}
	var ee *ExitError
	switch {
	case len(e.Errors) > 0:
		// The CLI's own error result says it best; stderr repeats it.
		add(strings.Join(e.Errors, "; "))
		if errors.As(e.Err, &ee) {
			fmt.Fprintf(&b, " (exit code %d)", ee.ExitCode)
		} else if e.Err != nil {
			add(e.Err.Error())
		}
	case e.Err != nil:
		if e.Reason != nil && !errors.As(e.Err, &ee) {
			add(e.Reason.Error())
		}
		add(e.Err.Error())
	default:
		if e.Reason != nil {
			add(e.Reason.Error())
		}
		if e.Stderr != "" {
			add("stderr: " + e.Stderr)
		}
	}
	return b.String()
}

// Unwrap returns the classifying sentinel and the underlying error.
func (e *StartupError) Unwrap() []error {
	var errs []error
	if e.Reason != nil {
		errs = append(errs, e.Reason)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// classifyStartup picks the sentinel that explains a startup failure from
// the CLI's error result texts and stderr.
func classifyStartup(reason string, errs []string, stderr string) error {
	text := strings.Join(errs, "\n") + "\n" + stderr
	switch {
	case reason == "bypass_root":
		return ErrRootBypass
	case strings.Contains(text, "No conversation found"):
		return ErrSessionNotFound
	case strings.Contains(text, "is already in use"):
		return ErrSessionInUse
	case strings.Contains(text, "cannot be used with root"):
		return ErrRootBypass
	}
	return nil
}

// A ControlError is the CLI's error answer to one of our control requests.
type ControlError struct {
	// Subtype is the subtype of our request.
	Subtype string
	// Message is the CLI's error text, Code its error_code (may be empty).
	Message string
	Code    string
}

func (e *ControlError) Error() string {
	return fmt.Sprintf("claude: %s: %s", e.Subtype, e.Message)
}

// Is reports whether target is ErrUnsupported and the CLI said so.
func (e *ControlError) Is(target error) bool {
	return target == ErrUnsupported && (e.Code == "unsupported_request" || strings.HasPrefix(e.Message, "Unsupported control request"))
}
