package claude

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// TestE2EControlRequests runs the typed control requests against the real
// CLI, which checks our request and response shapes.
func TestE2EControlRequests(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	p := startReal(t, sb, Options{})
	ctx := context.Background()
	if err := p.SetPermissionMode(ctx, PermissionAcceptEdits); err != nil {
		t.Errorf("SetPermissionMode: %v", err)
	}
	if err := p.SetMaxThinkingTokens(ctx, 1024); err != nil {
		t.Errorf("SetMaxThinkingTokens: %v", err)
	}
	if err := p.SetMaxThinkingTokens(ctx, -1); err != nil {
		t.Errorf("SetMaxThinkingTokens(reset): %v", err)
	}
	if err := p.SetModel(ctx, "claude-sonnet-4-5"); err != nil {
		t.Errorf("SetModel: %v", err)
	}
	st, err := p.MCPStatus(ctx)
	if err != nil || st == nil {
		t.Errorf("MCPStatus: %+v, %v", st, err)
	}
	if _, err := p.Request(ctx, "no_such_subtype", nil); !errors.Is(err, ErrUnsupported) {
		t.Errorf("unknown subtype: %v", err)
	}
	if err := p.Interrupt(ctx); err != nil {
		t.Errorf("Interrupt while idle: %v", err)
	}
	// The settings show up in the next turn's init frame.
	got, _ := turn(t, p, "hi")
	for _, m := range got {
		if in, ok := m.Body.(*SystemInit); ok {
			if in.PermissionMode != PermissionAcceptEdits || in.Model != "claude-sonnet-4-5" {
				t.Errorf("init: mode %q, model %q", in.PermissionMode, in.Model)
			}
		}
	}
}

// TestE2ERewindFiles writes a file in a turn started by a message with a
// uuid, then asks the CLI to rewind to before it.
func TestE2ERewindFiles(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	path := filepath.Join(sb.WorkDir, "r.txt")
	sb.API.Script(fakeapi.ToolUse("toolu_w1", "Write", map[string]any{"file_path": path, "content": "v1\n"}), fakeapi.Text("written"))
	p := startReal(t, sb, Options{
		EnableFileCheckpointing: true,
		PermissionMode:          PermissionAcceptEdits,
	})
	id := uuid.NewString()
	if err := p.Send(context.Background(), UserMessage{Content: []ContentBlock{TextBlock("write it")}, UUID: id}); err != nil {
		t.Fatal(err)
	}
	got := until(t, p, isType("result"))
	var lifecycle bool
	for _, m := range got {
		if c, ok := m.Body.(*CommandLifecycle); ok && c.CommandUUID == id {
			lifecycle = true
		}
	}
	if !lifecycle {
		t.Error("no command_lifecycle frame for the uuid")
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("file not written: %v", err)
	}
	res, err := p.RewindFiles(context.Background(), id, true)
	if err != nil || !res.CanRewind {
		t.Fatalf("dry run: %+v, %v", res, err)
	}
	if _, err := p.RewindFiles(context.Background(), id, false); err != nil {
		t.Fatalf("rewind: %v", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("file still there after rewind: %v", err)
	}
}

// TestE2EHookSkipsPermission: a PreToolUse hook that allows the call means
// can_use_tool is never asked.
func TestE2EHookSkipsPermission(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	sb.API.Script(fakeapi.ToolUse("toolu_h", "Bash", map[string]any{"command": "touch hooked"}), fakeapi.Text("done"))
	var asked atomic.Bool
	var events atomic.Int32
	p := startReal(t, sb, Options{
		Hooks: map[string][]HookMatcher{"PreToolUse": {{Matcher: "Bash", HookCallbackIDs: []string{"pre"}}}},
		HookCallback: func(ctx context.Context, req HookCallbackRequest) (any, error) {
			if req.CallbackID != "pre" || req.Hook.HookEventName != "PreToolUse" || req.Hook.ToolName != "Bash" {
				return nil, errors.New("unexpected hook " + string(req.Raw))
			}
			events.Add(1)
			return map[string]any{"hookSpecificOutput": map[string]any{
				"hookEventName": "PreToolUse", "permissionDecision": "allow", "permissionDecisionReason": "hook says ok"}}, nil
		},
		CanUseTool: func(ctx context.Context, req CanUseToolRequest) (PermissionResult, error) {
			asked.Store(true)
			return Deny("should not be asked"), nil
		},
	})
	turn(t, p, "touch it")
	if events.Load() != 1 || asked.Load() {
		t.Errorf("hook calls %d, can_use_tool asked %v", events.Load(), asked.Load())
	}
	if _, err := os.Stat(filepath.Join(sb.WorkDir, "hooked")); err != nil {
		t.Errorf("tool did not run: %v", err)
	}
}

// TestE2ESDKMCPServer serves an MCP server from the test through
// mcp_message and lets the model call its tool.
func TestE2ESDKMCPServer(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	sb.API.Script(fakeapi.ToolUse("toolu_m1", "mcp__mysrv__echo", map[string]any{"text": "ping"}), fakeapi.Text("done"))
	p := startReal(t, sb, Options{
		SDKMCPServers: []string{"mysrv"},
		MCPMessage:    echoMCPServer,
		CanUseTool: func(ctx context.Context, req CanUseToolRequest) (PermissionResult, error) {
			return Allow(nil), nil
		},
	})
	got, res := turn(t, p, "call echo")
	found := false
	for _, m := range got {
		if u, ok := m.Body.(*UserFrame); ok {
			for _, b := range u.Message.Content {
				if c, _ := b.ResultContent(); b.ToolUseID == "toolu_m1" && c.Text() == "echo: ping" {
					found = true
				}
			}
		}
	}
	if !found || res.IsError {
		t.Errorf("tool result found %v, result %+v", found, res)
	}
	st, err := p.MCPStatus(context.Background())
	if err != nil || len(st.MCPServers) != 1 || st.MCPServers[0].Status != "connected" {
		t.Errorf("MCPStatus: %+v, %v", st, err)
	}
}

// echoMCPServer is a minimal MCP server with one tool, "echo".
func echoMCPServer(ctx context.Context, req MCPMessageRequest) (json.RawMessage, error) {
	var msg struct {
		ID     *json.RawMessage `json:"id"`
		Method string           `json:"method"`
		Params struct {
			Arguments struct {
				Text string `json:"text"`
			} `json:"arguments"`
		} `json:"params"`
	}
	if err := json.Unmarshal(req.Message, &msg); err != nil {
		return nil, err
	}
	if msg.ID == nil {
		return nil, nil // a notification
	}
	var result any
	switch msg.Method {
	case "initialize":
		result = map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo": map[string]any{"name": "mysrv", "version": "1.0.0"}}
	case "tools/list":
		result = map[string]any{"tools": []any{map[string]any{"name": "echo", "description": "Echo text back",
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}}}}
	case "tools/call":
		result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "echo: " + msg.Params.Arguments.Text}}}
	default:
		return json.Marshal(map[string]any{"jsonrpc": "2.0", "id": msg.ID,
			"error": map[string]any{"code": -32601, "message": "no " + strings.ReplaceAll(msg.Method, "\"", "")}})
	}
	return json.Marshal(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result})
}
