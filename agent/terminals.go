package agent

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/translate"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
)

// terminalClient reports whether the client renders display terminals.
func (a *connection) terminalClient() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.client.terminalOutput
}

// methodTerminalCancel is ACP v2's way to stop a running terminal; v1 has
// none, so it is served under the same name.
const methodTerminalCancel = "terminal/cancel"

type cancelTerminalRequest struct {
	SessionID  acp.SessionID  `json:"sessionId"`
	TerminalID acp.TerminalID `json:"terminalId"`
}

func (r *cancelTerminalRequest) Validate() error {
	if r.SessionID == "" {
		return &acp.FieldError{Path: "sessionId", Reason: "is required"}
	}
	if r.TerminalID == "" {
		return &acp.FieldError{Path: "terminalId", Reason: "is required"}
	}
	return nil
}

// cancelTerminal stops a background command by its terminal (tool call)
// id. The call finishes when Claude Code reports the task stopped.
func (a *connection) cancelTerminal(ctx context.Context, p *cancelTerminalRequest) (struct{}, error) {
	s, err := a.session(p.SessionID)
	if err != nil {
		return struct{}{}, err
	}
	var proc *claude.Process
	var taskID string
	s.do(func() {
		if id, ok := s.tr.TerminalTask(string(p.TerminalID)); ok {
			proc, taskID = s.cli.proc, id
		}
	})
	if proc == nil {
		return struct{}{}, acp.NewInvalidParams("terminalId", "no running command has this terminal")
	}
	if err := proc.StopTask(ctx, taskID); err != nil {
		return struct{}{}, acp.NewInternalError("the command could not be stopped: " + err.Error())
	}
	return struct{}{}, nil
}

// taskOutput opens a task's output file where Claude Code writes it
// (tasksDirs).
func taskOutput(opts *claude.Options, sessionID, taskID string) *os.File {
	for _, dir := range tasksDirs(opts, sessionID) {
		if f, err := os.Open(filepath.Join(dir, taskID+".output")); err == nil {
			return f
		}
	}
	return nil
}

// taskOutputs lists the output files in the session's tasks directories,
// by task id.
func taskOutputs(opts *claude.Options, sessionID string) map[string]string {
	out := map[string]string{}
	for _, dir := range tasksDirs(opts, sessionID) {
		names, _ := filepath.Glob(filepath.Join(dir, "*.output"))
		for _, p := range names {
			if id := strings.TrimSuffix(filepath.Base(p), ".output"); translate.IsTaskID(id) {
				out[id] = p
			}
		}
	}
	return out
}

// tasksDirs are where the CLI keeps a session's task output files: under
// CLAUDE_CODE_TMPDIR, else the TMPDIR of its environment, else /tmp
// (Node's os.tmpdir), in claude-<uid>, the munged working directory (as
// given and with symlinks resolved) and the CLI session id.
func tasksDirs(opts *claude.Options, sessionID string) []string {
	env := opts.Env
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
	dirs := []string{opts.Dir}
	if real, err := filepath.EvalSymlinks(dirs[0]); err == nil && real != dirs[0] {
		dirs = append(dirs, real)
	}
	var out []string
	for _, dir := range dirs {
		if dir != "" {
			out = append(out, filepath.Join(base, "claude-"+strconv.Itoa(os.Getuid()), transcript.MungePath(dir), sessionID, "tasks"))
		}
	}
	return out
}
