package agent

import (
	"context"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/promptconv"
	"github.com/claude-agent-acp/claude-agent-acp/agent/translate"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// A turn is one session/prompt: one Claude user message (with our uuid)
// from the moment it is accepted until its one answer.
//
// Two things about a turn change, each through one method: where its
// message is on the CLI's side (its phase: queued → sent → running, with
// sent → withdrawing → queued when an interrupt takes it back out of the
// CLI's queue to send it again), and whether it has been answered
// (settle, once; cancelTurns answers "cancelled"). They are independent:
// a turn answered "cancelled" may still be sent or running in the CLI,
// whose output for it is then dropped.
type turn struct {
	// Turn is what translation sees of the turn: its uuid, whether it is
	// answered (Settled: done has its outcome), and what its output
	// showed (agent/translate).
	translate.Turn
	msg       claude.UserMessage
	done      chan turnOutcome // receives exactly one outcome
	phase     turnPhase
	cancelled bool // answered "cancelled" by the user's request (Settled too)
	// withdrawn is done once the client gave up on the request
	// ($/cancel_request); the connection applies that in wire order.
	withdrawn <-chan struct{}

	v2 *v2Turn // the v2 prompt lifecycle (v2turns.go); nil on v1

	// Steering (steering.go): the turn a steer steers, and for a steered
	// turn its open steers and its own outcome, held until they are answered.
	steerOf  *turn
	steers   int
	deferred *turnOutcome
}

// busy reports whether prompts keep the CLI: one queued or in it, a
// permission request open, or work the user cancelled still in the CLI
// (a CLI closed now, by stdin EOF, would run it to its end).
func (q *turnQueue) busy() bool {
	return len(q.turns) > 0 || len(q.openRequests) > 0 || q.cancelledWork()
}

// inFlight reports whether the CLI holds a prompt of the session that has
// not ended: written to it (sent, running, cancelled but not yet over),
// an interrupt or a permission request open.
func (q *turnQueue) inFlight() bool {
	if q.cancelledWork() || len(q.openRequests) > 0 {
		return true
	}
	for _, t := range q.turns {
		if t.phase != turnQueued {
			return true
		}
	}
	return false
}

// cancelledWork reports a turn the CLI works on, or cancelled ones it may
// still run, or an interrupt not yet answered.
func (q *turnQueue) cancelledWork() bool {
	return q.current != nil || len(q.cancelledIDs) > 0 || q.interrupting > 0
}

// setCurrent records the turn the CLI is working on (nil: none), for the
// session and for its translator, whose output belongs to it.
func (s *session) setCurrent(t *turn) {
	s.q.current = t
	s.tr.Current = nil
	if t != nil {
		s.tr.Current = &t.Turn
	}
}

// id is the turn's uuid, "" for no turn (work of no prompt).
func (t *turn) id() string {
	if t == nil {
		return ""
	}
	return t.UUID
}

// turnPhase is where a turn's message is, as far as the CLI is concerned.
type turnPhase uint8

const (
	turnQueued      turnPhase = iota // accepted; not written to the CLI (yet, or again)
	turnSent                         // written; waiting in the CLI's queue
	turnWithdrawing                  // an interrupt is taking it back out of the CLI's queue
	turnRunning                      // the CLI began working on it (for good)
)

var turnPhaseNames = [...]string{"queued", "sent", "withdrawing", "running"}

func (p turnPhase) String() string { return turnPhaseNames[p] }

// turnMoves are the phase changes that can happen: anything else is a bug
// in the bookkeeping (moveTo reports it and leaves the phase alone).
var turnMoves = map[[2]turnPhase]bool{
	{turnQueued, turnSent}:         true, // written to the CLI
	{turnSent, turnRunning}:        true, // the CLI started it
	{turnSent, turnWithdrawing}:    true, // an interrupt takes it back
	{turnWithdrawing, turnQueued}:  true, // taken back: it will be sent again
	{turnWithdrawing, turnSent}:    true, // could not be taken back
	{turnWithdrawing, turnRunning}: true, // it started meanwhile
	{turnSent, turnQueued}:         true, // the write failed
}

// moveTo changes the turn's phase, reporting false (and changing nothing)
// for a move that cannot happen.
func (t *turn) moveTo(p turnPhase) bool {
	if t.phase == p || !turnMoves[[2]turnPhase{t.phase, p}] {
		return t.phase == p
	}
	t.phase = p
	return true
}

// inCLI reports whether the CLI holds the turn's message without having
// started it.
func (t *turn) inCLI() bool { return t.phase == turnSent || t.phase == turnWithdrawing }

type turnOutcome struct {
	resp *acp.PromptResponse
	err  error
}

// prompt is session/prompt: the turn is registered with the session before
// the connection dispatches the next message (so a cancel right behind it
// finds it), then the handler waits for the turn's one outcome.
func (a *connection) prompt(ctx context.Context, p *acp.PromptRequest) (*acp.PromptResponse, error) {
	s, err := a.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	t, err := s.startTurn(ctx, p.Prompt, nil)
	if err != nil {
		return nil, err
	}
	select {
	case out := <-t.done:
		return out.resp, out.err
	case <-ctx.Done():
		if outlives(ctx) { // shared.go: the turn goes on for the client's next connection
			return nil, errTurnOutlives
		}
		// $/cancel_request for this prompt (or the connection ended):
		// cancel just this turn and answer with its outcome.
		s.do(func() { s.cancelTurns([]*turn{t}) })
		select {
		case out := <-t.done:
			return out.resp, out.err
		case <-time.After(5 * time.Second):
			return &acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
		}
	}
}

// startTurn makes a prompt a turn and registers it with the session
// before the connection dispatches the next message (so a cancel right
// behind it finds it); v2 is the v2 lifecycle's part (nil on v1).
func (s *session) startTurn(ctx context.Context, prompt []acp.ContentBlock, v2 *v2Turn) (*turn, error) {
	content, err := promptconv.ToClaude(prompt)
	if err != nil {
		return nil, err
	}
	t := &turn{Turn: translate.Turn{UUID: uuid.NewString()}, done: make(chan turnOutcome, 1), withdrawn: withdrawal(ctx), v2: v2}
	t.msg = claude.UserMessage{Content: content, UUID: t.UUID}
	accept := func() {
		s.goalPrompt(t)                                                                // goal.go: /goal typed as a prompt
		s.a.sendTitle(s.id, &s.title, s.title.fromPrompt(t, s.conf.Opts.Resume != "")) // title.go: a new session's first prompt titles it
		s.enqueue(t)
	}
	if !s.do(accept) {
		return nil, acp.NewSessionNotFound(s.id)
	}
	acp.Async(ctx)
	return t, nil
}

// enqueue accepts a turn: it is sent to the CLI now if the CLI runs, else
// once it has started. Prompts sent while a turn runs queue in the CLI.
func (s *session) enqueue(t *turn) {
	if s.closed {
		s.q.settle(t, nil, acp.NewSessionNotFound(s.id))
		return
	}
	s.lastActive = time.Now() // hibernate.go
	s.q.accepted++
	// A prompt the client withdrew just before this one is cancelled
	// first, so that its interrupt cannot stop this one instead.
	var withdrawn []*turn
	for _, o := range s.q.turns {
		select {
		case <-o.withdrawn:
			withdrawn = append(withdrawn, o)
		default:
		}
	}
	if len(withdrawn) > 0 {
		s.cancelTurns(withdrawn)
	}
	s.q.turns = append(s.q.turns, t)
	if s.cli.proc == nil {
		if s.earlyOpen(t) {
			s.sendEarly(t) // session.go, onSpawned: right behind the handshake
			return
		}
		s.startCLI()
		return
	}
	s.sendQueued() // now, or once what holds it back is over (flushHeld)
}

// holdSends reports whether a new message must wait before it goes to the
// CLI: a session/load is still replaying the history (the turn would land
// in its middle), an interrupt is on its way, or the CLI may still start or
// run a turn we cancelled. An interrupt stops whatever turn runs when it
// arrives, so a message sent now could be the one it stops.
func (q *turnQueue) holdSends(current *turn) bool {
	return q.replays > 0 || q.interrupting > 0 || current != nil && current.Cancelled || len(q.cancelledIDs) > 0
}

// oneAtATime reports whether a v2 prompt must wait for the turn before
// it: on v2 a prompt is answered when it is inserted into the
// conversation, and one written to the CLI while a turn runs would be
// inserted in the middle of that turn's output. So on v2 the agent holds a
// prompt sent while a turn runs (as the v2 draft allows, and as the
// reference adapter does) and inserts it when the turn before it has
// ended; on v1 it goes to the CLI's own queue at once (promptQueueing).
func (q *turnQueue) oneAtATime(current *turn) bool {
	if q.v2 == nil {
		return false
	}
	if current != nil {
		return true
	}
	for _, t := range q.turns {
		if t.phase != turnQueued && !t.Settled {
			return true
		}
	}
	return false
}

// sendQueued writes the queued turns to the CLI, in order, as far as
// nothing holds them back (holdSends, oneAtATime).
func (s *session) sendQueued() {
	if s.cli.proc == nil || s.q.holdSends(s.q.current) {
		return
	}
	for _, t := range slices.Clone(s.q.turns) { // a failed send edits s.q.turns
		if t.phase != turnQueued || t.Settled {
			continue
		}
		if s.q.oneAtATime(s.q.current) {
			return
		}
		s.send(t)
	}
}

// flushHeld sends the turns held back, once nothing cancelled is left in
// the CLI (and on v2, once the turn before them ended).
func (s *session) flushHeld() {
	s.releaseWaiters()
	s.sendQueued()
}

func (s *session) send(t *turn) { s.sendTo(s.cli.proc, t) }

// sendTo writes a turn's user message to p: the session's CLI, or the one
// starting (session.go, onSpawned).
func (s *session) sendTo(p *claude.Process, t *turn) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.Send(ctx, t.msg); err != nil {
		if p != s.cli.proc {
			return // the CLI failed to start: onStarted settles the turn with the reason
		}
		s.settleLost(t, err)
		return
	}
	t.moveTo(turnSent)
	s.cli.prompted = true
	if s.q.v2 != nil {
		s.q.v2.insert(t) // v2turns.go: from here on the prompt is in the conversation
	}
}

