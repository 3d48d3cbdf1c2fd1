package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
)

// TestLifecycleRandom drives the agent from states our other tests never
// create: random sequences of client events (new, prompt, cancel,
// $/cancel_request, close, set_mode, load, EOF, permission answers that
// allow, deny, fail or never come) and CLI events (a model that answers
// late or streams long, a CLI killed, a result frame lost or repeated, a
// CLI that dies mid-turn, hibernation by the cap and by the idle timeout),
// all in memory (internal/test/clifake) under testing/synctest, and checks
// after every step:
//
//   - every request is answered exactly once;
//   - no tool runs and no model request is made for a session after its
//     close, nor for any after EOF;
//   - when a prompt is answered, every tool card of its turn is settled;
//   - once nothing is pending, at most the cap of CLIs is live, and every
//     prompt has been answered (none waits for a CLI that is idle or gone);
//   - the agent leaves no goroutine when the connection ends (synctest).
//
// Each sequence is seeded: a failure names its seed, and
// LIFECYCLE_SEED=N replays it (with its step log under -v). The short run
// is part of make test; make test-lifecycle runs LIFECYCLE_SEEDS sequences
// of LIFECYCLE_STEPS steps. Seeds that found a bug are kept in
// lifecycleRegressions and run every time.
func TestLifecycleRandom(t *testing.T) {
	t.Parallel()
	seeds, steps := 100, 40
	if n, err := strconv.Atoi(os.Getenv("LIFECYCLE_SEEDS")); err == nil && n > 0 {
		seeds = n
	}
	if n, err := strconv.Atoi(os.Getenv("LIFECYCLE_STEPS")); err == nil && n > 0 {
		steps = n
	}
	type run struct {
		name  string
		seed  uint64
		steps int
	}
	var list []run
	if s, err := strconv.ParseUint(os.Getenv("LIFECYCLE_SEED"), 10, 64); err == nil {
		list = append(list, run{fmt.Sprint(s), s, steps})
	} else {
		for _, r := range lifecycleRegressions {
			list = append(list, run{fmt.Sprintf("regression-%d", r.seed), r.seed, r.steps})
		}
		for i := range seeds {
			list = append(list, run{fmt.Sprint(i + 1), uint64(i) + 1, steps})
		}
	}
	for _, r := range list {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) { runLifecycle(t, r.seed, r.steps) })
		})
	}
}

// lifecycleRegressions are seeds that once found a bug, with the steps
// they ran (sequences are random in the order of simultaneous events, so a
// seed finds its bug often, not always).
var lifecycleRegressions = []struct {
	seed  uint64
	steps int
}{
	// A result lost while another prompt was queued behind its turn: the
	// CLI does not go idle between the two, so only the turn's lifecycle
	// "completed" says that it ended. The prompt was never answered.
	{22, 40},
	// Two goroutines closing one CLI (the cap's hibernation and the next
	// start): the second waited on a sync.Once's mutex, which synctest does
	// not count as blocked, and the run hung (claude.Process.stopOnce).
	{18, 40},
	// A session whose turns were all cancelled counted as idle while the
	// CLI still held the cancelled work; the cap hibernated it with stdin
	// EOF, and the CLI ran a cancelled prompt (a model request) to its end.
	{71, 100},
}

// The agent's settings in the simulation.
const (
	simCap  = 2
	simIdle = 40 * time.Second
)

// lifecycle is one random sequence and what it has seen.
type lifecycle struct {
	t    *testing.T
	seed uint64
	rng  *rand.Rand
	s    *sim
	log  []string // what happened, for a failure's report

	mu       sync.Mutex
	sessions []*simSession
	prompts  []*simPrompt
	held     map[string]chan struct{} // permission requests not answered, by tool call id
	eofAt    time.Time
	calls    int // client requests in flight

	seen wireSeen // checks: the wire read so far
}

type simSession struct {
	id       string
	open     bool
	closedAt time.Time // when its close was sent (zero: never)
}

