package agent

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/scrub"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// outputState is what translating one CLI turn's output needs to remember.
type outputState struct {
	messageID string          // API message id of the streaming message
	streamed  map[string]bool // message ids whose text/thinking streamed
	// lastStreamed is the id last added to streamed (most chunks repeat it).
	lastStreamed string
	toolIndex    map[int]string // content block index → tool_use id
	usage        claude.Usage   // latest top-level usage
	lastUsed     uint64         // last used sent in usage_update
	model        string         // model of the latest top-level message
	size         uint64         // context window ("" model: the CLI's word)
	// sizePending: the CLI is to be asked, or was asked, for the context
	// window and has not answered; usage waits for it (held, with the
	// turn's cost once the turn has ended), so the first report already
	// has the right size.
	sizePending, held bool
	heldCost          *acp.Cost
	// idleError is Claude's error text (the CLI's synthetic message) for
	// work of no prompt, and its message id (failure_live.go).
	idleError, idleErrorID string
	// heldText is streamed text held back while it may begin a secret
	// (heldtext.go); a reset drops it with the turn.
	heldText heldText
}

func (o *outputState) reset() {
	// The context window and what is in it outlast the turn: a turn
	// without a model message (a local command) leaves them as they are.
	// Usage held for the size is still to be sent.
	*o = outputState{streamed: map[string]bool{}, toolIndex: map[int]string{},
		size: o.size, usage: o.usage, sizePending: o.sizePending, held: o.held, heldCost: o.heldCost}
}

// handle translates one CLI message. Output belongs to the current turn;
// output of a cancelled turn is dropped; output with no turn (background
// work between prompts) still reaches the client.
func (s *session) handle(m claude.Message) {
	switch b := m.Body.(type) {
	case *claude.CommandLifecycle:
		s.onLifecycle(b)
		return
	case *claude.UserFrame:
		if b.IsReplay && s.q.byUUID(b.UUID, s.tr.current) != nil || s.q.cancelledIDs[b.UUID] {
			s.activate(b.UUID)
			return
		}
	}
	if s.tr.current != nil && s.tr.current.cancelled {
		switch m.Body.(type) {
		case *claude.TaskEvent, *claude.ActiveGoal, *claude.SessionTitleChanged, *claude.SessionStateChanged:
			s.onOther(m) // background work, the session's goal and name outlive the cancelled turn; idle ends it (turn.go)
			return
		}
		if s.tr.backgroundSubagentFrame(m) {
			s.tr.handleSubagentFrame(m) // subagent.go: not part of the cancelled turn
			return
		}
		if _, ok := m.Body.(*claude.ResultMessage); ok {
			s.tr.compaction.end(s.tr, "it was cancelled.")
			s.tr.current = nil
			s.tr.out.reset()
			s.flushHeld() // the cancelled turn is over: prompts held back go now
		}
		return
	}
	switch b := m.Body.(type) {
	case *claude.StreamEvent:
		if s.tr.current == nil && !s.tr.backgroundSubagentFrame(m) {
			s.q.v2.autonomousOutput() // v2turns.go: Claude works on its own
		}
		s.tr.translate(m)
		if s.cli.windowFrom != nil && b.Event.Type == "content_block_delta" {
			s.askWindowNow() // config.go: the CLI has begun answering
		}
	case *claude.AssistantMessage:
		if s.tr.current == nil && !s.tr.backgroundSubagentFrame(m) {
			s.q.v2.autonomousOutput()
		}
		s.failureSawAssistant(b) // failure_live.go: a real answer ends some failures
		s.tr.translate(m)
	case *claude.UserFrame:
		s.tr.translate(m)
		if b.ParentToolUseID == "" {
			s.goalFeedback(b) // goal.go: the /goal Stop hook kept the turn going
		}
	case *claude.ModelRefusalNoFallback:
		if s.tr.current != nil {
			s.tr.current.refusalExplain = firstNonEmpty(b.APIRefusalExplanation, b.Content)
		}
	case *claude.ResultMessage:
		s.tr.flushHeld() // heldtext.go
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
		if t := s.tr.current; t != nil && t.uuid == b.CommandUUID {
			s.resultLost(t)
		}
	case "cancelled":
		if t := s.q.byUUID(b.CommandUUID, s.tr.current); t != nil && !t.settled && t.phase != turnWithdrawing {
			s.q.settle(t, &acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil)
		}
		delete(s.q.cancelledIDs, b.CommandUUID)
		s.flushHeld()
	}
}

