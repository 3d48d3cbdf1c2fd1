package agent

import (
	"context"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// Stopping one background task (_session/async_task/stop, the reference
// adapter's extension): a background Bash command or a background
// subagent stops alone, with the CLI's stop_task; the turn, if one runs,
// goes on. The task is named by the CLI's task id (asyncTaskId), or by the
// id of the tool call that started it, which is what this agent's client
// sees. Its card ends with the status Claude Code reports (agent/translate: terminal.go,
// subagent.go). A task that is not running is {stopped: false}, as in the
// reference.

const asyncTaskStopMethod = "_session/async_task/stop"

type asyncTaskStopRequest struct {
	SessionID   acp.SessionID `json:"sessionId"`
	AsyncTaskID string        `json:"asyncTaskId"`
}

func (r *asyncTaskStopRequest) Validate() error {
	switch {
	case r.SessionID == "":
		return &acp.FieldError{Path: "sessionId", Reason: "is required"}
	case r.AsyncTaskID == "":
		return &acp.FieldError{Path: "asyncTaskId", Reason: "is required"}
	}
	return nil
}

type asyncTaskStopResponse struct {
	Stopped bool `json:"stopped"`
}

// stopAsyncTask is _session/async_task/stop.
func (a *connection) stopAsyncTask(ctx context.Context, p *asyncTaskStopRequest) (*asyncTaskStopResponse, error) {
	s, err := a.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	var proc *claude.Process
	var taskID string
	s.do(func() {
		taskID = s.tr.BackgroundTask(p.AsyncTaskID) // agent/translate
		proc = s.cli.proc
	})
	if taskID == "" || proc == nil {
		return &asyncTaskStopResponse{}, nil
	}
	if err := proc.StopTask(ctx, taskID); err != nil {
		return nil, acp.NewInternalError("the task could not be stopped: " + err.Error())
	}
	return &asyncTaskStopResponse{Stopped: true}, nil
}
