package bench

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// Cold starts (Config.ColdStarts): one cold start swings by a fifth either
// way on a shared 2-core machine (how the CLI's start-up lands), so each
// iteration makes several, alternating, and the ratio to the bare CLI is
// the median over pairs run back to back.

// coldStart is one cold start's times, from the process start: to the
// first text and to the model request of the turn as the fake API saw it
// arrive (zero if it saw none), which splits the first text into the way
// in (spawn, handshake, the CLI's start-up and preparation) and the way
// out. The CPU times are the processes' at the end of the turn: the
// adapter's own (with its reaper), and the CLI's with the time its threads
// were runnable but waited for a CPU.
type coldStart struct {
	first, request      time.Duration
	own, cli, cliWaited time.Duration
}

// runCold is one cold start of an adapter: spawn, initialize, session/new
// and a prompt sent at once, to the first agent_message_chunk.
func runCold(ctx context.Context, cfg *Config, argv []string) (c coldStart, err error) {
	err = inColdWorld(ctx, cfg, func(ctx context.Context, sb *sandbox, api *fakeapi.Server) error {
		a, err := startAdapter(ctx, argv, sb)
		if err != nil {
			return err
		}
		defer a.close(cfg.closeTimeout())
		if _, err := a.initialize(ctx); err != nil {
			return err
		}
		sid, err := a.newSession(ctx, sb.work)
		if err != nil {
			return err
		}
		t, err := a.prompt(ctx, sid, "turn 1: say hello")
		c.set(a.start, t, api, a.cmd.Process.Pid, true)
		return err
	})
	return c, err
}

// runColdBare is runCold for the CLI alone: spawn, the user message
// written at once, the first text delta.
func runColdBare(ctx context.Context, cfg *Config) (c coldStart, err error) {
	err = inColdWorld(ctx, cfg, func(ctx context.Context, sb *sandbox, api *fakeapi.Server) error {
		b, err := startBare(ctx, cfg.CLI, cfg.bare, sb)
		if err != nil {
			return err
		}
		defer b.close(cfg.closeTimeout())
		t, err := b.turn("turn 1: say hello")
		c.set(b.start, t, api, b.cmd.Process.Pid, false)
		return err
	})
	return c, err
}

// set fills c from the process start, the turn, the requests api saw and
// the process tree under root (an adapter's, or the bare CLI).
func (c *coldStart) set(start time.Time, t turn, api *fakeapi.Server, root int, adapter bool) {
	c.first = t.first.Sub(start)
	if r := mainRequestAfter(api, start); !r.IsZero() {
		c.request = r.Sub(start)
	}
	if !adapter {
		c.cli, c.cliWaited = schedNS(root)
		return
	}
	// The adapter's reaper runs the adapter's executable; the CLI and
	// whatever it started so far are the rest of the tree.
	exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", root))
	c.own, _ = schedNS(root)
	for _, p := range descendants(root) {
		cpu, waited := schedNS(p.pid)
		if e, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", p.pid)); e == exe {
			c.own += cpu
			continue
		}
		c.cli += cpu
		c.cliWaited += waited
	}
}

// inColdWorld runs f in a fresh sandbox and fake API (scripted as for the
// main run), bounded by runTimeout.
func inColdWorld(ctx context.Context, cfg *Config, f func(context.Context, *sandbox, *fakeapi.Server) error) error {
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	api, sb, err := newWorld(cfg)
	if err != nil {
		return err
	}
	defer api.Close()
	api.Script(streamStep(cfg.Deltas))
	return f(ctx, sb, api)
}

// coldPairs runs cfg.ColdStarts rounds of cold starts of every system in
// order (the bare CLI first or last as order says) and adds, for each
// adapter, the median cold start and the median of its ratios to the bare
// CLI of the same round, the main run's pair included (kFirst,
// kRatioStart). got holds the main runs of this iteration.
func coldPairs(ctx context.Context, cfg *Config, i int, order []string, adapters map[string][]string, got map[string]sample) error {
	firsts := map[string][]float64{}
	for sys, m := range got {
		firsts[sys] = append(firsts[sys], m[kFirst])
	}
	for range cfg.ColdStarts {
		for _, sys := range order {
			start := time.Now()
			var c coldStart
			var err error
			if sys == Bare {
				c, err = runColdBare(ctx, cfg)
			} else {
				c, err = runCold(ctx, cfg, adapters[sys])
			}
			if err != nil {
				return fmt.Errorf("bench: iteration %d, %s cold start: %w", i+1, sys, err)
			}
			fmt.Fprintf(cfg.Log, "iteration %d: %s cold start in %.1fs\n", i+1, sys, time.Since(start).Seconds())
			firsts[sys] = append(firsts[sys], c.first.Seconds())
		}
	}
	pairMedians(firsts, got)
	return nil
}

// pairMedians sets, for each system, kFirst to the median of its cold
// starts and, for each adapter, kRatioStart to the median of its ratios to
// the bare CLI's cold start of the same round (firsts[sys][j] pairs with
// firsts[Bare][j]).
func pairMedians(firsts map[string][]float64, got map[string]sample) {
	bare := firsts[Bare]
	for sys, ds := range firsts {
		got[sys][kFirst] = median(ds)
		if sys == Bare {
			continue
		}
		ratios := make([]float64, len(ds))
		for j, d := range ds {
			ratios[j] = d / bare[j]
		}
		got[sys][kRatioStart] = median(ratios) // overBare keeps it
	}
}