type simPrompt struct {
	tag      string
	session  string
	cancel   context.CancelFunc
	answered bool
	resp     *acp.PromptResponse
	err      error
}

// hash is a number from the seed and a name: the model's and the client's
// choices depend on what they are about, not on the order goroutines ran
// in, so a seed replays the same choices.
func (l *lifecycle) hash(parts ...string) uint64 {
	h := fnv.New64a()
	fmt.Fprint(h, l.seed)
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return h.Sum64()
}

// model is the fake API: what each request gets, from the prompt's tag.
func (l *lifecycle) model(r clifake.Request) clifake.Reply {
	tag, _, _ := strings.Cut(r.Prompt, " ")
	h := l.hash("model", tag, strconv.FormatBool(r.FollowUp))
	ms := func(max uint64) time.Duration {
		h = h*6364136223846793005 + 1442695040888963407
		// Odd microseconds: nothing of the model coincides with a step.
		return time.Duration(h>>33%max)*time.Millisecond + 7*time.Microsecond
	}
	rep := clifake.Reply{Delay: ms(2500), Every: ms(40)}
	for i := range 1 + int(h>>40%4) {
		rep.Chunks = append(rep.Chunks, fmt.Sprintf("%s-%d ", tag, i))
	}
	if !r.FollowUp && h>>20%10 < 4 {
		rep.Tool, rep.ToolID, rep.ToolTime = "echo "+tag, "toolu_"+tag, ms(2000)
	}
	switch h >> 50 % 20 {
	case 0:
		rep.End = clifake.LostResult
	case 1:
		rep.End = clifake.DupResult
	case 2:
		rep.End = clifake.Die
	}
	return rep
}

// permission is the client's answer: allow, deny, an error, or none until
// the agent withdraws the request (or the run releases it).
func (l *lifecycle) permission(ctx context.Context, req *simPermission) (*simOutcome, error) {
	id := req.toolCallID()
	switch l.hash("permission", id) % 10 {
	case 0, 1:
		return req.choose("reject_once"), nil
	case 2:
		return nil, acp.NewInternalError("the client failed")
	case 3, 4:
		release := make(chan struct{})
		l.mu.Lock()
		l.held[id] = release
		l.mu.Unlock()
		defer func() {
			l.mu.Lock()
			delete(l.held, id)
			l.mu.Unlock()
		}()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-release:
		}
	}
	return allowOnceSim(req), nil
}

func runLifecycle(t *testing.T, seed uint64, steps int) {
	l := &lifecycle{t: t, seed: seed, rng: rand.New(rand.NewPCG(seed, 0x5eed)), held: map[string]chan struct{}{}}
	w := &clifake.World{Model: l.model}
	l.s = newSim(t, w, func(c *agent.Config) {
		c.MaxLiveSessions = simCap
		c.IdleTimeout = simIdle
	})
	l.s.v2 = seed%3 == 0 // every third sequence speaks ACP v2
	l.s.permission = l.permission
	l.note("protocol v%d", map[bool]int{false: 1, true: 2}[l.s.v2])
	defer func() {
		if t.Failed() || os.Getenv("LIFECYCLE_SEED") != "" {
			t.Logf("seed %d; replay with LIFECYCLE_SEED=%d go test -run TestLifecycleRandom -v ./agent\n%s", seed, seed, strings.Join(l.log, "\n"))
			if os.Getenv("LIFECYCLE_SEED") != "" {
				var ev []string
				for _, e := range w.Events() {
					ev = append(ev, fmt.Sprintf("%8.3fs cli%d %s %s %s", float64(e.At.Sub(simEpoch))/float64(time.Second), e.CLI, short(e.Session), e.Kind, e.Detail))
				}
				t.Logf("the fake CLIs:\n%s", strings.Join(ev, "\n"))
				l.s.mu.Lock()
				for _, w := range l.s.wire {
					if os.Getenv("LIFECYCLE_WIRE") != "" && strings.Contains(w.line, os.Getenv("LIFECYCLE_WIRE")) {
						t.Logf("%v %.300s", w.fromAgent, w.line)
					}
				}
				l.s.mu.Unlock()
			}
		}
	}()
	l.s.initialize()
	for i := range steps {
		l.step(i)
		synctest.Wait()
		l.check()
		if t.Failed() {
			break // and shut down: nothing may be left behind either way
		}
	}
	// The end: most runs first let everything finish; some close stdin
	// with turns and permission requests in flight.
	if !t.Failed() && l.rng.IntN(10) < 7 {
		l.quiesce()
	}
	l.note("EOF")
	l.mu.Lock()
	l.eofAt = time.Now()
	l.mu.Unlock()
	if err := l.s.eof(); err != nil {
		t.Errorf("Serve after EOF: %v", err)
	}
	synctest.Wait()
	l.check()
	l.checkAllAnswered()
}

