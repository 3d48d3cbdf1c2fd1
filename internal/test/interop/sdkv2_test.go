package interop

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/acptest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// TestOfficialSDKv2Client (issue 18): the official TypeScript SDK's v2
// client (@agentclientprotocol/sdk 2.4.0, experimental/v2) drives our
// binary through the real CLI and the fake API: a prompt turn with a tool
// call and a permission, a cancel of a running turn, and a resume with
// replay (internal/test/acptest/testdata/sdkv2/client_agent.mjs). Every line
// either side sent must pass acptest.ValidateLine for v2.
func TestOfficialSDKv2Client(t *testing.T) {
	t.Parallel()
	sdk := requireNode(t, "@agentclientprotocol/sdk")
	sb := clitest.NewSandbox(t)
	notes := filepath.Join(sb.WorkDir, "notes.txt")
	sb.API.Script(
		fakeapi.ToolUse("toolu_sdk_write", "Write", map[string]any{"file_path": notes, "content": "one\ntwo\n"}),
		fakeapi.Text("Notes written."),
		fakeapi.Hang(60), // the second prompt runs until it is cancelled
	)
	wirePath := filepath.Join(t.TempDir(), "wire.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "../acptest/testdata/sdkv2/client_agent.mjs",
		filepath.Join(sdk, "dist", "v2", "stable", "acp.js"), wirePath, sb.WorkDir, agentBin)
	cmd.Env = sb.With("CLAUDE_CODE_EXECUTABLE=" + sb.CLI)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var seen struct {
		ProtocolVersion int
		AgentName       string
		SessionID       string
		MessageID       string
		ChunkMessageID  string
		Text            string
		Stop            string
		Turn            []string
		Permissions     []struct {
			Title   string
			Subject *string
		}
		Listed              []string
		CancelMessageID     string
		Cancel              []string
		CancelStop          string
		ResumeConfigOptions int
		Replay              []string
		ReplayText          string
		ReplayUserIDs       []string `json:"replayUserIds"`
		UnknownSession      struct {
			Code int
			Data map[string]string
		}
		Error    string
		ExitCode *int
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &seen); err != nil {
		t.Fatalf("client output %q: %v", out, err)
	}
	t.Logf("the client saw %+v", seen)
	if seen.Error != "" {
		t.Fatalf("the SDK client failed: %s", seen.Error)
	}
	if seen.ProtocolVersion != 2 || seen.AgentName != "claude-agent-acp" {
		t.Errorf("initialize: protocol %d, agent %q", seen.ProtocolVersion, seen.AgentName)
	}
	if seen.MessageID == "" || !strings.HasPrefix(seen.ChunkMessageID, "msg_") || seen.Text != "Notes written." || seen.Stop != "end_turn" {
		t.Errorf("turn: messageId %q, chunk messageId %q, text %q, stop %q", seen.MessageID, seen.ChunkMessageID, seen.Text, seen.Stop)
	}
	if len(seen.Permissions) != 1 || seen.Permissions[0].Title == "" || seen.Permissions[0].Subject == nil || *seen.Permissions[0].Subject != "tool_call" {
		t.Errorf("permissions %+v", seen.Permissions)
	}
	if got, err := os.ReadFile(notes); err != nil || string(got) != "one\ntwo\n" {
		t.Errorf("the permitted write: %q %v", got, err)
	}
	for _, want := range []string{"state:requires_action", "tool_call_update"} {
		if !slices.Contains(seen.Turn, want) {
			t.Errorf("the turn lacks %s: %v", want, seen.Turn)
		}
	}
	if !slices.Contains(seen.Listed, seen.SessionID) {
		t.Errorf("session/list %v lacks %s", seen.Listed, seen.SessionID)
	}
	if seen.CancelMessageID == "" || seen.CancelStop != "cancelled" {
		t.Errorf("cancel: messageId %q, stop %q (%v)", seen.CancelMessageID, seen.CancelStop, seen.Cancel)
	}
	// The replay: the first turn's user message with its live id, the
	// tool call, the text, and the state last. The cancelled turn too:
	// the replay of a live session waits until the CLI is done with the
	// cancelled turn, which it writes to its transcript as it stops it.
	if !slices.Contains(seen.ReplayUserIDs, seen.MessageID) {
		t.Errorf("replayed user messages %v, live id %s", seen.ReplayUserIDs, seen.MessageID)
	}
	if !slices.Contains(seen.ReplayUserIDs, seen.CancelMessageID) {
		t.Errorf("the cancelled prompt %s is not in the replay", seen.CancelMessageID)
	}
	if !strings.Contains(seen.ReplayText, "Notes written.") || !slices.Contains(seen.Replay, "tool_call_update") ||
		len(seen.Replay) == 0 || !strings.HasPrefix(seen.Replay[len(seen.Replay)-1], "stop:") || seen.ResumeConfigOptions == 0 {
		t.Errorf("replay %v, text %q, config options %d", seen.Replay, seen.ReplayText, seen.ResumeConfigOptions)
	}
	if seen.UnknownSession.Code != -32002 || seen.UnknownSession.Data["sessionId"] != "nope" {
		t.Errorf("unknown session: %+v", seen.UnknownSession)
	}
	if seen.ExitCode == nil || *seen.ExitCode != 0 {
		t.Errorf("the agent should exit 0 when its client closes stdin: %v", seen.ExitCode)
	}

	// Every line, both ways, against the v2 schema.
	counts := acptest.ValidateWireFile(t, 2, wirePath)
	if counts[true] < 20 || counts[false] < 8 {
		t.Errorf("only %d agent and %d client lines", counts[true], counts[false])
	}
}
