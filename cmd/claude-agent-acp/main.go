// Command claude-agent-acp is an ACP (Agent Client Protocol) agent for
// Claude Code. An editor starts it and speaks JSON-RPC 2.0 over stdio; it
// runs the Claude Code CLI for each session.
//
// Usage:
//
//	claude-agent-acp             serve ACP on stdin/stdout
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
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/agent"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// version is set at build time with -ldflags "-X main.version=…" (make
// dist does). A binary built by `go install …@v1.2.3` is not stamped but
// knows its module version, which init takes instead.
var version = "0.1.0-dev"

func init() {
	if version != "0.1.0-dev" {
		return
	}
	if bi, ok := debug.ReadBuildInfo(); ok && strings.HasPrefix(bi.Main.Version, "v") {
		version = strings.TrimPrefix(bi.Main.Version, "v")
	}
}

const usage = `claude-agent-acp: an ACP agent for Claude Code.

Usage:
  claude-agent-acp             serve ACP on stdin/stdout (what editors run)
  claude-agent-acp doctor      check that Claude Code is installed and logged in
  claude-agent-acp --cli ARGS  run the Claude Code CLI with ARGS (e.g. auth login)
  claude-agent-acp --version   print the version
  claude-agent-acp --help      print this help

Environment:
  CLAUDE_CODE_EXECUTABLE   the claude CLI to run (default: claude on PATH)
  CLAUDE_AGENT_ACP_LOG     log level on stderr: debug, info, warn (default), error
`

func main() {
	claude.ReaperMain() // this executable also guards each CLI (claude/reaper.go)
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "--version", "-version", "version":
			fmt.Fprintln(stdout, "claude-agent-acp", version)
			return 0
		case "--help", "-help", "-h", "help":
			fmt.Fprint(stdout, usage)
			return 0
		case "doctor":
			return doctor(stdout)
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
	go func() {
		// Stopped by a signal, Serve terminates every CLI at once; should
		// anything still hold us, exit anyway: each CLI's reaper kills its
		// process group the moment we are gone (claude/reaper.go).
		<-ctx.Done()
		time.Sleep(exitDeadline)
		log.Warn("shutdown took too long; exiting")
		os.Exit(0)
	}()
	a := agent.New(agent.Config{Logger: log, Version: version})
	if err := a.Serve(ctx, stdin, stdout); err != nil {
		log.Error("connection ended", "error", err)
		return 1
	}
	return 0
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
