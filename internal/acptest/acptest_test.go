package acptest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/internal/clitest"
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
	ss, err := sets()
	if err != nil {
		t.Fatal(err)
	}
	for method, want := range map[string]methodDefs{
		"session/prompt":             {params: "PromptRequest", result: "PromptResponse", receiver: "agent"},
		"session/update":             {params: "SessionNotification", receiver: "client", notification: true},
		"session/request_permission": {params: "RequestPermissionRequest", result: "RequestPermissionResponse", receiver: "client"},
		"$/cancel_request":           {params: "CancelRequestNotification", receiver: "protocol", notification: true},
	} {
		if got := ss[0].methods[method]; got != want {
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
	for _, name := range []string{"schema.json", "schema.unstable.json"} {
		shared, err := os.ReadFile(filepath.Join(root, "..", "shared", "acp-schema", "v1", name))
		if err != nil {
			t.Skipf("no shared schema: %v", err)
		}
		pinned, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(shared, pinned) {
			t.Errorf("testdata/%s differs from ../shared/acp-schema/v1/%s: copy it and run go generate ./acp", name, name)
		}
	}
}
