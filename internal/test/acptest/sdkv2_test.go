package acptest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
)

// TestOfficialSDKv2Wire checks the v2 validator against the official
// TypeScript SDK 2.4.0, the implementation that bundles the pinned v2 schema:
// its v2 client (experimental/v2) drives a toy agent built with its own v2
// agent app through a prompt turn with a tool call, a terminal, a diff, a
// plan and a permission, a list, a resume with replay, a cancel, and
// requests for an unknown session. Every line either side sends must pass
// ValidateLine with its direction and, for responses, the method answered.
// The scripts are in testdata/sdkv2; docs/acp-v2.md explains the client.
func TestOfficialSDKv2Wire(t *testing.T) {
	sdk := clitest.Dep(t, "@agentclientprotocol/sdk", filepath.Join("node_modules", "@agentclientprotocol", "sdk", "dist", "v2", "stable", "acp.js"))
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	wirePath := filepath.Join(t.TempDir(), "wire.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "testdata/sdkv2/client.mjs", sdk, wirePath, "node", "testdata/sdkv2/agent.mjs", sdk)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var seen struct {
		ProtocolVersion int
		MessageID       string
		Text            string
		Permissions     int
		Updates         []string
		UnknownSession  struct {
			Code int
			Data map[string]string
		}
		Error string
	}
	if err := json.Unmarshal(bytes.TrimSpace(out), &seen); err != nil {
		t.Fatalf("client output: %v\n%s", err, out)
	}
	if seen.Error != "" || seen.ProtocolVersion != 2 || seen.MessageID != "u1" || seen.Permissions != 1 ||
		seen.Text != "Listing. Permission: selected." || seen.UnknownSession.Code != -32002 || seen.UnknownSession.Data["sessionId"] != "nope" {
		t.Fatalf("client saw %+v", seen)
	}

	counts := ValidateWireFile(t, 2, wirePath)
	if counts[true] < 25 || counts[false] < 10 {
		t.Errorf("only %d agent and %d client lines", counts[true], counts[false])
	}
	// The SDK client's initialize, for docs/acp-v2.md.
	first, _ := os.ReadFile(wirePath)
	var rec struct{ Line string }
	_ = json.Unmarshal(bytes.SplitN(first, []byte("\n"), 2)[0], &rec)
	want := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,"info":{"name":"sdk-v2-probe","version":"1.0.0"},"capabilities":{"auth":{"terminal":{}}}}}`
	if rec.Line != want {
		t.Errorf("the SDK's v2 initialize is\n%s\nwant\n%s", rec.Line, want)
	}
}