func (tr *translator) onStreamEvent(e *claude.StreamEvent) {
	if e.ParentToolUseID != "" {
		tr.onSubagentStream(e) // subagent.go
		return
	}
	ev := e.Event
	switch ev.Type {
	case "message_start":
		if ev.Message != nil {
			tr.out.messageID = firstNonEmpty(ev.Message.ID, e.APIMessageID)
			tr.out.model = ev.Message.Model
			if ev.Message.Usage != nil {
				tr.out.usage = *ev.Message.Usage
				tr.sendUsage(nil)
			}
		}
	case "content_block_start":
		if cb := ev.ContentBlock; cb != nil && isToolUse(cb.Type) {
			tr.toolStarted(cb)
		}
	case "content_block_delta":
		if ev.Delta == nil {
			return
		}
		switch ev.Delta.Type {
		case "text_delta":
			tr.streamChunk(false, ev.Delta.Text, firstNonEmpty(e.APIMessageID, tr.out.messageID))
		case "thinking_delta":
			tr.streamChunk(true, ev.Delta.Thinking, firstNonEmpty(e.APIMessageID, tr.out.messageID))
		}
	case "message_delta":
		if ev.Usage != nil {
			tr.out.usage.OutputTokens = ev.Usage.OutputTokens
			tr.sendUsage(nil)
		}
	}
}

// chunk sends agent text or thought, grouped by the API message id.
func (tr *translator) chunk(thought bool, text, messageID string) {
	if text == "" {
		return
	}
	if tr.current != nil {
		tr.current.streamed = true
	}
	if messageID != tr.out.lastStreamed || messageID == "" {
		// Kept past the frame, whose bytes the next may reuse
		// (claude.Recycle): a copy, once per message.
		messageID = strings.Clone(messageID)
		tr.out.streamed[messageID] = true
		tr.out.lastStreamed = messageID
	}
	// The hot path of a long answer: the chunk is built in the
	// translator's scratch space, since the sink encodes it before it
	// returns and keeps nothing.
	sc := &tr.scratch
	sc.text = acp.TextContent{Text: text}
	sc.chunk = acp.ContentChunk{Content: acp.ContentBlock{Text: &sc.text}}
	if messageID != "" {
		sc.chunk.MessageID = acp.Some(acp.MessageID(messageID))
	}
	if thought {
		tr.notify(tr.id, acp.SessionUpdate{AgentThoughtChunk: &sc.chunk})
	} else {
		tr.notify(tr.id, acp.SessionUpdate{AgentMessageChunk: &sc.chunk})
	}
}

func (tr *translator) onAssistant(m *claude.AssistantMessage) {
	if m.ParentToolUseID != "" {
		tr.onSubagentAssistant(m) // subagent.go
		return
	}
	if m.IsAPIErrorMessage || m.Message.Model == claude.SyntheticModel {
		// Claude's own error text: it becomes the turn's error (or its
		// refusal explanation), not assistant prose.
		if t := tr.current; t != nil {
			t.apiError = m.Error
			t.apiErrorText = textOf(m.Message.Content)
			t.apiErrorMsgID = firstNonEmpty(m.Message.ID, m.UUID)
			if m.Message.StopReason == "refusal" {
				// Without an explanation from the API, Claude Code's own
				// words (what was flagged, what to try) are the guidance.
				t.refusalExplain = firstNonEmpty(refusalExplanation(m.Message.StopDetails), t.refusalExplain, t.apiErrorText)
			}
		} else {
			tr.out.idleError, tr.out.idleErrorID = textOf(m.Message.Content), firstNonEmpty(m.Message.ID, m.UUID)
		}
		return
	}
	if m.Message.StopReason == "refusal" && tr.current != nil {
		tr.current.refusalExplain = firstNonEmpty(refusalExplanation(m.Message.StopDetails), tr.current.refusalExplain)
	}
	streamed := tr.out.streamed[m.Message.ID]
	for _, b := range m.Message.Content {
		switch {
		case b.Type == "text" && !streamed:
			tr.chunk(false, b.Text, m.Message.ID)
		case b.Type == "thinking" && !streamed:
			tr.chunk(true, b.Thinking, m.Message.ID)
		case isToolUse(b.Type):
			tr.toolInputComplete(b)
		}
	}
}

func (tr *translator) onUserFrame(u *claude.UserFrame) {
	if u.ParentToolUseID != "" {
		tr.onSubagentUser(u) // subagent.go: its results and its prompt
		return
	}
	tr.toolResults(u) // tools.go
	for _, b := range u.Message.Content {
		if b.Type == "text" {
			if out, ok := localCommandOutput(b.Text); ok && !tr.agentsEcho(out) {
				tr.chunk(false, out, u.UUID)
			}
		}
	}
}

