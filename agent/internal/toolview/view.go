package toolview

import (
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/jsonfast"
)

// How each Claude tool looks in the editor: kind, title, locations and the
// content shown before the result. The decisions are written down in
// docs/tools.md; this file only describes, it sends nothing.

// View is the presentation of a tool call at one moment.
type View struct {
	Title     string
	Kind      acp.ToolKind
	Content   []acp.ToolCallContent // nil: none yet
	Locations []acp.ToolCallLocation
}

// planTools become plan updates instead of tool calls.
func IsPlanTool(name string) bool {
	switch name {
	case "TodoWrite", "TaskCreate", "TaskUpdate", "TaskList", "TaskGet":
		return true
	}
	return false
}

func IsEditTool(name string) bool {
	return name == "Edit" || name == "MultiEdit" || name == "Write"
}

// Kind is the ACP kind of a Claude tool, for the editor's icon.
func Kind(name string) acp.ToolKind {
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

// Describe gives the title, kind and locations of a call from its
// input (which may be partial or empty while the model is still writing
// it). Paths in titles are relative to cwd when inside it.
func Describe(name string, in map[string]any, cwd string) View {
	str := func(k string) string { v, _ := in[k].(string); return v }
	num := func(k string) (int, bool) {
		f, ok := in[k].(float64)
		return int(f), ok
	}
	v := View{Kind: Kind(name), Title: name}
	path := func(k string) string { return AbsPath(str(k), cwd) }
	switch name {
	case "Bash", "PowerShell":
		v.Title = cmp.Or(str("command"), "Terminal")
	case "Read":
		p := path("file_path")
		if p == "" {
			v.Title = "Read File"
			break
		}
		v.Title = "Read " + DisplayPath(p, cwd)
		off, hasOff := num("offset")
		if lim, ok := num("limit"); ok && lim > 0 {
			v.Title += fmt.Sprintf(" (%d - %d)", max(off, 1), max(off, 1)+lim-1)
		} else if hasOff && off > 1 {
			v.Title += fmt.Sprintf(" (from line %d)", off)
		}
		v.Locations = []acp.ToolCallLocation{{Path: p, Line: acp.Some(uint32(max(off, 1)))}}
	case "Write", "Edit", "MultiEdit":
		p := path("file_path")
		verb := "Edit"
		if name == "Write" {
			verb = "Write"
		}
		if p == "" {
			v.Title = verb
			break
		}
		v.Title = verb + " " + DisplayPath(p, cwd)
		v.Locations = []acp.ToolCallLocation{{Path: p}}
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
			v.Title = "Edit notebook"
			break
		}
		v.Title = verb + " " + DisplayPath(p, cwd)
		v.Locations = []acp.ToolCallLocation{{Path: p}}
	case "Glob":
		v.Title = "Find"
		if p := str("path"); p != "" {
			v.Title += " `" + DisplayPath(AbsPath(p, cwd), cwd) + "`"
			v.Locations = []acp.ToolCallLocation{{Path: AbsPath(p, cwd)}}
		}
		if pat := str("pattern"); pat != "" {
			v.Title += " `" + pat + "`"
		}
	case "Grep":
		v.Title = grepTitle(in, cwd)
		if p := str("path"); p != "" {
			v.Locations = []acp.ToolCallLocation{{Path: AbsPath(p, cwd)}}
		}
	case "WebFetch":
		if u := str("url"); u != "" {
			v.Title = "Fetch " + u
		} else {
			v.Title = "Fetch"
		}
	case "WebSearch":
		if q := str("query"); q != "" {
			v.Title = fmt.Sprintf("Search %q", q)
		} else {
			v.Title = "Web search"
		}
	case "Agent", "Task":
		v.Title = cmp.Or(str("description"), "Task")
		if t := str("subagent_type"); t != "" && str("description") != "" {
			v.Title += " (" + t + ")"
		}
	case "ExitPlanMode":
		v.Title = "Ready to code?"
	case "EnterPlanMode":
		v.Title = "Enter plan mode"
	case "TodoWrite":
		v.Title = "Update the to-do list"
	case "TaskCreate":
		v.Title = "Create task: " + str("subject")
	case "TaskUpdate":
		v.Title = "Update task #" + str("taskId")
	case "TaskList":
		v.Title = "List tasks"
	case "TaskGet":
		v.Title = "Get task #" + str("taskId")
	case "BashOutput":
		v.Title = "Read output of " + cmp.Or(str("bash_id"), str("shell_id"), "a background command")
	case "KillShell", "KillBash", "TaskStop":
		v.Title = "Stop " + cmp.Or(str("task_id"), str("shell_id"), "a background task")
	case "Skill":
		v.Title = "Load skill: " + cmp.Or(str("skill"), str("name"))
	default:
		if server, tool, ok := MCPToolName(name); ok {
			v.Title = tool + " (MCP: " + server + ")"
		} else if name == "" {
			v.Title = "Tool"
		}
	}
	return v
}

