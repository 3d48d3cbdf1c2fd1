package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/failure"
	"github.com/claude-agent-acp/claude-agent-acp/agent/goal"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/promptconv"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/scrub"
	"github.com/claude-agent-acp/claude-agent-acp/agent/translate"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
)

// A replayer turns a stored conversation back into the session/update
// notifications the editor saw live. It does not translate records itself:
// each transcript record is what the CLI printed when it happened, so the
// replayer hands it, as that CLI frame, to a translator of its own
// (agent/translate) that looks at the past instead of the present. Replay and
// live therefore cannot drift apart: tool titles, kinds, diffs, terminal
// output and plans come out the same. The one thing live never sends is
// the user's own prompt; the replayer rebuilds it from the stored Claude
// message (promptconv.FromClaude).
//
// A replayer is used by one goroutine, the one handling session/load or
// resume; the live session (whose CLI starts meanwhile) is not disturbed.
type replayer struct {
	a    *connection
	id   string
	log  *slog.Logger
	tr   *translate.Translator
	fail failure.State // typed failures found in history (agent/failure)
	mode string        // permission mode of the last prompt
	// subagents are the session's subagent transcripts by launching
	// tool_use id (subagent_replay.go).
	subagents map[string]transcript.Subagent
	goal      goal.History // the goal as of the records so far (agent/goal)
	// held is a /model command record waiting for the record after it,
	// which tells who issued it (agentsModelSwitch).
	held *transcript.Record
}

func newReplayer(a *connection, id string, setup *sessionSetup) *replayer {
	log := a.log.With("session", id, "replay", true)
	rp := &replayer{a: a, id: id, log: log, tr: a.newTranslator(id, setup.cwd, log, translate.Past{})}
	rp.tr.ShowEditorTools(editorServerName(setup.opts.MCPServers)) // editorfs_wire.go
	newFailures(a, id, log, &rp.fail)
	return rp
}

// mirrorFailures hands the replay's revisions and active usage limits to
// the live session of the same id.
func (rp *replayer) mirrorFailures() {
	snap, ok := rp.fail.Snapshot()
	if !ok {
		return
	}
	if live := rp.a.liveSession(rp.id); live != nil {
		live.do(func() { live.fail.Restore(snap) })
	}
}

// replayFailure restores a typed failure of history (agent/failure) and
// reports whether it replaces rec's own text.
func replayFailure(f *failure.State, rec *transcript.Record) bool {
	return f.ReplayRecord(rec, rec != nil && rec.Type == transcript.TypeUser && rec.Message != nil && isPromptRecord(rec))
}

// isPromptRecord reports a user record that is a prompt the user sent (its
// uuid is the live turn id), not a tool result or a CLI-injected message.
func isPromptRecord(r *transcript.Record) bool {
	if r.IsMeta || r.IsCompactSummary || hiddenOrigin(r.Origin) {
		return false
	}
	for _, b := range r.Message.Content {
		if b.Type == "tool_result" {
			return false
		}
		if b.Type == "text" && strings.HasPrefix(b.Text, "[Request interrupted by user") {
			return false
		}
	}
	return true
}

