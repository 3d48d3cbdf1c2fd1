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
	t := time.NewTicker(translate.PollInterval)
	go func() {
		defer t.Stop()
		pollLoop(stop, w.s.quit, t.C, w.s.do, fn)
	}()
}

// pollLoop calls fn through do (on the session goroutine) at each tick
// until stop or quit is closed. fn never runs once stop is closed as the
// session goroutine sees it: a tick and a closed stop can be ready at once
// (fn itself, or anything else on that goroutine, may have closed it since
// the last tick), and select picks either; a poll function that closes its
// own stop would then run once more and close it again.
func pollLoop(stop, quit <-chan struct{}, tick <-chan time.Time, do func(func()) bool, fn func()) {
	for {
		select {
		case <-stop:
			return
		case <-quit:
			return
		case <-tick:
		}
		stopped := false
		ran := do(func() {
			select {
			case <-stop:
				stopped = true
			default:
				fn()
			}
		})
		if !ran || stopped {
			return
		}
	}
}

func (w now) TaskOutput(cliSessionID, taskID string) *os.File {
	return taskOutput(&w.s.conf.Opts, cliSessionID, taskID)
}

func (w now) TaskOutputs(cliSessionID string) map[string]string {
	return taskOutputs(&w.s.conf.Opts, cliSessionID)
}
