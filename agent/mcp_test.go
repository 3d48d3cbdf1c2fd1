package agent

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
)

// TestMCPConfig decodes client MCP server entries as they arrive on the
// wire and checks what reaches the CLI, or which field is refused.
func TestMCPConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exe := filepath.Join(dir, "server")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notexec"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	a := New(Config{Env: []string{"PATH=" + dir}}).newConnection()
	for _, tc := range []struct {
		json, want, field string
	}{
		{`{"name":"s","command":"server","args":["-v"],"env":[{"name":"K","value":"V"}]}`,
			`{"s":{"args":["-v"],"command":"server","env":{"K":"V"},"type":"stdio"}}`, ""},
		{`{"type":"stdio","name":"s","command":"` + exe + `","args":[],"env":[]}`,
			`{"s":{"args":[],"command":"` + exe + `","env":{},"type":"stdio"}}`, ""},
		{`{"type":"http","name":"h","url":"https://mcp.example/x","headers":[{"name":"Authorization","value":"t"}]}`,
			`{"h":{"headers":{"Authorization":"t"},"type":"http","url":"https://mcp.example/x"}}`, ""},
		{`{"type":"sse","name":"e","url":"http://127.0.0.1:9/sse","headers":[]}`,
			`{"e":{"headers":{},"type":"sse","url":"http://127.0.0.1:9/sse"}}`, ""},
		{`{"name":"s","command":"missing","args":[],"env":[]}`, "", "mcpServers[0].command"},
		{`{"name":"s","command":"` + filepath.Join(dir, "notexec") + `","args":[],"env":[]}`, "", "mcpServers[0].command"},
		{`{"name":"s","command":"","args":[],"env":[]}`, "", "mcpServers[0].command"},
		{`{"name":" ","command":"server","args":[],"env":[]}`, "", "mcpServers[0].name"},
		{`{"name":"s","command":"server","args":[],"env":[{"name":"A=B","value":""}]}`, "", "mcpServers[0].env[0].name"},
		{`{"type":"websocket","name":"s","command":"server","args":[],"env":[]}`, "", "mcpServers[0].type"},
		{`{"type":"http","name":"h","url":"ftp://x","headers":[]}`, "", "mcpServers[0].url"},
		{`{"type":"http","name":"h","url":"https://x","headers":[{"name":"","value":"v"}]}`, "", "mcpServers[0].headers[0].name"},
	} {
		var srv acp.MCPServer
		if err := json.Unmarshal([]byte(tc.json), &srv); err != nil {
			t.Fatalf("%s: %v", tc.json, err)
		}
		got, err := a.mcpConfig(dir, []acp.MCPServer{srv})
		if tc.field != "" {
			var ae *acp.Error
			if !errors.As(err, &ae) || ae.Code != acp.CodeInvalidParams || !strings.Contains(ae.Message, tc.field) {
				t.Errorf("%s: got %v, want an error about %s", tc.json, err, tc.field)
			}
			continue
		}
		if err != nil || string(mustJSON(got)) != tc.want {
			t.Errorf("%s:\n got %s %v\nwant %s", tc.json, mustJSON(got), err, tc.want)
		}
	}
}
