package agent

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/acptest"
)

// TestAuthMethods: every client gets a terminal login (the ACP Registry
// lists only agents that advertise one); clients that advertise terminal
// auth get the two logins of the reference adapter. Each method carries
// Zed's _meta["terminal-auth"] with this binary's path and the same args.
func TestAuthMethods(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		caps  string
		ids   []string
		args  [][]string
		label []string
	}{
		{name: "plain client", caps: `{}`, ids: []string{"claude-login"},
			args: [][]string{{"--cli", "auth", "login"}}, label: []string{"Claude Login"}},
		{name: "auth.terminal", caps: `{"auth":{"terminal":true}}`, ids: []string{"claude-ai-login", "console-login"},
			args:  [][]string{{"--cli", "auth", "login", "--claudeai"}, {"--cli", "auth", "login", "--console"}},
			label: []string{"Claude Login", "Anthropic Console Login"}},
		{name: "_meta terminal-auth", caps: `{"_meta":{"terminal-auth":true}}`, ids: []string{"claude-ai-login", "console-login"},
			args:  [][]string{{"--cli", "auth", "login", "--claudeai"}, {"--cli", "auth", "login", "--console"}},
			label: []string{"Claude Login", "Anthropic Console Login"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var req acp.InitializeRequest
			if err := json.Unmarshal([]byte(`{"protocolVersion":1,"clientCapabilities":`+tt.caps+`}`), &req); err != nil {
				t.Fatal(err)
			}
			a := New(Config{Version: "test"}).newConnection()
			resp, err := a.initialize(context.Background(), &req)
			if err != nil {
				t.Fatal(err)
			}
			acptest.Validate(t, "InitializeResponse", resp)
			if len(resp.AuthMethods) != len(tt.ids) {
				t.Fatalf("auth methods %+v", resp.AuthMethods)
			}
			for i, m := range resp.AuthMethods {
				term := m.Terminal
				if term == nil || m.Tag() != "terminal" {
					t.Fatalf("method %d is not a terminal login: %+v", i, m)
				}
				if string(term.ID) != tt.ids[i] || !reflect.DeepEqual(term.Args, tt.args[i]) || term.Name == "" {
					t.Errorf("method %d: %+v", i, term)
				}
				var meta struct {
					Command string   `json:"command"`
					Args    []string `json:"args"`
					Label   string   `json:"label"`
				}
				if err := json.Unmarshal(term.Meta["terminal-auth"], &meta); err != nil {
					t.Fatalf("_meta: %v", err)
				}
				if meta.Command != self || !reflect.DeepEqual(meta.Args, tt.args[i]) || meta.Label != tt.label[i] {
					t.Errorf("method %d _meta[terminal-auth] = %+v", i, meta)
				}
			}
			// The wire form the registry documents: "type":"terminal" beside id, name, args.
			raw, _ := json.Marshal(resp.AuthMethods[0])
			var wire map[string]any
			_ = json.Unmarshal(raw, &wire)
			if wire["type"] != "terminal" || wire["id"] != tt.ids[0] || wire["args"] == nil {
				t.Errorf("wire form %s", raw)
			}
		})
	}
}