// cancel is session/cancel: every turn accepted so far ends as cancelled,
// and the CLI is interrupted (dropping its queued messages too).
func (a *connection) cancel(ctx context.Context, p *acp.CancelNotification) error {
	s, err := a.session(p.SessionID)
	if err != nil {
		a.cancelSubagent(p.SessionID) // subagents.go: a child session stops alone
		return nil                    // cancelling an unknown session is a no-op
	}
	s.do(func() { s.cancelTurns(append([]*turn(nil), s.q.turns...)) })
	return nil
}

// cancelTurns answers the given turns "cancelled" at once and stops the
// CLI's work on them. Output the CLI still writes for them is dropped, so
// nothing of a turn follows its answer.
func (s *session) cancelTurns(ts []*turn) {
	ts = s.withSteers(ts) // steering.go
	interrupt := false
	var withdrawals []string // cancelled turns the CLI holds queued, in order
	for _, t := range ts {
		if t.Settled {
			continue
		}
		t.Cancelled = true
		if t.inCLI() {
			s.q.cancelledIDs[t.UUID] = true
			if s.cli.target() != nil {
				// Queued in the CLI (or written behind a starting CLI's
				// handshake) but not started: withdraw just that message.
				withdrawals = append(withdrawals, t.UUID)
			}
		} else {
			interrupt = interrupt || t.phase == turnRunning
		}
		s.q.cancelOpenRequests(&t.Turn)
		s.tr.SettleOpen(&t.Turn, "Cancelled.") // agent/translate: its cards end before its answer
		s.q.settle(t, &acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil)
	}
	switch {
	case interrupt && s.cli.proc != nil:
		s.interrupt(withdrawals)
	case len(withdrawals) > 0:
		s.withdrawCancelled(s.cli.target(), withdrawals)
	}
}

