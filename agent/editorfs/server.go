package editorfs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ResultMetaKey is the member of a tool result's _meta that holds the
// structured result Claude Code's own tool would have reported. The CLI
// keeps a result's _meta in the tool_use_result it reports and stores
// (not in what the model reads).
const ResultMetaKey = "claude-agent-acp/toolUseResult"

// Tool names. They are Claude Code's built-in names: the CLI shows them to
// Claude as mcp__<server>__<name>.
const (
	ToolRead         = "Read"
	ToolWrite        = "Write"
	ToolEdit         = "Edit"
	ToolMultiEdit    = "MultiEdit"
	ToolNotebookEdit = "NotebookEdit"
)

// BuiltinTools are the Claude Code tools a session with these tools must
// disallow: every built-in that reads a file for Claude or writes one.
var BuiltinTools = []string{ToolRead, ToolWrite, ToolEdit, ToolMultiEdit, ToolNotebookEdit}

// DefaultTools are the tools served: Claude Code 2.1.332 has no MultiEdit
// (serve it to a CLI that has one).
var DefaultTools = []string{ToolRead, ToolWrite, ToolEdit, ToolNotebookEdit}

// MCPName is the name under which the CLI shows Claude a tool of server.
func MCPName(server, tool string) string { return "mcp__" + server + "__" + tool }

// BuiltinName is the built-in tool whose place a call named name (as
// Claude made it: mcp__<server>__Edit) takes, so that the call can be
// shown as the built-in's; ok is false for any other tool, and for every
// tool when server is "".
func BuiltinName(server, name string) (tool string, ok bool) {
	if server == "" {
		return name, false
	}
	tool, ok = strings.CutPrefix(name, MCPName(server, ""))
	if !ok || !slices.Contains(BuiltinTools, tool) {
		return name, false
	}
	return tool, true
}

// BuiltinResult is the structured result a call of these tools reported
// in its _meta (the built-in's shape), given the CLI's tool_use_result
// for it; anything else is returned as it is.
func BuiltinResult(structured json.RawMessage) json.RawMessage {
	var r struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if len(structured) == 0 || structured[0] != '{' || json.Unmarshal(structured, &r) != nil {
		return structured
	}
	if m := r.Meta[ResultMetaKey]; m != nil {
		return m
	}
	return structured
}

// Aliases map the built-ins' names to these tools, for the CLI's
// toolAliases: a call Claude makes by the built-in's name (a skill's
// instructions, a subagent's habit) runs here instead of failing as an
// unknown tool.
func Aliases(server string, tools []string) map[string]string {
	m := make(map[string]string, len(tools))
	for _, t := range tools {
		m[t] = MCPName(server, t)
	}
	return m
}

// NewServer returns an MCP server named name with the given tools (nil:
// [DefaultTools]) over t.
func NewServer(name, version string, t *Tools, tools []string) *mcp.Server {
	if tools == nil {
		tools = DefaultTools
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: name, Version: version}, &mcp.ServerOptions{
		Instructions: "These tools read and write files through the user's editor: Read shows unsaved changes, and edits go into the editor's buffers. Use them as you would Read, Write, Edit and NotebookEdit.",
	})
	for _, name := range tools {
		spec, ok := specs[name]
		if !ok {
			panic(fmt.Sprintf("editorfs: unknown tool %q", name))
		}
		srv.AddTool(&mcp.Tool{
			Name:        name,
			Description: spec.description,
			InputSchema: json.RawMessage(spec.schema),
			// Not "destructive": the CLI would then ask about every write
			// its classifier judges for the built-ins (plan and auto mode).
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: spec.readOnly, DestructiveHint: boolPtr(false), OpenWorldHint: boolPtr(false)},
			// Never deferred behind tool search: Claude needs its file
			// tools at hand, as it has the built-ins.
			Meta: mcp.Meta{"anthropic/alwaysLoad": true},
		}, handler(t, spec.run))
	}
	return srv
}

func boolPtr(b bool) *bool { return &b }

