package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"strings"
	"time"
)

// Config says what to compare and how often.
type Config struct {
	// Ours is the command line of our adapter (the built binary).
	Ours []string
	// Reference is the command line of the TypeScript reference; empty
	// measures ours and the bare CLI only.
	Reference []string
	// CLI is the pinned Claude Code executable all of them run.
	CLI string
	// Iterations is how many alternating A/B rounds to run (default 5).
	Iterations int
	// Turns is how many warm turns the main run adds, after the 5-turn
	// run whose requests are counted, for the per-turn latencies (default 20).
	Turns int
	// Deltas is the length of the streaming turn (default 20,000).
	Deltas int
	// Sessions is how many concurrent sessions the load run opens (default 8).
	Sessions int
	// ReplayMessages is the size of the transcript session/load replays
	// (default 5,000 messages).
	ReplayMessages int
	// HibernateSessions is how many sessions the hibernation run opens
	// (default 20; our adapter only).
	HibernateSessions int
	// ColdStarts is how many more cold starts each system makes per
	// iteration, back to back and alternating, for the cold first answer
	// and its ratio to the bare CLI (default 4; negative: none, only the
	// main run's).
	ColdStarts int
	// WarmPairs is how many turn pairs of the adapter and the bare CLI,
	// alternating, time a warm turn's overhead (warmPairsRun; default
	// 20 per iteration, pooled for the target; negative: none, the overhead
	// is then the main runs' difference).
	WarmPairs int
	// Log receives one line per finished run; nil discards.
	Log io.Writer

	tmp  string
	bare cliInvocation // how our adapter runs the CLI (probeAgentCLI)
	// paired, when set, sees each warm pair's turns (the adapter's, the
	// bare CLI's) and when each one's fake API received the turn's model
	// request; TestFocusWarm logs them.
	paired func(adapter, bare turn, adapterAPI, bareAPI time.Time)
}

func (c *Config) closeTimeout() time.Duration { return 10 * time.Second }

// System names, in the report's column order.
const (
	Ours      = "Go"
	Reference = "TypeScript"
	Bare      = "bare CLI"
)

// Report is the outcome of Run: every sample, by system, in run order.
type Report struct {
	Config  Config
	Machine Machine
	// BareArgs and BareEnv are the CLI arguments and environment additions
	// of the bare CLI column: our adapter's, read from the CLI it started.
	BareArgs, BareEnv []string
	Samples           map[string][]sample
	// Pairs are every iteration's warm turn pairs (warmPairsRun) by
	// system, pooled for the first-text target.
	Pairs   map[string][]warmPair
	Started time.Time
	Elapsed time.Duration
}

