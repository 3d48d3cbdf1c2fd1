package clifake

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
)

// Task output files. The real CLI writes a foreground Bash command's
// stdout and stderr straight into a file of the session's tasks directory,
// <CLAUDE_CODE_TMPDIR, else TMPDIR, TMP, TEMP, else /tmp>/claude-<uid>/
// <munged cwd>/<session>/tasks/<task id>.output, from the command's start
// (whether or not it later names the task with system/task_started): the
// file appears as the command starts (with its first output, or empty
// until then), grows as the command prints, and is removed as the command ends, about when the CLI writes
// the tool result (just before or after it). The agent follows it for
// live output (agent/terminals.go). Watched on the pinned CLI (2.1.332),
// "for i in 1 2 3 4; do echo line$i; sleep 0.4; done" gave the file
// "line1\n" 0.3 s after the permission answer, then a line every 0.4 s,
// and its removal 0.1 s after the tool result frame (recording
// bash_live_short, polled every 5 ms); "echo first; <wait for a file>;
// echo second" gave "first\n" 0.2 s after the answer, "second\n" 0.1 s
// after the file was made, and its removal 4 ms before the tool result
// (bash_live_gate, the file held open and read every 2 ms).
//
// A recording holds the file's history as lines of its own among the
// frames, in the order the real CLI did it, which the fake does instead of
// writing them:
//
//	{"$task_output":"<task id>","after_ms":N,"append":"<text>"}
//	{"$task_output":"<task id>","after_ms":N,"remove":true}
//	{"$task_output":"<task id>","wait_for":"<path>"}
//	{"$task_output":"<task id>","after_ms":N,"append":"<text>","size":N}
//	{"$task_output":"<task id>","after_ms":N,"move_to":"<path>"}
//
// after_ms is the wait before it (as the real CLI's command took); append
// creates the file if need be and appends text, remove deletes it.
// wait_for is the recorded command's own wait: the command waited until
// the test made the file at path ($CWD, $CONFIG as in frames), so the
// fake waits for it too (polling every 10 ms) before it goes on. size
// appends text over and over, up to size bytes in all (an output too big
// to keep in a recording: "yes abcdefghi | head -c 300000"); move_to is
// where the CLI keeps a too big output once the command ended (the task
// file is gone then, and a file of the same contents is at
// $PROJECT/$SESSION/tool-results/<task id>.txt, bash_big_output).

const taskOutputPrefix = `{"$task_output":`

type taskOutputLine struct {
	Task    string `json:"$task_output"`
	AfterMS int    `json:"after_ms"`
	Append  string `json:"append"`
	Remove  bool   `json:"remove"`
	WaitFor string `json:"wait_for"`
	Size    int    `json:"size"`
	MoveTo  string `json:"move_to"`
}

// tmpDir is the temporary directory of a CLI run with env (nil: this
// process's), as Node's os.tmpdir and CLAUDE_CODE_TMPDIR make it.
func tmpDir(env []string) string {
	if env == nil {
		env = os.Environ()
	}
	for _, k := range []string{"CLAUDE_CODE_TMPDIR", "TMPDIR", "TMP", "TEMP"} {
		if v := envValue(env, k); v != "" {
			if k != "CLAUDE_CODE_TMPDIR" && len(v) > 1 {
				v = strings.TrimRight(v, "/")
			}
			return v
		}
	}
	return "/tmp"
}

func envValue(kv []string, key string) string {
	for i := len(kv) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(kv[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

// TaskOutputPath is where the CLI keeps the output file of its task id.
func (c *CLI) TaskOutputPath(id string) string {
	return filepath.Join(c.tmp, "claude-"+strconv.Itoa(os.Getuid()), transcript.MungePath(c.dir), c.session, "tasks", id+".output")
}

// taskOutput does one line of a recorded task file's history; false when
// the turn was interrupted (or the CLI died) while it waited.
func (t *turnState) taskOutput(line string) bool {
	var l taskOutputLine
	if err := json.Unmarshal([]byte(line), &l); err != nil || l.Task == "" {
		panic(fmt.Sprintf("clifake: bad task output line %s: %v", line, err))
	}
	if !t.wait(time.Duration(l.AfterMS) * time.Millisecond) {
		return false
	}
	if l.WaitFor != "" {
		p := t.c.placeholders(l.WaitFor)
		for {
			if _, err := os.Stat(p); err == nil {
				return true
			}
			if !t.wait(10 * time.Millisecond) {
				return false
			}
		}
	}
	path := t.c.TaskOutputPath(l.Task)
	if l.MoveTo != "" {
		to := strings.ReplaceAll(t.c.placeholders(l.MoveTo), "$SESSION", t.c.session)
		_ = os.MkdirAll(filepath.Dir(to), 0o700)
		if err := os.Rename(path, to); err != nil {
			panic("clifake: " + err.Error())
		}
		return true
	}
	if l.Remove {
		_ = os.Remove(path)
		return true
	}
	_ = os.MkdirAll(filepath.Dir(path), 0o700)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		panic("clifake: " + err.Error())
	}
	defer f.Close()
	text := l.Append
	if l.Size > 0 {
		text = strings.Repeat(l.Append, l.Size/len(l.Append)+1)[:l.Size]
	}
	if _, err := f.WriteString(text); err != nil {
		panic("clifake: " + err.Error())
	}
	return true
}
