package toolview

import (
	"encoding/json"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
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
		v := Describe(tc.name, DecodeInput(json.RawMessage(tc.input)), cwd)
		loc := ""
		if len(v.Locations) > 0 {
			loc = v.Locations[0].Path + ":" + Itoa(int(v.Locations[0].Line.Or(0)))
		}
		if v.Title != tc.title || v.Kind != tc.kind || loc != tc.loc {
			t.Errorf("%s %s: got %q %s %q, want %q %s %q", tc.name, tc.input, v.Title, v.Kind, loc, tc.title, tc.kind, tc.loc)
		}
	}
}

func TestBashOutputParse(t *testing.T) {
	out, exit := BashOutput("hi", false, json.RawMessage(`{"stdout":"hi","stderr":"warn","interrupted":false}`))
	if out != "hi\nwarn" || exit == nil || *exit != 0 {
		t.Errorf("success: %q %v", out, exit)
	}
	out, exit = BashOutput("Exit code 3\nboom", true, json.RawMessage(`"Error: Exit code 3\nboom"`))
	if out != "boom" || exit == nil || *exit != 3 {
		t.Errorf("failure: %q %v", out, exit)
	}
	out, exit = BashOutput("Permission denied", true, nil)
	if out != "Permission denied" || exit != nil {
		t.Errorf("unknown exit: %q %v", out, exit)
	}
}

func TestFenced(t *testing.T) {
	if got := Fenced("go", "x := \"```\"\n"); got != "````go\nx := \"```\"\n````" {
		t.Errorf("fence %q", got)
	}
}
