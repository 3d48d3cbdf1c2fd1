package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestEditorFSSetting: CLAUDE_AGENT_ACP_EDITOR_FS=1 turns on Claude's files
// through the editor for a client that offers fs/*, and initialize says
// so; without it, or with another value, it stays off. --help lists it.
func TestEditorFSSetting(t *testing.T) {
	t.Parallel()
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true}}}}` + "\n"
	for value, on := range map[string]bool{"1": true, "true": true, "0": false, "": false, "nope": false} {
		cmd := exec.Command(agentBin)
		cmd.Env = append(os.Environ(), "CLAUDE_AGENT_ACP_EDITOR_FS="+value)
		cmd.Stdin = strings.NewReader(init)
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("%q: %v", value, err)
		}
		if got := strings.Contains(out.String(), `"editorFileSystem":true`); got != on {
			t.Errorf("CLAUDE_AGENT_ACP_EDITOR_FS=%q: on %v, want %v: %s", value, got, on, out.String())
		}
	}
	out, _, _ := runOnce(t, os.Environ(), "--help")
	if !strings.Contains(out, "CLAUDE_AGENT_ACP_EDITOR_FS") {
		t.Errorf("--help does not list CLAUDE_AGENT_ACP_EDITOR_FS:\n%s", out)
	}
}
