package acptest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
)

// recorder captures Errorf calls so tests can assert that validation fails.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestValidateMessageAccepts(t *testing.T) {
	for name, line := range map[string]string{
		"initialize":        `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true}}}}`,
		"prompt":            `{"jsonrpc":"2.0","id":"a","method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"hi"}]}}`,
		"update":            `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"current_mode_update","currentModeId":"plan"}}}`,
		"cancel":            `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`,
		"cancel_request":    `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":7}}`,
		"permission":        `{"jsonrpc":"2.0","id":3,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"t"},"options":[{"optionId":"o","name":"Allow","kind":"allow_once"}]}}`,
		"logout no params":  `{"jsonrpc":"2.0","id":4,"method":"logout"}`,
		"extension":         `{"jsonrpc":"2.0","id":5,"method":"_x/anything","params":{"a":1}}`,
		"error response":    `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found","data":{"method":"x"}}}`,
		"result response":   `{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`,
		"unstable fork":     `{"jsonrpc":"2.0","id":9,"method":"session/fork","params":{"sessionId":"s","cwd":"/tmp"}}`,
		"null id error":     `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		"large int in meta": `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s","_meta":{"n":12345678901234567890}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			ValidateMessage(t, []byte(line))
		})
	}
}

func TestValidateMessageRejects(t *testing.T) {
	for name, line := range map[string]string{
		// §2.13 of the protocol notes: the docs show modeId, the schema wants currentModeId.
		"docs mode key":      `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"current_mode_update","modeId":"plan"}}}`,
		"no jsonrpc":         `{"id":1,"method":"initialize","params":{"protocolVersion":1}}`,
		"unknown method":     `{"jsonrpc":"2.0","id":1,"method":"session/nope","params":{}}`,
		"request as note":    `{"jsonrpc":"2.0","method":"session/prompt","params":{"sessionId":"s","prompt":[]}}`,
		"note as request":    `{"jsonrpc":"2.0","id":2,"method":"session/cancel","params":{"sessionId":"s"}}`,
		"bad params":         `{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s"}}`,
		"version range":      `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":70000}}`,
		"fractional id":      `{"jsonrpc":"2.0","id":1.5,"method":"session/close","params":{"sessionId":"s"}}`,
		"result and error":   `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}`,
		"error shape":        `{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}`,
		"not an object":      `[1,2]`,
		"unknown content":    `{"jsonrpc":"2.0","id":"a","method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"video"}]}}`,
		"stdio without args": `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[{"name":"n","command":"c"}]}}`,
	} {
		t.Run(name, func(t *testing.T) {
			r := &recorder{TB: t}
			ValidateMessage(r, []byte(line))
			if len(r.errs) == 0 {
				t.Errorf("accepted %s", line)
			}
		})
	}
}

