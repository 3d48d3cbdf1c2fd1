package translate

import "strings"

// BackgroundTask is the CLI task id of a running background command or
// subagent named by its task id or by its tool call's id ("" for none):
// what _session/async_task/stop stops (agent/asynctask.go).
func (tr *Translator) BackgroundTask(id string) string {
	for _, bg := range tr.bgTasks {
		if !bg.foreground && (bg.taskID == id || bg.ts != nil && bg.ts.id == id) {
			return bg.taskID
		}
	}
	c := tr.sub.byAgent[id]
	if c == nil {
		c = tr.sub.byLaunch[id]
	}
	if c != nil && c.background && !c.done && c.agentID != "" {
		return c.agentID
	}
	return ""
}

// OpenMCPCall is the one open call of an MCP server's tools: the session
// it is reported on and its id (ok false when none or several are, and a
// form of that server is then tied to no call; agent/elicitation.go).
func (tr *Translator) OpenMCPCall(server string) (sessionID, callID string, ok bool) {
	if server == "" {
		return "", "", false
	}
	var found *toolState
	for _, ts := range tr.tools {
		if ts.reported && strings.HasPrefix(ts.name, "mcp__"+server+"__") {
			if found != nil {
				return "", "", false
			}
			found = ts
		}
	}
	if found == nil {
		return "", "", false
	}
	return tr.toolSession(found), found.id, true
}
