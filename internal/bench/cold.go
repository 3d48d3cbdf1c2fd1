package bench

import (
	"context"
	"fmt"
	"time"
)

// Cold starts (Config.ColdStarts): one cold start swings by a fifth either
// way on a shared 2-core machine (how the CLI's start-up lands), so each
// iteration makes several, alternating, and the ratio to the bare CLI is
// the median over pairs run back to back.

// runCold is one cold start of an adapter: spawn, initialize, session/new
// and a prompt sent at once; it returns the time from the spawn to the
// first agent_message_chunk.
func runCold(ctx context.Context, cfg *Config, argv []string) (first float64, err error) {
	err = inColdWorld(ctx, cfg, func(ctx context.Context, sb *sandbox) error {
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
		first = t.first.Sub(a.start).Seconds()
		return err
	})
	return first, err
}

// runColdBare is runCold for the CLI alone: spawn, the user message
// written at once, the first text delta.
func runColdBare(ctx context.Context, cfg *Config) (first float64, err error) {
	err = inColdWorld(ctx, cfg, func(ctx context.Context, sb *sandbox) error {
		b, err := startBare(ctx, cfg.CLI, cfg.bare, sb)
		if err != nil {
			return err
		}
		defer b.close(cfg.closeTimeout())
		t, err := b.turn("turn 1: say hello")
		first = t.first.Sub(b.start).Seconds()
		return err
	})
	return first, err
}

// inColdWorld runs f in a fresh sandbox and fake API (scripted as for the
// main run), bounded by runTimeout.
func inColdWorld(ctx context.Context, cfg *Config, f func(context.Context, *sandbox) error) error {
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	api, sb, err := newWorld(cfg)
	if err != nil {
		return err
	}
	defer api.Close()
	api.Script(streamStep(cfg.Deltas))
	return f(ctx, sb)
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
			var d float64
			var err error
			if sys == Bare {
				d, err = runColdBare(ctx, cfg)
			} else {
				d, err = runCold(ctx, cfg, adapters[sys])
			}
			if err != nil {
				return fmt.Errorf("bench: iteration %d, %s cold start: %w", i+1, sys, err)
			}
			fmt.Fprintf(cfg.Log, "iteration %d: %s cold start in %.1fs\n", i+1, sys, time.Since(start).Seconds())
			firsts[sys] = append(firsts[sys], d)
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