func (l *lifecycle) note(format string, args ...any) {
	l.log = append(l.log, fmt.Sprintf("%8.3fs ", float64(time.Since(simEpoch))/float64(time.Second))+fmt.Sprintf(format, args...))
}

// simEpoch is synctest's fake time at the start of a bubble.
var simEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

func (l *lifecycle) openSessions() []*simSession {
	var out []*simSession
	for _, s := range l.sessions {
		if s.open {
			out = append(out, s)
		}
	}
	return out
}

// step does one random thing.
func (l *lifecycle) step(i int) {
	open := l.openSessions()
	pick := func() *simSession { return open[l.rng.IntN(len(open))] }
	switch r := l.rng.IntN(100); {
	case len(open) == 0 || r < 8 && len(open) < 4:
		id := l.s.newSession()
		l.sessions = append(l.sessions, &simSession{id: id, open: true})
		l.note("new %s", short(id))
	case r < 40:
		ss := pick()
		tag := fmt.Sprintf("p%d", i)
		ctx, cancel := context.WithCancel(context.Background())
		p := &simPrompt{tag: tag, session: ss.id, cancel: cancel}
		l.mu.Lock()
		l.prompts = append(l.prompts, p)
		l.mu.Unlock()
		l.note("prompt %s in %s", tag, short(ss.id))
		go func() {
			resp, err := l.s.prompt(ctx, ss.id, tag+" do something")
			l.mu.Lock()
			p.answered, p.resp, p.err = true, resp, err
			l.mu.Unlock()
		}()
	case r < 50:
		ss := pick()
		l.note("session/cancel %s", short(ss.id))
		l.s.cancelSession(ss.id)
	case r < 56:
		l.mu.Lock()
		var pending []*simPrompt
		for _, p := range l.prompts {
			if !p.answered {
				pending = append(pending, p)
			}
		}
		l.mu.Unlock()
		if len(pending) > 0 {
			p := pending[l.rng.IntN(len(pending))]
			l.note("$/cancel_request %s", p.tag)
			p.cancel()
		}
	case r < 62:
		ss := pick()
		ss.open, ss.closedAt = false, time.Now()
		l.note("session/close %s", short(ss.id))
		go func() {
			if err := l.s.close(ss.id); err != nil {
				l.t.Errorf("session/close: %v", err)
			}
		}()
	case r < 68:
		ss := pick()
		mode := []string{"default", "bypassPermissions", "acceptEdits"}[l.rng.IntN(3)]
		l.note("set_mode %s %s", short(ss.id), mode)
		go func() { _ = l.s.setMode(ss.id, mode) }()
	case r < 73:
		if len(l.sessions) == 0 {
			return
		}
		ss := l.sessions[l.rng.IntN(len(l.sessions))]
		l.note("session/load %s", short(ss.id))
		if !ss.open {
			ss.open, ss.closedAt = true, time.Time{}
		}
		go func() {
			if err := l.s.load(ss.id); err != nil {
				l.note("load of %s: %v", short(ss.id), err)
			}
		}()
	case r < 78:
		live := l.s.world.Live()
		if len(live) > 0 {
			c := live[l.rng.IntN(len(live))]
			l.note("kill CLI %d", c.N())
			l.s.world.Kill(c.N())
		}
	case r < 82:
		l.mu.Lock()
		var ids []string
		for id := range l.held {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		if len(ids) > 0 {
			id := ids[l.rng.IntN(len(ids))]
			l.note("answer the held permission for %s", id)
			close(l.held[id])
			delete(l.held, id)
		}
		l.mu.Unlock()
	default:
		d := time.Duration(l.rng.IntN(8000))*time.Millisecond + time.Duration(l.rng.IntN(3))*simIdle/2
		l.note("wait %v", d)
		time.Sleep(d)
	}
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// quiesce releases every held permission and waits until nothing is
// pending: every prompt must be answered by then.
func (l *lifecycle) quiesce() {
	l.note("quiesce")
	for range 100 {
		l.mu.Lock()
		for id, ch := range l.held {
			close(ch)
			delete(l.held, id)
		}
		pending := 0
		for _, p := range l.prompts {
			if !p.answered {
				pending++
			}
		}
		l.mu.Unlock()
		if pending == 0 && (!l.s.v2 || len(l.busyV2()) == 0) {
			break
		}
		time.Sleep(10 * time.Second)
		synctest.Wait()
	}
	l.mu.Lock()
	for _, p := range l.prompts {
		if !p.answered {
			l.t.Errorf("prompt %s was never answered", p.tag)
		}
	}
	l.mu.Unlock()
	if l.s.v2 {
		l.checkIdleV2()
	}
	// The cap: idle sessions hibernate within seconds.
	time.Sleep(5 * time.Second)
	synctest.Wait()
	if live := l.s.world.Live(); len(live) > simCap {
		l.t.Errorf("%d CLIs live once idle, cap %d", len(live), simCap)
	}
}

// check verifies the invariants on what happened so far.
func (l *lifecycle) check() {
	l.scanWire()
	l.checkNothingAfterClose()
	if l.s.v2 {
		l.checkCardsSettledV2()
	}
}

// wireSeen is what the checks have read of the wire so far: each line is
// decoded once, when it is new (a run checks after every step, and
// decoding the whole wire each time made the test quadratic).
type wireSeen struct {
	lines     int
	asked     map[string]string // request id → method, from the client
	answers   map[string]int    // request id → answers from the agent
	promptTag map[string]string // prompt request id → its tag
	status    map[string]string // tool call id → last status
}

// scanWire checks the lines that are new since the last check:
//   - no request is answered twice;
//   - when a prompt is answered, every tool card of its turn (the model
//     names its calls after the prompt's tag) has ended (v1: on v2 the
//     answer comes at insertion, checkCardsSettledV2).
func (l *lifecycle) scanWire() {
	l.s.mu.Lock()
	wire := slices.Clone(l.s.wire[l.seen.lines:])
	l.s.mu.Unlock()
	w := &l.seen
	if w.asked == nil {
		w.asked, w.answers, w.promptTag, w.status = map[string]string{}, map[string]int{}, map[string]string{}, map[string]string{}
	}
	w.lines += len(wire)
	for _, line := range wire {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Prompt []struct {
					Text string `json:"text"`
				} `json:"prompt"`
				Update struct {
					ToolCallID string `json:"toolCallId"`
					Status     string `json:"status"`
				} `json:"update"`
			} `json:"params"`
		}
		if json.Unmarshal([]byte(line.line), &m) != nil {
			continue
		}
		id := string(m.ID)
		hasID := len(m.ID) > 0 && id != "null"
		switch {
		case !line.fromAgent && m.Method != "" && hasID:
			w.asked[id] = m.Method
			if m.Method == acp.MethodSessionPrompt && len(m.Params.Prompt) > 0 {
				w.promptTag[id], _, _ = strings.Cut(m.Params.Prompt[0].Text, " ")
			}
		case line.fromAgent && m.Method == acp.MethodSessionUpdate && m.Params.Update.ToolCallID != "":
			call := m.Params.Update.ToolCallID
			if m.Params.Update.Status != "" {
				w.status[call] = m.Params.Update.Status
			} else if _, ok := w.status[call]; !ok {
				w.status[call] = "pending"
			}
		case line.fromAgent && m.Method == "" && hasID:
			if w.answers[id]++; w.answers[id] == 2 {
				l.t.Errorf("request %s (%s) answered more than once", id, w.asked[id])
			}
			if tag := w.promptTag[id]; tag != "" && !l.s.v2 {
				call := "toolu_" + tag
				if st, ok := w.status[call]; ok && st != "completed" && st != "failed" {
					l.t.Errorf("prompt %s answered with its tool card %s still %s", tag, call, st)
				}
			}
		}
	}
}