// withdrawCancelled withdraws cancelled messages from the CLI's queue, all
// in one round trip: the requests go out back to back, in order, and the
// answers come back together. A message withdrawn will never start; one
// that could not be (it started) is stopped when it does (activate).
func (s *session) withdrawCancelled(p *claude.Process, ids []string) {
	go func() {
		done := beginWithdrawals(p, ids)
		s.post(func() { s.withdrawn(ids, done()) })
	}()
}

// beginWithdrawals writes a withdrawal for each id and returns the wait
// for their answers: which ids the CLI dropped.
func beginWithdrawals(p *claude.Process, ids []string) (wait func() []bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	calls := make([]*claude.Call, len(ids))
	for i, id := range ids {
		calls[i], _ = p.BeginCancelAsyncMessage(ctx, id) // a failed write: not withdrawn
	}
	return func() []bool {
		defer cancel()
		out := make([]bool, len(ids))
		for i, c := range calls {
			if c != nil {
				out[i], _ = c.Cancelled(ctx)
			}
		}
		return out
	}
}

// withdrawn records the answers to withdrawals of cancelled messages.
func (s *session) withdrawn(ids []string, ok []bool) {
	for i, id := range ids {
		if ok[i] {
			delete(s.q.cancelledIDs, id) // the CLI will not start it
		}
	}
	s.flushHeld()
}

