// Command claude-agent-acp is an ACP (Agent Client Protocol) agent for
// Claude Code. An editor starts it and speaks JSON-RPC 2.0 over stdio; it
// runs the Claude Code CLI for each session.
//
// Usage:
//
//	claude-agent-acp             serve ACP on stdin/stdout
//	claude-agent-acp serve       serve ACP over HTTP and WebSocket (serve.go)
//	claude-agent-acp doctor      check the Claude Code CLI and credentials
//	claude-agent-acp --cli ARGS  run the Claude Code CLI itself (terminal login)
//	claude-agent-acp --version
//
// Logs go to stderr only; CLAUDE_AGENT_ACP_LOG=debug|info|warn|error sets
// the level (default warn).
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/agent"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
	"github.com/claude-agent-acp/claude-agent-acp/internal/batchsched"
	"github.com/claude-agent-acp/claude-agent-acp/internal/rawio"
)

// devVersion is what a build from source reports before the revision:
// VERSION (the version being released) with "-dev" (TestDevVersionFollowsVERSION).
const devVersion = "0.1.0-dev"

// version is set at build time with -ldflags "-X main.version=…" (make
// dist does). Other builds leave it alone and agentVersion works it out.
var version = devVersion

// agentVersion is the version to show. It reads the build info when asked,
// not in an init: every exec of this binary as a reaper (claude/reaper.go)
// would pay for it.
func agentVersion() string {
	bi, _ := debug.ReadBuildInfo()
	return versionOf(version, bi)
}

// versionOf is the version of a binary stamped with stamped and built as
// bi says: the stamp (make dist); else the module version of a `go install
// …@v1.2.3`; else, for a build from source (go build, make build, with or
// without -trimpath or -buildvcs), devVersion followed by the commit when
// the build recorded it, as make dist names versions between releases:
// 0.1.0-dev.g<12 hex digits>, with ".dirty" for uncommitted changes.
// (Go stamps a checkout's build with a pseudo-version, 0.0.0-<date>-<hash>,
// which says nothing about which release it is close to.)
func versionOf(stamped string, bi *debug.BuildInfo) string {
	if stamped != devVersion || bi == nil {
		return stamped
	}
	if v := bi.Main.Version; strings.HasPrefix(v, "v") && !isPseudoVersion(v) && !strings.HasSuffix(v, "+dirty") {
		return strings.TrimPrefix(v, "v")
	}
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(rev) < 12 {
		return devVersion
	}
	v := devVersion + ".g" + rev[:12]
	if dirty {
		v += ".dirty"
	}
	return v
}

// isPseudoVersion reports whether v is a Go pseudo-version
// (v0.0.0-20260102150405-abcdef123456, v1.2.4-0.2026…, v1.2.3-pre.0.2026…),
// which names a commit, not a release.
func isPseudoVersion(v string) bool {
	v, _, _ = strings.Cut(v, "+")
	i := strings.LastIndexByte(v, '-')
	if i < 0 || len(v)-i-1 != 12 || strings.Trim(v[i+1:], "0123456789abcdef") != "" {
		return false
	}
	ts := v[:i]
	if j := strings.LastIndexAny(ts, ".-"); j >= 0 {
		ts = ts[j+1:]
	}
	return len(ts) == 14 && strings.Trim(ts, "0123456789") == ""
}

