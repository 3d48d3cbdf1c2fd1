package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// warmPairsRun measures what a warm turn costs the adapter over the bare
// CLI, turn by turn: the adapter (argv) and the bare CLI run side by side,
// each with a fake API and a sandbox of its own and idle while the other
// works, and their prompts alternate (ABBA: the adapter first in every
// other pair). Taken from separate runs minutes apart, the difference moved
// by ±5 ms with the machine's speed (the same binary gave +3.9, −4.7 and
// +6.1 ms in three runs); the difference of two turns a second apart does
// not. It returns each pair's differences, and streamPairs pairs of
// streaming turns timed the same way.
func warmPairsRun(ctx context.Context, cfg *Config, argv []string) (w warmResult, err error) {
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	api, sb, err := newWorld(cfg)
	if err != nil {
		return w, err
	}
	defer api.Close()
	api.Script(streamPairStep(cfg.Deltas))
	a, err := startAdapter(ctx, argv, sb)
	if err != nil {
		return w, err
	}
	defer a.close(cfg.closeTimeout())
	if _, err := a.initialize(ctx); err != nil {
		return w, err
	}
	sid, err := a.newSession(ctx, sb.work)
	if err != nil {
		return w, err
	}
	bareAPI, bareSB, err := newWorld(cfg)
	if err != nil {
		return w, err
	}
	defer bareAPI.Close()
	bareAPI.Script(streamPairStep(cfg.Deltas))
	b, err := startBare(ctx, cfg.CLI, cfg.bare, bareSB)
	if err != nil {
		return w, err
	}
	defer b.close(cfg.closeTimeout())
	ours := func(text string) (turn, error) { return a.prompt(ctx, sid, text) }
	// The first turn of each is not warm: its CLI is still starting.
	for _, run := range []func(string) (turn, error){ours, b.turn} {
		if _, err := run("warm up: say hello"); err != nil {
			return w, err
		}
	}
	// pair runs the prompt on both, the adapter first when i is even,
	// each once both are quiet.
	// cpu, if not nil, gets the adapter's CPU time for its turn.
	pair := func(i int, prompt string, cpu *time.Duration) (t [2]turn, err error) { // the adapter's, the bare CLI's
		for j := range 2 {
			k := (i + j) % 2 // ABBA
			settle(a.cmd.Process.Pid, 3*time.Second)
			settle(b.cmd.Process.Pid, 3*time.Second)
			if k == 1 {
				if t[k], err = b.turn(prompt); err != nil {
					return t, err
				}
				continue
			}
			var before treeUsage
			var uerr error
			if cpu != nil { // read /proc only around the turns it is for
				before, uerr = a.usage()
			}
			if t[k], err = ours(prompt); err != nil {
				return t, err
			}
			if cpu != nil && uerr == nil {
				if after, err := a.usage(); err == nil {
					*cpu = cpuBetween(before, after)
				}
			}
		}
		return t, nil
	}
	for i := range cfg.WarmPairs {
		t, err := pair(i, fmt.Sprintf("paired turn %d: say hello", i+1), nil)
		if err != nil {
			return w, err
		}
		req := [2]time.Time{mainRequestAfter(api, t[0].sent), mainRequestAfter(bareAPI, t[1].sent)}
		if cfg.paired != nil {
			cfg.paired(t[0], t[1], req[0], req[1])
		}
		p := warmPair{First: (t[0].toFirst() - t[1].toFirst()).Seconds(), Done: (t[0].toDone() - t[1].toDone()).Seconds()}
		if !req[0].IsZero() && !req[1].IsZero() {
			p.ToRequest = (req[0].Sub(t[0].sent) - req[1].Sub(t[1].sent)).Seconds()
			p.FromRequest = p.First - p.ToRequest
		}
		w.pairs = append(w.pairs, p)
	}
	for i := range min(streamPairs, cfg.WarmPairs) {
		var cpu time.Duration
		t, err := pair(i, streamPrompt, &cpu)
		if err != nil {
			return w, err
		}
		w.streamRatios = append(w.streamRatios, t[0].toDone().Seconds()/t[1].toDone().Seconds())
		if cpu > 0 {
			w.streamCPU = append(w.streamCPU, cpu.Seconds())
		}
	}
	return w, nil
}

// warmResult is what warmPairsRun measured.
type warmResult struct {
	pairs []warmPair
	// streamRatios are the streaming pairs' turn times, the adapter's over
	// the bare CLI's; streamCPU the adapter's CPU seconds in each of its
	// streaming turns (schedstat), more samples of what the main run's
	// streaming turn measures once.
	streamRatios, streamCPU []float64
}

// warmPair is what one warm turn cost the adapter over the bare CLI's turn
// beside it, in seconds: to the first text, split at the model request
// (the fake API's arrival time: to it, the adapter's way in and the CLI's
// preparation; from it, the CLI's and the adapter's way out), and to the
// answer. Most of a turn's spread is the CLI's preparation (20 to 50 ms),
// the same with or without the adapter; after the model request a turn
// varies by a millisecond or two.
type warmPair struct {
	First, ToRequest, FromRequest, Done float64
}

// warmMedians are the medians of pairs' differences, in the sample keys
// the report reads.
func warmMedians(pairs []warmPair) sample {
	m := sample{}
	for k, f := range map[string]func(warmPair) float64{
		kOverFirst: func(p warmPair) float64 { return p.First }, kOverDone: func(p warmPair) float64 { return p.Done },
		kOverToRequest: func(p warmPair) float64 { return p.ToRequest }, kOverFromRequest: func(p warmPair) float64 { return p.FromRequest },
	} {
		var vs []float64
		for _, p := range pairs {
			vs = append(vs, f(p))
		}
		if len(vs) > 0 {
			m[k] = median(vs)
		}
	}
	return m
}

// streamPairs is how many pairs of streaming turns warmPairsRun times
// (fewer if it times fewer warm pairs).
const streamPairs = 2

// streamPairStep answers warmPairsRun's streaming turns.
func streamPairStep(deltas int) fakeapi.Step {
	st := streamStep(deltas)
	st.Repeat = streamPairs // more than a short run uses does no harm
	return st
}

// mainRequestAfter is when api received the first model request (with
// tools) after t, or the zero time.
func mainRequestAfter(api *fakeapi.Server, t time.Time) time.Time {
	for _, r := range api.Requests() {
		if r.IsMain() && r.Time.After(t) {
			return r.Time
		}
	}
	return time.Time{}
}