// checkAllAnswered: at the end, every request of the client has been
// answered.
func (l *lifecycle) checkAllAnswered() {
	l.scanWire()
	for id, method := range l.seen.asked {
		if l.seen.answers[id] == 0 {
			l.t.Errorf("request %s (%s) never answered", id, method)
		}
	}
}

// checkNothingAfterClose: no model request or tool run for a session after
// its close, nor for any session after EOF.
func (l *lifecycle) checkNothingAfterClose() {
	closed := map[string]time.Time{}
	for _, s := range l.sessions {
		if !s.closedAt.IsZero() {
			closed[s.id] = s.closedAt
		}
	}
	l.mu.Lock()
	eof := l.eofAt
	l.mu.Unlock()
	for _, e := range l.s.world.Events() {
		if e.Kind != "request" && e.Kind != "tool" {
			continue
		}
		if at, ok := closed[e.Session]; ok && e.At.After(at) {
			l.t.Errorf("%s of session %s at %v, after its close at %v (%s)", e.Kind, short(e.Session), e.At.Sub(simEpoch), at.Sub(simEpoch), e.Detail)
		}
		if !eof.IsZero() && e.At.After(eof) {
			l.t.Errorf("%s of session %s at %v, after EOF at %v", e.Kind, short(e.Session), e.At.Sub(simEpoch), eof.Sub(simEpoch))
		}
	}
}

