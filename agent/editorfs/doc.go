// Package editorfs gives Claude Code file tools that read and write
// through the editor: ACP's fs/read_text_file and fs/write_text_file, so
// that Claude reads what the user sees (an unsaved buffer included) and
// its edits land in the editor's buffers, review and undo instead of
// changing files under the editor's feet.
//
// Claude Code's own Read, Write, Edit and NotebookEdit cannot be pointed
// at the editor, so a session that opts in disallows them and gets these
// in their place, served as an MCP server of the agent's own (see
// claude/sdkmcp). They keep the built-ins' names, input shapes, behaviour
// and texts, as observed on Claude Code 2.1.332, because Claude Code's
// prompts and Claude's habits rely on them:
//
//   - Read: numbered lines ("N\t…") from the editor's text, offset and
//     limit, the 256 KB limit and allow_large, the empty-file and
//     past-the-end reminders; images, PDFs, binary files and directories
//     from the disk, which the editor's text API cannot serve; notebooks
//     as cells.
//   - Write, Edit (exact match, uniqueness, replace_all, CRLF kept, an
//     empty old_string creating a file), MultiEdit and NotebookEdit: the
//     new whole text computed from the editor's buffer and written with
//     one fs/write_text_file; the stale-read rule (a file changed since
//     Claude read it must be read again); the same error texts.
//
// Each result carries, in its _meta under [ResultMetaKey], the structured
// result Claude Code's own tool would have reported (the CLI keeps it as
// the tool_use_result and never shows it to the model), so that the agent
// shows these calls exactly as it shows the built-ins, live and after
// session/load.
//
// [Decide] is the permission side: Claude Code applies its modes and
// rules to its built-in file tools, not to an MCP tool, so the agent asks
// Decide, given the CLI's own rules (list_permission_rules), and answers
// the CLI's PreToolUse hook with it. Its table is the built-ins' as
// observed (TestDecideMatchesBuiltins checks it against the real CLI).
//
// The package knows nothing of ACP or of the CLI: the editor is an [FS].
package editorfs
