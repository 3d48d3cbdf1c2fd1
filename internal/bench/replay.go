package bench

import (
	"context"
	"path/filepath"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/transcriptgen"
)

// runReplay times session/load of a generated transcript of
// cfg.ReplayMessages messages (internal/transcriptgen, with a rewound dead
// branch every 25 turns), written where the CLI keeps the sandbox's
// sessions: the answer, the updates replayed before it, and the adapter's
// CPU and peak RSS for it.
func runReplay(ctx context.Context, cfg *Config, argv []string) (sample, error) {
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	api, sb, err := newWorld(cfg)
	if err != nil {
		return nil, err
	}
	defer api.Close()
	_, st, err := transcriptgen.WriteSession(filepath.Join(sb.home, ".claude"),
		transcriptgen.Options{Cwd: sb.work, Messages: cfg.ReplayMessages, RewindEvery: 25, Seed: 1})
	if err != nil {
		return nil, err
	}
	a, err := startAdapter(argv, sb)
	if err != nil {
		return nil, err
	}
	defer a.close(cfg.closeTimeout())
	defer context.AfterFunc(ctx, func() { killGroup(a.cmd.Process.Pid) })()
	if _, err := a.initialize(ctx); err != nil {
		return nil, err
	}
	before, err := readStat(a.cmd.Process.Pid)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	var resp acp.LoadSessionResponse
	err = a.conn.Call(ctx, acp.MethodSessionLoad, &acp.LoadSessionRequest{
		SessionID: acp.SessionID(st.SessionID), Cwd: sb.work, MCPServers: []acp.MCPServer{}}, &resp)
	if err != nil {
		return nil, a.wrap("session/load", err)
	}
	d := time.Since(start)
	after, err := readStat(a.cmd.Process.Pid)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	updates := a.updates[st.SessionID]
	a.mu.Unlock()
	return sample{
		kReplay:        d.Seconds(),
		kReplayPerMsg:  d.Seconds() / float64(st.Active),
		kReplayUpdates: float64(updates),
		kReplayCPU:     (after.cpu - before.cpu).Seconds(),
		kReplayRSS:     float64(after.hwm),
	}, nil
}
