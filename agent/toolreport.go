package agent

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
)

// How each Claude tool looks in the editor: kind, title, locations and the
// content shown before the result. The decisions are written down in
// docs/tools.md; this file only describes, it sends nothing.

// toolView is the presentation of a tool call at one moment.
type toolView struct {
	title     string
	kind      acp.ToolKind
	content   []acp.ToolCallContent // nil: none yet
	locations []acp.ToolCallLocation
}

// planTools become plan updates instead of tool calls.
func isPlanTool(name string) bool {
	switch name {
	case "TodoWrite", "TaskCreate", "TaskUpdate", "TaskList", "TaskGet":
		return true
	}
	return false
}

func isEditTool(name string) bool {
	return name == "Edit" || name == "MultiEdit" || name == "Write"
}

// toolKind is the ACP kind of a Claude tool, for the editor's icon.
func toolKind(name string) acp.ToolKind {
	switch name {
	case "Read", "NotebookRead":
		return acp.ToolKindRead
	case "Edit", "MultiEdit", "Write", "NotebookEdit":
		return acp.ToolKindEdit
	case "Bash", "BashOutput", "KillShell", "KillBash", "PowerShell":
		return acp.ToolKindExecute
	case "Glob", "Grep", "LS", "ToolSearch":
		return acp.ToolKindSearch
	case "WebFetch", "WebSearch":
		return acp.ToolKindFetch
	case "ExitPlanMode", "EnterPlanMode":
		return acp.ToolKindSwitchMode
	case "Agent", "Task", "TodoWrite", "TaskCreate", "TaskUpdate", "TaskList", "TaskGet":
		return acp.ToolKindThink
	}
	return acp.ToolKindOther
}

// describeTool gives the title, kind and locations of a call from its
// input (which may be partial or empty while the model is still writing
// it). Paths in titles are relative to cwd when inside it.
func describeTool(name string, in map[string]any, cwd string) toolView {
	str := func(k string) string { v, _ := in[k].(string); return v }
	num := func(k string) (int, bool) {
		f, ok := in[k].(float64)
		return int(f), ok
	}
	v := toolView{kind: toolKind(name), title: name}
	path := func(k string) string { return absPath(str(k), cwd) }
	switch name {
	case "Bash", "PowerShell":
		v.title = firstNonEmpty(str("command"), "Terminal")
	case "Read":
		p := path("file_path")
		if p == "" {
			v.title = "Read File"
			break
		}
		v.title = "Read " + displayPath(p, cwd)
		off, hasOff := num("offset")
		if lim, ok := num("limit"); ok && lim > 0 {
			v.title += fmt.Sprintf(" (%d - %d)", max(off, 1), max(off, 1)+lim-1)
		} else if hasOff && off > 1 {
			v.title += fmt.Sprintf(" (from line %d)", off)
		}
		v.locations = []acp.ToolCallLocation{{Path: p, Line: acp.Some(uint32(max(off, 1)))}}
	case "Write", "Edit", "MultiEdit":
		p := path("file_path")
		verb := "Edit"
		if name == "Write" {
			verb = "Write"
		}
		if p == "" {
			v.title = verb
			break
		}
		v.title = verb + " " + displayPath(p, cwd)
		v.locations = []acp.ToolCallLocation{{Path: p}}
	case "NotebookEdit":
		p := path("notebook_path")
		verb := "Edit cell in"
		switch str("edit_mode") {
		case "insert":
			verb = "Insert cell in"
		case "delete":
			verb = "Delete cell from"
		}
		if p == "" {
			v.title = "Edit notebook"
			break
		}
		v.title = verb + " " + displayPath(p, cwd)
		v.locations = []acp.ToolCallLocation{{Path: p}}
	case "Glob":
		v.title = "Find"
		if p := str("path"); p != "" {
			v.title += " `" + displayPath(absPath(p, cwd), cwd) + "`"
			v.locations = []acp.ToolCallLocation{{Path: absPath(p, cwd)}}
		}
		if pat := str("pattern"); pat != "" {
			v.title += " `" + pat + "`"
		}
	case "Grep":
		v.title = grepTitle(in, cwd)
		if p := str("path"); p != "" {
			v.locations = []acp.ToolCallLocation{{Path: absPath(p, cwd)}}
		}
	case "WebFetch":
		if u := str("url"); u != "" {
			v.title = "Fetch " + u
		} else {
			v.title = "Fetch"
		}
	case "WebSearch":
		if q := str("query"); q != "" {
			v.title = fmt.Sprintf("Search %q", q)
		} else {
			v.title = "Web search"
		}
	case "Agent", "Task":
		v.title = firstNonEmpty(str("description"), "Task")
		if t := str("subagent_type"); t != "" && str("description") != "" {
			v.title += " (" + t + ")"
		}
	case "ExitPlanMode":
		v.title = "Ready to code?"
	case "EnterPlanMode":
		v.title = "Enter plan mode"
	case "TodoWrite":
		v.title = "Update the to-do list"
	case "TaskCreate":
		v.title = "Create task: " + str("subject")
	case "TaskUpdate":
		v.title = "Update task #" + str("taskId")
	case "TaskList":
		v.title = "List tasks"
	case "TaskGet":
		v.title = "Get task #" + str("taskId")
	case "BashOutput":
		v.title = "Read output of " + firstNonEmpty(str("bash_id"), str("shell_id"), "a background command")
	case "KillShell", "KillBash", "TaskStop":
		v.title = "Stop " + firstNonEmpty(str("task_id"), str("shell_id"), "a background task")
	case "Skill":
		v.title = "Load skill: " + firstNonEmpty(str("skill"), str("name"))
	default:
		if server, tool, ok := mcpToolName(name); ok {
			v.title = tool + " (MCP: " + server + ")"
		} else if name == "" {
			v.title = "Tool"
		}
	}
	return v
}

