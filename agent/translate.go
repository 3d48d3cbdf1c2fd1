package agent

import (
	"log/slog"
	"os"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/toolview"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// A translator turns the CLI's output frames (streamed text and thinking,
// assistant messages, tool calls and their results, plans, subagent work,
// command output) into session/update notifications, and remembers what
// that takes: the message being streamed, the tool calls in flight, the
// plan, the subagent runs, the commands being followed. It settles no
// turn and talks to no CLI: the session decides what a frame means for
// its turns (session.handle) and hands the rest here.
//
// A live session owns one translator; session/load's replay owns another
// (replay.go) and feeds it the stored conversation as the frames the CLI
// once printed, so history looks exactly as the live session did. What
// differs between the two is only the world they look at (world below):
// now, or the past.
type translator struct {
	id  string // the session the updates are about
	cwd string
	log *slog.Logger
	// sink receives every update, with the session it is for (a subagent
	// shown as a child session has its own id). It must be done with the
	// update when it returns (chunk reuses its parts).
	sink func(sessionID string, u acp.SessionUpdate)
	// world is what translating needs beyond the frames.
	world world
	// editorServer is the SDK MCP server of the editor's file tools, whose
	// calls show as the built-ins' (editorfs_wire.go).
	editorServer string
	// What the client renders, fixed at initialize: display terminals,
	// and how subagents are shown.
	terminals bool
	subagents subagentMode

	// current is the prompt the CLI is working on, which the output
	// belongs to (nil: work of no prompt, or history). The session's turn
	// bookkeeping (turn.go) sets it; translation only reads it.
	current *turn

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
	// stored is what the check that a turn was saved needs (stored.go).
	stored storedState
}

// A world is what translation sees beyond the frames: the present for a
// live session, the past for a replay.
type world interface {
	// preview is the content of a call whose input is whole, before its
	// result: live, an edit's diff against the file as it is on disk.
	preview(name string, in map[string]any, cwd string) ([]acp.ToolCallContent, []acp.ToolCallLocation)
	// commandsRun reports whether a command that outlived its tool result
	// (moved to the background) is still running and can be followed.
	commandsRun() bool
	// poll calls fn with bg on the owner's goroutine every bgPollInterval
	// until bg stops.
	poll(bg *bgTask, fn func(*bgTask))
	// taskOutput opens the file a running task of the CLI writes its
	// output to (nil: none).
	taskOutput(cliSessionID, taskID string) *os.File
	// taskOutputs lists the task output files of a CLI session (task id →
	// path); nil when there are none to follow.
	taskOutputs(cliSessionID string) map[string]string
}

// now is the live session's world: the disk as it is, commands that run.
type now struct{ s *session }

func (w now) preview(name string, in map[string]any, cwd string) ([]acp.ToolCallContent, []acp.ToolCallLocation) {
	if w.s.efs != nil { // the editor's buffer, not the disk (editorfs_wire.go)
		return toolview.PreContentFrom(name, in, cwd, w.s.efs.previewText)
	}
	return toolview.PreContent(name, in, cwd)
}

func (now) commandsRun() bool { return true }

func (w now) poll(bg *bgTask, fn func(*bgTask)) { go w.pollEvery(bg, fn) }

// pollEvery runs poll on the session goroutine every bgPollInterval until
// the task stops or the session ends.
func (w now) pollEvery(bg *bgTask, poll func(*bgTask)) {
	t := time.NewTicker(bgPollInterval)
	defer t.Stop()
	for {
		select {
		case <-bg.stop:
			return
		case <-w.s.quit: // the session ended: so does its poller, at once
			return
		case <-t.C:
		}
		if !w.s.do(func() { poll(bg) }) {
			return
		}
	}
}

func (w now) taskOutput(cliSessionID, taskID string) *os.File {
	return w.s.conf.taskOutput(cliSessionID, taskID)
}

func (w now) taskOutputs(cliSessionID string) map[string]string {
	return w.s.conf.taskOutputs(cliSessionID)
}

// past is a replay's world: today's file is not the one an edit saw, so
// edits show their input (the stored result's patch follows), and the
// commands of history are over.
type past struct{}

func (past) preview(name string, in map[string]any, cwd string) ([]acp.ToolCallContent, []acp.ToolCallLocation) {
	if toolview.IsEditTool(name) {
		p, _ := in["file_path"].(string)
		return toolview.InputDiff(name, toolview.AbsPath(p, cwd), in), nil
	}
	return toolview.PreContent(name, in, cwd)
}

func (past) commandsRun() bool                    { return false }
func (past) poll(*bgTask, func(*bgTask))          {}
func (past) taskOutput(string, string) *os.File   { return nil }
func (past) taskOutputs(string) map[string]string { return nil }

func newTranslator(a *connection, id, cwd string, log *slog.Logger, w world) *translator {
	tr := &translator{
		id: id, cwd: cwd, log: log, world: w,
		sink:      a.notify,
		terminals: a.terminalClient(),
		subagents: a.subagentMode(),
	}
	tr.out.reset()
	return tr
}

func (tr *translator) notify(sessionID string, u acp.SessionUpdate) { tr.sink(sessionID, u) }

// translate handles one output frame of the CLI for tr.current.
func (tr *translator) translate(m claude.Message) {
	if !continuesStream(m) {
		tr.flushHeld()   // heldtext.go: held text goes out before anything else
		tr.noteStored(m) // stored.go: the turn's last record
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
