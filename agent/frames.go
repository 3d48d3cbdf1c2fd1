package agent

import (
	"strings"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/failure"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/scrub"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// handle translates one CLI message. Output belongs to the current turn;
// output of a cancelled turn is dropped; output with no turn (background
// work between prompts) still reaches the client.
func (s *session) handle(m claude.Message) {
	switch b := m.Body.(type) {
	case *claude.CommandLifecycle:
		s.onLifecycle(b)
		return
	case *claude.UserFrame:
		if b.IsReplay && s.q.byUUID(b.UUID, s.q.current) != nil || s.q.cancelledIDs[b.UUID] {
			s.activate(b.UUID)
			return
		}
	}
	if s.q.current != nil && s.q.current.Cancelled {
		switch m.Body.(type) {
		case *claude.TaskEvent, *claude.ActiveGoal, *claude.SessionTitleChanged, *claude.SessionStateChanged:
			s.onOther(m) // background work, the session's goal and name outlive the cancelled turn; idle ends it (turn.go)
			return
		}
		if s.tr.BackgroundSubagentFrame(m) {
			s.tr.HandleSubagentFrame(m) // not part of the cancelled turn
			return
		}
		if _, ok := m.Body.(*claude.ResultMessage); ok {
			s.tr.EndCompaction("it was cancelled.")
			s.setCurrent(nil)
			s.tr.Reset()
			s.flushHeld() // the cancelled turn is over: prompts held back go now
		}
		return
	}
	switch b := m.Body.(type) {
	case *claude.StreamEvent:
		if s.q.current == nil && !s.tr.BackgroundSubagentFrame(m) {
			s.q.v2.autonomousOutput() // v2turns.go: Claude works on its own
		}
		s.tr.Translate(m)
		if s.cli.windowFrom != nil && b.Event.Type == "content_block_delta" {
			s.askWindowNow() // config.go: the CLI has begun answering
		}
	case *claude.AssistantMessage:
		if s.q.current == nil && !s.tr.BackgroundSubagentFrame(m) {
			s.q.v2.autonomousOutput()
		}
		s.fail.SawAssistant(b) // agent/failure: a real answer ends some failures
		s.stored.note(b)       // stored.go: the turn's last record
		s.tr.Translate(m)
	case *claude.UserFrame:
		s.tr.Translate(m)
		if b.ParentToolUseID == "" {
			s.goalFeedback(b) // goal.go: the /goal Stop hook kept the turn going
		}
	case *claude.ModelRefusalNoFallback:
		if s.q.current != nil {
			s.q.current.RefusalExplain = firstNonEmpty(b.APIRefusalExplanation, b.Content)
		}
	case *claude.ResultMessage:
		s.tr.FlushHeld() // held text goes first
		s.checkStored()  // stored.go: was the turn saved? (before its answer)
		s.observeFastMode(b.FastModeState, m.Raw)
		s.afterLocalCommand(m.Raw) // config.go: /model, /effort typed as prompts
		s.goalResult(b)            // goal.go: a failed /goal restores the snapshot
		s.onResult(b)
		s.askWindowNow() // config.go: a turn that streamed nothing
	default:
		s.onOther(m)
	}
}

func (s *session) onLifecycle(b *claude.CommandLifecycle) {
	switch b.State {
	case "started":
		s.activate(b.CommandUUID)
	case "completed":
		// The CLI writes a turn's result before it says the turn completed:
		// a turn still open then lost its result (turn.go).
		if t := s.q.current; t != nil && t.UUID == b.CommandUUID {
			s.resultLost(t)
		}
	case "cancelled":
		if t := s.q.byUUID(b.CommandUUID, s.q.current); t != nil && !t.Settled && t.phase != turnWithdrawing {
			s.q.settle(t, &acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil)
		}
		delete(s.q.cancelledIDs, b.CommandUUID)
		s.flushHeld()
	}
}

// onResult ends the current turn (and any the CLI folded into it).
func (s *session) onResult(r *claude.ResultMessage) {
	s.lastActive = time.Now() // hibernate.go
	s.tr.EndCompaction("the turn ended before it finished.")
	if s.tr.LearnContextWindow(r) {
		s.cli.windowFrom = nil // no need to ask (config.go)
	}
	s.tr.SendUsage(&acp.Cost{Amount: r.TotalCostUSD, Currency: "USD"})
	t := s.q.current
	s.setCurrent(nil)
	defer s.tr.Reset()
	s.failureBoundary(t, r)
	if t == nil {
		// Background work: reported, nothing to settle; on v2, the end of
		// work Claude started on its own (v2turns.go).
		s.q.v2.autonomousEnd(r.IsError, scrub.Text(firstNonEmpty(r.Result, "Claude Code reported an error without a message.")))
		return
	}
	s.tr.SettleOpen(&t.Turn, "The turn ended before this tool finished.") // agent/translate
	resp, err := s.outcome(t, r)
	if resp != nil && resp.Usage == nil {
		resp.Usage = turnUsage(r.Usage)
	}
	for _, id := range r.UserMessageUUIDs {
		if other := s.q.byUUID(id, s.q.current); other != nil && other != t {
			s.q.settle(other, resp, err)
		}
		delete(s.q.cancelledIDs, id) // a cancelled message the CLI folded into this turn
	}
	s.q.settle(t, resp, err)
	s.flushHeld()
}

// outcome maps a CLI result to the prompt's answer: a stop reason, or a
// JSON-RPC error carrying Claude's own message.
func (s *session) outcome(t *turn, r *claude.ResultMessage) (*acp.PromptResponse, error) {
	// showErrorText shows Claude's own error text (the CLI's synthetic
	// assistant message) as agent text in the turn, to a client without typed
	// failures, before the prompt's JSON-RPC error: what the reference adapter
	// shows, and what session/load replays from the transcript (replay.go), so
	// the live and the loaded transcript agree. Login prompts are left out, as
	// in the replay; the authRequired error says it.
	showErrorText := func() {
		if s.fail.On() || t.APIErrorText == "" || failure.LoginHint().MatchString(t.APIErrorText) {
			return
		}
		s.tr.Chunk(false, scrub.Text(t.APIErrorText), t.APIErrorMsgID)
	}
	if resp, ok := s.fail.Outcome(t.UUID, t.APIError, t.APIErrorText, r); ok {
		return resp, nil // a capable client's failure record (agent/failure)
	}
	switch {
	case r.StopReason == "refusal":
		if t.RefusalExplain != "" {
			s.tr.Chunk(false, t.RefusalExplain, "")
		}
		return &acp.PromptResponse{StopReason: acp.StopReasonRefusal}, nil
	case r.Subtype == "error_max_turns" || r.Subtype == "error_max_budget_usd":
		return &acp.PromptResponse{StopReason: acp.StopReasonMaxTurnRequests}, nil
	case r.TerminalReason == "aborted_tools":
		// A permission request was cancelled (denied with interrupt): the
		// user stopped the turn from the prompt.
		return &acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	case r.StopReason == "max_tokens" || t.APIError == "max_output_tokens":
		showErrorText()
		return &acp.PromptResponse{StopReason: acp.StopReasonMaxTokens}, nil
	case r.IsError:
		showErrorText()
		// scrub: API error bodies can repeat keys, URLs and paths.
		text := scrub.Text(firstNonEmpty(r.Result, t.APIErrorText, strings.Join(r.Errors, "; "), "Claude Code reported an error without a message."))
		if failure.IsAuthError(t.APIError) || failure.LoginHint().MatchString(text) {
			return nil, acp.NewAuthRequired(text)
		}
		e := acp.NewInternalError(text)
		if t.APIError != "" {
			e = e.WithData(map[string]string{"errorKind": t.APIError})
		}
		return nil, e
	}
	if !t.Streamed && r.Result != "" {
		// Nothing streamed (a cached or local-only turn): show the result.
		s.tr.Chunk(false, r.Result, "")
	}
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

// turnUsage is the token usage of the turn's result, as PromptResponse
// (unstable) has it.
func turnUsage(u *claude.Usage) *acp.Usage {
	if u == nil {
		return nil
	}
	in, out := uint64(max(u.InputTokens, 0)), uint64(max(u.OutputTokens, 0))
	read, write := uint64(max(u.CacheReadInputTokens, 0)), uint64(max(u.CacheCreationInputTokens, 0))
	return &acp.Usage{
		InputTokens: in, OutputTokens: out,
		CachedReadTokens: acp.Some(read), CachedWriteTokens: acp.Some(write),
		TotalTokens: in + out + read + write,
	}
}

// onOther hands the frames the translation above does not take (system/init,
// status, retries, notices, tasks, goals, …) to the features that follow
// them, in this fixed order. A frame can interest several features; each
// case says which and why.
func (s *session) onOther(m claude.Message) {
	if isElicitationComplete(m) {
		s.onElicitationComplete(m) // elicitation.go: an MCP server's URL elicitation is over
		return
	}
	switch b := m.Body.(type) {
	case *claude.SystemStatus:
		s.setModeID(b.PermissionMode) // config.go
		s.tr.Translate(m)             // agent/translate: a compaction's progress
	case *claude.CompactBoundary:
		s.tr.Translate(m)
		s.tr.ContextLeft(b) // the context it left
	case *claude.SystemInit:
		s.setModeID(b.PermissionMode) // config.go: the CLI's view wins
		s.modelFromCLI(b.Model)
		s.cmds.learnFromInit(m.Raw) // commands.go
		s.cmds.publish(s.id, s.a.notify)
		s.observeFastMode(b.FastModeState, m.Raw) // config.go, agent/failure
	case *claude.APIRetry:
		s.adv.OnAPIRetry(s.q.current.id(), b)
	case *claude.ModelRefusalFallback:
		s.adv.OnRefusalFallback(s.q.current.id(), b)
		if b.Direction != "revert" && b.Scope != "local" {
			s.followModelSwap(b.FallbackModel) // config.go: after the notice that explains it
		}
	case *claude.ModelFallback:
		s.adv.OnModelFallback(s.q.current.id(), b)
	case *claude.ActiveGoal:
		s.onActiveGoal(b) // goal.go
	case *claude.Informational:
		s.adv.OnInformational(s.q.current.id(), b)
	case *claude.SessionTitleChanged:
		s.a.sendTitle(s.id, &s.title, s.title.renamed(b)) // title.go
	case *claude.TaskEvent:
		s.tr.Translate(m)
	case *claude.SessionStateChanged:
		s.onCLIState(b) // turn.go: idle with a turn still open lost its result
	default:
		s.fail.Frame(m) // agent/failure: worker shutdown, auth status
	}
}
