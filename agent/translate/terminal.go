package translate

import (
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/toolview"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// Bash output. Claude Code runs commands itself; the editor only displays
// them. Clients that declare _meta.terminal_output (Zed) get a display
// terminal per Bash call: the call's content is {type:"terminal"} with the
// tool_use id as terminal id, _meta.terminal_info opens it,
// _meta.terminal_output appends output and _meta.terminal_exit closes it.
// Other clients get the output as a fenced console block.
//
// A command started with run_in_background returns at once; its call stays
// in_progress while the command runs, its output file is followed and
// streamed (also after the turn ended), and the call completes with the
// exit code when Claude Code reports the task done. terminal/cancel (the
// ACP v2 method, served here for v1 clients too) stops it.
//
// A foreground command that runs long enough to become a task streams its
// output the same way while it runs (terminal_live.go).

const (
	bgChunkMax = 256 << 10 // bytes read per poll
	bgTailKeep = 32 << 10  // output kept for non-terminal clients
)

// bgTask is a command whose output is followed: a background command
// whose tool call is still open, or a running foreground one.
type bgTask struct {
	taskID string
	ts     *toolState
	file   string
	f      *os.File // the open output file (foreground: it is deleted at the end)
	off    int64
	tail   []byte // last output, for non-terminal clients
	stop   chan struct{}

	foreground bool   // the tool result ends it, not the task events
	shown      []byte // what a terminal client saw of a foreground command
	shownOver  bool   // shown outgrew shownMax
}

var outputFileRE = sync.OnceValue(func() *regexp.Regexp {

	return regexp.MustCompile(`Output is being written to: (\S+?)\.?(?:\s|$)`)

})

// bashResult reports a finished Bash call, or starts following it when it
// went to the background (then it reports true: the call stays open).
func (tr *Translator) bashResult(ts *toolState, text string, b claude.ContentBlock, structured, rawOutput json.RawMessage) (running bool) {
	isError := b.IsError
	r := toolview.DecodeBashLike(structured, stringBytes(b.Content), text)
	live := tr.foregroundOf(ts)
	if live != nil && r.BackgroundTaskID == live.taskID && !isError {
		// Moved to the background while followed: keep following.
		live.foreground = false
		tr.sendToolUpdate(ts, tr.view(ts), toolPatch{status: acp.ToolCallStatusInProgress})
		return true
	}
	if r.BackgroundTaskID != "" && !isError && tr.world.Live() {
		file := ""
		if m := outputFileRE().FindStringSubmatch(text); m != nil {
			file = m[1]
		}
		tr.startBackground(ts, r.BackgroundTaskID, file)
		return true
	}
	status := acp.ToolCallStatusCompleted
	if isError {
		status = acp.ToolCallStatusFailed
	}
	out, exit := r.Output(text, isError, len(structured))
	if r.BackgroundTaskID != "" {
		out, exit = text, nil // a replayed background command: its notice
	}
	if live != nil {
		out = live.endForeground(tr, out)
		if ts.terminal && out == "" {
			tr.finishCommand(ts, status, "", exit, rawOutput)
			return false
		}
	}
	tr.finishCommand(ts, status, out, exit, rawOutput)
	return false
}

// finishCommand sends the end of a command: its output and exit.
func (tr *Translator) finishCommand(ts *toolState, status acp.ToolCallStatus, out string, exit *int, rawOutput json.RawMessage) {
	if ts.terminal {
		// Claude Code trims the output it reports; the file a long command
		// is followed through is not trimmed. The terminal always ends
		// with a newline, so a command shows the same whether it was
		// followed live or reported at the end, and again on replay.
		if out != "" && !strings.HasSuffix(out, "\n") || out == "" && ts.openLine {
			out += "\n"
		}
		if out != "" {
			tr.terminalOutput(ts, out)
		}
		tr.sendToolUpdate(ts, tr.view(ts), toolPatch{status: status, metaOnly: true, meta: map[string]json.RawMessage{
			"terminal_exit": mustJSON(map[string]any{"terminal_id": ts.id, "exit_code": exit, "signal": nil}),
		}})
		return
	}
	v := tr.view(ts)
	v.Content = []acp.ToolCallContent{toolview.TextContent(toolview.Fenced("console", firstNonEmpty(out, "(no output)")))}
	tr.sendToolUpdate(ts, v, toolPatch{status: status, rawOutput: rawOutput})
}

func (tr *Translator) terminalOutput(ts *toolState, data string) {
	ts.openLine = !strings.HasSuffix(data, "\n")
	tr.sendToolUpdate(ts, tr.view(ts), toolPatch{metaOnly: true, meta: map[string]json.RawMessage{
		"terminal_output": mustJSON(map[string]string{"terminal_id": ts.id, "data": data}),
	}})
}

func (tr *Translator) startBackground(ts *toolState, taskID, file string) {
	bg := &bgTask{taskID: taskID, ts: ts, file: file, stop: make(chan struct{})}
	if tr.bgTasks == nil {
		tr.bgTasks = map[string]*bgTask{}
	}
	tr.bgTasks[taskID] = bg
	v := tr.view(ts)
	if !ts.terminal {
		v.Content = []acp.ToolCallContent{toolview.TextContent("Running in the background…")}
	}
	tr.sendToolUpdate(ts, v, toolPatch{status: acp.ToolCallStatusInProgress})
	if file == "" {
		return
	}
	tr.world.Poll(bg.stop, func() { tr.pollBackground(bg) })
}

// pollBackground forwards what the command wrote since the last poll.
func (tr *Translator) pollBackground(bg *bgTask) {
	f := bg.f
	if f == nil {
		if bg.file == "" {
			return
		}
		var err error
		if f, err = os.Open(bg.file); err != nil {
			return
		}
		defer f.Close()
	}
	buf := make([]byte, bgChunkMax)
	n, _ := f.ReadAt(buf, bg.off)
	if n == 0 {
		return
	}
	if n == len(buf) {
		// Keep runes whole across polls.
		for n > 0 && buf[n-1]&0xC0 == 0x80 {
			n--
		}
		if n > 0 && buf[n-1] >= 0xC0 {
			n--
		}
	}
	bg.off += int64(n)
	data := buf[:n]
	if bg.ts.terminal {
		if bg.foreground && !bg.shownOver {
			bg.shown = append(bg.shown, data...)
			bg.shownOver = len(bg.shown) > shownMax
		}
		tr.terminalOutput(bg.ts, string(data))
		return
	}
	bg.tail = append(bg.tail, data...)
	if len(bg.tail) > bgTailKeep {
		bg.tail = bg.tail[len(bg.tail)-bgTailKeep:]
	}
	v := tr.view(bg.ts)
	v.Content = []acp.ToolCallContent{toolview.TextContent(toolview.Fenced("console", string(bg.tail)))}
	tr.sendToolUpdate(bg.ts, v, toolPatch{})
}

var exitSummaryRE = sync.OnceValue(func() *regexp.Regexp {

	return regexp.MustCompile(`\(exit code (\d+)\)`)

})

// onTaskEvent finishes a background command when Claude Code reports its
// task done.
func (tr *Translator) onTaskEvent(ev *claude.TaskEvent) {
	if ev.Subtype == "task_started" {
		tr.followForeground(ev)
		return
	}
	bg := tr.bgTasks[ev.TaskID]
	if bg == nil || bg.foreground {
		return // a foreground command ends with its tool result
	}
	status := ev.Status
	if ev.Subtype == "task_updated" {
		var p struct {
			Status string `json:"status"`
		}
		_ = json.Unmarshal(ev.Patch, &p)
		if p.Status != "killed" && p.Status != "stopped" {
			return // completion waits for task_notification, which has the exit code
		}
		status = p.Status
	} else if ev.Subtype != "task_notification" {
		return
	}
	var exit *int
	if m := exitSummaryRE().FindStringSubmatch(ev.Summary); m != nil {
		n, _ := strconv.Atoi(m[1])
		exit = &n
	}
	tr.finishBackground(bg, status, exit)
}

func (tr *Translator) finishBackground(bg *bgTask, status string, exit *int) {
	tr.pollBackground(bg)
	bg.drop(tr)
	delete(tr.tools, bg.ts.id)
	st := acp.ToolCallStatusCompleted
	if status != "completed" || exit != nil && *exit != 0 {
		st = acp.ToolCallStatusFailed
	}
	if bg.ts.terminal {
		tr.finishCommand(bg.ts, st, "", exit, nil)
		return
	}
	out := string(bg.tail)
	if status == "killed" || status == "stopped" {
		out = strings.TrimSuffix(out, "\n") + "\n[stopped]"
	}
	tr.finishCommand(bg.ts, st, out, exit, nil)
}

// StopBackground ends the following of every background command (the CLI
// is gone, and its commands with it).
func (tr *Translator) StopBackground() {
	for _, bg := range tr.bgTasks {
		if bg.foreground {
			bg.drop(tr) // its call ends with the turn
			continue
		}
		tr.finishBackground(bg, "stopped", nil)
	}
}