// mcpToolName splits mcp__<server>__<tool>.
func mcpToolName(name string) (server, tool string, ok bool) {
	rest, found := strings.CutPrefix(name, "mcp__")
	if !found {
		return "", "", false
	}
	server, tool, ok = strings.Cut(rest, "__")
	return server, tool, ok && server != "" && tool != ""
}

// grepTitle renders a Grep call as the grep command a person would type.
func grepTitle(in map[string]any, cwd string) string {
	str := func(k string) string { v, _ := in[k].(string); return v }
	flag := func(k string) bool { v, _ := in[k].(bool); return v }
	var b strings.Builder
	b.WriteString("grep")
	if flag("-i") {
		b.WriteString(" -i")
	}
	if flag("-n") {
		b.WriteString(" -n")
	}
	for _, k := range []string{"-A", "-B", "-C"} {
		if n, ok := in[k].(float64); ok {
			fmt.Fprintf(&b, " %s %d", k, int(n))
		}
	}
	switch str("output_mode") {
	case "files_with_matches":
		b.WriteString(" -l")
	case "count":
		b.WriteString(" -c")
	}
	if g := str("glob"); g != "" {
		fmt.Fprintf(&b, " --include=%q", g)
	}
	if t := str("type"); t != "" {
		b.WriteString(" --type=" + t)
	}
	if flag("multiline") {
		b.WriteString(" -P")
	}
	if p := str("pattern"); p != "" {
		fmt.Fprintf(&b, " %q", p)
	}
	if p := str("path"); p != "" {
		b.WriteString(" " + displayPath(absPath(p, cwd), cwd))
	}
	if n, ok := in["head_limit"].(float64); ok && n > 0 {
		fmt.Fprintf(&b, " | head -%d", int(n))
	}
	return b.String()
}