// MCPToolName splits mcp__<server>__<tool>.
func MCPToolName(name string) (server, tool string, ok bool) {
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
		b.WriteString(" " + DisplayPath(AbsPath(p, cwd), cwd))
	}
	if n, ok := in["head_limit"].(float64); ok && n > 0 {
		fmt.Fprintf(&b, " | head -%d", int(n))
	}
	return b.String()
}

// PreContent is what a call shows before its result, once its input is
// complete: the diff of an edit, a command's description, a subagent's
// prompt, the plan to approve.
func PreContent(name string, in map[string]any, cwd string) ([]acp.ToolCallContent, []acp.ToolCallLocation) {
	return PreContentFrom(name, in, cwd, ReadText)
}

// PreContentFrom is PreContent with an edit's file read by read (ReadText
// reads the disk; an editor's buffer may differ).
func PreContentFrom(name string, in map[string]any, cwd string, read func(path string) (text string, exists, ok bool)) ([]acp.ToolCallContent, []acp.ToolCallLocation) {
	str := func(k string) string { v, _ := in[k].(string); return v }
	switch name {
	case "Edit", "MultiEdit", "Write":
		p := AbsPath(str("file_path"), cwd)
		if c, locs, ok := editPreview(name, p, in, read); ok {
			return c, locs[:1]
		}
		return InputDiff(name, p, in), nil
	case "NotebookEdit":
		if src := str("new_source"); src != "" {
			return []acp.ToolCallContent{TextContent("```\n" + src + "\n```")}, nil
		}
	case "Bash", "PowerShell":
		if d := str("description"); d != "" {
			return []acp.ToolCallContent{TextContent(d)}, nil
		}
	case "WebFetch", "Agent", "Task":
		if p := str("prompt"); p != "" {
			return []acp.ToolCallContent{TextContent(p)}, nil
		}
	case "ExitPlanMode":
		if p := str("plan"); p != "" {
			return []acp.ToolCallContent{TextContent(p)}, nil
		}
	}
	return nil, nil
}

func TextContent(text string) acp.ToolCallContent {
	return acp.ToolCallContent{Content: &acp.Content{Content: acp.ContentBlock{Text: &acp.TextContent{Text: text}}}}
}

// Fenced wraps text in a code fence longer than any backtick run inside.
func Fenced(lang, text string) string {
	fence := "```"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	return fence + lang + "\n" + strings.TrimSuffix(text, "\n") + "\n" + fence
}

// AbsPath makes a tool path absolute against cwd (tools normally send
// absolute paths already).
func AbsPath(p, cwd string) string {
	if p == "" || filepath.IsAbs(p) || cwd == "" {
		return p
	}
	return filepath.Join(cwd, p)
}

// DisplayPath is p relative to cwd when inside it, else p.
func DisplayPath(p, cwd string) string {
	if cwd == "" {
		return p
	}
	rel, err := filepath.Rel(cwd, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return p
	}
	return rel
}

// DecodeInput decodes a tool input object; anything else is empty. The
// usual input goes through jsonfast, which decodes it as encoding/json
// does and gives up on anything else (TestToolJSONFastPaths). raw is a CLI
// frame's or record's own copy, never changed: strings share it.
func DecodeInput(raw json.RawMessage) map[string]any {
	if in, ok := jsonfast.ObjectShared(raw); ok {
		return in
	}
	var in map[string]any
	if json.Unmarshal(raw, &in) != nil || in == nil {
		return map[string]any{}
	}
	return in
}

var exitCodeRE = sync.OnceValue(func() *regexp.Regexp {

	return regexp.MustCompile(`^Exit code (\d+)\n?`)

})

// BashOutput is what a finished Bash call printed and how it exited.
// exit is nil when unknown.
func BashOutput(text string, isError bool, structured json.RawMessage) (out string, exit *int) {
	r := DecodeBash(structured)
	return r.Output(text, isError, len(structured))
}

