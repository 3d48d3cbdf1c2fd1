package bench

import (
	"context"
	"fmt"
	"time"
)

// Hibernation (issue 17): many open sessions with a cap on live CLIs. The
// agent runs with CLAUDE_AGENT_ACP_MAX_LIVE_SESSIONS set (or 0, no cap);
// each session gets one prompt in turn, so with a cap the least recently
// used ones hibernate. Measured: the peak RSS of the whole process tree
// (sampled after every turn: the current RSS of every process, summed),
// and prompt → first chunk for a hibernated session (its CLI resumes with
// --resume) against a live one.
const (
	kHibRSSCap   = "hibernate.rss.tree.cap"
	kHibRSSNoCap = "hibernate.rss.tree.nocap"
	kHibResume   = "hibernate.first_chunk.resumed"
	kHibLive     = "hibernate.first_chunk.live"
)

// hibernateCap is the cap of the capped run.
const hibernateCap = 4

// runHibernation measures one adapter with and without the cap.
func runHibernation(ctx context.Context, cfg *Config, argv []string) (sample, error) {
	m := sample{}
	capped, err := hibernationRun(ctx, cfg, argv, hibernateCap)
	if err != nil {
		return nil, fmt.Errorf("with a cap of %d: %w", hibernateCap, err)
	}
	uncapped, err := hibernationRun(ctx, cfg, argv, 0)
	if err != nil {
		return nil, fmt.Errorf("without a cap: %w", err)
	}
	m[kHibRSSCap] = capped.peak
	m[kHibRSSNoCap] = uncapped.peak
	m[kHibResume] = capped.resumed.Seconds()
	m[kHibLive] = capped.live.Seconds()
	return m, nil
}

type hibernationResult struct {
	peak          float64 // bytes
	resumed, live time.Duration
}

func hibernationRun(ctx context.Context, cfg *Config, argv []string, maxLive int) (hibernationResult, error) {
	var res hibernationResult
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	api, sb, err := newWorld(cfg)
	if err != nil {
		return res, err
	}
	defer api.Close()
	run := *sb
	run.env = append(append([]string(nil), sb.env...),
		fmt.Sprintf("CLAUDE_AGENT_ACP_MAX_LIVE_SESSIONS=%d", maxLive), "CLAUDE_AGENT_ACP_IDLE_TIMEOUT=0")
	a, err := startAdapter(ctx, argv, &run)
	if err != nil {
		return res, err
	}
	defer a.close(cfg.closeTimeout())
	if _, err := a.initialize(ctx); err != nil {
		return res, err
	}
	sample := func() {
		settle(a.cmd.Process.Pid, 2*time.Second)
		if u, err := a.usage(); err == nil && float64(u.rss) > res.peak {
			res.peak = float64(u.rss)
		}
	}
	sids := make([]string, cfg.HibernateSessions)
	for i := range sids {
		if sids[i], err = a.newSession(ctx, sb.work); err != nil {
			return res, err
		}
		if _, err := a.prompt(ctx, sids[i], fmt.Sprintf("hello %d", i)); err != nil {
			return res, err
		}
		sample()
	}
	// The first session is the least recently used: hibernated with a cap.
	t, err := a.prompt(ctx, sids[0], "again")
	if err != nil {
		return res, err
	}
	res.resumed = t.toFirst()
	sample()
	t, err = a.prompt(ctx, sids[len(sids)-1], "again")
	if err != nil {
		return res, err
	}
	res.live = t.toFirst()
	return res, nil
}
