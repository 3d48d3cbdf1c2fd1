package clifake_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/claude"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
)

// TestSDKMCPTools: a CLI given an SDK MCP server runs the handshake over
// mcp_message, runs the PreToolUse hook of a call of the server's tool,
// asks when the hook says ask, sends tools/call with the answer's input,
// and gives the model the result (an alias reaches the tool too); an
// isError result is the tool's error. The shapes are the real CLI's
// (sdkmcp.go); the agent's TestEditorFSReadsBuffersAndWritesThroughTheEditor
// shows them on the real CLI.
func TestSDKMCPTools(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var methods []string
	var calls []string
	var hooks, asks []string
	var results []clifake.Request
	w := &clifake.World{}
	step := 0
	w.Model = func(r clifake.Request) clifake.Reply {
		mu.Lock()
		defer mu.Unlock()
		results = append(results, r)
		step++
		switch step {
		case 1:
			return clifake.Reply{Tool: "echo", ToolID: "toolu_1", ToolName: "mcp__srv__echo", ToolInput: map[string]any{"text": "one"}}
		case 2:
			return clifake.Reply{Tool: "echo", ToolID: "toolu_2", ToolName: "Echo", ToolInput: map[string]any{"text": "two"}}
		case 3:
			return clifake.Reply{Tool: "echo", ToolID: "toolu_3", ToolName: "mcp__srv__echo", ToolInput: map[string]any{"text": "fail"}}
		}
		return clifake.Reply{Chunks: []string{"done"}}
	}
	p, err := claude.Start(context.Background(), claude.Options{
		Launch: w.Launch, Dir: t.TempDir(), StartupTimeout: time.Minute, SessionID: "00000000-0000-4000-8000-000000000001",
		SDKMCPServers:   []string{"srv"},
		InitializeExtra: map[string]any{"toolAliases": map[string]string{"Echo": "mcp__srv__echo"}},
		Hooks:           map[string][]claude.HookMatcher{"PreToolUse": {{Matcher: "^mcp__srv__echo$", HookCallbackIDs: []string{"h"}}}},
		HookCallback: func(ctx context.Context, req claude.HookCallbackRequest) (any, error) {
			mu.Lock()
			hooks = append(hooks, req.Hook.ToolName+" "+req.Hook.PermissionMode)
			mu.Unlock()
			d := "allow"
			if req.ToolUseID == "toolu_2" {
				d = "ask"
			}
			return map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PreToolUse", "permissionDecision": d, "permissionDecisionReason": "why"}}, nil
		},
		CanUseTool: func(ctx context.Context, req claude.CanUseToolRequest) (claude.PermissionResult, error) {
			mu.Lock()
			asks = append(asks, req.ToolName+" "+req.ToolUseID+" "+req.DecisionReason)
			mu.Unlock()
			return claude.Allow(json.RawMessage(`{"text":"TWO"}`)), nil
		},
		MCPMessage: func(ctx context.Context, req claude.MCPMessageRequest) (json.RawMessage, error) {
			var m struct {
				ID     *int   `json:"id"`
				Method string `json:"method"`
				Params struct {
					Name      string `json:"name"`
					Arguments struct {
						Text string `json:"text"`
					} `json:"arguments"`
					Meta map[string]any `json:"_meta"`
				} `json:"params"`
			}
			_ = json.Unmarshal(req.Message, &m)
			mu.Lock()
			methods = append(methods, req.ServerName+" "+m.Method)
			if m.Method == "tools/call" {
				calls = append(calls, m.Params.Name+" "+m.Params.Arguments.Text+" "+m.Params.Meta["claudecode/toolUseId"].(string))
			}
			mu.Unlock()
			switch m.Method {
			case "initialize":
				return json.RawMessage(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"srv","version":"1"}}}`), nil
			case "tools/list":
				return json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}`), nil
			case "tools/call":
				res := map[string]any{"content": []any{map[string]any{"type": "text", "text": "echo: " + m.Params.Arguments.Text}}}
				if m.Params.Arguments.Text == "fail" {
					res["isError"] = true
				}
				b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": *m.ID, "result": res})
				return b, nil
			}
			return nil, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := p.Send(ctx, claude.Text("go")); err != nil {
		t.Fatal(err)
	}
	var frames []string
	for m := range p.Messages() {
		frames = append(frames, string(m.Raw))
		if m.Type == "result" {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(methods, "|"); got != "srv initialize|srv notifications/initialized|srv tools/list|srv tools/call|srv tools/call|srv tools/call" {
		t.Errorf("mcp_message methods %s", got)
	}
	if got := strings.Join(calls, "|"); got != "echo one toolu_1|echo TWO toolu_2|echo fail toolu_3" {
		t.Errorf("tools/call %s", got)
	}
	if got := strings.Join(hooks, "|"); got != "mcp__srv__echo default|mcp__srv__echo default|mcp__srv__echo default" {
		t.Errorf("hooks %s", got)
	}
	if got := strings.Join(asks, "|"); got != "mcp__srv__echo toolu_2 why" {
		t.Errorf("can_use_tool %s", got)
	}
	if len(results) != 4 || results[1].ToolResult != "echo: one" || results[1].ToolID != "toolu_1" ||
		results[2].ToolResult != "echo: TWO" || !results[3].ToolFailed || results[3].ToolResult != "echo: fail" || results[3].ToolID != "toolu_3" {
		t.Errorf("the model was told %+v", results)
	}
	all := strings.Join(frames, "\n")
	for _, want := range []string{
		`"name":"mcp__srv__echo","type":"tool_use"`, `"tool_use_meta":[{"display_name":"echo","id":"toolu_1","server_display_name":"srv","tool_name":"echo"}]`,
		`"name":"Echo","type":"tool_use"`,
		`"content":[{"text":"echo: one","type":"text"}],"is_error":false,"tool_use_id":"toolu_1"`,
		`"content":"echo: fail","is_error":true,"tool_use_id":"toolu_3"`, `"tool_use_result":"Error: echo: fail"`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no %s in the frames:\n%s", want, all)
		}
	}
}