// interrupt stops the turn the CLI runs; cancelled are cancelled messages
// the CLI still holds queued, withdrawn on the way. The CLI's interrupt
// names no turn: if the cancelled turn ends on its own just before the
// interrupt arrives, the interrupt stops the next message instead. So
// whatever of ours the CLI holds queued leaves its queue first: the
// cancelled messages, and the live prompts behind them (sent again
// afterwards, with a new uuid). When no live prompt is queued, the
// interrupt goes right behind the withdrawals, in the same round trip
// (the CLI reads its stdin in order, so nothing of ours is left for it to
// hit but the turn it runs, or nothing). When live prompts are queued it
// waits for their withdrawals: if one cannot be withdrawn it has left the
// queue, the cancelled turn is over, and there is nothing to interrupt.
func (s *session) interrupt(cancelled ...[]string) {
	p := s.cli.proc
	type queued struct {
		t  *turn
		id string
	}
	var qs []queued
	for _, t := range s.q.turns {
		if t.phase == turnSent && !t.Settled && t.moveTo(turnWithdrawing) {
			qs = append(qs, queued{t, t.UUID})
		}
	}
	var dead []string
	if len(cancelled) > 0 {
		dead = cancelled[0]
	}
	s.q.interrupting++
	go func() {
		waitDead := beginWithdrawals(p, dead)
		ids := make([]string, len(qs))
		for i, q := range qs {
			ids[i] = q.id
		}
		waitLive := beginWithdrawals(p, ids)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var back []queued
		if len(qs) == 0 {
			call, err := p.Begin(ctx, "interrupt", nil)
			if err == nil {
				_, err = call.Wait(ctx)
			}
			if err != nil {
				s.log.Debug("interrupt failed", "error", err)
			}
			waitLive() // none: releases its context
		} else {
			over := false
			for i, ok := range waitLive() {
				if ok {
					back = append(back, qs[i])
				} else {
					over = true
				}
			}
			if !over {
				if err := p.Interrupt(ctx); err != nil {
					s.log.Debug("interrupt failed", "error", err)
				}
			}
		}
		deadOK := waitDead()
		s.post(func() {
			s.q.interrupting--
			for _, q := range back {
				delete(s.q.cancelledIDs, q.id) // withdrawn: it will never start
				if !q.t.Settled && q.t.moveTo(turnQueued) {
					q.t.UUID = uuid.NewString()
					q.t.msg.UUID = q.t.UUID
				}
			}
			for _, q := range qs {
				if q.t.phase == turnWithdrawing {
					q.t.moveTo(turnSent) // not taken back: still in the CLI's queue
				}
			}
			s.withdrawn(dead, deadOK) // flushHeld
		})
	}()
}

