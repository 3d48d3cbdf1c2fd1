package agent

import (
	"encoding/json"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

func TestDescribeTool(t *testing.T) {
	cwd := "/ws"
	for _, tc := range []struct {
		name  string
		input string
		title string
		kind  acp.ToolKind
		loc   string // path:line of the first location, "" for none
	}{
		{"Bash", `{}`, "Terminal", acp.ToolKindExecute, ""},
		{"Bash", `{"command":"go test ./..."}`, "go test ./...", acp.ToolKindExecute, ""},
		{"Read", `{}`, "Read File", acp.ToolKindRead, ""},
		{"Read", `{"file_path":"/ws/a/b.go"}`, "Read a/b.go", acp.ToolKindRead, "/ws/a/b.go:1"},
		{"Read", `{"file_path":"/ws/b.go","offset":10,"limit":5}`, "Read b.go (10 - 14)", acp.ToolKindRead, "/ws/b.go:10"},
		{"Read", `{"file_path":"/etc/hosts","offset":3}`, "Read /etc/hosts (from line 3)", acp.ToolKindRead, "/etc/hosts:3"},
		{"Write", `{}`, "Write", acp.ToolKindEdit, ""},
		{"Write", `{"file_path":"/ws/n.txt"}`, "Write n.txt", acp.ToolKindEdit, "/ws/n.txt:0"},
		{"Edit", `{"file_path":"/ws/n.txt"}`, "Edit n.txt", acp.ToolKindEdit, "/ws/n.txt:0"},
		{"MultiEdit", `{"file_path":"rel.txt"}`, "Edit rel.txt", acp.ToolKindEdit, "/ws/rel.txt:0"},
		{"NotebookEdit", `{"notebook_path":"/ws/n.ipynb","edit_mode":"insert"}`, "Insert cell in n.ipynb", acp.ToolKindEdit, "/ws/n.ipynb:0"},
		{"Glob", `{"pattern":"**/*.go"}`, "Find `**/*.go`", acp.ToolKindSearch, ""},
		{"Glob", `{"pattern":"*.go","path":"/ws/pkg"}`, "Find `pkg` `*.go`", acp.ToolKindSearch, "/ws/pkg:0"},
		{"Grep", `{"pattern":"TODO","-i":true,"output_mode":"files_with_matches","glob":"*.go","path":"/ws/src","head_limit":5}`,
			`grep -i -l --include="*.go" "TODO" src | head -5`, acp.ToolKindSearch, "/ws/src:0"},
		{"WebFetch", `{"url":"https://go.dev"}`, "Fetch https://go.dev", acp.ToolKindFetch, ""},
		{"WebSearch", `{"query":"acp spec"}`, `Search "acp spec"`, acp.ToolKindFetch, ""},
		{"WebSearch", `{}`, "Web search", acp.ToolKindFetch, ""},
		{"Agent", `{"description":"Find callers","subagent_type":"Explore"}`, "Find callers (Explore)", acp.ToolKindThink, ""},
		{"Task", `{}`, "Task", acp.ToolKindThink, ""},
		{"ExitPlanMode", `{"plan":"x"}`, "Ready to code?", acp.ToolKindSwitchMode, ""},
		{"EnterPlanMode", `{}`, "Enter plan mode", acp.ToolKindSwitchMode, ""},
		{"TodoWrite", `{}`, "Update the to-do list", acp.ToolKindThink, ""},
		{"TaskCreate", `{"subject":"Ship"}`, "Create task: Ship", acp.ToolKindThink, ""},
		{"mcp__github__create_issue", `{}`, "create_issue (MCP: github)", acp.ToolKindOther, ""},
		{"Mystery", `{}`, "Mystery", acp.ToolKindOther, ""},
		{"", `{}`, "Tool", acp.ToolKindOther, ""},
	} {
		v := describeTool(tc.name, decodeInput(json.RawMessage(tc.input)), cwd)
		loc := ""
		if len(v.locations) > 0 {
			loc = v.locations[0].Path + ":" + itoa(int(v.locations[0].Line.Or(0)))
		}
		if v.title != tc.title || v.kind != tc.kind || loc != tc.loc {
			t.Errorf("%s %s: got %q %s %q, want %q %s %q", tc.name, tc.input, v.title, v.kind, loc, tc.title, tc.kind, tc.loc)
		}
	}
}

func TestInputScanner(t *testing.T) {
	full := `{"file_path":"/a,b\"c.txt","edits":[{"x":1},{"y":2}],"content":"long, text"}`
	var sc inputScanner
	var completions []string
	for i := 1; i <= len(full); i++ {
		if sc.scan(full[:i]) {
			completions = append(completions, full[:sc.lastComma]+"}")
		}
	}
	want := []string{`{"file_path":"/a,b\"c.txt"}`, `{"file_path":"/a,b\"c.txt","edits":[{"x":1},{"y":2}]}`}
	if len(completions) != len(want) {
		t.Fatalf("completions %q", completions)
	}
	for i := range want {
		if completions[i] != want[i] || !json.Valid([]byte(completions[i])) {
			t.Errorf("completion %d: %q", i, completions[i])
		}
	}
}

func TestBashOutputParse(t *testing.T) {
	out, exit := bashOutput("hi", false, json.RawMessage(`{"stdout":"hi","stderr":"warn","interrupted":false}`))
	if out != "hi\nwarn" || exit == nil || *exit != 0 {
		t.Errorf("success: %q %v", out, exit)
	}
	out, exit = bashOutput("Exit code 3\nboom", true, json.RawMessage(`"Error: Exit code 3\nboom"`))
	if out != "boom" || exit == nil || *exit != 3 {
		t.Errorf("failure: %q %v", out, exit)
	}
	out, exit = bashOutput("Permission denied", true, nil)
	if out != "Permission denied" || exit != nil {
		t.Errorf("unknown exit: %q %v", out, exit)
	}
}

func TestFenced(t *testing.T) {
	if got := fenced("go", "x := \"```\"\n"); got != "````go\nx := \"```\"\n````" {
		t.Errorf("fence %q", got)
	}
}

func TestDescribeUpdates(t *testing.T) {
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
	// A suggested mode switch next to a rule is dropped; alone it is kept.
	req := claude.CanUseToolRequest{ToolName: "Bash", PermissionSuggestions: []json.RawMessage{
		json.RawMessage(`{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch x"}],"behavior":"allow","destination":"localSettings"}`),
		json.RawMessage(`{"type":"setMode","mode":"acceptEdits","destination":"session"}`),
	}}
	ups, name, ok := alwaysAllow(req, "/ws")
	if !ok || len(ups) != 1 || name != "Always allow `Bash(touch x)` in this project" {
		t.Errorf("bash: %v %s %q", ok, ups, name)
	}
	// Bash without a suggestion gets no blanket rule; other tools get a
	// session rule for the tool.
	if _, _, ok := alwaysAllow(claude.CanUseToolRequest{ToolName: "Bash"}, "/ws"); ok {
		t.Error("blanket Bash rule offered")
	}
	ups, name, ok = alwaysAllow(claude.CanUseToolRequest{ToolName: "WebSearch"}, "/ws")
	if !ok || name != "Always allow WebSearch for this session" || len(ups) != 1 {
		t.Errorf("websearch: %v %q %s", ok, name, ups)
	}
	if _, _, ok := alwaysAllow(claude.CanUseToolRequest{ToolName: "EnterPlanMode"}, "/ws"); ok {
		t.Error("always allow for EnterPlanMode")
	}
}

func TestAvailableCommands(t *testing.T) {
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
	got := s.availableCommands()
	if len(got) != 1 || got[0].Name != "compact" || got[0].Input.Unstructured.Hint != "<instructions>" {
		t.Fatalf("commands %+v", got)
	}
	// The init frame's list is current: new commands appear.
	s.cmds.names = []string{"review", "compact"}
	if got := s.availableCommands(); len(got) != 2 || got[0].Name != "review" || got[1].Description != "Compact" {
		t.Fatalf("after init %+v", got)
	}
	s.cmds.terminalOnly = []string{"review"}
	if got := s.availableCommands(); len(got) != 1 || got[0].Name != "compact" {
		t.Fatalf("after init %+v", got)
	}
}