// preContent is what a call shows before its result, once its input is
// complete: the diff of an edit, a command's description, a subagent's
// prompt, the plan to approve.
func preContent(name string, in map[string]any, cwd string) ([]acp.ToolCallContent, []acp.ToolCallLocation) {
	str := func(k string) string { v, _ := in[k].(string); return v }
	switch name {
	case "Edit", "MultiEdit", "Write":
		p := absPath(str("file_path"), cwd)
		if c, locs, ok := editPreview(name, p, in); ok {
			return c, locs[:1]
		}
		return inputDiff(name, p, in), nil
	case "NotebookEdit":
		if src := str("new_source"); src != "" {
			return []acp.ToolCallContent{textContent("```\n" + src + "\n```")}, nil
		}
	case "Bash", "PowerShell":
		if d := str("description"); d != "" {
			return []acp.ToolCallContent{textContent(d)}, nil
		}
	case "WebFetch", "Agent", "Task":
		if p := str("prompt"); p != "" {
			return []acp.ToolCallContent{textContent(p)}, nil
		}
	case "ExitPlanMode":
		if p := str("plan"); p != "" {
			return []acp.ToolCallContent{textContent(p)}, nil
		}
	}
	return nil, nil
}

func textContent(text string) acp.ToolCallContent {
	return acp.ToolCallContent{Content: &acp.Content{Content: acp.ContentBlock{Text: &acp.TextContent{Text: text}}}}
}

// fenced wraps text in a code fence longer than any backtick run inside.
func fenced(lang, text string) string {
	fence := "```"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	return fence + lang + "\n" + strings.TrimSuffix(text, "\n") + "\n" + fence
}

// absPath makes a tool path absolute against cwd (tools normally send
// absolute paths already).
func absPath(p, cwd string) string {
	if p == "" || filepath.IsAbs(p) || cwd == "" {
		return p
	}
	return filepath.Join(cwd, p)
}

// displayPath is p relative to cwd when inside it, else p.
func displayPath(p, cwd string) string {
	if cwd == "" {
		return p
	}
	rel, err := filepath.Rel(cwd, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return p
	}
	return rel
}

// decodeInput decodes a tool input object; anything else is empty.
func decodeInput(raw json.RawMessage) map[string]any {
	var in map[string]any
	if json.Unmarshal(raw, &in) != nil || in == nil {
		return map[string]any{}
	}
	return in
}

var exitCodeRE = regexp.MustCompile(`^Exit code (\d+)\n?`)

// bashOutput is what a finished Bash call printed and how it exited.
// exit is nil when unknown.
func bashOutput(text string, isError bool, structured json.RawMessage) (out string, exit *int) {
	var r struct {
		Stdout      string `json:"stdout"`
		Stderr      string `json:"stderr"`
		Interrupted bool   `json:"interrupted"`
	}
	if !isError && json.Unmarshal(structured, &r) == nil && (r.Stdout != "" || r.Stderr != "" || len(structured) > 2) {
		out = r.Stdout
		if r.Stderr != "" {
			if out != "" && !strings.HasSuffix(out, "\n") {
				out += "\n"
			}
			out += r.Stderr
		}
		if r.Interrupted {
			out += "\n[Command was aborted before completion]"
		}
		zero := 0
		return out, &zero
	}
	if m := exitCodeRE.FindStringSubmatch(text); m != nil {
		n, _ := strconv.Atoi(m[1])
		return text[len(m[0]):], &n
	}
	if !isError {
		zero := 0
		return text, &zero
	}
	return text, nil
}

// fenceLang guesses a code fence language from a file name.
func fenceLang(path string) string {
	ext := strings.TrimPrefix(filepath.Ext(path), ".")
	switch ext {
	case "":
		return ""
	case "yml":
		return "yaml"
	case "md":
		return "markdown"
	case "rs":
		return "rust"
	case "py":
		return "python"
	case "ts", "tsx":
		return "typescript"
	case "js", "jsx", "mjs":
		return "javascript"
	case "sh":
		return "bash"
	}
	return ext
}

func itoa(n int) string { return strconv.Itoa(n) }