// Run measures the systems cfg names, alternating their order every
// iteration (ABBA) so that neither always runs on a warmer machine.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if len(cfg.Ours) == 0 || cfg.CLI == "" {
		return nil, errors.New("bench: Config needs Ours and CLI")
	}
	if cfg.Iterations <= 0 {
		cfg.Iterations = 5
	}
	if cfg.Turns < 0 {
		cfg.Turns = 0
	} else if cfg.Turns == 0 {
		cfg.Turns = 20
	}
	if cfg.Deltas <= 0 {
		cfg.Deltas = 20000
	}
	if cfg.Sessions < 2 {
		cfg.Sessions = 8
	}
	if cfg.HibernateSessions <= hibernateCap {
		cfg.HibernateSessions = 20
	}
	if cfg.ReplayMessages <= 0 {
		cfg.ReplayMessages = 5000
	}
	if cfg.ColdStarts == 0 {
		cfg.ColdStarts = 4
	}
	if cfg.WarmPairs == 0 {
		cfg.WarmPairs = 20
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	tmp, err := os.MkdirTemp("", "acpbench")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	cfg.tmp = tmp

	r := &Report{Config: cfg, Machine: describeMachine(cfg), Samples: map[string][]sample{}, Pairs: map[string][]warmPair{}, Started: time.Now()}
	// The bare CLI runs with our adapter's argv and environment.
	if cfg.bare, err = probeAgentCLI(ctx, &cfg); err != nil {
		return nil, fmt.Errorf("bench: probing how the adapter runs the CLI: %w", err)
	}
	r.BareArgs, r.BareEnv = cfg.bare.argv(), cfg.bare.env
	fmt.Fprintf(cfg.Log, "bare CLI: %s (env + %s)\n", strings.Join(cfg.bare.args, " "), strings.Join(cfg.bare.env, " "))
	adapters := map[string][]string{Ours: cfg.Ours}
	order := []string{Bare, Ours}
	if len(cfg.Reference) > 0 {
		adapters[Reference] = cfg.Reference
		order = append(order, Reference)
	}
	for i := range cfg.Iterations {
		order := order
		if i%2 == 1 {
			order = reversed(order)
		}
		// The turns runs of all systems first, back to back, so that the
		// overheads over the bare CLI compare runs close in time; then the
		// concurrent and session/load runs of the adapters.
		got := map[string]sample{}
		for _, sys := range order {
			run := func() (sample, error) { return runAdapter(ctx, &cfg, adapters[sys]) }
			if sys == Bare {
				run = func() (sample, error) { return runBare(ctx, &cfg) }
			}
			m, err := timed(cfg.Log, i, sys, "turns", run)
			if err != nil {
				return nil, err
			}
			got[sys] = m
		}
		if cfg.ColdStarts > 0 {
			if err := coldPairs(ctx, &cfg, i, order, adapters, got); err != nil {
				return nil, err
			}
		}
		for _, sys := range order {
			if sys == Bare || cfg.WarmPairs < 0 {
				continue
			}
			start := time.Now()
			w, err := warmPairsRun(ctx, &cfg, adapters[sys])
			if err != nil {
				return nil, fmt.Errorf("bench: iteration %d, %s warm pairs: %w", i+1, sys, err)
			}
			fmt.Fprintf(cfg.Log, "iteration %d: %s warm turn pairs in %.1fs\n", i+1, sys, time.Since(start).Seconds())
			// overBare keeps these; the streaming ratio is the median of
			// the pairs' and the main runs'.
			maps.Copy(got[sys], warmMedians(w.pairs))
			r.Pairs[sys] = append(r.Pairs[sys], w.pairs...)
			got[sys][kRatioStream] = median(append(w.streamRatios, got[sys][kStreamDone]/got[Bare][kStreamDone]))
			if len(w.streamCPU) > 0 { // the main run's and the pairs' streaming turns
				cpu := median(append(w.streamCPU, got[sys][kStreamCPU]))
				got[sys][kStreamCPU], got[sys][kStreamCPUPerChunk] = cpu, cpu/float64(cfg.Deltas)
			}
		}
		replay := func(rc replayCase) func(context.Context, *Config, []string) (sample, error) {
			return func(ctx context.Context, cfg *Config, argv []string) (sample, error) {
				return runReplay(ctx, cfg, argv, rc)
			}
		}
		for _, phase := range []struct {
			name string
			run  func(context.Context, *Config, []string) (sample, error)
		}{{"concurrent", runConcurrent}, {"session/load", replay(syntheticReplay)}, {"session/load realistic", replay(realisticReplay)}, {"session/load code", replay(codeReplay)}} {
			for _, sys := range order {
				if sys == Bare {
					continue
				}
				m, err := timed(cfg.Log, i, sys, phase.name, func() (sample, error) { return phase.run(ctx, &cfg, adapters[sys]) })
				if err != nil {
					return nil, err
				}
				maps.Copy(got[sys], m)
			}
		}
		// Issue 38: reopening a thread (with the bare CLI resumed the
		// same way), an editor restoring its threads, and the streaming
		// turn to a slow reader.
		if err := reopenRounds(ctx, &cfg, i, order, adapters, got); err != nil {
			return nil, err
		}
		for _, phase := range []struct {
			name string
			run  func(context.Context, *Config, []string) (sample, error)
		}{{"restore", runRestore}, {"slow reader", runSlowReader}} {
			for _, sys := range order {
				if sys == Bare {
					continue
				}
				m, err := timed(cfg.Log, i, sys, phase.name, func() (sample, error) { return phase.run(ctx, &cfg, adapters[sys]) })
				if err != nil {
					return nil, err
				}
				maps.Copy(got[sys], m)
			}
		}
		// Hibernation is ours alone: the reference keeps every CLI.
		m, err := timed(cfg.Log, i, Ours, "hibernation", func() (sample, error) { return runHibernation(ctx, &cfg, adapters[Ours]) })
		if err != nil {
			return nil, err
		}
		maps.Copy(got[Ours], m)
		for sys, m := range got {
			if sys != Bare {
				overBare(m, got[Bare], cfg.Deltas)
			}
			r.Samples[sys] = append(r.Samples[sys], m)
		}
	}
	r.Elapsed = time.Since(r.Started)
	return r, nil
}

// overBare adds the adapter's own overhead: its times minus the bare CLI's
// of the same iteration, where warmPairsRun did not pair them turn by turn.
func overBare(m, bare sample, deltas int) {
	if _, paired := m[kOverFirst]; !paired {
		m[kOverFirst] = m[kTurnFirst] - bare[kTurnFirst]
		m[kOverDone] = m[kTurnDone] - bare[kTurnDone]
	}
	m[kOverStart] = m[kFirst] - bare[kFirst]
	m[kOverChunk] = (m[kStreamDone] - bare[kStreamDone]) / float64(deltas)
	if _, paired := m[kRatioStart]; !paired { // coldPairs sets it
		m[kRatioStart] = m[kFirst] / bare[kFirst]
	}
	if _, paired := m[kRatioStream]; !paired { // warmPairsRun sets it
		m[kRatioStream] = m[kStreamDone] / bare[kStreamDone]
	}
}

func timed(log io.Writer, i int, sys, what string, f func() (sample, error)) (sample, error) {
	start := time.Now()
	m, err := f()
	if err != nil {
		return nil, fmt.Errorf("bench: iteration %d, %s %s run: %w", i+1, sys, what, err)
	}
	fmt.Fprintf(log, "iteration %d: %s %s run in %.1fs\n", i+1, sys, what, time.Since(start).Seconds())
	return m, nil
}

func reversed(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[len(s)-1-i] = v
	}
	return out
}
