package agent

import (
	"context"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/promptconv"
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
	uuid      string
	msg       claude.UserMessage
	done      chan turnOutcome // receives exactly one outcome
	phase     turnPhase
	settled   bool // answered (done has its outcome)
	cancelled bool // answered "cancelled" by the user's request
	// withdrawn is done once the client gave up on the request
	// ($/cancel_request); the connection applies that in wire order.
	withdrawn <-chan struct{}

	// What the turn saw, for its stop reason.
	streamed       bool   // some agent text or thought went out
	apiError       string // the synthetic assistant's error kind
	apiErrorText   string // and its text
	apiErrorMsgID  string // and its message id (the transcript's too)
	refusalExplain string

	v2 *v2Turn // the v2 prompt lifecycle (v2turns.go); nil on v1
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
	t := &turn{uuid: uuid.NewString(), done: make(chan turnOutcome, 1), withdrawn: withdrawal(ctx), v2: v2}
	t.msg = claude.UserMessage{Content: content, UUID: t.uuid}
	accept := func() {
		s.goalPrompt(t)                                                                // goal.go: /goal typed as a prompt
		s.a.sendTitle(s.id, &s.title, s.title.fromPrompt(t, s.conf.opts.Resume != "")) // title.go: a new session's first prompt titles it
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
	if s.q.holdSends(s.tr.current) {
		return // flushHeld sends it once the cancelled work is over
	}
	s.send(t)
}

// holdSends reports whether a new message must wait before it goes to the
// CLI: a session/load is still replaying the history (the turn would land
// in its middle), an interrupt is on its way, or the CLI may still start or
// run a turn we cancelled. An interrupt stops whatever turn runs when it
// arrives, so a message sent now could be the one it stops.
func (q *turnQueue) holdSends(current *turn) bool {
	return q.replays > 0 || q.interrupting > 0 || current != nil && current.cancelled || len(q.cancelledIDs) > 0
}

// flushHeld sends the turns holdSends held back, once nothing cancelled is
// left in the CLI.
func (s *session) flushHeld() {
	s.releaseWaiters()
	if s.cli.proc == nil || s.q.holdSends(s.tr.current) {
		return
	}
	for _, t := range slices.Clone(s.q.turns) { // a failed send edits s.q.turns
		if t.phase == turnQueued && !t.settled {
			s.send(t)
		}
	}
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
	if s.q.v2 != nil {
		s.q.v2.insert(t) // v2turns.go: from here on the prompt is in the conversation
	}
}

// cancel is session/cancel: every turn accepted so far ends as cancelled,
// and the CLI is interrupted (dropping its queued messages too).
func (a *connection) cancel(ctx context.Context, p *acp.CancelNotification) error {
	s, err := a.session(p.SessionID)
	if err != nil {
		a.cancelSubagent(p.SessionID) // subagent_sessions.go: a child session stops alone
		return nil                    // cancelling an unknown session is a no-op
	}
	s.do(func() { s.cancelTurns(append([]*turn(nil), s.q.turns...)) })
	return nil
}

// cancelTurns answers the given turns "cancelled" at once and stops the
// CLI's work on them. Output the CLI still writes for them is dropped, so
// nothing of a turn follows its answer.
func (s *session) cancelTurns(ts []*turn) {
	interrupt := false
	for _, t := range ts {
		if t.settled {
			continue
		}
		t.cancelled = true
		if t.inCLI() {
			s.q.cancelledIDs[t.uuid] = true
		}
		if !t.inCLI() {
			interrupt = interrupt || t.phase == turnRunning
		} else if p := s.cli.target(); p != nil {
			// Queued in the CLI (or written behind a starting CLI's
			// handshake) but not started: withdraw just that message.
			id := t.uuid
			go func() {
				if withdraw(p, id) {
					// The CLI will not start it. (Otherwise it starts, and
					// activate stops it.)
					s.post(func() {
						delete(s.q.cancelledIDs, id)
						s.flushHeld()
					})
				}
			}()
		}
		s.q.cancelOpenRequests(t)
		s.q.settle(t, &acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil)
	}
	if interrupt && s.cli.proc != nil {
		s.interrupt()
	}
}

// interrupt stops the turn the CLI runs. The CLI's interrupt names no
// turn: if the cancelled turn ends on its own just before the interrupt
// arrives, the interrupt stops the next prompt instead. So prompts queued
// in the CLI behind it are withdrawn first and sent again afterwards (with
// a new uuid); if one cannot be withdrawn it has left the queue, the
// cancelled turn is over, and there is nothing to interrupt.
func (s *session) interrupt() {
	p := s.cli.proc
	type queued struct {
		t  *turn
		id string
	}
	var qs []queued
	for _, t := range s.q.turns {
		if t.phase == turnSent && !t.settled && t.moveTo(turnWithdrawing) {
			qs = append(qs, queued{t, t.uuid})
		}
	}
	s.q.interrupting++
	go func() {
		var back []queued
		over := false
		for _, q := range qs {
			if withdraw(p, q.id) {
				back = append(back, q)
			} else {
				over = true
			}
		}
		if !over {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := p.Interrupt(ctx); err != nil {
				s.log.Debug("interrupt failed", "error", err)
			}
		}
		s.post(func() {
			s.q.interrupting--
			for _, q := range back {
				delete(s.q.cancelledIDs, q.id) // withdrawn: it will never start
				if !q.t.settled && q.t.moveTo(turnQueued) {
					q.t.uuid = uuid.NewString()
					q.t.msg.UUID = q.t.uuid
				}
			}
			for _, q := range qs {
				if q.t.phase == turnWithdrawing {
					q.t.moveTo(turnSent) // not taken back: still in the CLI's queue
				}
			}
			s.flushHeld()
		})
	}()
}

// withdraw asks the CLI to drop a queued user message and reports whether
// it did (false: it has started, or the CLI could not say).
func withdraw(p *claude.Process, id string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cancelled, err := p.CancelAsyncMessage(ctx, id)
	return err == nil && cancelled
}

// settle gives a turn its one outcome and forgets it.
func (q *turnQueue) settle(t *turn, resp *acp.PromptResponse, err error) {
	if t.settled {
		return
	}
	t.settled = true
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
}

// activate marks the turn the CLI has started working on; turns queued
// before it that never started were folded into it by the CLI and end
// with it.
func (s *session) activate(id string) {
	t := s.q.byUUID(id, s.tr.current)
	if t == nil && s.q.cancelledIDs[id] {
		// A turn answered "cancelled" while queued that the CLI ran anyway.
		t = &turn{uuid: id, phase: turnSent, settled: true, cancelled: true}
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
	s.tr.current = t
	s.tr.out.reset()
	if t.cancelled {
		// The CLI began a turn we already answered: stop it.
		s.interrupt()
	}
}

func (q *turnQueue) byUUID(id string, current *turn) *turn {
	for _, t := range q.turns {
		if t.uuid == id {
			return t
		}
	}
	if current != nil && current.uuid == id {
		return current
	}
	return nil
}