// settle gives a turn its one outcome and forgets it.
func (q *turnQueue) settle(t *turn, resp *acp.PromptResponse, err error) {
	if t.Settled || q.deferForSteers(t, resp, err) { // steering.go
		return
	}
	t.Settled = true
	if q.v2 != nil {
		q.v2.settled(t, resp, err) // v2turns.go: the v2 activity state
	}
	// A settled turn is never sent again: drop its prompt, and clear its
	// slot in q.turns (slices.Delete zeroes it), so that a huge prompt is
	// not kept alive by the turn or by the slice's spare capacity.
	t.msg.Content = nil
	if i := slices.Index(q.turns, t); i >= 0 {
		q.turns = slices.Delete(q.turns, i, i+1)
	}
	t.done <- turnOutcome{resp: resp, err: err}
	q.steerSettled(t, resp, err) // steering.go: a steer answers the turn it steered
}

// activate marks the turn the CLI has started working on; turns queued
// before it that never started were folded into it by the CLI and end
// with it.
func (s *session) activate(id string) {
	t := s.q.byUUID(id, s.q.current)
	if t == nil && s.q.cancelledIDs[id] {
		// A turn answered "cancelled" while queued that the CLI ran anyway.
		t = &turn{Turn: translate.Turn{UUID: id, Settled: true, Cancelled: true}, phase: turnSent}
		delete(s.q.cancelledIDs, id)
	}
	if t == nil || t.phase == turnRunning {
		return
	}
	if !t.moveTo(turnRunning) {
		// The CLI is the authority on what it runs.
		s.log.Warn("the CLI started a turn the agent had not sent", "phase", t.phase.String())
		t.phase = turnRunning
	}
	s.setCurrent(t)
	s.tr.Reset()
	if t.Cancelled {
		// The CLI began a turn we already answered: stop it.
		s.interrupt()
	}
}

func (q *turnQueue) byUUID(id string, current *turn) *turn {
	for _, t := range q.turns {
		if t.UUID == id {
			return t
		}
	}
	if current != nil && current.UUID == id {
		return current
	}
	return nil
}

// onCLIState follows the CLI's session state. Idle means the CLI holds no
// turn any more: it writes each turn's result before it goes idle, so a
// turn it was running that is still open then lost its result (the CLI
// did not write it, or it was lost on the way). The turn's
// command_lifecycle "completed" says the same sooner (frames.go), and is
// the only sign when another prompt was queued behind it (the CLI does not
// go idle between them).
func (s *session) onCLIState(b *claude.SessionStateChanged) {
	if t := s.q.current; b.State == claude.StateIdle && t != nil {
		s.resultLost(t)
	}
}

// resultLost ends turn t, which the CLI finished without a result reaching
// the agent. Without this its prompt would never be answered, and every
// later prompt would wait behind it. It ends as an adapter invariant does
// (settleNoResult); a cancelled turn, answered already, is simply over.
func (s *session) resultLost(t *turn) {
	s.tr.EndCompaction("the turn ended before it finished.")
	s.setCurrent(nil)
	s.tr.Reset()
	if !t.Settled {
		s.log.Warn("Claude Code went idle without the turn's result")
		s.tr.SettleOpen(&t.Turn, "The turn ended before this tool finished.") // agent/translate
		s.settleNoResult(t)                                                   // failed.go
	}
	s.flushHeld()
}