func TestValidateResponse(t *testing.T) {
	ValidateResponse(t, "session/prompt", []byte(`{"jsonrpc":"2.0","id":1,"result":{"stopReason":"cancelled"}}`))
	ValidateResponse(t, "session/load", []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	ValidateResponse(t, "session/load", []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"Resource not found"}}`))
	for name, c := range map[string]struct{ method, line string }{
		// §2.13: the docs show "result": null; the schema wants {}.
		"null result":  {"session/load", `{"jsonrpc":"2.0","id":1,"result":null}`},
		"stop reason":  {"session/prompt", `{"jsonrpc":"2.0","id":1,"result":{"stopReason":"done"}}`},
		"notification": {"session/cancel", `{"jsonrpc":"2.0","id":1,"result":{}}`},
		"a call":       {"session/prompt", `{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{}}`},
	} {
		t.Run(name, func(t *testing.T) {
			r := &recorder{TB: t}
			ValidateResponse(r, c.method, []byte(c.line))
			if len(r.errs) == 0 {
				t.Errorf("accepted %s", c.line)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	Validate(t, "ContentBlock", map[string]any{"type": "text", "text": "hi"})
	Validate(t, "ForkSessionResponse", map[string]any{"sessionId": "s"}) // unstable-only definition
	r := &recorder{TB: t}
	Validate(r, "ContentBlock", map[string]any{"type": "text"})
	Validate(r, "NoSuchDefinition", map[string]any{})
	if len(r.errs) != 2 {
		t.Errorf("want 2 failures, got %q", r.errs)
	}
}

func TestMethodTable(t *testing.T) {
	ss, err := setsFor(1)
	if err != nil {
		t.Fatal(err)
	}
	for method, want := range map[string]methodDefs{
		"session/prompt":             {params: "PromptRequest", result: "PromptResponse", receiver: "agent"},
		"session/update":             {params: "SessionNotification", receiver: "client", notification: true},
		"session/request_permission": {params: "RequestPermissionRequest", result: "RequestPermissionResponse", receiver: "client"},
		"$/cancel_request":           {params: "CancelRequestNotification", receiver: "protocol", notification: true},
	} {
		if got := ss[0].methods[method]; len(got) != 1 || got[0] != want {
			t.Errorf("%s: %+v, want %+v", method, got, want)
		}
	}
	if _, ok := ss[0].methods["session/fork"]; ok {
		t.Error("session/fork should only be in the unstable schema")
	}
}

// TestPinnedSchemaMatchesShared fails when the shared reference schema has
// moved on from the pinned copy, which means: copy it into testdata and run
// go generate ./acp. It is skipped when ../shared is not next to the clone.
func TestPinnedSchemaMatchesShared(t *testing.T) {
	root, err := clitest.RepoRoot()
	if err != nil {
		t.Skip(err)
	}
	for _, c := range []struct{ version, pinned, regen string }{
		{"v1", "testdata", "./acp"},
		{"v2", "testdata/v2", "./acp/acpv2"},
	} {
		for _, name := range []string{"schema.json", "schema.unstable.json"} {
			shared, err := os.ReadFile(filepath.Join(root, "..", "shared", "acp-schema", c.version, name))
			if err != nil {
				t.Skipf("no shared schema: %v", err)
			}
			pinned, err := os.ReadFile(filepath.Join(c.pinned, name))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(shared, pinned) {
				t.Errorf("%s/%s differs from ../shared/acp-schema/%s/%s: copy it and run go generate %s", c.pinned, name, c.version, name, c.regen)
			}
		}
	}
}

// v2 lines, as an agent and a client speaking ACP v2 send them.
var v2Accepted = map[string]struct {
	fromAgent bool
	line      string
}{
	"initialize":        {false, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,"info":{"name":"zed","version":"1.0"},"capabilities":{"auth":{"terminal":{}}}}}`},
	"session/new":       {false, `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[{"type":"stdio","name":"fs","command":"/bin/mcp","args":[],"env":[]},{"type":"http","name":"h","url":"https://x","headers":[]}]}}`},
	"resume from start": {false, `{"jsonrpc":"2.0","id":2,"method":"session/resume","params":{"sessionId":"s","cwd":"/w","replayFrom":{"type":"start"}}}`},
	"prompt":            {false, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"hi"}]}}`},
	"auth/login":        {false, `{"jsonrpc":"2.0","id":4,"method":"auth/login","params":{"methodId":"claude-login"}}`},
	"auth/logout":       {false, `{"jsonrpc":"2.0","id":5,"method":"auth/logout","params":{}}`},
	"cancel":            {false, `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`},
	"cancel_request":    {true, `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":7}}`},
	"user_message":      {true, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"user_message","messageId":"u1","content":[{"type":"text","text":"hi"}]}}}`},
	"running":           {true, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"state_update","state":"running"}}}`},
	"requires_action":   {true, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"state_update","state":"requires_action"}}}`},
	"idle end_turn":     {true, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"}}}`},
	"idle error":        {true, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"state_update","state":"idle","stopReason":"error","error":{"code":-32603,"message":"boom"}}}}`},
	"idle no reason":    {true, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"state_update","state":"idle","stopReason":null}}}`},
	"chunk":             {true, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","messageId":"a1","content":{"type":"text","text":"x"}}}}`},
	"tool_call_update":  {true, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"t","title":"Edit a.go","kind":"edit","status":"pending","content":[{"type":"diff","changes":[{"operation":"modify","path":"/w/a.go"}],"patch":{"format":"git_patch","text":"--- a/a.go\n+++ b/a.go\n"}}]}}}`},
	"content chunk":     {true, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_content_chunk","toolCallId":"t","content":{"type":"terminal","terminalId":"term"}}}}`},
	"terminal_update":   {true, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"terminal_update","terminalId":"term","command":"ls","cwd":"/w","exitStatus":{"exitCode":0}}}}`},
	"terminal output":   {true, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"terminal_output_chunk","terminalId":"term","data":"aGkK"}}}`},
	"plan_update":       {true, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan_update","plan":{"type":"items","planId":"p","entries":[{"content":"x","priority":"high","status":"cancelled"}]}}}}`},
	"permission":        {true, `{"jsonrpc":"2.0","id":"p1","method":"session/request_permission","params":{"sessionId":"s","title":"Run ls?","subject":{"type":"command","command":"ls","cwd":"/w","toolCallId":"t"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"}]}}`},
	"open enum value":   {true, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"t","kind":"_teleport","status":"_queued"}}}`},
	"extension":         {true, `{"jsonrpc":"2.0","id":9,"method":"_x/anything","params":{"a":1}}`},
	"fork (unstable)":   {false, `{"jsonrpc":"2.0","id":10,"method":"session/fork","params":{"sessionId":"s","cwd":"/w"}}`},
	"null id error":     {true, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`},
}

