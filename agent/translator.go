package agent

import (
	"log/slog"
	"os"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/toolview"
	"github.com/claude-agent-acp/claude-agent-acp/agent/translate"
)

// newTranslator is a translator of session id for this connection's
// client; live (now) or for a replay (translate.Past).
func (a *connection) newTranslator(id, cwd string, log *slog.Logger, w translate.World) *translate.Translator {
	_, live := w.(now)
	return translate.New(translate.Config{
		SessionID: id, Cwd: cwd, Log: log, Sink: a.notify, World: w,
		Terminals: a.terminalClient(), Subagents: a.subagentMode(),
		Scheduled: live, // the live CLI's cron jobs and wake-ups
	})
}

// now is the live session's translate.World: the disk as it is, commands
// that run, polled on the session goroutine.
type now struct{ s *session }

func (w now) Preview(name string, in map[string]any, cwd string) ([]acp.ToolCallContent, []acp.ToolCallLocation) {
	if w.s.efs != nil { // the editor's buffer, not the disk (editorfs_wire.go)
		return toolview.PreContentFrom(name, in, cwd, w.s.efs.previewText)
	}
	return toolview.PreContent(name, in, cwd)
}

func (now) Live() bool { return true }

// Poll runs fn on the session goroutine every translate.PollInterval until
// stop is closed or the session ends.
func (w now) Poll(stop <-chan struct{}, fn func()) {
	go func() {
		t := time.NewTicker(translate.PollInterval)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-w.s.quit: // the session ended: so does its poller, at once
				return
			case <-t.C:
			}
			if !w.s.do(fn) {
				return
			}
		}
	}()
}

func (w now) TaskOutput(cliSessionID, taskID string) *os.File {
	return taskOutput(&w.s.conf.Opts, cliSessionID, taskID)
}

func (w now) TaskOutputs(cliSessionID string) map[string]string {
	return taskOutputs(&w.s.conf.Opts, cliSessionID)
}
