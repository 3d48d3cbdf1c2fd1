package interop

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// TestOfficialSDKClientAnswersQuestions (issue 41): the official SDK's v1
// client, advertising form elicitation, gets Claude's AskUserQuestion (a
// single select and a multi-select) as one elicitation/create form that
// its schema validation accepts, and its answer reaches Claude in the
// CLI's words; no permission request is asked for the question.
func TestOfficialSDKClientAnswersQuestions(t *testing.T) {
	t.Parallel()
	sdk := requireNode(t, "@agentclientprotocol/sdk")
	sb := clitest.NewSandbox(t)
	sb.API.Script(
		fakeapi.ToolUse("toolu_ask", "AskUserQuestion", map[string]any{"questions": []any{
			map[string]any{"question": "Which color?", "header": "Color", "options": []any{
				map[string]any{"label": "Red", "description": "warm"}, map[string]any{"label": "Blue", "description": "cool"}}},
			map[string]any{"question": "Which sizes?", "header": "Sizes", "multiSelect": true, "options": []any{
				map[string]any{"label": "S", "description": "small"}, map[string]any{"label": "M", "description": "medium"}, map[string]any{"label": "L", "description": "large"}}},
		}}),
		fakeapi.Text("Noted."),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "testdata/sdk_elicitation.mjs",
		filepath.Join(sdk, "dist/v1/stable/acp.js"), agentBin, sb.WorkDir, "ask me")
	cmd.Env = sb.With("CLAUDE_CODE_EXECUTABLE=" + sb.CLI)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var seen struct {
		Forms []struct {
			SessionID  string `json:"sessionId"`
			ToolCallID string `json:"toolCallId"`
			Mode       string `json:"mode"`
		}
		SessionID   string
		Permissions int
		StopReason  string
		Text        string
		Error       string
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &seen); err != nil {
		t.Fatalf("client output %q: %v", out, err)
	}
	if seen.Error != "" {
		t.Fatalf("the SDK client failed: %s", seen.Error)
	}
	if seen.StopReason != "end_turn" || seen.Text != "Noted." || seen.Permissions != 0 || len(seen.Forms) != 1 ||
		seen.Forms[0].Mode != "form" || seen.Forms[0].SessionID != seen.SessionID || seen.Forms[0].ToolCallID != "toolu_ask" {
		t.Fatalf("unexpected conversation: %+v", seen)
	}
	reqs := sb.API.MainRequests()
	rs := reqs[len(reqs)-1].ToolResults()
	if len(rs) != 1 || rs[0].IsError || !strings.Contains(rs[0].Text, `"Which color?"="Red"`) || !strings.Contains(rs[0].Text, `"Which sizes?"="S, M"`) {
		t.Fatalf("Claude was told %+v", rs)
	}
}
