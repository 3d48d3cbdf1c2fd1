package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// sample holds one iteration's measurements of one system, by metric key
// (see the keys in report.go). Times are in seconds, sizes in bytes.
type sample map[string]float64

// userTurns is how many prompts the main run sends before the streaming
// turn: the "5-turn run" whose model API requests are counted.
const userTurns = 5

// streamPrompt marks the streaming turn; the fake API answers only the
// main loop's request for it (it has tools) with the many-delta step.
const streamPrompt = "stream the long answer"

func streamStep(deltas int) fakeapi.Step {
	return fakeapi.Step{
		Kind:   "text",
		Text:   strings.Repeat("word ", deltas),
		Chunks: deltas,
		Match:  &fakeapi.Match{HasTools: fakeapi.Bool(true), LastUserContains: streamPrompt},
	}
}

// runTimeout bounds one run, so a stuck process fails the run instead of
// hanging the harness.
const runTimeout = 3 * time.Minute

// newWorld makes what every run needs: a fake API of its own (so its request log
// is the run's) and a fresh sandbox.
func newWorld(cfg *Config) (*fakeapi.Server, *sandbox, error) {
	api, err := fakeapi.Start()
	if err != nil {
		return nil, nil, err
	}
	sb, err := newSandbox(cfg.tmp, api.URL(), cfg.CLI)
	if err != nil {
		_ = api.Close()
		return nil, nil, err
	}
	return api, sb, nil
}

