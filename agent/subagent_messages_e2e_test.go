package agent_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// messageText is the text of a session_message's content.
func messageText(m map[string]json.RawMessage) string {
	var blocks []acp.ContentBlock
	_ = json.Unmarshal(m["content"], &blocks)
	var sb strings.Builder
	for _, b := range blocks {
		if b.Text != nil {
			sb.WriteString(b.Text.Text)
		}
	}
	return sb.String()
}

func jsonString(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// TestSubagentSessionMessagesE2E (issue 15, item 18): in the subagent
// sessions mode, a SendMessage from the parent's Claude to a running
// background subagent is a session_message from the parent on the child,
// and the child's reply when it completes is a session_message from the
// child on the parent.
func TestSubagentSessionMessagesE2E(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.API().Script(
		onMain(toolUse("toolu_bg", "Agent", map[string]any{"description": "Survey", "prompt": "Survey the files.",
			"subagent_type": "general-purpose", "name": "helper", "run_in_background": true})),
		onSub(toolUse("toolu_sleep", "Bash", map[string]any{"command": "sleep 3", "description": "Wait a little"})),
		onMain(toolUse("toolu_send", "SendMessage", map[string]any{"to": "helper", "message": "Also count the files."})),
		onMain(fakeapi.Text("Sent.")),
		onSub(fakeapi.Text("There are 3 files.")),
		onMain(fakeapi.Text("Got the report.")),
	)
	h.Initialize(sessionsCaps())
	sid := h.NewSession(h.Sandbox.WorkDir)
	if resp, err := h.Prompt(sid, "Survey in the background and ask for a count."); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	var child string
	h.WaitFor("the child's end", 60*time.Second, func() bool {
		if ups := subagentUpdates(h, sid); len(ups) > 0 {
			child = ups[0].SessionID
		}
		return child != "" && lastState(h, sid, child) == "idle/end_turn"
	})
	var followUp map[string]json.RawMessage
	for _, m := range sessionMessages(h, child) {
		if jsonString(m["messageId"]) == "toolu_send" {
			followUp = m
		}
	}
	if followUp == nil || jsonString(followUp["senderSessionId"]) != sid || jsonString(followUp["recipientSessionId"]) != child ||
		messageText(followUp) != "Also count the files." {
		t.Errorf("follow-up on the child: %v", sessionMessages(h, child))
	}
	var replies []map[string]json.RawMessage
	for _, m := range sessionMessages(h, sid) {
		if jsonString(m["senderSessionId"]) == child {
			replies = append(replies, m)
		}
	}
	if len(replies) != 1 || jsonString(replies[0]["recipientSessionId"]) != sid || messageText(replies[0]) != "There are 3 files." {
		t.Errorf("the child's reply on the parent: %v", replies)
	}
	// The reply comes before the child goes idle.
	if i, j := wireIndex(h, `"session_message"`, "There are 3 files."), wireIndex(h, `"stopReason":"end_turn"`, `"sessionId":"`+child+`"`); i < 0 || j < i {
		t.Errorf("reply at %d, idle at %d", i, j)
	}
	validSubagentWire(t, h)
}
