// Package translate turns what the Claude Code CLI printed into what an
// ACP client is shown: its output frames (streamed text and thinking,
// assistant messages, tool calls and their results, plans, compaction,
// subagent work, command output and terminals, the result JSON of tools)
// become session/update notifications. It is the one home of that
// mapping, live and in history: session/load feeds it the stored
// conversation as the frames the CLI once printed.
//
// Translation settles no turn and talks to no CLI: the session (package
// agent) decides what a frame means for its turns and hands the rest to
// its Translator; what translation needs beyond the frames comes from its
// World. The package never imports package agent (internal/test/archtest).
package translate

import (
	"log/slog"
	"os"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/toolview"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// A Translator turns the CLI's output frames into session/update
// notifications, and remembers what that takes: the message being
// streamed, the tool calls in flight, the plan, the subagent runs, the
// commands being followed. It is used by one goroutine at a time (the
// session's, or the replay's).
//
// A live session owns one Translator; session/load's replay owns another
// and feeds it the stored conversation as the frames the CLI once
// printed, so history looks exactly as the live session did. What differs
// between the two is only the World they look at: now, or the Past.
type Translator struct {
	id  string // the session the updates are about
	cwd string
	log *slog.Logger
	// sink receives every update, with the session it is for (a subagent
	// shown as a child session has its own id). It must be done with the
	// update when it returns (chunk reuses its parts).
	sink func(sessionID string, u acp.SessionUpdate)
	// world is what translating needs beyond the frames.
	world World
	// editorServer is the MCP server of the editor's file tools
	// (agent/editorfs), whose calls show as the built-ins' ("": none).
	editorServer string
	// What the client renders, fixed at initialize: display terminals,
	// and how subagents are shown.
	terminals bool
	subagents SubagentMode

	// Current is the prompt the CLI is working on, which the output
	// belongs to (nil: work of no prompt, or history). The session's turn
	// bookkeeping sets it; translation reads it and notes what the output
	// showed.
	Current *Turn

	out     outputState
	keyBuf  []byte   // viewKey's encoding buffer
	scratch struct { // chunk's reused notification parts
		chunk acp.ContentChunk
		text  acp.TextContent
	}
	tools   map[string]*toolState // tool calls reported and not finished
	toolSeq int                   // calls made so far (toolState.seq)
	plan    planState
	sub     subagentState      // subagent runs (subagent.go)
	bgTasks map[string]*bgTask // commands followed, by task id (terminal.go)
	// compaction is the /compact in progress, shown as a tool call
	// (compact.go).
	compaction compaction
	// sched is the live CLI's scheduled work (schedule.go); nil in a replay.
	sched *schedule
	// modelEchoes counts the set_model requests the session sent whose
	// echo the CLI has still to print (agentsEcho, output.go).
	modelEchoes int
}

// A World is what translation sees beyond the frames: the present for a
// live session, the Past for a replay.
type World interface {
	// Preview is the content of a call whose input is whole, before its
	// result: live, an edit's diff against the file as it is on disk.
	Preview(name string, in map[string]any, cwd string) ([]acp.ToolCallContent, []acp.ToolCallLocation)
	// Live reports the present: commands that outlived their tool results
	// (moved to the background) still run and can be followed, and the
	// transcript is being written.
	Live() bool
	// Poll calls fn on the translator's goroutine every PollInterval until
	// stop is closed (or the owner ends).
	Poll(stop <-chan struct{}, fn func())
	// TaskOutput opens the file a running task of the CLI writes its
	// output to (nil: none).
	TaskOutput(cliSessionID, taskID string) *os.File
	// TaskOutputs lists the task output files of a CLI session (task id →
	// path); nil when there are none to follow.
	TaskOutputs(cliSessionID string) map[string]string
}

// PollInterval is how often a followed command's output is looked at.
const PollInterval = 500 * time.Millisecond

// Past is a replay's World: today's file is not the one an edit saw, so
// edits show their input (the stored result's patch follows), and the
// commands of history are over.
type Past struct{}

func (Past) Preview(name string, in map[string]any, cwd string) ([]acp.ToolCallContent, []acp.ToolCallLocation) {
	if toolview.IsEditTool(name) {
		p, _ := in["file_path"].(string)
		return toolview.InputDiff(name, toolview.AbsPath(p, cwd), in), nil
	}
	return toolview.PreContent(name, in, cwd)
}

func (Past) Live() bool                           { return false }
func (Past) Poll(<-chan struct{}, func())         {}
func (Past) TaskOutput(string, string) *os.File   { return nil }
func (Past) TaskOutputs(string) map[string]string { return nil }

// Config is what a Translator is made with.
type Config struct {
	SessionID string
	Cwd       string
	Log       *slog.Logger
	// Sink receives every update, with the session it is for; it must be
	// done with the update when it returns.
	Sink  func(sessionID string, u acp.SessionUpdate)
	World World
	// Terminals: the client renders display terminals (Zed's
	// terminal_output). Subagents: how it is shown subagents.
	Terminals bool
	Subagents SubagentMode
	// Scheduled follows the CLI's scheduled work (cron jobs, wake-ups): a
	// live session's translator does, a replay's does not.
	Scheduled bool
}

// New is a translator for one session.
func New(c Config) *Translator {
	tr := &Translator{
		id: c.SessionID, cwd: c.Cwd, log: c.Log, world: c.World,
		sink: c.Sink, terminals: c.Terminals, subagents: c.Subagents,
	}
	if c.Scheduled {
		tr.sched = &schedule{}
	}
	tr.out.reset()
	return tr
}

// ShowEditorTools shows the calls of the editor's file tools served as
// MCP server (agent/editorfs: mcp__<server>__Edit) as the built-ins they
// stand in for: the same titles, kinds, diffs and results.
func (tr *Translator) ShowEditorTools(server string) { tr.editorServer = server }

// Rebind sends the updates to another client connection from now on (a
// shared session taken over by a new connection), which may render
// terminals and subagents otherwise.
func (tr *Translator) Rebind(sink func(sessionID string, u acp.SessionUpdate), terminals bool, subagents SubagentMode) {
	tr.sink, tr.terminals, tr.subagents = sink, terminals, subagents
}

func (tr *Translator) notify(sessionID string, u acp.SessionUpdate) { tr.sink(sessionID, u) }

// Translate handles one output frame of the CLI for tr.Current.
func (tr *Translator) Translate(m claude.Message) {
	if !continuesStream(m) {
		tr.FlushHeld() // heldtext.go: held text goes out before anything else
	}
	switch b := m.Body.(type) {
	case *claude.StreamEvent:
		tr.onStreamEvent(b)
	case *claude.AssistantMessage:
		tr.onAssistant(b)
	case *claude.UserFrame:
		tr.onUserFrame(b)
	case *claude.TaskEvent:
		tr.onSubagentTask(b) // subagent.go: a subagent's progress
		tr.onTaskEvent(b)    // terminal.go: a command's
	case *claude.SystemStatus:
		tr.compaction.status(tr, b) // compact.go
	case *claude.CompactBoundary:
		tr.compaction.boundary(tr, b)
	}
}
