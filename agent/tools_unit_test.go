package agent

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

func TestDescribeUpdates(t *testing.T) {
	t.Parallel()
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	for _, tc := range []struct {
		ups  []json.RawMessage
		want string
	}{
		{[]json.RawMessage{raw(`{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"npm test:*"}],"behavior":"allow","destination":"localSettings"}`),
			raw(`{"type":"addDirectories","directories":["/ws"],"destination":"session"}`)},
			"Always allow `Bash(npm test:*)` in this project"},
		{[]json.RawMessage{raw(`{"type":"setMode","mode":"acceptEdits","destination":"session"}`)}, "Always allow all edits for this session"},
		{[]json.RawMessage{raw(`{"type":"addRules","rules":[{"toolName":"Read","ruleContent":"//other/**"}],"behavior":"allow","destination":"session"}`),
			raw(`{"type":"addDirectories","directories":["/other"],"destination":"session"}`)},
			"Always allow `Read(//other/**)`; access to /other for this session"},
		{[]json.RawMessage{raw(`{"type":"addRules","rules":[{"toolName":"mcp__gh__list"}],"behavior":"allow","destination":"userSettings"}`)},
			"Always allow list (gh) in all projects"},
	} {
		if got := describeUpdates(tc.ups, "/ws"); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

func TestAlwaysAllowChoices(t *testing.T) {
	t.Parallel()
	// A suggested mode switch next to a rule is dropped; alone it is kept.
	req := claude.CanUseToolRequest{ToolName: "Bash", PermissionSuggestions: []json.RawMessage{
		json.RawMessage(`{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch x"}],"behavior":"allow","destination":"localSettings"}`),
		json.RawMessage(`{"type":"setMode","mode":"acceptEdits","destination":"session"}`),
	}}
	ups, name, ok := alwaysAllow(req, "default", "/ws", nil)
	if !ok || len(ups) != 1 || name != "Always allow `Bash(touch x)` in this project" {
		t.Errorf("bash: %v %s %q", ok, ups, name)
	}
	// Bash without a suggestion gets no blanket rule; other tools get a
	// session rule for the tool.
	if _, _, ok := alwaysAllow(claude.CanUseToolRequest{ToolName: "Bash"}, "default", "/ws", nil); ok {
		t.Error("blanket Bash rule offered")
	}
	ups, name, ok = alwaysAllow(claude.CanUseToolRequest{ToolName: "WebSearch"}, "default", "/ws", nil)
	if !ok || name != "Always allow WebSearch for this session" || len(ups) != 1 {
		t.Errorf("websearch: %v %q %s", ok, name, ups)
	}
	if _, _, ok := alwaysAllow(claude.CanUseToolRequest{ToolName: "EnterPlanMode"}, "default", "/ws", nil); ok {
		t.Error("always allow for EnterPlanMode")
	}
	// What Claude Code did not suggest is not offered for the file tools,
	// nor in plan mode; what it suggests is.
	for _, name := range []string{"Write", "Edit", "Read", "Grep", "NotebookEdit"} {
		if ups, name2, ok := alwaysAllow(claude.CanUseToolRequest{ToolName: name}, "default", "/ws", nil); ok {
			t.Errorf("%s without a suggestion: %q %s", name, name2, ups)
		}
	}
	if ups, name, ok := alwaysAllow(claude.CanUseToolRequest{ToolName: "WebSearch"}, "plan", "/ws", nil); ok {
		t.Errorf("WebSearch in plan mode: %q %s", name, ups)
	}
	write := claude.CanUseToolRequest{ToolName: "Write", PermissionSuggestions: []json.RawMessage{
		json.RawMessage(`{"type":"setMode","mode":"acceptEdits","destination":"session"}`)}}
	if _, name, ok := alwaysAllow(write, "plan", "/ws", nil); !ok || name != "Always allow all edits for this session" {
		t.Errorf("a suggestion in plan mode: %v %q", ok, name)
	}
}

func TestAvailableCommands(t *testing.T) {
	t.Parallel()
	s := &session{}
	s.cmds.known = []claude.SlashCommand{
		{Name: "compact", Description: "Compact", ArgumentHint: "<instructions>"},
		{Name: "clear", Description: "Clear"},
		{Name: "doctor", Description: "Doctor"},
		{Name: "__internal", Description: "x"},
		{Name: "agents", Description: "(removed) Ask Claude"},
		{Name: "two words", Description: "x"},
		{Name: "compact", Description: "duplicate"},
	}
	s.cmds.terminalOnly = defaultTerminalOnly
	got := s.cmds.available()
	if len(got) != 1 || got[0].Name != "compact" || got[0].Input.Unstructured.Hint != "<instructions>" {
		t.Fatalf("commands %+v", got)
	}
	// The init frame's list is current: new commands appear.
	s.cmds.names = []string{"review", "compact"}
	if got := s.cmds.available(); len(got) != 2 || got[0].Name != "review" || got[1].Description != "Compact" {
		t.Fatalf("after init %+v", got)
	}
	s.cmds.terminalOnly = []string{"review"}
	if got := s.cmds.available(); len(got) != 1 || got[0].Name != "compact" {
		t.Fatalf("after init %+v", got)
	}
}

// TestSessionRules: the session-scoped allow rules of permission updates
// become --allowedTools entries for a CLI started again (hibernation);
// rules saved to settings files and other updates are left out.
func TestSessionRules(t *testing.T) {
	t.Parallel()
	got := sessionRules([]json.RawMessage{
		json.RawMessage(`{"type":"addRules","rules":[{"toolName":"WebFetch"},{"toolName":"Bash","ruleContent":"npm test:*"}],"behavior":"allow","destination":"session"}`),
		json.RawMessage(`{"type":"addRules","rules":[{"toolName":"Read"}],"behavior":"allow","destination":"localSettings"}`),
		json.RawMessage(`{"type":"addRules","rules":[{"toolName":"Write"}],"behavior":"deny","destination":"session"}`),
		json.RawMessage(`{"type":"setMode","mode":"acceptEdits","destination":"session"}`),
		json.RawMessage(`not json`),
	})
	if want := []string{"WebFetch", "Bash(npm test:*)"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestAlwaysAllowLeavesOutOwnDirectories: a suggested addDirectories for
// the session's own directories (its cwd, as written or through a
// symbolic link, and its additional directories) is left out; other
// directories stay.
func TestAlwaysAllowLeavesOutOwnDirectories(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(ws, link); err != nil {
		t.Fatal(err)
	}
	rule := `{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch a.txt"}],"behavior":"allow","destination":"localSettings"}`
	for _, tc := range []struct {
		dirs string
		want []string
	}{
		{`["` + ws + `"]`, []string{rule}},
		{`["` + link + `/"]`, []string{rule}},
		{`["/extra"]`, []string{rule}},
		{`["/elsewhere","` + ws + `"]`, []string{rule, `{"destination":"session","directories":["/elsewhere"],"type":"addDirectories"}`}},
	} {
		req := claude.CanUseToolRequest{ToolName: "Bash", PermissionSuggestions: []json.RawMessage{
			json.RawMessage(rule),
			json.RawMessage(`{"type":"addDirectories","directories":` + tc.dirs + `,"destination":"session"}`),
			json.RawMessage(`{"type":"setMode","mode":"acceptEdits","destination":"session"}`),
		}}
		ups, _, ok := alwaysAllow(req, "default", ws, []string{"/extra"})
		var got []string
		for _, u := range ups {
			got = append(got, string(u))
		}
		if !ok || !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v %q, want %q", tc.dirs, ok, got, tc.want)
		}
	}
}