// replay sends the active branch of the transcript at path as
// session/update notifications for s, before s's CLI starts or, past
// replayHeadStart, while it starts (begin). It returns the
// permission mode of the last prompt. Unreadable lines are skipped (and
// logged by the reader); only an I/O error, the request's end or a failed
// CLI start stop it.
func (a *connection) replay(ctx context.Context, id, path string, setup *sessionSetup, started *startOutcome) (mode string, err error) {
	defer func() {
		// The live translation code meets stored data here that no CLI
		// sent this agent: a record it cannot take fails the load, not
		// the connection.
		if r := recover(); r != nil {
			a.log.Error("replay failed", "session", id, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			mode, err = "", acp.NewInternalError("the session's transcript could not be replayed")
		}
	}()
	defer freeMemoryAfterLoad(path)  // memory.go: a huge load's heap goes back (runs last)
	widened, ahead := widenForLoad() // threads.go: decoding runs ahead on a second thread
	defer widened()
	r, err := transcript.Open(path, &transcript.Options{Logger: a.log.With("session", id)})
	if err != nil {
		a.log.Warn("transcript not readable", "session", id, "error", err)
		return "", acp.NewInternalError("the session's transcript could not be read")
	}
	defer r.Close()
	rp := newReplayer(a, id, setup)
	rp.subagents = subagentTranscripts(path, a.log.With("session", id))
	// History goes out in batches, one write for the updates of 64
	// records (acp.Conn.Hold): a pipe write and a wake-up of the client
	// per update would cost more than the update.
	release := a.editor().Hold()
	defer func() { release() }()
	n, begun := 0, time.Now()
	records := r.Records
	if ahead {
		records = r.RecordsAhead
	}
	for rec, err := range records() {
		if err != nil {
			a.log.Warn("transcript read failed", "session", id, "error", err)
			return "", acp.NewInternalError("the session's transcript could not be read")
		}
		if n++; n%64 == 0 {
			release()
			release = a.editor().Hold()
			if err := ctx.Err(); err != nil {
				return "", err
			}
			if time.Since(begun) >= replayHeadStart {
				started.begin() // lifecycle.go: history first
			}
			if err := started.failed(); err != nil {
				return "", err
			}
			if replayBatchHook != nil {
				replayBatchHook(n)
			}
		}
		rp.record(rec)
	}
	rp.flushHeld()
	if st := r.Stats(); st.Corrupt > 0 || st.TruncatedTail || st.BrokenChain {
		a.log.Warn("transcript lines skipped on load", "session", id,
			"corrupt", st.Corrupt, "truncatedTail", st.TruncatedTail, "brokenChain", st.BrokenChain)
	}
	if title := r.NamedTitle(); title != "" {
		a.replayTitle(id, title) // title.go: as the live session titled it
	}
	rp.mirrorFailures()
	a.restoreGoal(id, rp.goal.Goal())
	return rp.mode, nil
}

// replayBatchHook, when set (by tests), runs between a replay's batches of
// updates, with the records read so far, outside the connection's hold.
// Every replay reads it: a test that sets it is not parallel.
var replayBatchHook func(records int)

// record replays one record of the active branch. A /model command is
// held until the record after it says whether the agent issued it: a
// model switch from the editor's picker (set_model) is stored as a /model
// command with its "Set model to …" output as a user record, and neither
// is conversation (the live session shows neither: agent/translate). A /model
// the user typed has its output in a system record, and stays.
func (rp *replayer) record(rec *transcript.Record) {
	if held := rp.held; held != nil {
		rp.held = nil
		if isModelEcho(rec) {
			return
		}
		rp.replayRecord(held)
	}
	if isModelCommand(rec) {
		rp.held = rec
		return
	}
	rp.replayRecord(rec)
}

// flushHeld replays a held record that ended the history.
func (rp *replayer) flushHeld() {
	if held := rp.held; held != nil {
		rp.held = nil
		rp.replayRecord(held)
	}
}

// isModelCommand reports a stored /model command (as the CLI writes a
// slash command: <command-name>/model</command-name> …).
func isModelCommand(rec *transcript.Record) bool {
	if rec.Type != transcript.TypeUser || rec.IsMeta || rec.IsSidechain || rec.Message == nil {
		return false
	}
	text := blocksText(rec.Message.Content)
	return strings.HasPrefix(text, "<command-name>/model</command-name>")
}

// isModelEcho reports the stored output of a set_model: a user record of
// nothing but "Set model to …" as local command output.
func isModelEcho(rec *transcript.Record) bool {
	if rec.Type != transcript.TypeUser || rec.IsSidechain || rec.Message == nil || len(rec.Message.Content) != 1 {
		return false
	}
	return translate.IsModelEcho(blocksText(rec.Message.Content))
}

// replayRecord replays one record.
func (rp *replayer) replayRecord(rec *transcript.Record) {
	rp.goal.Record(rec)
	if replayFailure(&rp.fail, rec) {
		return // a typed failure record replaces the prose (agent/failure)
	}
	if rec.Type == transcript.TypeSystem && rec.Subtype == "compact_boundary" && !rec.IsSidechain {
		rp.compacted(rec)
		return
	}
	if rec.IsSidechain || rec.Message == nil {
		return // subagent work is not part of the main conversation live either
	}
	switch rec.Type {
	case transcript.TypeAssistant:
		rp.assistant(rec)
		rp.subagentsLaunchedBy(rec) // their transcripts follow the launch
	case transcript.TypeUser:
		rp.user(rec)
	}
}

func (rp *replayer) assistant(rec *transcript.Record) {
	m := rec.Message
	if rec.IsSynthetic() || rec.IsAPIErrorMessage {
		// Claude's own error text is agent text, as it was live for a
		// client without typed failures (session.outcome), scrubbed
		// the same way. Login prompts are left out, live and here.
		if text := blocksText(m.Content); text != "" && !failure.LoginHint().MatchString(text) {
			rp.tr.Chunk(false, scrub.Text(text), firstNonEmpty(m.ID, rec.UUID))
		}
		return
	}
	// Live, text that streamed is not repeated from the consolidated
	// frame; nothing streams in a replay, and each record is one block.
	rp.tr.ForgetStreamed()
	rp.tr.Translate(claude.Message{Type: "assistant", Body: &claude.AssistantMessage{
		Base: claude.Base{Type: "assistant", UUID: rec.UUID, SessionID: rec.SessionID},
		Message: claude.APIMessage{
			ID: m.ID, Type: "message", Role: "assistant", Model: m.Model,
			Content: claude.Content(m.Content), StopReason: m.StopReason,
		},
		RequestID: rec.RequestID,
		Timestamp: rec.Timestamp,
	}})
}

func (rp *replayer) user(rec *transcript.Record) {
	if rec.IsMeta || rec.IsCompactSummary || hiddenOrigin(rec.Origin) {
		return
	}
	if rec.PermissionMode != "" {
		rp.mode = rec.PermissionMode
	}
	rp.tr.UserMessage(rec.UUID, promptconv.FromClaude(rec.Message.Content))
	// Tool results and local command output, as live.
	rp.tr.Translate(claude.Message{Type: "user", Body: &claude.UserFrame{
		Base:          claude.Base{Type: "user", UUID: rec.UUID, SessionID: rec.SessionID},
		Message:       claude.UserMessageBody{Role: "user", Content: claude.Content(rec.Message.Content)},
		ToolUseResult: rec.ToolUseResult,
		Timestamp:     rec.Timestamp,
	}})
}

// hiddenOrigin reports prompts that did not come from the user: task
// notifications and messages from peer sessions or observers.
func hiddenOrigin(o *transcript.Origin) bool {
	if o == nil {
		return false
	}
	switch o.Kind {
	case "task-notification":
		return o.Subkind == ""
	case "peer", "channel", "observer", "observer-activity", "slack-ping":
		return true
	}
	return false
}

func blocksText(c transcript.Content) string {
	var sb strings.Builder
	for _, b := range c {
		if b.Type == "text" {
			sb.WriteString(b.Text)
		}
	}
	return sb.String()
}

// compacted replays a stored compact boundary as the frame the CLI printed
// live; the transcript writes its counts in camelCase.
func (rp *replayer) compacted(rec *transcript.Record) {
	var m struct {
		Trigger    string `json:"trigger"`
		PreTokens  int64  `json:"preTokens"`
		PostTokens int64  `json:"postTokens"`
		DurationMS int64  `json:"durationMs"`
	}
	_ = json.Unmarshal(rec.CompactMetadata, &m)
	b := &claude.CompactBoundary{Base: claude.Base{Type: "system", Subtype: "compact_boundary", UUID: rec.UUID, SessionID: rec.SessionID}}
	b.CompactMetadata.Trigger, b.CompactMetadata.PreTokens = m.Trigger, m.PreTokens
	b.CompactMetadata.PostTokens, b.CompactMetadata.DurationMS = m.PostTokens, m.DurationMS
	rp.tr.Translate(claude.Message{Type: "system", Subtype: "compact_boundary", Body: b})
}