// runAdapter is the main run of one adapter: start-up, userTurns turns,
// the request count, usage, then the streaming turn.
func runAdapter(ctx context.Context, cfg *Config, argv []string) (sample, error) {
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	api, sb, err := newWorld(cfg)
	if err != nil {
		return nil, err
	}
	defer api.Close()
	api.Script(streamStep(cfg.Deltas))
	a, err := startAdapter(ctx, argv, sb)
	if err != nil {
		return nil, err
	}
	defer a.close(cfg.closeTimeout())
	m := sample{}
	d, err := a.initialize(ctx)
	if err != nil {
		return nil, err
	}
	m[kInit] = d.Seconds()
	sid, err := a.newSession(ctx, sb.work)
	if err != nil {
		return nil, err
	}
	m[kNew] = time.Since(a.start).Seconds()
	err = turnScript(m, cfg, api, system{
		pid:   a.cmd.Process.Pid,
		start: a.start,
		turn:  func(text string) (turn, error) { return a.prompt(ctx, sid, text) },
		usage: a.usage,
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// runBare is runAdapter's work done by the CLI alone.
func runBare(ctx context.Context, cfg *Config) (sample, error) {
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	api, sb, err := newWorld(cfg)
	if err != nil {
		return nil, err
	}
	defer api.Close()
	api.Script(streamStep(cfg.Deltas))
	b, err := startBare(ctx, cfg.CLI, cfg.bare, sb)
	if err != nil {
		return nil, err
	}
	defer b.close(cfg.closeTimeout())
	m := sample{}
	err = turnScript(m, cfg, api, system{pid: b.cmd.Process.Pid, start: b.start, turn: b.turn, usage: b.usage})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// system is what [turnScript] needs of the process under test: the
// adapter, or the CLI alone.
type system struct {
	pid   int
	start time.Time // taken right before the fork
	turn  func(text string) (turn, error)
	usage func() (treeUsage, error)
}

// turnScript is the part of the main run that the adapter and the bare CLI
// share: userTurns turns (the first timed from start), the request count
// and usage, cfg.Turns more warm turns, then the streaming turn.
func turnScript(m sample, cfg *Config, api *fakeapi.Server, s system) error {
	var warm []turn
	for i := range userTurns {
		if i > 0 {
			settle(s.pid, 3*time.Second)
		}
		t, err := s.turn(fmt.Sprintf("turn %d: say hello", i+1))
		if err != nil {
			return err
		}
		if i == 0 {
			m[kFirst] = t.first.Sub(s.start).Seconds()
			continue
		}
		warm = append(warm, t)
	}
	countRequests(m, api)
	u, err := s.usage()
	if err != nil {
		return err
	}
	usageMetrics(m, u)
	for i := range cfg.Turns {
		settle(s.pid, 3*time.Second)
		t, err := s.turn(fmt.Sprintf("extra turn %d: say hello", i+1))
		if err != nil {
			return err
		}
		warm = append(warm, t)
	}
	warmTurns(m, warm)
	settle(s.pid, 3*time.Second)
	before, err := s.usage()
	if err != nil {
		return err
	}
	t, err := s.turn(streamPrompt)
	if err != nil {
		return err
	}
	after, err := s.usage()
	if err != nil {
		return err
	}
	streamMetrics(m, t, before, after, cfg.Deltas)
	return nil
}

func warmTurns(m sample, warm []turn) {
	var first, done, perChunk []float64
	for _, t := range warm {
		first = append(first, t.toFirst().Seconds())
		done = append(done, t.toDone().Seconds())
		perChunk = append(perChunk, float64(t.chunks))
	}
	m[kTurnFirst] = median(first)
	m[kTurnDone] = median(done)
	m[kTurnChunks] = median(perChunk)
}

func usageMetrics(m sample, u treeUsage) {
	m[kRSS] = float64(u.self.hwm)
	m[kRSSTree] = float64(u.hwm)
	m[kCPU] = u.self.cpu.Seconds()
	m[kCPUTree] = u.cpu.Seconds()
}

func streamMetrics(m sample, t turn, before, after treeUsage, deltas int) {
	m[kStreamDone] = t.toDone().Seconds()
	m[kStreamChunks] = float64(t.chunks)
	m[kStreamRSS] = float64(after.self.hwm)
	m[kStreamCPU] = cpuBetween(before, after).Seconds()
	m[kStreamCPUPerChunk] = m[kStreamCPU] / float64(deltas)
	m[kStreamReads] = float64(after.self.syscr - before.self.syscr)
	m[kStreamWrites] = float64(after.self.syscw - before.self.syscw)
	m[kStreamRuns] = float64(after.selfRuns - before.selfRuns)
	m[kStreamFaults] = float64(after.self.minflt - before.self.minflt)
}

// countRequests waits for the model API to fall quiet (titles and
// suggestions are asked for after a turn ends) and counts the Messages
// requests of the run so far.
func countRequests(m sample, api *fakeapi.Server) {
	const quiet = 700 * time.Millisecond
	n, since := len(api.Requests()), time.Now()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		if k := len(api.Requests()); k != n {
			n, since = k, time.Now()
		} else if time.Since(since) >= quiet {
			break
		}
	}
	var messages, other float64
	for _, r := range api.Requests() {
		switch {
		case r.Method == "POST" && r.Path == "/v1/messages":
			messages++
		case r.Method != "HEAD":
			other++
		}
	}
	m[kRequests] = messages
	m[kOtherRequests] = other
}

// runConcurrent opens cfg.Sessions sessions in one adapter and prompts them all
// at once: memory per extra session and turn latency under load.
func runConcurrent(ctx context.Context, cfg *Config, argv []string) (sample, error) {
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	api, sb, err := newWorld(cfg)
	if err != nil {
		return nil, err
	}
	defer api.Close()
	a, err := startAdapter(ctx, argv, sb)
	if err != nil {
		return nil, err
	}
	defer a.close(cfg.closeTimeout())
	if _, err := a.initialize(ctx); err != nil {
		return nil, err
	}
	sids := make([]string, cfg.Sessions)
	var rss1 int64 // the adapter's RSS with one warm session
	for i := range sids {
		if sids[i], err = a.newSession(ctx, sb.work); err != nil {
			return nil, err
		}
		if i == 0 {
			if _, err := a.prompt(ctx, sids[0], "warm up"); err != nil {
				return nil, err
			}
			countRequests(sample{}, api) // let background requests settle
			u, err := a.usage()
			if err != nil {
				return nil, err
			}
			rss1 = u.self.rss
		}
	}
	// A first turn on every session brings its CLI up; the second, measured
	// round runs with all of them warm.
	if _, err := promptAll(ctx, a, sids, "warm up"); err != nil {
		return nil, err
	}
	settle(a.cmd.Process.Pid, 5*time.Second)
	turns, err := promptAll(ctx, a, sids, "under load: say hello")
	if err != nil {
		return nil, err
	}
	countRequests(sample{}, api)
	u, err := a.usage()
	if err != nil {
		return nil, err
	}
	var lat []float64
	for _, t := range turns {
		lat = append(lat, t.toDone().Seconds())
	}
	m := sample{
		kConcTurn:    median(lat),
		kConcTurnMax: slices.Max(lat),
		kConcRSSPer:  float64(u.self.rss-rss1) / float64(len(sids)-1),
		kConcRSS:     float64(u.self.hwm),
		kConcRSSTree: float64(u.rss),
	}
	return m, nil
}

// promptAll prompts every session at once and returns their turns.
func promptAll(ctx context.Context, a *adapter, sids []string, text string) ([]turn, error) {
	turns := make([]turn, len(sids))
	errs := make([]error, len(sids))
	var wg sync.WaitGroup
	for i, sid := range sids {
		wg.Go(func() { turns[i], errs[i] = a.prompt(ctx, sid, text) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return turns, nil
}