const usage = `claude-agent-acp: an ACP agent for Claude Code.

Usage:
  claude-agent-acp             serve ACP on stdin/stdout (what editors run)
  claude-agent-acp serve       serve ACP over HTTP and WebSocket for remote clients
                               (serve --help; docs/remote.md)
  claude-agent-acp doctor      check that Claude Code is installed and logged in
  claude-agent-acp --cli ARGS  run the Claude Code CLI with ARGS (e.g. auth login)
  claude-agent-acp --version   print the version
  claude-agent-acp --help      print this help

Environment:
  CLAUDE_CODE_EXECUTABLE   the claude CLI to run (default: claude on PATH)
  CLAUDE_AGENT_ACP_LOG     log level on stderr: debug, info, warn (default), error
  CLAUDE_AGENT_ACP_MAX_LIVE_SESSIONS
                           sessions that keep a Claude Code process (~200 MiB each);
                           past it the least recently used idle one hibernates
                           (default 8; 0 = no cap)
  CLAUDE_AGENT_ACP_IDLE_TIMEOUT
                           hibernate a session idle this long, e.g. 15m
                           (default 30m; 0 = never). A hibernated session
                           resumes by itself, with its history, when next used.
  CLAUDE_AGENT_ACP_EDITOR_FS
                           1: Claude reads and writes files through the editor
                           (unsaved buffers, the editor's review and undo) when
                           the editor offers fs/read_text_file and
                           fs/write_text_file (docs/tools.md)
  CLAUDE_AGENT_ACP_SCHED   on Linux: batch (default) lets the agent take a free CPU
                           without preempting the editor or Claude Code; normal
                           gives it the default policy
  GOMAXPROCS               threads running the agent's Go code at once
                           (default 1: relaying costs least on one thread;
                           a session/load replays on two while it runs)
  GOGC                     the Go collector's target (default 100, and 400
                           while a session/load replays; set, it is kept)
`

func main() {
	claude.ReaperMain() // this executable also guards each CLI (claude/reaper.go)
	oneThread()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// oneThread runs the agent's Go code on one thread at a time unless the
// GOMAXPROCS environment variable asks for more. The agent relays: a
// streamed chunk is a few microseconds of work handed from the CLI's
// reader to the session to the connection, and with a second thread idle
// the runtime wakes it at every hand-off to look for work it never finds,
// which costs more than the work. With the raw pipe I/O of internal/rawio,
// one thread halved the agent's CPU per chunk beside the real CLI (about
// 5 µs against 10-13) and brought the streaming turn closer to the bare
// CLI's (BENCHMARKS.md; docs/design.md, "Decisions"). The CLIs, which do
// the heavy work, are other processes and keep every core.
func oneThread() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
}

// batchScheduling makes the agent a batch task in Linux's scheduler
// unless CLAUDE_AGENT_ACP_SCHED=normal: a streamed answer wakes it for
// every line the CLI writes, and waking at once, preempting the CLI or the
// editor each time, cost more CPU than the relaying itself
// (internal/batchsched). It reports whether the agent is one.
func batchScheduling(log *slog.Logger) bool {
	switch os.Getenv("CLAUDE_AGENT_ACP_SCHED") {
	case "normal":
		return false
	case "", "batch":
		return batchsched.Enable()
	default:
		log.Warn("CLAUDE_AGENT_ACP_SCHED must be batch or normal; using batch")
		return batchsched.Enable()
	}
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "--version", "-version", "version":
			fmt.Fprintln(stdout, "claude-agent-acp", agentVersion())
			return 0
		case "--help", "-help", "-h", "help":
			fmt.Fprint(stdout, usage)
			return 0
		case "doctor":
			return doctor(stdout)
		case "serve":
			return serve(args[1:], stderr)
		case "--cli":
			return runCLI(args[1:], stderr)
		default:
			fmt.Fprintf(stderr, "claude-agent-acp: unknown argument %q\n\n%s", args[0], usage)
			return 2
		}
	}
	if stdinIsTerminal(stdin) {
		banner(stderr)
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: logLevel()}))
	// An editor that crashes closes our stdout. Without this, the next write
	// would kill us with SIGPIPE before we could stop the CLIs; ignored, the
	// write fails and Serve shuts everything down.
	signal.Ignore(syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer stop()
	// Streamed chunks go to the editor's pipe with raw writes, which keep
	// the runtime's monitor asleep (internal/rawio); the pipe is made
	// blocking again on the way out.
	restoreOut, restoreIn := func() {}, func() {}
	if f, ok := stdout.(*os.File); ok {
		stdout, restoreOut = rawio.NewStdout(f)
		defer restoreOut()
	}
	// The editor's messages are awaited in the runtime's poller, not in a
	// blocking read that would hold the agent's one P (internal/rawio);
	// taken after stdout, so that a socket that is both gets its blocking
	// mode back last.
	if f, ok := stdin.(*os.File); ok {
		stdin, restoreIn = rawio.NewStdin(f)
		defer restoreIn()
	}
	restore := func() { restoreIn(); restoreOut() }
	go func() {
		// Stopped by a signal, Serve terminates every CLI at once; should
		// anything still hold us, exit anyway: each CLI's reaper kills its
		// process group the moment we are gone (claude/reaper.go).
		<-ctx.Done()
		time.Sleep(exitDeadline)
		log.Warn("shutdown took too long; exiting")
		restore()
		os.Exit(0)
	}()
	ver := agentVersion()
	log.Debug("serving ACP on stdio", "version", ver, "threads", runtime.GOMAXPROCS(0), "batch", batchScheduling(log))
	maxLive, idle := hibernation(log)
	a := agent.New(agent.Config{Logger: log, Version: ver, MaxLiveSessions: maxLive, IdleTimeout: idle, EditorFS: editorFS()})
	if err := a.Serve(ctx, stdin, stdout); err != nil {
		log.Error("connection ended", "error", err)
		return 1
	}
	return 0
}

