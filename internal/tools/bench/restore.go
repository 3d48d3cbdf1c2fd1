package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/transcriptgen"
)

// An editor restores its threads (issue 38): at start it sends a
// session/load for each thread it had open, all at once, with a cap on
// live CLIs (CLAUDE_AGENT_ACP_MAX_LIVE_SESSIONS; the reference ignores it
// and keeps a CLI per session). Measured: the time until every load has
// answered, how many CLIs are live restoreSettle after the last answer,
// the RSS of the whole process tree then (and its peak meanwhile: the
// current RSS of every process, summed, sampled every restorePoll), and
// one live CLI's RSS, the unit of the goal (at most restoreCap CLIs and
// 64 MiB more).
const (
	restoreThreads = 8
	restoreCap     = 3
	// restoreSettle is "a few seconds after" the last answer: time for
	// the CLIs started in the background to be up, and for any beyond
	// the cap to be gone.
	restoreSettle = 5 * time.Second
	restorePoll   = 100 * time.Millisecond
	// restoreMessages is each thread's transcript: the realistic shape,
	// a working session's length (reopenMessages).
	restoreMessages = reopenMessages
)

// Metric keys of the restore run.
const (
	kRestoreAnswers = "restore.answers"      // the first load sent → the last answer
	kRestoreLive    = "restore.live_clis"    // CLIs live restoreSettle after the last answer
	kRestoreRSS     = "restore.rss.tree"     // the tree's RSS then
	kRestorePeak    = "restore.rss.peak"     // the tree's largest RSS until then
	kRestoreCLIRSS  = "restore.rss.cli"      // a live CLI's RSS then (median)
	kRestoreOver    = "restore.rss.over_cap" // the tree's RSS then, less restoreCap CLIs
	kRestoreUpdates = "restore.updates"      // history updates per thread, fewest
)

// runRestore restores restoreThreads threads at once in one adapter.
func runRestore(ctx context.Context, cfg *Config, argv []string) (sample, error) {
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	api, sb, err := newWorld(cfg)
	if err != nil {
		return nil, err
	}
	defer api.Close()
	ids := make([]string, restoreThreads)
	for i := range ids {
		o := realisticReplay.opts(cfg)
		o.Messages = min(o.Messages, restoreMessages)
		o.Seed = int64(100 + i)
		o.Cwd = sb.work
		_, st, err := transcriptgen.WriteSession(filepath.Join(sb.home, ".claude"), o)
		if err != nil {
			return nil, err
		}
		ids[i] = st.SessionID
	}
	run := *sb
	run.env = append(append([]string(nil), sb.env...),
		fmt.Sprintf("CLAUDE_AGENT_ACP_MAX_LIVE_SESSIONS=%d", restoreCap), "CLAUDE_AGENT_ACP_IDLE_TIMEOUT=0")
	a, err := startAdapter(ctx, argv, &run)
	if err != nil {
		return nil, err
	}
	defer a.close(cfg.closeTimeout())
	if _, err := a.initialize(ctx); err != nil {
		return nil, err
	}
	cli, err := filepath.EvalSymlinks(cfg.CLI)
	if err != nil {
		return nil, err
	}
	pid := a.cmd.Process.Pid
	var peak int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() { // the tree's RSS while the threads are restored
		defer close(sampled)
		for {
			if u, err := snapshotTree(pid); err == nil && u.rss > peak {
				peak = u.rss
			}
			select {
			case <-stop:
				return
			case <-time.After(restorePoll):
			}
		}
	}()
	start := time.Now()
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Go(func() {
			errs[i] = a.wrap("session/load", a.conn.Call(ctx, acp.MethodSessionLoad,
				&acp.LoadSessionRequest{SessionID: acp.SessionID(id), Cwd: sb.work, MCPServers: []acp.MCPServer{}}, &acp.LoadSessionResponse{}))
		})
	}
	wg.Wait()
	answered := time.Since(start)
	for _, err := range errs {
		if err != nil {
			close(stop)
			<-sampled
			return nil, err
		}
	}
	fewest := -1
	a.mu.Lock()
	for _, id := range ids {
		if n := a.updates[id]; fewest < 0 || n < fewest {
			fewest = n
		}
	}
	a.mu.Unlock()
	if fewest <= 0 {
		close(stop)
		<-sampled
		return nil, fmt.Errorf("a restored thread answered without its history")
	}
	time.Sleep(restoreSettle)
	close(stop)
	<-sampled
	u, err := snapshotTree(pid)
	if err != nil {
		return nil, err
	}
	var live []float64
	for _, p := range descendants(pid) {
		if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", p.pid)); err == nil && exe == cli {
			live = append(live, float64(p.rss))
		}
	}
	m := sample{
		kRestoreAnswers: answered.Seconds(),
		kRestoreLive:    float64(len(live)),
		kRestoreRSS:     float64(u.rss),
		kRestorePeak:    float64(max(peak, u.rss)),
		kRestoreUpdates: float64(fewest),
	}
	if len(live) > 0 {
		m[kRestoreCLIRSS] = median(live)
		m[kRestoreOver] = float64(u.rss) - restoreCap*m[kRestoreCLIRSS]
	}
	return m, nil
}
