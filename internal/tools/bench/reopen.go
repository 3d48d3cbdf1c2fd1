package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/transcriptgen"
)

// Reopening a thread (issue 38): the user reopens a thread in the editor
// (session/load of a working session's transcript, reopenCase) and types a prompt about
// reopenTyping later. What the user feels is the load's answer (the
// thread is usable) and the first text of that prompt. The yardstick of
// the prompt is the bare CLI on the same work: resumed on the same
// transcript, started when the load was asked and prompted reopenTyping
// later. A CLI's first turn after it starts is 2–5× slower than its later
// turns whatever drives it, so the bare CLI's first turn, not a warm one,
// is what an adapter that hid its CLI's start-up behind the typing can
// match. An adapter whose load answers later than reopenTyping is
// prompted at its answer, as an editor that lets the user type only then.

// reopenTyping is how long the user takes to type the first prompt after
// reopening a thread.
const reopenTyping = 1500 * time.Millisecond

// reopenPrompt is that prompt; the fake API answers it with its short text.
const reopenPrompt = "after the reopen: say hello"

// Metric keys of the reopening run.
const (
	kReopenAnswer = "reopen.load_answer"      // session/load → its answer
	kReopenFirst  = "reopen.first_text"       // the prompt → its first text (bare CLI: the user message → its first delta)
	kReopenTotal  = "reopen.load_first_text"  // session/load (bare CLI: its spawn) → the prompt's first text
	kReopenRatio  = "ratio.reopen_first_text" // kReopenFirst over the bare CLI's, pairs of the same iteration
)

// reopenPairs is how many reopenings of each system an iteration makes,
// alternating with the bare CLI's: the ratio is their pairs' median.
const reopenPairs = 2

// reopenMessages is the size of the transcript reopened: the realistic
// replay's shape (Bash and Read results of about 13 KB), cut to what fits
// in a model's context window (about 0.9 MB of transcript, some 200,000
// tokens), since the CLI sends the whole history with the prompt. The
// replay's 2,800 messages would be 1.6 million tokens, which a real
// session compacts long before: its first turn took the CLI 5 to 7 s.
const reopenMessages = 400

// reopenCase is the transcript reopened.
func reopenCase(cfg *Config, cwd string) transcriptgen.Options {
	o := realisticReplay.opts(cfg)
	o.Messages = min(o.Messages, reopenMessages)
	o.Seed = 3
	o.Cwd = cwd
	return o
}

// runReopen reopens the realistic transcript in an adapter (argv) and
// prompts it reopenTyping after the load was asked.
func runReopen(ctx context.Context, cfg *Config, argv []string) (sample, error) {
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	api, sb, err := newWorld(cfg)
	if err != nil {
		return nil, err
	}
	defer api.Close()
	_, st, err := transcriptgen.WriteSession(filepath.Join(sb.home, ".claude"), reopenCase(cfg, sb.work))
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
	start := time.Now()
	if _, err := c.call(acp.MethodSessionLoad, &acp.LoadSessionRequest{
		SessionID: acp.SessionID(st.SessionID), Cwd: sb.work, MCPServers: []acp.MCPServer{}}); err != nil {
		return nil, err
	}
	answered := time.Since(start)
	time.Sleep(time.Until(start.Add(reopenTyping)))
	sent := time.Now()
	u, err := c.call(acp.MethodSessionPrompt, &acp.PromptRequest{SessionID: acp.SessionID(st.SessionID),
		Prompt: []acp.ContentBlock{{Text: &acp.TextContent{Text: reopenPrompt}}}})
	if err != nil {
		return nil, err
	}
	var resp struct {
		Result acp.PromptResponse `json:"result"`
	}
	if err := json.Unmarshal(u.answer, &resp); err != nil || resp.Result.StopReason != acp.StopReasonEndTurn {
		return nil, fmt.Errorf("the prompt after the load: %.300s", u.answer)
	}
	if u.chunks == 0 {
		return nil, fmt.Errorf("the prompt after the load: no agent_message_chunk")
	}
	return sample{
		kReopenAnswer: answered.Seconds(),
		kReopenFirst:  u.firstChunk.Sub(sent).Seconds(),
		kReopenTotal:  u.firstChunk.Sub(start).Seconds(),
	}, nil
}

// runReopenBare is runReopen's work done by the CLI alone: spawned with
// --resume on the same transcript (and our adapter's other arguments),
// prompted reopenTyping after the spawn.
func runReopenBare(ctx context.Context, cfg *Config) (sample, error) {
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	api, sb, err := newWorld(cfg)
	if err != nil {
		return nil, err
	}
	defer api.Close()
	_, st, err := transcriptgen.WriteSession(filepath.Join(sb.home, ".claude"), reopenCase(cfg, sb.work))
	if err != nil {
		return nil, err
	}
	inv := cfg.bare
	inv.resume = st.SessionID
	b, err := startBare(ctx, cfg.CLI, inv, sb)
	if err != nil {
		return nil, err
	}
	defer b.close(cfg.closeTimeout())
	time.Sleep(time.Until(b.start.Add(reopenTyping)))
	t, err := b.turn(reopenPrompt)
	if err != nil {
		return nil, err
	}
	return sample{
		kReopenFirst: t.toFirst().Seconds(),
		kReopenTotal: t.first.Sub(b.start).Seconds(),
	}, nil
}

// reopenRounds makes reopenPairs reopenings of every system in order,
// alternating (the order reversed in every other round), and adds their
// medians to got, with each adapter's median ratio to the bare CLI of the
// same round.
func reopenRounds(ctx context.Context, cfg *Config, i int, order []string, adapters map[string][]string, got map[string]sample) error {
	all := map[string][]sample{}
	ratios := map[string][]float64{}
	for k := range reopenPairs {
		round := order
		if k%2 == 1 {
			round = reversed(order)
		}
		this := map[string]sample{}
		for _, sys := range round {
			run := func() (sample, error) { return runReopen(ctx, cfg, adapters[sys]) }
			if sys == Bare {
				run = func() (sample, error) { return runReopenBare(ctx, cfg) }
			}
			m, err := timed(cfg.Log, i, sys, "reopen", run)
			if err != nil {
				return err
			}
			this[sys] = m
			all[sys] = append(all[sys], m)
		}
		for sys, m := range this {
			if sys != Bare {
				ratios[sys] = append(ratios[sys], m[kReopenFirst]/this[Bare][kReopenFirst])
			}
		}
	}
	for sys, ms := range all {
		for _, key := range []string{kReopenAnswer, kReopenFirst, kReopenTotal} {
			var vs []float64
			for _, m := range ms {
				if v, ok := m[key]; ok {
					vs = append(vs, v)
				}
			}
			if len(vs) > 0 {
				got[sys][key] = median(vs)
			}
		}
		if len(ratios[sys]) > 0 {
			got[sys][kReopenRatio] = median(ratios[sys])
		}
	}
	return nil
}

// resumeArgv is argv for a CLI that resumes session sid: our adapter's
// arguments with --resume=sid in place of its session flag.
func (c cliInvocation) resumeArgv(sid string) []string {
	out := c.argv()
	i := slices.IndexFunc(out, func(a string) bool { return strings.HasPrefix(a, "--session-id=") })
	if i < 0 {
		return append(out, "--resume="+sid)
	}
	out[i] = "--resume=" + sid
	return out
}