// modelEchoPrefix starts what the CLI prints for a model switch it was
// asked for with set_model.
const modelEchoPrefix = "Set model to "

// agentsEcho reports, and takes off the count, the CLI's echo of a
// set_model the agent sent (the editor's model picker): the CLI answers
// it like a /model typed in its terminal, with "Set model to …" as local
// command output. That is not conversation; the editor already has the
// change as a config_option_update. A /model the user typed is answered
// with a synthetic assistant message instead, which stays.
func (tr *translator) agentsEcho(out string) bool {
	if tr.modelEchoes == 0 || !strings.HasPrefix(out, modelEchoPrefix) {
		return false
	}
	tr.modelEchoes--
	return true
}

var localStdout = sync.OnceValue(func() *regexp.Regexp {

	return regexp.MustCompile(`(?s)<local-command-stdout>(.*?)</local-command-stdout>`)

})

// localCommandOutput extracts what a slash command printed locally.
func localCommandOutput(text string) (string, bool) {
	m := localStdout().FindStringSubmatch(text)
	if m == nil {
		return "", false
	}
	return strings.TrimSpace(m[1]), strings.TrimSpace(m[1]) != ""
}

// onResult ends the current turn (and any the CLI folded into it).
func (s *session) onResult(r *claude.ResultMessage) {
	s.lastActive = time.Now() // hibernate.go
	s.tr.compaction.end(s.tr, "the turn ended before it finished.")
	if s.tr.learnContextWindow(r) {
		s.cli.windowFrom = nil // no need to ask (config.go)
	}
	s.tr.sendUsage(&acp.Cost{Amount: r.TotalCostUSD, Currency: "USD"})
	t := s.tr.current
	s.tr.current = nil
	defer s.tr.out.reset()
	s.failureBoundary(t, r)
	if t == nil {
		// Background work: reported, nothing to settle; on v2, the end of
		// work Claude started on its own (v2turns.go).
		s.q.v2.autonomousEnd(r.IsError, scrub.Text(firstNonEmpty(r.Result, "Claude Code reported an error without a message.")))
		return
	}
	s.settleOpenTools(t, "The turn ended before this tool finished.") // settle.go
	resp, err := s.outcome(t, r)
	if resp != nil && resp.Usage == nil {
		resp.Usage = turnUsage(r.Usage)
	}
	for _, id := range r.UserMessageUUIDs {
		if other := s.q.byUUID(id, s.tr.current); other != nil && other != t {
			s.q.settle(other, resp, err)
		}
		delete(s.q.cancelledIDs, id) // a cancelled message the CLI folded into this turn
	}
	s.q.settle(t, resp, err)
	s.flushHeld()
}