func TestValidateV2Accepts(t *testing.T) {
	for name, c := range v2Accepted {
		t.Run(name, func(t *testing.T) {
			ValidateV2(t, []byte(c.line))
			ValidateLine(t, Line{Version: 2, FromAgent: c.fromAgent}, []byte(c.line))
		})
	}
}

func TestValidateV2Rejects(t *testing.T) {
	for name, line := range map[string]string{
		"v1 initialize":       `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`,
		"session/load is v1":  `{"jsonrpc":"2.0","id":1,"method":"session/load","params":{"sessionId":"s","cwd":"/w","mcpServers":[]}}`,
		"fs is gone":          `{"jsonrpc":"2.0","id":1,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/a"}}`,
		"untyped stdio":       `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[{"name":"fs","command":"/bin/mcp","args":[],"env":[]}]}}`,
		"sse is gone":         `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[{"type":"sse","name":"s","url":"https://x","headers":[]}]}}`,
		"chunk without id":    `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}`,
		"v1 tool_call":        `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"t","title":"x"}}}`,
		"v1 diff":             `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"t","content":[{"type":"diff","path":"/a","oldText":null,"newText":"n"}]}}}`,
		"v1 plan":             `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[]}}}`,
		"v1 mode update":      `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"current_mode_update","currentModeId":"plan"}}}`,
		"permission no title": `{"jsonrpc":"2.0","id":"p1","method":"session/request_permission","params":{"sessionId":"s","options":[]}}`,
		"null request id":     `{"jsonrpc":"2.0","id":null,"method":"session/list","params":{}}`,
		"empty batch":         `[]`,
		"batch":               `[{"jsonrpc":"2.0","id":1,"method":"session/list","params":{}},{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}]`,
		"not an object":       `[1,2]`,
	} {
		t.Run(name, func(t *testing.T) {
			r := &recorder{TB: t}
			ValidateV2(r, []byte(line))
			if len(r.errs) == 0 {
				t.Errorf("accepted %s", line)
			}
		})
	}
}

func TestValidateV2Response(t *testing.T) {
	for method, line := range map[string]string{
		"initialize":     `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":2,"info":{"name":"claude-agent-acp","version":"0.1.0"},"capabilities":{"session":{"prompt":{"image":{},"embeddedContext":{}},"mcp":{"stdio":{},"http":{}},"delete":{},"fork":{}},"auth":{}},"authMethods":[{"type":"agent","methodId":"claude-login","name":"Log in"}]}}`,
		"session/new":    `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s","configOptions":[{"type":"select","configId":"mode","name":"Mode","category":"mode","currentValue":"default","options":[{"value":"default","name":"Default"}]}]}}`,
		"session/prompt": `{"jsonrpc":"2.0","id":3,"result":{"messageId":"u1"}}`,
		"session/resume": `{"jsonrpc":"2.0","id":2,"result":{}}`,
		"auth/login":     `{"jsonrpc":"2.0","id":4,"result":{}}`,
		"session/list":   `{"jsonrpc":"2.0","id":5,"result":{"sessions":[{"sessionId":"s","cwd":"/w","title":null}]}}`,
	} {
		t.Run(method, func(t *testing.T) {
			ValidateV2Response(t, method, []byte(line))
			ValidateLine(t, Line{Version: 2, FromAgent: true, Method: method}, []byte(line))
		})
	}
	// seed 003's errors, as v2 defines their data.
	ValidateV2Response(t, "initialize", []byte(`{"jsonrpc":"2.0","id":0,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"requested":0,"supported":[1,2]}}}`))
	ValidateV2Response(t, "session/prompt", []byte(`{"jsonrpc":"2.0","id":3,"error":{"code":-32002,"message":"Session not found","data":{"sessionId":"nope"}}}`))
	ValidateV2Response(t, "session/prompt", []byte(`{"jsonrpc":"2.0","id":3,"error":{"code":-32002,"message":"Resource not found"}}`))
	ValidateV2Response(t, "session/prompt", []byte(`{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Internal error","data":{"method":"session/prompt"}}}`))
	// Extension values of open enums and unions are fine.
	ValidateV2(t, []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"_goal_update","goal":"x"}}}`))
	ValidateV2(t, []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"state_update","state":"idle","stopReason":"_budget"}}}`))
	for name, c := range map[string]struct{ method, line string }{
		"v1 prompt result": {"session/prompt", `{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`},
		"v1 initialize":    {"initialize", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{}}}`},
		"no such method":   {"session/load", `{"jsonrpc":"2.0","id":1,"result":{}}`},
		"-32022 bad data":  {"initialize", `{"jsonrpc":"2.0","id":0,"error":{"code":-32022,"message":"m","data":{"requested":"two","supported":[1]}}}`},
		"-32022 no data":   {"initialize", `{"jsonrpc":"2.0","id":0,"error":{"code":-32022,"message":"m"}}`},
		"-32002 v1 data":   {"session/prompt", `{"jsonrpc":"2.0","id":3,"error":{"code":-32002,"message":"m","data":{"uri":"file:///a"}}}`},
	} {
		t.Run(name, func(t *testing.T) {
			r := &recorder{TB: t}
			ValidateV2Response(r, c.method, []byte(c.line))
			if len(r.errs) == 0 {
				t.Errorf("accepted %s", c.line)
			}
		})
	}
}

// TestValidateLineDirection: a known sender makes the check stricter.
func TestValidateLineDirection(t *testing.T) {
	for name, c := range map[string]struct {
		l    Line
		line string
	}{
		"agent sends a client method":    {Line{Version: 2, FromAgent: true}, `{"jsonrpc":"2.0","id":1,"method":"session/list","params":{}}`},
		"client sends an update":         {Line{Version: 2}, v2Accepted["running"].line},
		"client answers an agent method": {Line{Version: 2, Method: "session/prompt"}, `{"jsonrpc":"2.0","id":3,"result":{"messageId":"u1"}}`},
		"v1 agent sends prompt":          {Line{Version: 1, FromAgent: true}, `{"jsonrpc":"2.0","id":"a","method":"session/prompt","params":{"sessionId":"s","prompt":[]}}`},
		"v1 line on v2":                  {Line{Version: 2, FromAgent: true}, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[]}}}`},
		"v2 line on v1":                  {Line{Version: 1, FromAgent: true}, v2Accepted["running"].line},
		"batch on v1":                    {Line{Version: 1}, `[` + v2Accepted["prompt"].line + `]`},
		"no such version":                {Line{Version: 3}, v2Accepted["prompt"].line},
	} {
		t.Run(name, func(t *testing.T) {
			r := &recorder{TB: t}
			ValidateLine(r, c.l, []byte(c.line))
			if len(r.errs) == 0 {
				t.Errorf("accepted %s", c.line)
			}
		})
	}
	// v1 through ValidateLine, both directions.
	ValidateLine(t, Line{Version: 1}, []byte(`{"jsonrpc":"2.0","id":"a","method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"hi"}]}}`))
	ValidateLine(t, Line{Version: 1, FromAgent: true, Method: "session/prompt"}, []byte(`{"jsonrpc":"2.0","id":"a","result":{"stopReason":"end_turn"}}`))
	ValidateLine(t, Line{Version: 1, Method: "session/request_permission"}, []byte(`{"jsonrpc":"2.0","id":3,"result":{"outcome":{"outcome":"cancelled"}}}`))
}

