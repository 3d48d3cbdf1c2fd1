package bench

import (
	"context"
	"path/filepath"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/transcriptgen"
)

// A replayCase is one transcript session/load replays, and the prefix of
// its metric keys (see replayKey).
type replayCase struct {
	prefix string
	opts   func(cfg *Config) transcriptgen.Options
}

// syntheticReplay is a transcriptgen transcript of cfg.ReplayMessages
// messages: six-message turns of about 1 KB lines, one tool call each, a
// rewound dead branch every 25 turns.
var syntheticReplay = replayCase{prefix: "replay", opts: func(cfg *Config) transcriptgen.Options {
	return transcriptgen.Options{Messages: cfg.ReplayMessages, RewindEvery: 25, Seed: 1}
}}

// realisticReplay is shaped like a real working session: 448 tool calls
// whose Bash and Read results are about 13 KB (whole files, long test
// output), 6.6 MiB in all, of plain words; cfg.ReplayMessages below 5,000
// (short CI runs) scale it down. It is the transcript issue 16's replay
// goals are measured on.
var realisticReplay = replayCase{prefix: "real", opts: func(cfg *Config) transcriptgen.Options {
	n := 2800
	if cfg.ReplayMessages < 5000 {
		n = max(cfg.ReplayMessages*2800/5000, 60)
	}
	return transcriptgen.Options{Messages: n, RewindEvery: 25, Seed: 2, ToolOutput: 13000}
}}

// codeReplay is realisticReplay with Go source and test logs for text
// (transcriptgen's Code): as dense in JSON escapes as real source (about
// 9% of the bytes), where plain words have none. Escapes are what a JSON
// string decoder and encoder are slow on, so this is the realistic
// transcript's cost with real file contents (round 13).
var codeReplay = replayCase{prefix: "code", opts: func(cfg *Config) transcriptgen.Options {
	o := realisticReplay.opts(cfg)
	o.Code = true
	return o
}}

// Metric key suffixes of a replay case.
const (
	rAnswer    = ".answer"
	rLast      = ".last_update"
	rPerMsg    = ".per_message"
	rUpdates   = ".updates"
	rCPU       = ".cpu.self"
	rCPUPerMsg = ".cpu.per_message"
	rRSS       = ".rss.self"
	rFaults    = ".faults"       // minor page faults of the adapter for the load
	rFirst     = ".first_update" // session/load → the first history update (the first pass over the file and the load's set-up)
)

// runReplay times session/load of the case's transcript, written where the
// CLI keeps the sandbox's sessions: the answer (which both adapters send
// once their CLI is up), the last history update before it (the replay
// itself: per message on the active branch), the updates, and the
// adapter's CPU and peak RSS for it. The client is a lean one (lean.go), so
// that the replay's pace is the adapter's.
func runReplay(ctx context.Context, cfg *Config, argv []string, rc replayCase) (sample, error) {
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	api, sb, err := newWorld(cfg)
	if err != nil {
		return nil, err
	}
	defer api.Close()
	o := rc.opts(cfg)
	o.Cwd = sb.work
	_, st, err := transcriptgen.WriteSession(filepath.Join(sb.home, ".claude"), o)
	if err != nil {
		return nil, err
	}
	c, err := startLean(ctx, argv, sb)
	if err != nil {
		return nil, err
	}
	defer c.close(cfg.closeTimeout())
	if _, err := c.call(acp.MethodInitialize, &acp.InitializeRequest{ProtocolVersion: 1}); err != nil {
		return nil, err
	}
	before, err := readStat(c.cmd.Process.Pid)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	seen, err := c.call(acp.MethodSessionLoad, &acp.LoadSessionRequest{
		SessionID: acp.SessionID(st.SessionID), Cwd: sb.work, MCPServers: []acp.MCPServer{}})
	if err != nil {
		return nil, err
	}
	d := time.Since(start)
	after, err := readStat(c.cmd.Process.Pid)
	if err != nil {
		return nil, err
	}
	updates := seen.n
	replayed := seen.last.Sub(start)
	if seen.last.IsZero() {
		replayed = d
	}
	cpu := (after.cpu - before.cpu).Seconds()
	p := rc.prefix
	return sample{
		p + rAnswer:    d.Seconds(),
		p + rLast:      replayed.Seconds(),
		p + rPerMsg:    replayed.Seconds() / float64(st.Active),
		p + rUpdates:   float64(updates),
		p + rCPU:       cpu,
		p + rCPUPerMsg: cpu / float64(st.Active),
		p + rRSS:       float64(after.hwm),
		p + rFaults:    float64(after.minflt - before.minflt),
		p + rFirst:     seen.first.Sub(start).Seconds(),
	}, nil
}