var loginHint = sync.OnceValue(func() *regexp.Regexp {

	return regexp.MustCompile(`(?i)\brun /login\b|\bclaude /login\b`)

})

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
		if s.fail.failuresOn() || t.apiErrorText == "" || loginHint().MatchString(t.apiErrorText) {
			return
		}
		s.tr.chunk(false, scrub.Text(t.apiErrorText), t.apiErrorMsgID)
	}
	if resp, ok := s.typedOutcome(t, r); ok {
		return resp, nil // a capable client's failure record (failure_live.go)
	}
	switch {
	case r.StopReason == "refusal":
		if t.refusalExplain != "" {
			s.tr.chunk(false, t.refusalExplain, "")
		}
		return &acp.PromptResponse{StopReason: acp.StopReasonRefusal}, nil
	case r.Subtype == "error_max_turns" || r.Subtype == "error_max_budget_usd":
		return &acp.PromptResponse{StopReason: acp.StopReasonMaxTurnRequests}, nil
	case r.TerminalReason == "aborted_tools":
		// A permission request was cancelled (denied with interrupt): the
		// user stopped the turn from the prompt.
		return &acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	case r.StopReason == "max_tokens" || t.apiError == "max_output_tokens":
		showErrorText()
		return &acp.PromptResponse{StopReason: acp.StopReasonMaxTokens}, nil
	case r.IsError:
		showErrorText()
		// scrub: API error bodies can repeat keys, URLs and paths.
		text := scrub.Text(firstNonEmpty(r.Result, t.apiErrorText, strings.Join(r.Errors, "; "), "Claude Code reported an error without a message."))
		if isAuthError(t.apiError) || loginHint().MatchString(text) {
			return nil, acp.NewAuthRequired(text)
		}
		e := acp.NewInternalError(text)
		if t.apiError != "" {
			e = e.WithData(map[string]string{"errorKind": t.apiError})
		}
		return nil, e
	}
	if !t.streamed && r.Result != "" {
		// Nothing streamed (a cached or local-only turn): show the result.
		s.tr.chunk(false, r.Result, "")
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

// sendUsage reports context use (and cost at the end of a turn) when it
// changed.
func (tr *translator) sendUsage(cost *acp.Cost) {
	u := tr.out.usage
	used := uint64(u.InputTokens + u.OutputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens)
	if cost == nil && used == tr.out.lastUsed {
		return
	}
	if tr.out.sizePending {
		tr.out.held = true // sent when the CLI says the size (learnSize)
		if cost != nil {
			tr.out.heldCost = cost
		}
		return
	}
	tr.out.held, tr.out.heldCost = false, nil
	tr.out.lastUsed = used
	size := tr.out.size
	if size == 0 {
		size = contextWindowFor(tr.out.model)
	}
	uu := &acp.UsageUpdate{Used: used, Size: size, Cost: cost}
	tr.notify(tr.id, acp.SessionUpdate{UsageUpdate: uu})
}

// learnSize takes the context window the CLI reported (get_context_usage)
// and sends the usage held back for it.
func (tr *translator) learnSize(size uint64) {
	if size > 0 {
		tr.out.size = size
	}
	tr.out.sizePending = false
	if tr.out.held {
		tr.out.lastUsed = ^uint64(0) // what was held differs from what was sent
		tr.sendUsage(tr.out.heldCost)
	}
}

// learnContextWindow takes the context window a result reports for the
// model that answered, and says whether there was one: then the size is
// known, whether or not the CLI was asked.
func (tr *translator) learnContextWindow(r *claude.ResultMessage) bool {
	learned := false
	for model, mu := range r.ModelUsage {
		if mu.ContextWindow > 0 && (tr.out.model == "" || strings.HasPrefix(tr.out.model, model) || strings.HasPrefix(model, tr.out.model)) {
			tr.out.size = uint64(mu.ContextWindow)
			learned = true
		}
	}
	if learned {
		tr.out.sizePending = false
	}
	return learned
}

func contextWindowFor(model string) uint64 {
	if strings.Contains(model, "[1m]") {
		return 1_000_000
	}
	return 200_000
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
		s.tr.translate(m)             // compact.go: a compaction's progress
	case *claude.CompactBoundary:
		s.tr.translate(m)
		s.tr.compaction.contextLeft(s.tr, b) // compact.go: the context it left
	case *claude.SystemInit:
		s.setModeID(b.PermissionMode) // config.go: the CLI's view wins
		s.modelFromCLI(b.Model)
		s.cmds.learnFromInit(m.Raw) // commands.go
		s.cmds.publish(s.id, s.a.notify)
		s.observeFastMode(b.FastModeState, m.Raw) // config.go, failure_live.go
	case *claude.APIRetry:
		s.adv.onAPIRetry(s.tr.current, b) // failure_live.go
	case *claude.ModelRefusalFallback:
		s.adv.onRefusalFallback(s.tr.current, b) // failure_live.go
		if b.Direction != "revert" && b.Scope != "local" {
			s.followModelSwap(b.FallbackModel) // config.go: after the notice that explains it
		}
	case *claude.ModelFallback:
		s.adv.onModelFallback(s.tr.current, b) // failure_live.go
	case *claude.ActiveGoal:
		s.onActiveGoal(b) // goal.go
	case *claude.Informational:
		s.adv.onInformational(s.tr.current, b) // notices.go
	case *claude.SessionTitleChanged:
		s.a.sendTitle(s.id, &s.title, s.title.renamed(b)) // title.go
	case *claude.TaskEvent:
		s.tr.translate(m)
	case *claude.SessionStateChanged:
		s.onCLIState(b) // turn.go: idle with a turn still open lost its result
	default:
		s.failureFrame(m) // failure_live.go: worker shutdown, auth status
	}
}

func isToolUse(t string) bool {
	return t == "tool_use" || t == "server_tool_use" || t == "mcp_tool_use"
}

func textOf(c claude.Content) string {
	var sb strings.Builder
	for _, b := range c {
		if b.Type == "text" {
			sb.WriteString(b.Text)
		}
	}
	return sb.String()
}

func refusalExplanation(details json.RawMessage) string {
	var d struct {
		Explanation string `json:"explanation"`
	}
	_ = json.Unmarshal(details, &d)
	return d.Explanation
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
