package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/translate"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// subagentMode reads the client's declaration. Sessions win over the
// transcript flag: a client that can show child sessions wants the text
// there, not on the parent.
func (a *connection) subagentMode() translate.SubagentMode {
	a.mu.Lock()
	raw := a.client.raw
	a.mu.Unlock()
	if isJSONObject(raw.Extra["subagents"]) {
		return translate.SubagentsSessions
	}
	if metaBool(raw.Meta, "subagent-transcript") {
		return translate.SubagentsTranscript
	}
	return translate.SubagentsFlat
}

func isJSONObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// subagentOptions asks the CLI for what the client can show: subagent text
// only streams out of the CLI with forwardSubagentText, and a client that
// can stop each child itself gets perTaskStopAffordance, so that
// cancelling the parent's prompt stops its foreground subagents but spares
// the background ones (observed on CLI 2.1.332; without it an interrupt
// kills background subagents too).
func (a *connection) subagentOptions(o *claude.Options) {
	mode := a.subagentMode()
	if mode == translate.SubagentsFlat {
		return
	}
	if o.InitializeExtra == nil {
		o.InitializeExtra = map[string]any{}
	}
	o.InitializeExtra["forwardSubagentText"] = true
	if mode == translate.SubagentsSessions {
		o.InitializeExtra["perTaskStopAffordance"] = true
	}
}

// cancelSubagent is session/cancel for an id that is no session of ours:
// if it names a running child of a sessions client, that subagent alone
// is stopped. Its state follows from the CLI's task frames.
func (a *connection) cancelSubagent(id acp.SessionID) {
	if a.subagentMode() != translate.SubagentsSessions {
		return
	}
	a.mu.Lock()
	sessions := make([]*session, 0, len(a.sessions))
	for _, s := range a.sessions {
		sessions = append(sessions, s)
	}
	a.mu.Unlock()
	for _, s := range sessions {
		var p *claude.Process
		found := false
		s.do(func() {
			if s.tr.SubagentRunning(string(id)) {
				found, p = true, s.cli.proc
			}
		})
		if !found {
			continue
		}
		if p != nil {
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				if err := p.StopTask(ctx, string(id)); err != nil {
					s.log.Debug("stop_task failed", "task", string(id), "error", err)
				}
			}()
		}
		return
	}
}