func TestV2Validate(t *testing.T) {
	ValidateV2Def(t, "ToolCallUpdate", map[string]any{"toolCallId": "t", "title": nil, "content": []any{}})
	ValidateV2Def(t, "ForkSessionResponse", map[string]any{"sessionId": "s"}) // unstable-only definition
	r := &recorder{TB: t}
	ValidateV2Def(r, "ContentChunk", map[string]any{"content": map[string]any{"type": "text", "text": "x"}}) // no messageId
	ValidateV2Def(r, "LoadSessionRequest", map[string]any{})                                                 // v1 only
	if len(r.errs) != 2 {
		t.Errorf("want 2 failures, got %q", r.errs)
	}
}

func TestV2MethodTable(t *testing.T) {
	ss, err := setsFor(2)
	if err != nil {
		t.Fatal(err)
	}
	for method, want := range map[string]methodDefs{
		"session/prompt":             {params: "PromptRequest", result: "PromptResponse", receiver: "agent"},
		"session/update":             {params: "UpdateSessionNotification", receiver: "client", notification: true},
		"session/request_permission": {params: "RequestPermissionRequest", result: "RequestPermissionResponse", receiver: "client"},
		"auth/login":                 {params: "LoginAuthRequest", result: "LoginAuthResponse", receiver: "agent"},
		"session/cancel":             {params: "CancelSessionNotification", receiver: "agent", notification: true},
		"$/cancel_request":           {params: "CancelRequestNotification", receiver: "protocol", notification: true},
	} {
		if got := ss[0].methods[method]; len(got) != 1 || got[0] != want {
			t.Errorf("%s: %+v, want %+v", method, got, want)
		}
	}
	// mcp/message (unstable) is handled by both sides: one entry per side.
	if got := ss[1].methods["mcp/message"]; len(got) != 2 || got[0].receiver != "agent" || got[1].receiver != "client" {
		t.Errorf("mcp/message: %+v", got)
	}
	for _, gone := range []string{"session/load", "authenticate", "logout", "session/set_mode", "fs/read_text_file", "terminal/create"} {
		if _, _, ok := lookup(2, gone, ""); ok {
			t.Errorf("%s should not be a v2 method", gone)
		}
	}
}
