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

// TestOfficialSDKClientEditorFS: Claude's files through the editor (issue
// 39) with @agentclientprotocol/sdk's client serving fs/*: a Read returns
// the client's unsaved buffer, an Edit based on it comes back as one
// fs/write_text_file with the whole new text, the disk is untouched, and
// the cards and the permission request carry the built-ins' titles.
func TestOfficialSDKClientEditorFS(t *testing.T) {
	t.Parallel()
	sdk := requireNode(t, "@agentclientprotocol/sdk")
	sb := clitest.NewSandbox(t)
	file := filepath.Join(sb.WorkDir, "main.go")
	disk := "package main\n"
	if err := os.WriteFile(file, []byte(disk), 0o644); err != nil {
		t.Fatal(err)
	}
	buffers, _ := json.Marshal(map[string]string{file: "package main\n\n// unsaved\n"})
	sb.API.Script(
		fakeapi.ToolUse("toolu_read", "mcp__editor__Read", map[string]any{"file_path": file}),
		fakeapi.ToolUse("toolu_edit", "mcp__editor__Edit", map[string]any{"file_path": file, "old_string": "// unsaved", "new_string": "// edited"}),
		fakeapi.Text("Done."),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "testdata/editorfs_client.mjs",
		filepath.Join(sdk, "dist/v1/stable/acp.js"), agentBin, sb.WorkDir, "edit main.go", string(buffers))
	cmd.Env = sb.With("CLAUDE_CODE_EXECUTABLE="+sb.CLI, "IS_SANDBOX=1")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var seen struct {
		Reads  []string
		Writes []struct{ Path, Content string }
		Titles map[string]string
		// Permissions are the titles of the permission requests.
		Permissions []string
		AgentMeta   map[string]any
		StopReason  string
		Error       string
		ExitCode    *int
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &seen); err != nil {
		t.Fatalf("client output %q: %v", out, err)
	}
	if seen.Error != "" {
		t.Fatalf("the SDK client failed: %s", seen.Error)
	}
	if seen.StopReason != "end_turn" || seen.AgentMeta["editorFileSystem"] != true {
		t.Errorf("stop reason %q, agent _meta.claudeCode %v", seen.StopReason, seen.AgentMeta)
	}
	if len(seen.Writes) != 1 || seen.Writes[0].Path != file || seen.Writes[0].Content != "package main\n\n// edited\n" {
		t.Errorf("fs/write_text_file requests %+v", seen.Writes)
	}
	if len(seen.Reads) == 0 {
		t.Error("no fs/read_text_file request")
	}
	if b, _ := os.ReadFile(file); string(b) != disk {
		t.Errorf("the disk changed: %q", b)
	}
	var got string
	for _, r := range sb.API.Requests() {
		for _, b := range r.ToolResults() {
			if b.ToolUseID == "toolu_read" {
				got = b.Text
			}
		}
	}
	if !strings.Contains(got, "3\t// unsaved") {
		t.Errorf("Claude read %q, not the buffer", got)
	}
	if seen.Titles["toolu_read"] != "Read main.go" || seen.Titles["toolu_edit"] != "Edit main.go" {
		t.Errorf("card titles %v", seen.Titles)
	}
	if strings.Join(seen.Permissions, "|") != "Edit main.go" {
		t.Errorf("permission requests %v", seen.Permissions)
	}
	if seen.ExitCode == nil || *seen.ExitCode != 0 {
		t.Errorf("the agent exited with %v", seen.ExitCode)
	}
}
