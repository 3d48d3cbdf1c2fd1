package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/internal/fakeapi"
)

// warmPairsRun measures what a warm turn costs the adapter over the bare
// CLI, turn by turn: the adapter (argv) and the bare CLI run side by side,
// each with a fake API and a sandbox of its own and idle while the other
// works, and their prompts alternate (ABBA: the adapter first in every
// other pair). Taken from separate runs minutes apart, the difference moved
// by ±5 ms with the machine's speed (the same binary gave +3.9, −4.7 and
// +6.1 ms in three runs); the difference of two turns a second apart does
// not. It returns the medians of the pairs' differences (to the first text
// and to the answer), and the ratios of streamPairs pairs of streaming
// turns (the adapter's turn time over the bare CLI's), timed the same way.
func warmPairsRun(ctx context.Context, cfg *Config, argv []string) (first, done float64, stream []float64, err error) {
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	api, sb, err := newWorld(cfg)
	if err != nil {
		return 0, 0, nil, err
	}
	defer api.Close()
	api.Script(streamPairStep(cfg.Deltas))
	a, err := startAdapter(ctx, argv, sb)
	if err != nil {
		return 0, 0, nil, err
	}
	defer a.close(cfg.closeTimeout())
	if _, err := a.initialize(ctx); err != nil {
		return 0, 0, nil, err
	}
	sid, err := a.newSession(ctx, sb.work)
	if err != nil {
		return 0, 0, nil, err
	}
	bareAPI, bareSB, err := newWorld(cfg)
	if err != nil {
		return 0, 0, nil, err
	}
	defer bareAPI.Close()
	bareAPI.Script(streamPairStep(cfg.Deltas))
	b, err := startBare(ctx, cfg.CLI, cfg.bare, bareSB)
	if err != nil {
		return 0, 0, nil, err
	}
	defer b.close(cfg.closeTimeout())
	ours := func(text string) (turn, error) { return a.prompt(ctx, sid, text) }
	// The first turn of each is not warm: its CLI is still starting.
	for _, run := range []func(string) (turn, error){ours, b.turn} {
		if _, err := run("warm up: say hello"); err != nil {
			return 0, 0, nil, err
		}
	}
	// pair runs the prompt on both, the adapter first when i is even,
	// each once both are quiet.
	pair := func(i int, prompt string) (t [2]turn, err error) { // the adapter's, the bare CLI's
		for j := range 2 {
			k := (i + j) % 2 // ABBA
			settle(a.cmd.Process.Pid, 3*time.Second)
			settle(b.cmd.Process.Pid, 3*time.Second)
			run := ours
			if k == 1 {
				run = b.turn
			}
			if t[k], err = run(prompt); err != nil {
				return t, err
			}
		}
		return t, nil
	}
	var firsts, dones []float64
	for i := range cfg.WarmPairs {
		t, err := pair(i, fmt.Sprintf("paired turn %d: say hello", i+1))
		if err != nil {
			return 0, 0, nil, err
		}
		firsts = append(firsts, (t[0].toFirst() - t[1].toFirst()).Seconds())
		dones = append(dones, (t[0].toDone() - t[1].toDone()).Seconds())
	}
	for i := range min(streamPairs, cfg.WarmPairs) {
		t, err := pair(i, streamPrompt)
		if err != nil {
			return 0, 0, nil, err
		}
		stream = append(stream, t[0].toDone().Seconds()/t[1].toDone().Seconds())
	}
	return median(firsts), median(dones), stream, nil
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
