package translate

import (
	"slices"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/toolview"
)

// Settling tool cards. A call shown to the client ends with its result. A
// turn can end without one: cancelled (the CLI's output for it is dropped
// from then on), its session closed, its CLI gone, or a turn limit hit
// between the model's call and the tool's run. Each call of such a turn
// the client was shown gets a final status here, failed with whatever
// output it had, before the turn's answer goes out: an editor otherwise
// shows its card pending or in progress for good (a later session/load
// would show it failed).

// outlivesTurn reports whether a call goes on after its turn ends: a
// command in the background, or a call of a background subagent.
func (tr *Translator) outlivesTurn(ts *toolState) bool {
	for _, bg := range tr.bgTasks {
		if bg.ts == ts && !bg.foreground {
			return true
		}
	}
	if ts.parent != "" {
		if c := tr.sub.byLaunch[ts.parent]; c != nil && c.background && !c.done {
			return true
		}
	}
	if c := tr.sub.byLaunch[ts.id]; c != nil && c.background && !c.done {
		return true // a launch whose run goes on
	}
	return false
}

// failTool ends a call that will get no result: failed, keeping the output
// the client has (a command's live output is drained first), with why as
// the reason for clients that show content.
func (tr *Translator) failTool(ts *toolState, why string) {
	var shown []byte // what a followed command printed, for clients without terminals
	if bg := tr.foregroundOf(ts); bg != nil {
		bg.endForeground(tr, "") // drain what the command wrote, stop following it
		shown = bg.tail
	}
	if ts.terminal {
		tr.finishCommand(ts, acp.ToolCallStatusFailed, "", nil, nil)
		return
	}
	v := tr.view(ts)
	if len(shown) > 0 {
		v.Content = []acp.ToolCallContent{toolview.TextContent(toolview.Fenced("console", string(shown)))}
	}
	v.Content = append(v.Content, toolview.TextContent(why))
	tr.sendToolUpdate(ts, v, toolPatch{status: acp.ToolCallStatusFailed})
}

// SettleOpen settles the open calls of turn t; with t nil, every open
// call of the session (it is closing, or its CLI went away), background
// commands included. A call that outlives its turn on purpose is left
// alone when t is set: a command moved to the background, a subagent
// launched to run in the background, and its calls.
func (tr *Translator) SettleOpen(t *Turn, why string) {
	if t == nil {
		tr.StopBackground() // terminal.go: each ends "stopped"
	}
	var open []*toolState
	for _, ts := range tr.tools {
		if t != nil && (ts.turn != t || tr.outlivesTurn(ts)) {
			continue
		}
		open = append(open, ts)
	}
	// In the order the calls were made, so the client sees them end in a
	// stable order (map order is random).
	slices.SortFunc(open, func(a, b *toolState) int { return a.seq - b.seq })
	for _, ts := range open {
		delete(tr.tools, ts.id)
		if !ts.reported || ts.sent.status == acp.ToolCallStatusCompleted || ts.sent.status == acp.ToolCallStatusFailed {
			continue
		}
		tr.failTool(ts, why)
	}
}