// BashResult is a Bash call's structured result, decoded once.
type BashResult struct {
	Stdout, Stderr   string
	Interrupted      bool
	BackgroundTaskID string
	// PersistedOutputPath is where Claude Code saved an output too big to
	// keep whole (Stdout then holds its first 30,000 characters or so),
	// PersistedOutputSize its size in bytes (0: not given).
	PersistedOutputPath string
	PersistedOutputSize int64
	// ok: encoding/json decodes stdout, stderr and interrupted without
	// an error.
	ok bool
}

// Output is BashOutput of the result (n: the structured result's length).
func (r *BashResult) Output(text string, isError bool, n int) (out string, exit *int) {
	if !isError && r.ok && (r.Stdout != "" || r.Stderr != "" || n > 2) {
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
		if note := r.TruncatedNote(); note != "" {
			if out != "" && !strings.HasSuffix(out, "\n") {
				out += "\n"
			}
			out += note
		}
		zero := 0
		return out, &zero
	}
	if m := exitCodeRE().FindStringSubmatch(text); m != nil {
		n, _ := strconv.Atoi(m[1])
		return text[len(m[0]):], &n
	}
	if !isError {
		zero := 0
		return text, &zero
	}
	return text, nil
}

// TruncatedNote tells the user that the output shown is cut, how big it
// was and where Claude Code saved all of it (the reference adapter's
// words); "" when it is whole.
func (r *BashResult) TruncatedNote() string {
	if r.PersistedOutputPath == "" {
		return ""
	}
	size := ""
	if r.PersistedOutputSize > 0 {
		size = " (" + strconv.FormatInt(r.PersistedOutputSize, 10) + " bytes total)"
	}
	return "[Output truncated" + size + ": full output saved to " + r.PersistedOutputPath + "]"
}

var bashResultNames = []string{"stdout", "stderr", "interrupted", "backgroundTaskId", "persistedOutputPath", "persistedOutputSize"}

// DecodeBash decodes a Bash call's structured result as encoding/json
// does (into a struct of the first three members, and one of the fourth,
// each on its own). A plain object is decoded by jsonfast in one pass;
// anything else by encoding/json (TestToolJSONFastPaths). b is a CLI
// frame's or record's own copy, never changed: strings share it.
func DecodeBash(b []byte) BashResult { return DecodeBashLike(b, nil, "") }

// DecodeBashLike is DecodeBash for a result whose stdout is usually the
// tool result's text: text, decoded from the JSON string bytes textRaw
// (between the quotes), is taken as stdout when stdout's bytes are the
// same, instead of decoding a long output a second time.
func DecodeBashLike(b, textRaw []byte, text string) BashResult {
	var d jsonfast.Dec
	d.ResetShared(b)
	if d.Kind() == '{' {
		var r BashResult
		d.Object()
		d.Members(bashResultNames, func(i int) {
			switch i {
			case 0:
				r.Stdout, _ = d.StrLike(textRaw, text)
			case 1:
				r.Stderr, _ = d.Str()
			case 2:
				r.Interrupted = d.Bool()
			case 3:
				r.BackgroundTaskID, _ = d.Str()
			case 4:
				r.PersistedOutputPath, _ = d.Str()
			case 5:
				r.PersistedOutputSize, _ = d.Int()
			}
		})
		if d.End() {
			r.ok = true
			return r
		}
	}
	var out struct {
		Stdout      string `json:"stdout"`
		Stderr      string `json:"stderr"`
		Interrupted bool   `json:"interrupted"`
	}
	var bg struct {
		BackgroundTaskID string `json:"backgroundTaskId"`
	}
	var persisted struct {
		Path string `json:"persistedOutputPath"`
		Size int64  `json:"persistedOutputSize"`
	}
	ok := json.Unmarshal(b, &out) == nil
	_ = json.Unmarshal(b, &bg)
	_ = json.Unmarshal(b, &persisted)
	return BashResult{Stdout: out.Stdout, Stderr: out.Stderr, Interrupted: out.Interrupted, BackgroundTaskID: bg.BackgroundTaskID,
		PersistedOutputPath: persisted.Path, PersistedOutputSize: persisted.Size, ok: ok}
}

// FenceLang guesses a code fence language from a file name.
func FenceLang(path string) string {
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

func Itoa(n int) string { return strconv.Itoa(n) }
