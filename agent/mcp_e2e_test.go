package agent_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// TestClientMCPServers: MCP servers the client passes in session/new
// (stdio without and with "type":"stdio", http, sse) reach the CLI, and
// Claude calls their tools; each call shows as a tool call with the
// server's answer.
func TestClientMCPServers(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	httpURL, sseURL := serveMCP(t, false), serveMCP(t, true)
	h := agenttest.Start(t)
	defer h.Close() // before the HTTP servers stop
	h.Initialize(acp.ClientCapabilities{})
	env := []map[string]string{{"name": mcpServerEnv, "value": "stdio"}}
	sid, err := newSessionWith(t, h, map[string]any{
		"cwd": h.Sandbox.WorkDir,
		"mcpServers": []map[string]any{
			{"name": "plain", "command": exe, "args": []string{}, "env": env},
			{"type": "stdio", "name": "typed", "command": exe, "args": []string{}, "env": env},
			{"type": "http", "name": "web", "url": httpURL, "headers": []any{}},
			{"type": "sse", "name": "stream", "url": sseURL, "headers": []any{}},
		},
	})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	servers := []string{"plain", "typed", "web", "stream"}
	var steps []fakeapi.Step
	for _, s := range servers {
		steps = append(steps, toolUse("toolu_"+s, "mcp__"+s+"__shout", map[string]any{"text": "hi " + s}))
	}
	h.API().Script(append(steps, fakeapi.Text("All shouted."))...)
	if resp, err := h.Prompt(sid, "shout through every server"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	first := h.API().MainRequests()[0]
	calls, _ := toolCalls(t, h, sid)
	transport := map[string]string{"plain": "stdio", "typed": "stdio", "web": "http", "stream": "sse"}
	for _, s := range servers {
		if !first.HasTool("mcp__" + s + "__shout") {
			t.Errorf("Claude was not offered %s's tool", s)
		}
		c := calls["toolu_"+s]
		want := "HI " + strings.ToUpper(s) + "! (" + transport[s] + ")"
		if c == nil || c.title != "shout (MCP: "+s+")" || c.kind != acp.ToolKindOther ||
			c.status != acp.ToolCallStatusCompleted || !strings.Contains(contentText(c.content), want) {
			t.Errorf("%s: %+v (want %q)", s, c, want)
		}
	}
}

// TestClientMCPServerErrors: a server configuration the CLI could not use
// is refused with -32602 naming the field, not dropped in silence.
func TestClientMCPServerErrors(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.Initialize(acp.ClientCapabilities{})
	for _, tc := range []struct {
		server map[string]any
		field  string
	}{
		{map[string]any{"name": "x", "command": "/no/such/server", "args": []string{}, "env": []any{}}, "mcpServers[0].command"},
		{map[string]any{"name": "x", "command": "no-such-mcp-server-on-path", "args": []string{}, "env": []any{}}, "mcpServers[0].command"},
		{map[string]any{"type": "ws", "name": "x", "command": "sh", "args": []string{}, "env": []any{}}, "mcpServers[0].type"},
		{map[string]any{"type": "http", "name": "x", "url": "not a url", "headers": []any{}}, "mcpServers[0].url"},
		{map[string]any{"type": "sse", "name": "", "url": "http://127.0.0.1:1/sse", "headers": []any{}}, "mcpServers[0].name"},
	} {
		_, err := newSessionWith(t, h, map[string]any{"cwd": h.Sandbox.WorkDir, "mcpServers": []any{tc.server}})
		var ae *acp.Error
		if !errors.As(err, &ae) || ae.Code != acp.CodeInvalidParams || !strings.Contains(ae.Message, tc.field) {
			t.Errorf("%v: got %v, want -32602 about %s", tc.server, err, tc.field)
		}
	}
	dup := map[string]any{"name": "same", "command": "sh", "args": []string{}, "env": []any{}}
	_, err := newSessionWith(t, h, map[string]any{"cwd": h.Sandbox.WorkDir, "mcpServers": []any{dup, dup}})
	var ae *acp.Error
	if !errors.As(err, &ae) || !strings.Contains(ae.Message, "mcpServers[1].name") {
		t.Errorf("duplicate names: %v", err)
	}
}
