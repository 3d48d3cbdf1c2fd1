package translate

import (
	"encoding/json"
	"fmt"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// Compaction. When Claude Code compacts the conversation (/compact typed
// as a prompt, or on its own when the context fills up) it says so with
// system/status "compacting", then a status with compact_result, then, on
// success, a compact_boundary with the token counts before and after. The
// editor sees this as a tool call, as the reference adapter shows it to
// clients without the compaction extension: "Compact conversation"
// in_progress, then completed (with the counts) or failed, and afterwards
// the context size the compaction left (usage_update).

// compactTitle is the title of a compaction's tool call.
const compactTitle = "Compact conversation"

// compaction is a compaction in progress: the id of its tool call ("" none).
type compaction struct{ id string }

// onCompactStatus follows the status frames of a compaction.
func (c *compaction) status(tr *Translator, b *claude.SystemStatus) {
	switch {
	case b.Status == "compacting" && c.id == "":
		c.id = "compact-" + firstNonEmpty(b.UUID, "live")
		tr.notify(tr.id, acp.SessionUpdate{ToolCall: &acp.ToolCall{
			ToolCallID: acp.ToolCallID(c.id),
			Title:      compactTitle,
			Kind:       acp.ToolKindThink,
			Status:     acp.ToolCallStatusInProgress,
			Meta:       compactMeta(),
		}})
	case b.CompactResult != "" && b.CompactResult != "success":
		c.end(tr, firstNonEmpty(b.CompactError, "Claude Code could not compact the conversation."))
	}
}

// onCompactBoundary completes the compaction with what it did (a boundary
// with no compaction in progress, as in a replay, is reported whole).
func (c *compaction) boundary(tr *Translator, b *claude.CompactBoundary) {
	m := b.CompactMetadata
	id := c.id
	c.id = ""
	out := mustJSON(map[string]any{"trigger": m.Trigger, "preTokens": m.PreTokens, "postTokens": m.PostTokens, "durationMs": m.DurationMS})
	text := "Conversation compacted"
	if m.PreTokens > 0 || m.PostTokens > 0 {
		text += fmt.Sprintf(" (%d → %d tokens)", m.PreTokens, m.PostTokens)
	}
	content := []acp.ToolCallContent{{Content: &acp.Content{Content: acp.ContentBlock{Text: &acp.TextContent{Text: text + "."}}}}}
	if id == "" {
		tr.notify(tr.id, acp.SessionUpdate{ToolCall: &acp.ToolCall{
			ToolCallID: acp.ToolCallID("compact-" + firstNonEmpty(b.UUID, "replay")),
			Title:      compactTitle, Kind: acp.ToolKindThink, Status: acp.ToolCallStatusCompleted,
			Content: content, RawOutput: out, Meta: compactMeta(),
		}})
		return
	}
	tr.notify(tr.id, acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{
		ToolCallID: acp.ToolCallID(id), Status: acp.Some(acp.ToolCallStatusCompleted),
		Content: acp.Some(content), RawOutput: out, Meta: compactMeta(),
	}})
}

// endCompaction fails a compaction in progress: the CLI reported a failure,
// or its turn ended without a boundary.
func (c *compaction) end(tr *Translator, why string) {
	if c.id == "" {
		return
	}
	id := c.id
	c.id = ""
	tr.notify(tr.id, acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{
		ToolCallID: acp.ToolCallID(id), Status: acp.Some(acp.ToolCallStatusFailed),
		Content: acp.Some([]acp.ToolCallContent{{Content: &acp.Content{Content: acp.ContentBlock{
			Text: &acp.TextContent{Text: "Compaction failed: " + why}}}}}),
		Meta: compactMeta(),
	}})
}

// contextCompacted reports the context a compaction left: the next
// message's usage would say it too, but the user wants to see it now (and
// a /compact turn has no message of its own).
func (c *compaction) contextLeft(tr *Translator, b *claude.CompactBoundary) {
	tr.out.usage = claude.Usage{InputTokens: b.CompactMetadata.PostTokens}
	tr.SendUsage(nil)
}

func compactMeta() map[string]json.RawMessage {
	return map[string]json.RawMessage{"claudeCode": mustJSON(map[string]string{"toolName": "compact"})}
}
