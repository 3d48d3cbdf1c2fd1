package translate

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
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
	// work of no prompt, and its message id (agent/failed.go).
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

func (tr *Translator) onStreamEvent(e *claude.StreamEvent) {
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
				tr.SendUsage(nil)
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
			tr.SendUsage(nil)
		}
	}
}

// Chunk sends agent text or thought, grouped by the API message id.
func (tr *Translator) Chunk(thought bool, text, messageID string) {
	if text == "" {
		return
	}
	if tr.Current != nil {
		tr.Current.Streamed = true
	}
	if messageID != tr.out.lastStreamed || messageID == "" {
		// Kept past the frame, whose bytes the next may reuse
		// (claude.Recycle): a copy, once per message.
		messageID = strings.Clone(messageID)
		tr.out.streamed[messageID] = true
		tr.out.lastStreamed = messageID
	}
	// The hot path of a long answer: the chunk is built in the
	// Translator's scratch space, since the sink encodes it before it
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

func (tr *Translator) onAssistant(m *claude.AssistantMessage) {
	if m.ParentToolUseID != "" {
		tr.onSubagentAssistant(m) // subagent.go
		return
	}
	if m.IsAPIErrorMessage || m.Message.Model == claude.SyntheticModel {
		// Claude's own error text: it becomes the turn's error (or its
		// refusal explanation), not assistant prose.
		if t := tr.Current; t != nil {
			t.APIError = m.Error
			t.APIErrorText = textOf(m.Message.Content)
			t.APIErrorMsgID = firstNonEmpty(m.Message.ID, m.UUID)
			if m.Message.StopReason == "refusal" {
				// Without an explanation from the API, Claude Code's own
				// words (what was flagged, what to try) are the guidance.
				t.RefusalExplain = firstNonEmpty(refusalExplanation(m.Message.StopDetails), t.RefusalExplain, t.APIErrorText)
			}
		} else {
			tr.out.idleError, tr.out.idleErrorID = textOf(m.Message.Content), firstNonEmpty(m.Message.ID, m.UUID)
		}
		return
	}
	if m.Message.StopReason == "refusal" && tr.Current != nil {
		tr.Current.RefusalExplain = firstNonEmpty(refusalExplanation(m.Message.StopDetails), tr.Current.RefusalExplain)
	}
	streamed := tr.out.streamed[m.Message.ID]
	for _, b := range m.Message.Content {
		switch {
		case b.Type == "text" && !streamed:
			tr.Chunk(false, b.Text, m.Message.ID)
		case b.Type == "thinking" && !streamed:
			tr.Chunk(true, b.Thinking, m.Message.ID)
		case isToolUse(b.Type):
			tr.toolInputComplete(b)
		}
	}
}

func (tr *Translator) onUserFrame(u *claude.UserFrame) {
	if u.ParentToolUseID != "" {
		tr.onSubagentUser(u) // subagent.go: its results and its prompt
		return
	}
	tr.toolResults(u) // tools.go
	for _, b := range u.Message.Content {
		if b.Type == "text" {
			if out, ok := localCommandOutput(b.Text); ok && !tr.agentsEcho(out) {
				tr.Chunk(false, out, u.UUID)
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
func (tr *Translator) agentsEcho(out string) bool {
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

// SendUsage reports context use (and cost at the end of a turn) when it
// changed.
func (tr *Translator) SendUsage(cost *acp.Cost) {
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

// LearnSize takes the context window the CLI reported (get_context_usage)
// and sends the usage held back for it.
func (tr *Translator) LearnSize(size uint64) {
	if size > 0 {
		tr.out.size = size
	}
	tr.out.sizePending = false
	if tr.out.held {
		tr.out.lastUsed = ^uint64(0) // what was held differs from what was sent
		tr.SendUsage(tr.out.heldCost)
	}
}

// LearnContextWindow takes the context window a result reports for the
// model that answered, and says whether there was one: then the size is
// known, whether or not the CLI was asked.
func (tr *Translator) LearnContextWindow(r *claude.ResultMessage) bool {
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
