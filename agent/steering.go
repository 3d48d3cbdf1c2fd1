package agent

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/promptconv"
	"github.com/claude-agent-acp/claude-agent-acp/agent/translate"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// Steering (_session/steering, the reference adapter's extension,
// declared in the initialize response's _meta.steering.supported): a
// message the user sends into a running turn reaches Claude in that turn,
// not as a prompt queued behind it.
//
// The message goes to the CLI with priority "now" (the CLI's own
// mid-turn input): the CLI aborts the cycle it runs (a running tool ends
// "aborted"), writes that cycle's result, and runs the steered message as
// the next cycle. So the steer is a turn of its own (steerOf names the
// turn it steers) whose answer is that turn's: the steered turn's own
// result is held (deferred) until its steers are answered, and its prompt
// is answered with the last steer's outcome. While a permission request or
// a form is open the priority is "later", as in the reference: "now"
// would abort the very request the user is answering.
//
// Without a running turn the message starts a turn of its own that no
// prompt waits for (outcome startedNewTurn), or, when the request's
// _meta.steering.idleBehavior is "promptRequired", nothing happens and
// the client is told to send it as a prompt. session/cancel cancels a
// turn and its steers together, as does the turn's $/cancel_request.

// steeringMethod is the extension's request.
const steeringMethod = "_session/steering"

// steeringInitialize declares steering in the initialize response's _meta,
// where the reference adapter declares it.
func steeringInitialize(resp *acp.InitializeResponse) {
	if resp.Meta == nil {
		resp.Meta = map[string]json.RawMessage{}
	}
	resp.Meta["steering"] = json.RawMessage(`{"supported":true}`)
}

type steerRequest struct {
	SessionID acp.SessionID      `json:"sessionId"`
	Prompt    []acp.ContentBlock `json:"prompt"`
	Meta      struct {
		Steering struct {
			IdleBehavior string `json:"idleBehavior"`
		} `json:"steering"`
	} `json:"_meta"`
}

func (r *steerRequest) Validate() error {
	switch {
	case r.SessionID == "":
		return &acp.FieldError{Path: "sessionId", Reason: "is required"}
	case len(r.Prompt) == 0:
		return &acp.FieldError{Path: "prompt", Reason: "needs at least one content block"}
	case r.Meta.Steering.IdleBehavior != "" && r.Meta.Steering.IdleBehavior != "promptRequired":
		return &acp.FieldError{Path: "_meta.steering.idleBehavior", Reason: `is not supported (supported: "promptRequired")`}
	}
	return nil
}

// steerResponse says what became of the message: "injected" into the
// running turn, "startedNewTurn", or "promptRequired" (reason
// "noRunningTurn").
type steerResponse struct {
	Outcome string `json:"outcome"`
	Reason  string `json:"reason,omitempty"`
}

// steer is _session/steering.
func (a *connection) steer(ctx context.Context, p *steerRequest) (*steerResponse, error) {
	s, err := a.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	content, err := promptconv.ToClaude(p.Prompt)
	if err != nil {
		return nil, err
	}
	st := &turn{Turn: translate.Turn{UUID: uuid.NewString()}, done: make(chan turnOutcome, 1)}
	st.msg = claude.UserMessage{Content: content, UUID: st.UUID}
	var resp *steerResponse
	if !s.do(func() {
		t := s.steerable()
		switch {
		case t != nil:
			st.steerOf = t
			t.steers++
			st.msg.Priority = claude.PriorityNow
			if len(s.q.openRequests[&t.Turn]) > 0 {
				st.msg.Priority = claude.PriorityLater // the open request stays open
			}
			resp = &steerResponse{Outcome: "injected"}
		case p.Meta.Steering.IdleBehavior == "promptRequired":
			resp = &steerResponse{Outcome: "promptRequired", Reason: "noRunningTurn"}
			return
		default:
			resp = &steerResponse{Outcome: "startedNewTurn"}
		}
		s.enqueue(st)
	}) {
		return nil, acp.NewSessionNotFound(string(p.SessionID))
	}
	return resp, nil
}

// steerable is the turn a steer joins: the one the CLI runs, else the
// first one accepted and not answered yet; nil when none is, or it was
// cancelled.
func (s *session) steerable() *turn {
	live := func(t *turn) bool { return t != nil && !t.Settled && !t.Cancelled }
	t := s.q.current
	for t != nil && t.steerOf != nil {
		t = t.steerOf // a steer of a steer steers the same turn
	}
	if live(t) {
		return t
	}
	for _, t := range s.q.turns {
		if live(t) && t.steerOf == nil {
			return t
		}
	}
	return nil
}

// deferForSteers holds a steered turn's own outcome while its steers run
// (settle): the turn is answered when they are.
func (q *turnQueue) deferForSteers(t *turn, resp *acp.PromptResponse, err error) bool {
	if t.steers == 0 {
		return false
	}
	if t.deferred == nil {
		t.deferred = &turnOutcome{resp: resp, err: err}
	}
	return true
}

// steerSettled passes a steer's outcome on to the turn it steered, once
// that turn's own result is in and no other steer of it is open (settle).
// A steer answered before the turn's result (folded into it by the CLI,
// or lost) leaves the turn to its own result.
func (q *turnQueue) steerSettled(st *turn, resp *acp.PromptResponse, err error) {
	t := st.steerOf
	if t == nil {
		return
	}
	t.steers--
	if t.steers == 0 && t.deferred != nil && !t.Settled {
		if st.Cancelled {
			resp, err = &acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
		}
		q.settle(t, resp, err)
	}
}

// withSteers adds to ts the open steers of its turns: they are cancelled
// with the turn they steer.
func (s *session) withSteers(ts []*turn) []*turn {
	for _, t := range s.q.turns {
		if t.steerOf != nil && !t.Settled && !containsTurn(ts, t) && containsTurn(ts, t.steerOf) {
			ts = append(ts, t)
		}
	}
	return ts
}

func containsTurn(ts []*turn, t *turn) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}
