package agent_test

import (
	"strings"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/fakeapi"
)

// modelPicker is the model option of a config option list: its current
// value and its rows' values.
func modelPicker(opts []acp.SessionConfigOption) (current string, rows []string) {
	for _, o := range opts {
		if o.ID == "model" && o.Select != nil {
			for _, r := range o.Select.Options.Ungrouped {
				rows = append(rows, string(r.Value))
			}
			return string(o.Select.CurrentValue), rows
		}
	}
	return "", nil
}

// TestRefusalFallbackMovesModelPickerE2E: after the CLI retried a refused
// request on its fallback model for the rest of the session, the client's
// model picker follows (an extra row for a model the list does not name),
// in a config_option_update with the full list after the notice; the next
// turn runs on the fallback without the picker flipping back, and the
// client can pick the extra row.
func TestRefusalFallbackMovesModelPickerE2E(t *testing.T) {
	h := agenttest.Start(t, agenttest.Options{Env: []string{"CLAUDE_CODE_DISABLE_REFUSAL_FALLBACK"}})
	sid := h.NewSession(h.Sandbox.WorkDir)
	h.API().Script(fakeapi.Refusal("", "cyber", "Looks like malware."), fakeapi.Text("Safe answer."), fakeapi.Text("Again."))
	if resp, err := h.Prompt(sid, "scan ports"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	const fallback = "claude-opus-4-8"
	us := h.Updates(sid)
	line := indexOf(us, func(u acp.SessionUpdate) bool {
		return u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil &&
			strings.HasPrefix(u.AgentMessageChunk.Content.Text.Text, "**Model fallback:**")
	})
	var cfg []acp.SessionConfigOption
	at := -1
	for i, u := range us {
		if u.ConfigOptionUpdate != nil {
			if cur, _ := modelPicker(u.ConfigOptionUpdate.ConfigOptions); cur == fallback {
				cfg, at = u.ConfigOptionUpdate.ConfigOptions, i
				break
			}
		}
	}
	if at < 0 || line < 0 || at < line {
		t.Fatalf("no config_option_update with model %s after the notice (notice at %d, update at %d)", fallback, line, at)
	}
	cur, rows := modelPicker(cfg)
	if cur != fallback || len(rows) < 2 || rows[len(rows)-1] != fallback {
		t.Fatalf("model option %s %v", cur, rows)
	}
	var ids []string
	for _, o := range cfg {
		ids = append(ids, string(o.ID))
	}
	if ids[0] != "mode" {
		t.Errorf("not the full option list: %v", ids)
	}

	n := len(h.Updates(sid))
	if resp, err := h.Prompt(sid, "once more"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("second prompt: %+v %v", resp, err)
	}
	reqs := h.API().MainRequests()
	if m := reqs[len(reqs)-1].Model; m != fallback {
		t.Errorf("the next turn ran on %s", m)
	}
	for _, u := range h.Updates(sid)[n:] {
		if u.ConfigOptionUpdate != nil {
			if cur, _ := modelPicker(u.ConfigOptionUpdate.ConfigOptions); cur != fallback {
				t.Errorf("the picker flipped back to %s", cur)
			}
		}
	}
	var resp acp.SetSessionConfigOptionResponse
	err := h.Client.Call(h.Ctx(), acp.MethodSessionSetConfigOption, map[string]any{
		"sessionId": sid, "configId": "model", "value": fallback}, &resp)
	if cur, _ := modelPicker(resp.ConfigOptions); err != nil || cur != fallback {
		t.Errorf("picking the extra row: %s %v", cur, err)
	}
	validWire(t, h)
}
