package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/acp/acpv2"
)

// The ACP v2 prompt lifecycle on the core's turns (turn.go).
//
// v1 answers session/prompt when the turn ends. v2 answers it when the
// prompt is inserted into the conversation, with the message's id, and
// reports the session's foreground activity as state updates: running
// while any inserted prompt is unfinished, requires_action while the
// foreground turn waits on a permission, idle (with the stop reason of the
// last turn) when nothing is left. A prompt is inserted when it is written
// to the CLI (turnSent): from then on Claude will see it. Before that it is
// held (the CLI is starting, or an interrupt is under way) and may still be
// withdrawn, which v2 answers with -32800.

// v2Lifecycle is a session's v2 activity state, owned by the session
// goroutine (it lives in the turnQueue). Nil on v1 connections.
type v2Lifecycle struct {
	sink       func(...acpv2.SessionUpdate)
	foreground int // inserted turns not yet settled
	asking     int // open permission requests of foreground turns
	// autonomous: Claude works with no prompt of the client's (a
	// background task's completion, the /goal Stop hook): foreground work
	// all the same.
	autonomous bool
	last       acpv2.IdleStateUpdate
}

func newV2Lifecycle(a *connection, sessionID string) *v2Lifecycle {
	return &v2Lifecycle{
		sink: func(us ...acpv2.SessionUpdate) { a.sendStateV2(sessionID, us...) },
		last: acpv2.IdleStateUpdate{None: &acpv2.IdleStateUpdateNone{}},
	}
}

// v2Turn is what a v2 prompt adds to its turn.
type v2Turn struct {
	prompt    []acpv2.ContentBlock // for the user_message update
	messageID string               // the uuid it was first sent with
	inserted  chan struct{}        // closed at insertion
}

func state(u acpv2.StateUpdate) acpv2.SessionUpdate {
	return acpv2.SessionUpdate{StateUpdate: &u}
}

// insert reports a turn entering the conversation: its user message, and
// running if the session was idle. The prompt's request is answered then.
func (l *v2Lifecycle) insert(t *turn) {
	v := t.v2
	if v == nil || v.messageID != "" {
		return
	}
	v.messageID = t.UUID
	// The request is answered now: its context ends, and that must no
	// longer read as the client withdrawing the prompt (turn.enqueue).
	t.withdrawn = nil
	l.sink(acpv2.SessionUpdate{UserMessage: &acpv2.UserMessage{
		MessageID: acpv2.MessageID(v.messageID), Content: acp.Some(v.prompt),
	}})
	v.prompt = nil
	if l.foreground == 0 && !l.autonomous {
		l.sink(state(acpv2.StateUpdate{Running: &acpv2.RunningStateUpdate{}}))
	}
	l.foreground++
	close(v.inserted)
}

// autonomousOutput reports model output that belongs to no prompt: work
// Claude started on its own is running.
func (l *v2Lifecycle) autonomousOutput() {
	if l == nil || l.foreground > 0 || l.autonomous {
		return
	}
	l.autonomous = true
	l.sink(state(acpv2.StateUpdate{Running: &acpv2.RunningStateUpdate{}}))
}

// autonomousEnd reports the end of such work (its result).
func (l *v2Lifecycle) autonomousEnd(failed bool, text string) {
	if l == nil || !l.autonomous {
		return
	}
	l.autonomous = false
	if l.foreground > 0 {
		return
	}
	var err error
	if failed {
		err = acp.NewInternalError(text)
	}
	l.last = idleState(&acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, err)
	l.sink(state(acpv2.StateUpdate{Idle: &l.last}))
}

// settled reports a turn's end. A turn that ends without ever being sent
// (answered by the agent itself) is inserted first: the client sees its
// message and its end like any other. Held turns that were withdrawn or
// failed are not part of the conversation: their request gets the error.
func (l *v2Lifecycle) settled(t *turn, resp *acp.PromptResponse, err error) {
	v := t.v2
	if v == nil {
		return
	}
	if v.messageID == "" {
		if err != nil || t.Cancelled || resp == nil || resp.StopReason == acp.StopReasonCancelled {
			return
		}
		l.insert(t)
	}
	l.last = idleState(resp, err)
	l.foreground--
	if l.foreground > 0 {
		return
	}
	l.asking = 0
	l.sink(state(acpv2.StateUpdate{Idle: &l.last}))
}

// ask reports a foreground permission request opened (+1) or answered
// (-1).
func (l *v2Lifecycle) ask(delta int) {
	before := l.asking
	l.asking = max(0, l.asking+delta)
	switch {
	case l.foreground == 0:
	case before == 0 && l.asking > 0:
		l.sink(state(acpv2.StateUpdate{RequiresAction: &acpv2.RequiresActionStateUpdate{}}))
	case before > 0 && l.asking == 0:
		l.sink(state(acpv2.StateUpdate{Running: &acpv2.RunningStateUpdate{}}))
	}
}