// handler decodes a call's arguments, runs the tool and encodes its
// result. A cancelled call returns the context's error.
func handler(t *Tools, run func(context.Context, *Tools, json.RawMessage) (Result, error)) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		id, _ := req.Params.Meta["claudecode/toolUseId"].(string)
		if reason, denied := t.refused(id); denied {
			return Result{Text: reason, IsError: true}.mcp(), nil
		}
		res, err := run(ctx, t, req.Params.Arguments)
		if err != nil {
			return nil, err
		}
		return res.mcp(), nil
	}
}

// mcp is the result as the CLI gets it.
func (r Result) mcp() *mcp.CallToolResult {
	out := &mcp.CallToolResult{IsError: r.IsError}
	switch {
	case r.Image != nil:
		out.Content = []mcp.Content{&mcp.ImageContent{Data: r.Image.Data, MIMEType: r.Image.MIMEType}}
	case r.PDF != nil:
		out.Content = []mcp.Content{
			&mcp.TextContent{Text: r.Text},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///document.pdf", MIMEType: "application/pdf", Blob: r.PDF}},
		}
	default:
		out.Content = []mcp.Content{&mcp.TextContent{Text: r.Text}}
	}
	if r.Structured != nil {
		out.Meta = mcp.Meta{ResultMetaKey: r.Structured}
	}
	return out
}

// decode unmarshals a call's arguments. Bad arguments are an input error
// for Claude, in Claude Code's words.
func decode[T any](tool string, raw json.RawMessage, run func(T) (Result, error)) (Result, error) {
	var in T
	if len(raw) == 0 {
		raw = json.RawMessage(`{}`)
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return toolError("InputValidationError: %s failed due to the following issue:\nThe parameter `%s` type is expected as `%s` but provided as `%s`", tool, te.Field, te.Type.Kind(), te.Value), nil
		}
		return toolError("InputValidationError: %s failed due to the following issue:\n%v", tool, err), nil
	}
	return run(in)
}

// A spec is one tool: what Claude is told and what runs.
type spec struct {
	description string
	schema      string
	readOnly    bool
	run         func(context.Context, *Tools, json.RawMessage) (Result, error)
}

