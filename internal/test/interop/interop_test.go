// Package interop drives our agent binary with real ACP clients from npm,
// so that what we send is what official clients accept.
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

var agentBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "interop")
	if err != nil {
		panic(err)
	}
	agentBin = filepath.Join(dir, "claude-agent-acp")
	build := exec.Command("go", "build", "-o", agentBin, "../../../cmd/claude-agent-acp")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic("building the agent: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// requireNode returns the installed npm package pkg, skipping the test when
// it (or node) is missing.
func requireNode(t *testing.T, pkg string) string {
	t.Helper()
	path := clitest.Dep(t, pkg, filepath.Join("node_modules", pkg))
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	return path
}

// TestOfficialSDKClient runs a turn with @agentclientprotocol/sdk's client
// against our binary, the real CLI and the fake API.
func TestOfficialSDKClient(t *testing.T) {
	t.Parallel()
	sdk := requireNode(t, "@agentclientprotocol/sdk")
	sb := clitest.NewSandbox(t)
	sb.API.Script(fakeapi.Text("Hello, official client."))
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "testdata/sdk_client.mjs",
		filepath.Join(sdk, "dist/v1/stable/acp.js"), agentBin, sb.WorkDir, "say hello")
	cmd.Env = sb.With("CLAUDE_CODE_EXECUTABLE=" + sb.CLI)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var seen struct {
		ProtocolVersion    int
		AgentName          string
		Modes              []string
		StopReason         string
		Text               string
		Updates            []string
		UnknownSessionCode int
		Error              string
		ExitCode           *int
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &seen); err != nil {
		t.Fatalf("client output %q: %v", out, err)
	}
	if seen.Error != "" {
		t.Fatalf("the SDK client failed: %s", seen.Error)
	}
	if seen.ProtocolVersion != 1 || seen.AgentName != "claude-agent-acp" || seen.StopReason != "end_turn" ||
		seen.Text != "Hello, official client." || seen.UnknownSessionCode != -32002 {
		t.Fatalf("unexpected conversation: %+v", seen)
	}
	if seen.ExitCode == nil || *seen.ExitCode != 0 {
		t.Fatalf("the agent should exit 0 when its client closes stdin: %+v", seen.ExitCode)
	}
	if len(sb.API.MainRequests()) != 1 {
		t.Fatalf("model requests: %d, want exactly the user's 1", len(sb.API.MainRequests()))
	}
}

// TestAISDKProviderOneToolCallPerID (issue 15, item 9): the AI-SDK ACP
// provider (@mcpc-tech/acp-ai-provider) builds exactly one tool call per
// tool call id, with the real input: the agent announces each call once,
// with its input, and no update before its completion carries new input
// or lacks it. (Its 0.2.9 turns a tool_call_update without status into
// "in progress": an early update without input used to become a tool
// call with {} and the input a second one.)
func TestAISDKProviderOneToolCallPerID(t *testing.T) {
	t.Parallel()
	provider := requireNode(t, "@mcpc-tech/acp-ai-provider")
	sb := clitest.NewSandbox(t)
	sb.API.Script(
		fakeapi.ToolUse("toolu_bash", "Bash", map[string]any{"command": "echo hi", "description": "Say hi"}),
		fakeapi.ToolUse("toolu_write", "Write", map[string]any{"file_path": filepath.Join(sb.WorkDir, "notes.txt"), "content": strings.Repeat("a line of notes\n", 50)}),
		fakeapi.Text("Both done."),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "testdata/aisdk_provider.mjs",
		filepath.Join(provider, "index.mjs"), agentBin, sb.WorkDir, "say hi, then write notes")
	cmd.Env = sb.With("CLAUDE_CODE_EXECUTABLE=" + sb.CLI)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var seen struct {
		ToolCalls []struct {
			ID   string
			Name string
			Args map[string]any
		}
		ToolResults []struct {
			ID      string
			IsError bool
		}
		Text   string
		Finish string
		Error  string
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &seen); err != nil {
		t.Fatalf("client output %q: %v", out, err)
	}
	if seen.Error != "" {
		t.Fatalf("the provider failed: %s", seen.Error)
	}
	perID := map[string]int{}
	for _, c := range seen.ToolCalls {
		perID[c.ID]++
	}
	if len(seen.ToolCalls) != 2 || perID["toolu_bash"] != 1 || perID["toolu_write"] != 1 {
		t.Fatalf("tool calls %+v", seen.ToolCalls)
	}
	if seen.ToolCalls[0].Args["command"] != "echo hi" || seen.ToolCalls[1].Args["file_path"] == nil {
		t.Errorf("inputs %+v", seen.ToolCalls)
	}
	if len(seen.ToolResults) != 2 || seen.ToolResults[0].IsError || seen.ToolResults[1].IsError {
		t.Errorf("results %+v", seen.ToolResults)
	}
	if !strings.Contains(seen.Text, "Both done.") {
		t.Errorf("text %q, finish %q", seen.Text, seen.Finish)
	}
}
