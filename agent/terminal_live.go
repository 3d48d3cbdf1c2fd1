package agent

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/claude-agent-acp/claude-agent-acp/claude"
	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
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

var taskIDRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// followForeground starts streaming a foreground command's output when
// Claude Code announces its task.
func (tr *translator) followForeground(ev *claude.TaskEvent) {
	if ev.TaskType != "local_bash" || ev.IsBackgrounded || ev.ToolUseID == "" {
		return
	}
	ts := tr.tools[ev.ToolUseID]
	if ts == nil || tr.bgTasks[ev.TaskID] != nil || !taskIDRE.MatchString(ev.TaskID) || !taskIDRE.MatchString(ev.SessionID) {
		return
	}
	f := tr.world.taskOutput(ev.SessionID, ev.TaskID)
	if f == nil {
		return // no live output; the result shows it all
	}
	bg := &bgTask{taskID: ev.TaskID, ts: ts, foreground: true, f: f, stop: make(chan struct{})}
	if tr.bgTasks == nil {
		tr.bgTasks = map[string]*bgTask{}
	}
	tr.bgTasks[ev.TaskID] = bg
	tr.pollBackground(bg) // what the first seconds printed
	tr.world.poll(bg, tr.pollForeground)
}

// pollForeground forwards new output, unless the call's turn was already
// answered (a cancelled turn reports nothing more).
func (tr *translator) pollForeground(bg *bgTask) {
	if tr.bgTasks[bg.taskID] != bg {
		return
	}
	if t := bg.ts.turn; bg.foreground && t != nil && (t.cancelled || t.settled) {
		tr.dropTask(bg)
		return
	}
	tr.pollBackground(bg)
}

// openTaskOutput opens a task's output file where Claude Code writes it:
// under CLAUDE_CODE_TMPDIR, else the TMPDIR of its environment, else /tmp
// (Node's os.tmpdir), in claude-<uid>, the munged working directory (as
// given and with symlinks resolved) and the CLI session id.
func (c *sessionConfig) taskOutput(sessionID, taskID string) *os.File {
	env := c.opts.Env
	if env == nil {
		env = os.Environ()
	}
	base := envValue(env, "CLAUDE_CODE_TMPDIR")
	if base == "" {
		base = firstNonEmpty(envValue(env, "TMPDIR"), envValue(env, "TMP"), envValue(env, "TEMP"), "/tmp")
		if len(base) > 1 {
			base = strings.TrimRight(base, "/")
		}
	}
	dirs := []string{c.opts.Dir}
	if real, err := filepath.EvalSymlinks(dirs[0]); err == nil && real != dirs[0] {
		dirs = append(dirs, real)
	}
	for _, dir := range dirs {
		if dir == "" {
			continue
		}
		p := filepath.Join(base, "claude-"+strconv.Itoa(os.Getuid()), transcript.MungePath(dir), sessionID, "tasks", taskID+".output")
		if f, err := os.Open(p); err == nil {
			return f
		}
	}
	return nil
}

// foregroundOf is the live follower of a call, if any.
func (tr *translator) foregroundOf(ts *toolState) *bgTask {
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
func (tr *translator) endForeground(bg *bgTask, out string) string {
	tr.drain(bg)
	tr.dropTask(bg)
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
func (tr *translator) drain(bg *bgTask) {
	for i := 0; i < 64; i++ { // at most 16 MiB more
		off := bg.off
		tr.pollBackground(bg)
		if bg.off == off {
			return
		}
	}
}

// dropTask stops following a task without reporting anything.
func (tr *translator) dropTask(bg *bgTask) {
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