// editorFS reads CLAUDE_AGENT_ACP_EDITOR_FS: 1 (or true) gives Claude's
// file reads and writes to editors that offer fs/* (docs/tools.md).
func editorFS() bool {
	switch strings.ToLower(os.Getenv("CLAUDE_AGENT_ACP_EDITOR_FS")) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// Hibernation defaults (docs/hibernation.md): a typical editor user keeps
// a handful of threads busy at once and many more open. Eight live CLIs
// bound the agent's tree to about 1.7 GiB; a thread untouched for half an
// hour costs a one- or two-second resume when it is next used.
const (
	defaultMaxLiveSessions = 8
	defaultIdleTimeout     = 30 * time.Minute
)

// hibernation reads CLAUDE_AGENT_ACP_MAX_LIVE_SESSIONS and
// CLAUDE_AGENT_ACP_IDLE_TIMEOUT: unset is the default, 0 turns it off, a
// value that does not parse keeps the default and says so.
func hibernation(log *slog.Logger) (maxLive int, idle time.Duration) {
	maxLive, idle = defaultMaxLiveSessions, defaultIdleTimeout
	if v, ok := os.LookupEnv("CLAUDE_AGENT_ACP_MAX_LIVE_SESSIONS"); ok && v != "" {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			maxLive = n
		} else {
			log.Warn("CLAUDE_AGENT_ACP_MAX_LIVE_SESSIONS is not a count; using the default", "default", maxLive)
		}
	}
	if v, ok := os.LookupEnv("CLAUDE_AGENT_ACP_IDLE_TIMEOUT"); ok && v != "" {
		if d, err := time.ParseDuration(v); err == nil && d >= 0 {
			idle = d
		} else if v == "0" {
			idle = 0
		} else {
			log.Warn("CLAUDE_AGENT_ACP_IDLE_TIMEOUT is not a duration (e.g. 15m); using the default", "default", idle.String())
		}
	}
	return maxLive, idle
}

// exitDeadline bounds the exit after SIGTERM, SIGINT or SIGHUP.
const exitDeadline = 450 * time.Millisecond

func logLevel() slog.Level {
	switch strings.ToLower(os.Getenv("CLAUDE_AGENT_ACP_LOG")) {
	case "debug":
		return slog.LevelDebug
	case "info":
		return slog.LevelInfo
	case "error":
		return slog.LevelError
	}
	return slog.LevelWarn
}

// runCLI replaces this process with the Claude Code CLI (on Windows: runs
// it and exits with its status), so a client's terminal login
// (`--cli auth login`) is Claude's own.
func runCLI(args []string, stderr io.Writer) int {
	exe, err := claude.FindExecutable()
	if err != nil {
		fmt.Fprintln(stderr, "claude-agent-acp:", err)
		return 1
	}
	code, err := execCLI(exe, args)
	if err != nil {
		fmt.Fprintln(stderr, "claude-agent-acp: could not run Claude Code:", err)
	}
	return code
}