// checkCardsSettledV2: on v2 a prompt is answered when it is inserted; its
// turn ends with the session's idle state, and by then every tool card of
// the session has ended (one turn at a time: a prompt sent while a turn
// runs is held until that turn's idle).
func (l *lifecycle) checkCardsSettledV2() {
	l.s.mu.Lock()
	updates := slices.Clone(l.s.updates)
	l.s.mu.Unlock()
	status := map[string]map[string]string{} // session → tool call → last status
	for _, u := range updates {
		calls := status[u.SessionID]
		if calls == nil {
			calls = map[string]string{}
			status[u.SessionID] = calls
		}
		switch {
		case u.Update.Kind == "tool_call_update" && u.Update.Status != "":
			calls[u.Update.ToolCallID] = u.Update.Status
		case u.Update.Kind == "state_update" && u.Update.State == "idle":
			for id, st := range calls {
				if st != "completed" && st != "failed" {
					l.t.Errorf("session %s went idle with its tool card %s still %s", short(u.SessionID), id, st)
				}
			}
		}
	}
}

// checkIdleV2: once nothing is pending, every v2 session that ran a turn
// has been told it is idle again (no turn left unended).
func (l *lifecycle) checkIdleV2() {
	for id, st := range l.busyV2() {
		l.t.Errorf("v2 session %s left %q with nothing pending", short(id), st)
	}
}

// busyV2 is the open v2 sessions whose last state is not idle.
func (l *lifecycle) busyV2() map[string]string {
	l.s.mu.Lock()
	last := map[string]string{}
	for _, u := range l.s.updates {
		if u.Update.Kind == "state_update" {
			last[u.SessionID] = u.Update.State
		}
	}
	l.s.mu.Unlock()
	busy := map[string]string{}
	for _, ss := range l.sessions {
		if st, ok := last[ss.id]; ok && st != "idle" && ss.open {
			busy[ss.id] = st
		}
	}
	return busy
}
