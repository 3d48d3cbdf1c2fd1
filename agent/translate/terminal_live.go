package translate

import (
	"os"
	"regexp"
	"strings"
	"sync"

	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// Live output of foreground Bash commands. Claude Code reports no output
// while a foreground command runs (no tool_progress frames); the tool
// result carries it all at the end. But a command that runs longer than
// about 3 s becomes a task (system/task_started, task_type local_bash,
// is_backgrounded false), and Claude Code writes the command's stdout and
// stderr straight into the task's output file,
// <tmp>/claude-<uid>/<munged cwd>/<session>/tasks/<task id>.output, the
// same place as a background command's. task_started names no output_file,
// so the path is derived; Claude Code deletes the file when the command
// ends, so it is opened once and read through that descriptor, which
// survives the deletion and lets the last output be drained at the end.

// shownMax bounds the live output kept to avoid repeating it in the
// result (terminal clients).
const shownMax = 8 << 20

// IsTaskID reports whether id looks like a CLI task's id (or a CLI
// session's): what the task output files are named after.
func IsTaskID(id string) bool { return taskIDRE().MatchString(id) }

var taskIDRE = sync.OnceValue(func() *regexp.Regexp {

	return regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

})

// followForeground starts streaming a foreground command's output when
// Claude Code announces its task.
func (tr *Translator) followForeground(ev *claude.TaskEvent) {
	if ev.TaskType != "local_bash" || ev.IsBackgrounded || ev.ToolUseID == "" {
		return
	}
	ts := tr.tools[ev.ToolUseID]
	if ts == nil || tr.bgTasks[ev.TaskID] != nil || !taskIDRE().MatchString(ev.TaskID) || !taskIDRE().MatchString(ev.SessionID) {
		return
	}
	f := tr.world.TaskOutput(ev.SessionID, ev.TaskID)
	if f == nil {
		return // no live output; the result shows it all
	}
	ts.watching = false
	tr.followTask(ts, ev.TaskID, f)
}

// followTask streams a running foreground command's output file.
func (tr *Translator) followTask(ts *toolState, taskID string, f *os.File) {
	bg := &bgTask{taskID: taskID, ts: ts, foreground: true, f: f, stop: make(chan struct{})}
	if tr.bgTasks == nil {
		tr.bgTasks = map[string]*bgTask{}
	}
	tr.bgTasks[taskID] = bg
	tr.pollBackground(bg) // what the first seconds printed
	tr.world.Poll(bg.stop, func() { bg.pollForeground(tr) })
}

// Commands shorter than the ~2–3 s after which Claude Code names their
// task stream too. Claude Code writes a foreground command's output into
// its task's file from the first byte (observed on 2.1.332: the file
// exists and grows from the command's start; task_started comes once the
// command has run 2 s, and reaches us about a second later); only the task
// id is unknown until then. So when a Bash call's input is whole the
// session's task files are listed (watchForeground), and every poll looks
// for a file that appeared since: while this call is the only foreground
// command waiting for its file, and exactly one new Bash task file (ids
// starting "b"; subagents' are "a…") appeared, it is this command's
// output, followed as if task_started had named it. Otherwise (two
// commands at once, a background command starting meanwhile) it waits for
// task_started, as before.

// watchForeground starts looking for a foreground command's output file.
func (tr *Translator) watchForeground(ts *toolState) {
	if ts.watching || !ts.complete || ts.name != "Bash" && ts.name != "PowerShell" || ts.in["run_in_background"] == true || tr.foregroundOf(ts) != nil {
		return
	}
	before := tr.world.TaskOutputs(tr.id)
	if before == nil {
		return // a replay: nothing runs
	}
	ts.watching, ts.outputsBefore = true, before
	w := &bgTask{ts: ts, stop: make(chan struct{})}
	tr.world.Poll(w.stop, func() { tr.discoverForeground(w) })
}

// discoverForeground is one look for a watched command's output file.
func (tr *Translator) discoverForeground(w *bgTask) {
	ts := w.ts
	if t := ts.turn; tr.tools[ts.id] != ts || !ts.watching || tr.foregroundOf(ts) != nil || t != nil && t.Settled {
		ts.watching = false
		close(w.stop)
		return
	}
	for _, o := range tr.tools {
		if o.watching && o != ts {
			return // which file is whose cannot be told
		}
	}
	var found string
	for id := range tr.world.TaskOutputs(tr.id) {
		if _, old := ts.outputsBefore[id]; old || !strings.HasPrefix(id, "b") || tr.bgTasks[id] != nil {
			continue
		}
		if found != "" {
			return // two new files: wait for task_started
		}
		found = id
	}
	if found == "" {
		return
	}
	f := tr.world.TaskOutput(tr.id, found)
	if f == nil {
		return
	}
	ts.watching = false
	close(w.stop)
	tr.followTask(ts, found, f)
}

// pollForeground forwards new output, unless the call's turn was already
// answered (a cancelled turn reports nothing more).
func (bg *bgTask) pollForeground(tr *Translator) {
	if tr.bgTasks[bg.taskID] != bg {
		return
	}
	if t := bg.ts.turn; bg.foreground && t != nil && t.Settled {
		bg.drop(tr)
		return
	}
	tr.pollBackground(bg)
}

// foregroundOf is the live follower of a call, if any.
func (tr *Translator) foregroundOf(ts *toolState) *bgTask {
	for _, bg := range tr.bgTasks {
		if bg.foreground && bg.ts == ts {
			return bg
		}
	}
	return nil
}

// endForeground stops following a foreground command that ended and
// returns what of out the client has not seen yet. Its output file is
// drained first. Terminal clients saw the output as it came, so only a
// continuation of it is left; when Claude Code's text differs from what
// the command printed (truncated or reformatted), the terminal keeps the
// command's own output. Other clients get out in full, replacing the live
// block.
func (bg *bgTask) endForeground(tr *Translator, out string) string {
	bg.drain(tr)
	bg.drop(tr)
	if !bg.ts.terminal || bg.off == 0 {
		return out
	}
	shown := string(bg.shown)
	switch {
	case bg.shownOver:
		return ""
	case strings.HasPrefix(out, shown):
		return out[len(shown):]
	default:
		return "" // out repeats (part of) what was shown, or differs from it
	}
}

// drain forwards everything left in the output file.
func (bg *bgTask) drain(tr *Translator) {
	for i := 0; i < 64; i++ { // at most 16 MiB more
		off := bg.off
		tr.pollBackground(bg)
		if bg.off == off {
			return
		}
	}
}

// dropTask stops following a task without reporting anything.
func (bg *bgTask) drop(tr *Translator) {
	select {
	case <-bg.stop:
	default:
		close(bg.stop)
	}
	if bg.f != nil {
		bg.f.Close()
		bg.f = nil
	}
	delete(tr.bgTasks, bg.taskID)
}
