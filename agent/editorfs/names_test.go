package editorfs_test

import (
	"encoding/json"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/agent/editorfs"
)

// TestBuiltinName: a call of these tools is shown as the built-in's, and
// nothing else is renamed (another server's tools, a tool we do not
// serve, or no server at all when the feature is off).
func TestBuiltinName(t *testing.T) {
	for _, c := range []struct {
		server, name, want string
		ok                 bool
	}{
		{"editor", "mcp__editor__Edit", "Edit", true},
		{"editor", "mcp__editor__NotebookEdit", "NotebookEdit", true},
		{"acp_editor", "mcp__acp_editor__Read", "Read", true},
		{"editor", "mcp__other__Edit", "mcp__other__Edit", false},
		{"editor", "mcp__editor__Bash", "mcp__editor__Bash", false},
		{"editor", "Edit", "Edit", false},
		{"", "mcp__editor__Edit", "mcp__editor__Edit", false},
	} {
		got, ok := editorfs.BuiltinName(c.server, c.name)
		if got != c.want || ok != c.ok {
			t.Errorf("BuiltinName(%q, %q) = %q, %v; want %q, %v", c.server, c.name, got, ok, c.want, c.ok)
		}
	}
}

// TestBuiltinResult: the built-in's structured result comes out of our
// result's _meta; anything else is left as it is.
func TestBuiltinResult(t *testing.T) {
	for in, want := range map[string]string{
		`{"content":[],"_meta":{"` + editorfs.ResultMetaKey + `":{"type":"update"}}}`: `{"type":"update"}`,
		`{"content":[],"_meta":{"other":1}}`:                                          `{"content":[],"_meta":{"other":1}}`,
		`"text"`:                                                                      `"text"`,
		``:                                                                            ``,
	} {
		if got := string(editorfs.BuiltinResult(json.RawMessage(in))); got != want {
			t.Errorf("BuiltinResult(%s) = %s, want %s", in, got, want)
		}
	}
}
