// Command acpbench runs the side-by-side benchmarks of package bench: our
// adapter against the TypeScript reference and the bare CLI, on the same
// pinned CLI and fake Messages API, and writes the markdown report.
//
//	go build -o bin/claude-agent-acp ./cmd/claude-agent-acp
//	go run ./internal/tools/bench/cmd/acpbench -ours bin/claude-agent-acp -o BENCHMARKS.md
//
// `make bench-compare` does both. The reference and the CLI default to the
// ones scripts/install-deps.sh puts in .deps/.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/claude-agent-acp/claude-agent-acp/internal/tools/bench"
)

func main() {
	deps := os.Getenv("CLAUDE_AGENT_ACP_DEPS")
	if deps == "" {
		deps = ".deps"
	}
	bin := filepath.Join(deps, "node_modules", ".bin")
	ours := flag.String("ours", "bin/claude-agent-acp", "our adapter binary")
	ref := flag.String("reference", filepath.Join(bin, "claude-agent-acp"), "the TypeScript reference's bin script; empty skips it")
	cli := flag.String("cli", filepath.Join(bin, "claude"), "the pinned Claude Code CLI")
	n := flag.Int("n", 5, "alternating iterations")
	deltas := flag.Int("deltas", 20000, "text deltas in the streaming turn")
	sessions := flag.Int("sessions", 8, "concurrent sessions in the load run")
	out := flag.String("o", "", "write the report here (default: stdout)")
	flag.Parse()
	if err := run(*ours, *ref, *cli, *n, *deltas, *sessions, *out); err != nil {
		fmt.Fprintln(os.Stderr, "acpbench:", err)
		os.Exit(1)
	}
}

func run(ours, ref, cli string, n, deltas, sessions int, out string) error {
	cfg := bench.Config{Iterations: n, Deltas: deltas, Sessions: sessions, Log: os.Stderr}
	var err error
	if cfg.CLI, err = executable(cli); err != nil {
		return fmt.Errorf("the Claude Code CLI: %w (run make deps)", err)
	}
	exe, err := executable(ours)
	if err != nil {
		return fmt.Errorf("our adapter: %w (run make build)", err)
	}
	cfg.Ours = []string{exe}
	if ref != "" {
		exe, err := executable(ref)
		if err != nil {
			return fmt.Errorf("the TypeScript reference: %w (run make deps, or pass -reference '')", err)
		}
		cfg.Reference = []string{exe}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	r, err := bench.Run(ctx, cfg)
	if err != nil {
		return err
	}
	doc := r.Document()
	if out == "" {
		_, err = os.Stdout.WriteString(doc)
		return err
	}
	return os.WriteFile(out, []byte(doc), 0o644)
}

// executable makes path absolute and checks that it can be run.
func executable(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	info, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("%s not found", filepath.Base(path))
	}
	if info.IsDir() || info.Mode()&0o111 == 0 {
		return "", fmt.Errorf("%s is not executable", filepath.Base(path))
	}
	return abs, nil
}
