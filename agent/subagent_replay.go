package agent

import (
	"log/slog"

	"github.com/claude-agent-acp/claude-agent-acp/claude"
	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
)

// Replay of subagent transcripts. The CLI keeps each subagent's
// conversation in its own file next to the session's transcript
// (<session>/subagents/agent-<id>.jsonl, with a .meta.json sidecar naming
// the launching tool_use). The replayer plays a subagent's file right after
// the record that launched it, as the frames the CLI printed live: a
// task_started, the subagent's messages carrying parent_tool_use_id and
// agent_id, and a task_notification. They go through the live translation
// (agent/translate/subagent.go), so the relations (parentToolUseId, child sessions and
// their states) are the same as live.

// subagentTranscripts indexes the subagent files of the session at path by
// launching tool_use id. Files without a sidecar cannot be placed and are
// left out.
func subagentTranscripts(path string, log *slog.Logger) map[string]transcript.Subagent {
	subs, err := transcript.Subagents(path)
	if err != nil {
		log.Warn("subagent transcripts not listed", "error", err)
	}
	out := map[string]transcript.Subagent{}
	for _, sa := range subs {
		if sa.Meta != nil && sa.Meta.ToolUseID != "" {
			out[sa.Meta.ToolUseID] = sa
		}
	}
	return out
}

// subagentsLaunchedBy replays the subagents whose launch is in rec.
func (rp *replayer) subagentsLaunchedBy(rec *transcript.Record) {
	if rec.Message == nil || len(rp.subagents) == 0 {
		return
	}
	for _, b := range rec.Message.Content {
		if b.Type != "tool_use" {
			continue
		}
		sa, ok := rp.subagents[b.ID]
		if !ok {
			continue
		}
		delete(rp.subagents, b.ID) // once, and no cycles
		rp.replaySubagent(b.ID, sa)
	}
}

func (rp *replayer) replaySubagent(launch string, sa transcript.Subagent) {
	r, err := transcript.Open(sa.Path, &transcript.Options{Logger: rp.log})
	if err != nil {
		rp.log.Warn("subagent transcript not readable", "agent", sa.AgentID, "error", err)
		return
	}
	defer r.Close()
	m := sa.Meta
	rp.tr.Translate(claude.Message{Type: "system", Subtype: "task_started", Body: &claude.TaskEvent{
		Base:   claude.Base{Type: "system", Subtype: "task_started"},
		TaskID: sa.AgentID, ToolUseID: launch, TaskType: "local_agent",
		Description: m.Description, SubagentType: m.AgentType, IsBackgrounded: m.RequestShape == "background",
	}})
	for rec, err := range r.Records() {
		if err != nil {
			rp.log.Warn("subagent transcript read failed", "agent", sa.AgentID, "error", err)
			break
		}
		if rec.Message == nil {
			continue
		}
		switch rec.Type {
		case transcript.TypeAssistant:
			if rec.IsSynthetic() || rec.IsAPIErrorMessage {
				continue
			}
			msg := rec.Message
			rp.tr.Translate(claude.Message{Type: "assistant", Body: &claude.AssistantMessage{
				Base: claude.Base{Type: "assistant", UUID: rec.UUID, SessionID: rec.SessionID},
				Message: claude.APIMessage{
					ID: msg.ID, Type: "message", Role: "assistant", Model: msg.Model,
					Content: claude.Content(msg.Content), StopReason: msg.StopReason,
				},
				ParentToolUseID: launch, AgentID: sa.AgentID, RequestID: rec.RequestID, Timestamp: rec.Timestamp,
			}})
			rp.subagentsLaunchedBy(rec) // a subagent's own subagents
		case transcript.TypeUser:
			if rec.IsMeta || rec.IsCompactSummary {
				continue
			}
			rp.tr.Translate(claude.Message{Type: "user", Body: &claude.UserFrame{
				Base:            claude.Base{Type: "user", UUID: rec.UUID, SessionID: rec.SessionID},
				Message:         claude.UserMessageBody{Role: "user", Content: claude.Content(rec.Message.Content)},
				ParentToolUseID: launch, AgentID: sa.AgentID, ToolUseResult: rec.ToolUseResult, Timestamp: rec.Timestamp,
			}})
		}
	}
	status := "completed"
	if m.StoppedByUser {
		status = "stopped"
	}
	rp.tr.Translate(claude.Message{Type: "system", Subtype: "task_notification", Body: &claude.TaskEvent{
		Base:   claude.Base{Type: "system", Subtype: "task_notification"},
		TaskID: sa.AgentID, ToolUseID: launch, Status: status,
	}})
}