var specs = map[string]spec{
	ToolRead: {
		readOnly: true,
		description: `Reads a file, as the user's editor has it: unsaved changes in an open buffer included.

- file_path must be absolute.
- The whole file is read unless you give offset (the first line, 1-based) and limit (how many lines); use them for large files.
- Lines come back numbered: the line number, a tab, then the line as it is. The number and tab are not part of the file: never put them into an edit.
- Files over 256 KB are refused unless you read a range or set allow_large.
- Images (PNG, JPG, GIF, WebP) come back as images; PDFs, notebooks (.ipynb, shown as their cells) are read too.
- Directories cannot be read (list them with a shell command). Reading a file that does not exist is an error, not a problem.
- Read several files at once when you will likely need them.`,
		schema: `{"type":"object","properties":{"file_path":{"type":"string","description":"The absolute path to the file to read"},"offset":{"type":"integer","minimum":0,"description":"The line number to start reading from. Only provide if the file is too large to read at once"},"limit":{"type":"integer","exclusiveMinimum":0,"description":"The number of lines to read. Only provide if the file is too large to read at once."},"pages":{"type":"string","description":"Page range for PDF files (e.g., \"1-5\"). Only applicable to PDF files."},"allow_large":{"type":"boolean","description":"Set to true to read a text file, or a line range of one, that is over the usual size limits. Only when you genuinely need all of it."}},"required":["file_path"],"additionalProperties":false}`,
		run: func(ctx context.Context, t *Tools, raw json.RawMessage) (Result, error) {
			return decode(ToolRead, raw, func(in ReadInput) (Result, error) { return t.Read(ctx, in) })
		},
	},
	ToolWrite: {
		description: `Writes a file through the user's editor, replacing its whole content (or creating it); the user reviews the change in the editor.

- file_path must be absolute.
- Prefer Edit for changes to an existing file: it sends only what changes. If you read the file earlier and it has changed since, read it again first.
- Do not create documentation or README files unless asked.`,
		schema: `{"type":"object","properties":{"file_path":{"type":"string","description":"The absolute path to the file to write (must be absolute, not relative)"},"content":{"type":"string","description":"The content to write to the file"}},"required":["file_path","content"],"additionalProperties":false}`,
		run: func(ctx context.Context, t *Tools, raw json.RawMessage) (Result, error) {
			return decode(ToolWrite, raw, func(in WriteInput) (Result, error) { return t.Write(ctx, in) })
		},
	},
	ToolEdit: {
		description: `Replaces exact text in a file, through the user's editor (its unsaved changes included); the user reviews the change in the editor.

- Read the file first, and copy old_string exactly as the file has it: same indentation, without Read's line numbers.
- old_string must occur exactly once, or the edit fails: give more surrounding lines to make it unique, or set replace_all to change every occurrence (renaming, for instance).
- new_string must differ from old_string. An empty old_string creates a new file with new_string.`,
		schema: `{"type":"object","properties":{"file_path":{"type":"string","description":"The absolute path to the file to modify"},"old_string":{"type":"string","description":"The text to replace"},"new_string":{"type":"string","description":"The text to replace it with (must be different from old_string)"},"replace_all":{"type":"boolean","default":false,"description":"Replace all occurrences of old_string (default false)"}},"required":["file_path","old_string","new_string"],"additionalProperties":false}`,
		run: func(ctx context.Context, t *Tools, raw json.RawMessage) (Result, error) {
			return decode(ToolEdit, raw, func(in EditInput) (Result, error) { return t.Edit(ctx, in) })
		},
	},
	ToolMultiEdit: {
		description: `Makes several exact replacements in one file at once, in order, through the user's editor: all of them or, if one fails, none. Each works as Edit's.`,
		schema:      `{"type":"object","properties":{"file_path":{"type":"string","description":"The absolute path to the file to modify"},"edits":{"type":"array","minItems":1,"items":{"type":"object","properties":{"old_string":{"type":"string"},"new_string":{"type":"string"},"replace_all":{"type":"boolean","default":false}},"required":["old_string","new_string"],"additionalProperties":false}}},"required":["file_path","edits"],"additionalProperties":false}`,
		run: func(ctx context.Context, t *Tools, raw json.RawMessage) (Result, error) {
			return decode(ToolMultiEdit, raw, func(in MultiEditInput) (Result, error) { return t.MultiEdit(ctx, in) })
		},
	},
	ToolNotebookEdit: {
		description: `Replaces, inserts or deletes one cell of a Jupyter notebook (.ipynb), through the user's editor.

- notebook_path must be absolute; cell_id names the cell (Read shows the ids).
- edit_mode: replace (default) sets the cell's source; insert adds a cell after cell_id (at the start without one) and needs cell_type; delete removes the cell.`,
		schema: `{"type":"object","properties":{"notebook_path":{"type":"string","description":"The absolute path to the Jupyter notebook file to edit (must be absolute, not relative)"},"cell_id":{"type":"string","description":"The ID of the cell to edit. When inserting a new cell, the new cell will be inserted after the cell with this ID, or at the beginning if not specified."},"new_source":{"type":"string","description":"The new source for the cell"},"cell_type":{"type":"string","enum":["code","markdown"],"description":"The type of the cell (code or markdown). If not specified, it defaults to the current cell type. If using edit_mode=insert, this is required."},"edit_mode":{"type":"string","enum":["replace","insert","delete"],"description":"The type of edit to make (replace, insert, delete). Defaults to replace."}},"required":["notebook_path","new_source"],"additionalProperties":false}`,
		run: func(ctx context.Context, t *Tools, raw json.RawMessage) (Result, error) {
			return decode(ToolNotebookEdit, raw, func(in NotebookEditInput) (Result, error) { return t.NotebookEdit(ctx, in) })
		},
	},
}