// sendState sends the current state, as session/resume must.
func (l *v2Lifecycle) sendState() {
	if l == nil {
		return
	}
	switch {
	case l.foreground > 0 && l.asking > 0:
		l.sink(state(acpv2.StateUpdate{RequiresAction: &acpv2.RequiresActionStateUpdate{}}))
	case l.foreground > 0 || l.autonomous:
		l.sink(state(acpv2.StateUpdate{Running: &acpv2.RunningStateUpdate{}}))
	default:
		last := l.last
		l.sink(state(acpv2.StateUpdate{Idle: &last}))
	}
}

// idleState is the idle update that ends a turn with v1's outcome: the
// same stop reason, or "error" with the error the v1 response would carry.
// Usage and _meta ride along: a turn that failed with the session failure
// extension on (docs/session-failures.md) ends as on v1, with v1's stop
// reason and the record in _meta (the record is what such a client reads;
// the reference adapter does the same).
func idleState(resp *acp.PromptResponse, err error) acpv2.IdleStateUpdate {
	var idle acpv2.IdleStateUpdate
	if err != nil {
		var e *acp.Error
		if !errors.As(err, &e) {
			e = acp.NewInternalError(err.Error())
		}
		v2e := acpv2.Error{Code: acpv2.ErrorCode(e.Code), Message: e.Message}
		if len(e.Data) > 0 {
			raw := json.RawMessage(e.Data)
			v2e.Data = acp.Some(acpv2.ErrorData{Other: &raw})
		}
		idle.Error = &acpv2.ErrorStopReason{Error: acp.Some(v2e)}
		return idle
	}
	switch resp.StopReason {
	case acp.StopReasonEndTurn:
		idle.EndTurn = &acpv2.IdleStateUpdateEndTurn{}
	case acp.StopReasonMaxTokens:
		idle.MaxTokens = &acpv2.IdleStateUpdateMaxTokens{}
	case acp.StopReasonMaxTurnRequests:
		idle.MaxTurnRequests = &acpv2.IdleStateUpdateMaxTurnRequests{}
	case acp.StopReasonRefusal:
		idle.Refusal = &acpv2.IdleStateUpdateRefusal{}
	case acp.StopReasonCancelled:
		idle.Cancelled = &acpv2.IdleStateUpdateCancelled{}
	default:
		idle.EndTurn = &acpv2.IdleStateUpdateEndTurn{}
	}
	if u := resp.Usage; u != nil {
		var vu acpv2.Usage
		if recode(&vu, u) == nil {
			idle.Usage = acp.Some(vu)
		}
	}
	idle.Meta = resp.Meta
	return idle
}

// recode converts between the versions' types where their JSON agrees.
func recode(dst, src any) error {
	b, err := acp.AppendJSON(nil, src)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, dst)
}

// promptV2 is session/prompt on v2: answered {messageId} once the prompt
// is inserted; its end is an idle state update.
func (a *connection) promptV2(ctx context.Context, p *acpv2.PromptRequest) (*acpv2.PromptResponse, error) {
	s, err := a.session(acp.SessionID(p.SessionID))
	if err != nil {
		return nil, err
	}
	if len(p.Prompt) == 0 {
		return nil, acp.NewInvalidParams("prompt", "must hold at least one content block")
	}
	for i, b := range p.Prompt {
		// Clients send only what the agent advertised: no audio (Claude
		// cannot hear), nothing of a later version.
		if b.Audio != nil || b.Unknown != nil {
			e := acp.NewInvalidParams(fmt.Sprintf("prompt[%d]", i), "content blocks of type "+b.Tag()+" are not supported")
			return nil, e
		}
	}
	var blocks []acp.ContentBlock
	if err := recode(&blocks, p.Prompt); err != nil {
		return nil, acp.NewInvalidParams("prompt", "has content this agent cannot read")
	}
	t, err := s.startTurn(ctx, blocks, &v2Turn{prompt: p.Prompt, inserted: make(chan struct{})})
	if err != nil {
		return nil, err
	}
	answer := func() (*acpv2.PromptResponse, error) {
		// The id the turn was first sent with: an interrupt may send it
		// again under a new uuid later.
		return &acpv2.PromptResponse{MessageID: acpv2.MessageID(t.v2.messageID)}, nil
	}
	select {
	case <-t.v2.inserted:
		return answer()
	case out := <-t.done:
		select {
		case <-t.v2.inserted:
			return answer()
		default:
		}
		if out.err != nil {
			return nil, out.err
		}
		return nil, acp.ErrRequestCancelled // withdrawn before insertion
	case <-ctx.Done():
		if outlives(ctx) { // shared.go: the turn goes on for the client's next connection
			return nil, errTurnOutlives
		}
		// $/cancel_request: a held prompt is withdrawn; one inserted
		// meanwhile has been answered.
		s.do(func() {
			if t.v2.messageID == "" {
				s.cancelTurns([]*turn{t})
			}
		})
		select {
		case <-t.v2.inserted:
			return answer()
		default:
			return nil, acp.ErrRequestCancelled
		}
	}
}

// cancelV2 is session/cancel on v2: as on v1 (turn.go); held prompts get
// -32800 and the running turn ends with idle "cancelled".
func (a *connection) cancelV2(ctx context.Context, p *acpv2.CancelSessionNotification) error {
	return a.cancel(ctx, &acp.CancelNotification{SessionID: acp.SessionID(p.SessionID)})
}
