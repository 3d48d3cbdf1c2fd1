package editorfs

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/toolview"
)

// WriteInput is the built-in Write's input.
type WriteInput struct {
	FilePath string `json:"file_path"`
	Content  string `json:"content"`
}

// EditInput is the built-in Edit's input.
type EditInput struct {
	FilePath   string `json:"file_path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all,omitempty"`
}

// MultiEditInput is the input of MultiEdit, which older Claude Codes have.
type MultiEditInput struct {
	FilePath string     `json:"file_path"`
	Edits    []EditStep `json:"edits"`
}

// EditStep is one replacement of a MultiEdit.
type EditStep struct {
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all,omitempty"`
}

// Write replaces a file's text in the editor.
func (t *Tools) Write(ctx context.Context, in WriteInput) (Result, error) {
	if in.FilePath == "" {
		return toolError("InputValidationError: Write failed due to the following issue:\nThe required parameter `file_path` is missing"), nil
	}
	path := t.Path(in.FilePath)
	old, err := t.current(ctx, path)
	exists := err == nil
	switch {
	case errors.Is(err, errMissing):
	case ctx.Err() != nil:
		return Result{}, ctx.Err()
	case err != nil:
		return editorFailed("read", path, err), nil
	}
	if exists && t.stale(path, old) {
		return toolError("File has been modified since read, either by the user or by a linter. Read it again before attempting to write it."), nil
	}
	if err := t.fs.WriteTextFile(ctx, path, in.Content); err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return editorFailed("write", path, err), nil
	}
	t.saw(path, in.Content)
	structured := map[string]any{
		"type": "create", "filePath": in.FilePath, "content": in.Content,
		"structuredPatch": []toolview.PatchHunk{}, "originalFile": nil, "userModified": false,
	}
	if !exists {
		return Result{Text: "File created successfully at: " + in.FilePath + fileStateSuffix, Structured: structured}, nil
	}
	old = strings.ReplaceAll(old, "\r\n", "\n") // as Claude read it
	structured["type"], structured["originalFile"] = "update", old
	structured["structuredPatch"] = toolview.StructuredPatch(old, in.Content)
	return Result{Text: "The file " + in.FilePath + " has been updated successfully." + fileStateSuffix, Structured: structured}, nil
}

// Edit replaces old_string by new_string in the editor's text of a file.
func (t *Tools) Edit(ctx context.Context, in EditInput) (Result, error) {
	if in.FilePath == "" {
		return toolError("InputValidationError: Edit failed due to the following issue:\nThe required parameter `file_path` is missing"), nil
	}
	steps := []EditStep{{OldString: in.OldString, NewString: in.NewString, ReplaceAll: in.ReplaceAll}}
	res, err := t.edit(ctx, in.FilePath, steps)
	if err != nil || res.IsError {
		return res, err
	}
	if m, ok := res.Structured.(map[string]any); ok {
		m["oldString"], m["newString"], m["replaceAll"] = in.OldString, in.NewString, in.ReplaceAll
	}
	return res, nil
}

// MultiEdit applies several replacements to one file, in order, all or
// none.
func (t *Tools) MultiEdit(ctx context.Context, in MultiEditInput) (Result, error) {
	if in.FilePath == "" {
		return toolError("InputValidationError: MultiEdit failed due to the following issue:\nThe required parameter `file_path` is missing"), nil
	}
	if len(in.Edits) == 0 {
		return toolError("InputValidationError: MultiEdit failed due to the following issue:\nThe parameter `edits` must hold at least one edit"), nil
	}
	res, err := t.edit(ctx, in.FilePath, in.Edits)
	if err != nil || res.IsError {
		return res, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Applied %d edit", len(in.Edits))
	if len(in.Edits) > 1 {
		b.WriteString("s")
	}
	fmt.Fprintf(&b, " to %s:", in.FilePath)
	for i, e := range in.Edits {
		fmt.Fprintf(&b, "\n%d. Replaced %q with %q", i+1, e.OldString, e.NewString)
	}
	res.Text = b.String()
	if m, ok := res.Structured.(map[string]any); ok {
		m["edits"] = in.Edits
	}
	return res, nil
}

// edit applies steps to the editor's text of file and writes the result.
func (t *Tools) edit(ctx context.Context, file string, steps []EditStep) (Result, error) {
	for _, s := range steps {
		if s.OldString == s.NewString {
			return toolError("No changes to make: old_string and new_string are exactly the same."), nil
		}
	}
	path := t.Path(file)
	old, err := t.current(ctx, path)
	exists := err == nil
	switch {
	case errors.Is(err, errMissing):
		if steps[0].OldString != "" {
			return toolError("File does not exist. Note: your current working directory is %s.", t.cwd), nil
		}
	case ctx.Err() != nil:
		return Result{}, ctx.Err()
	case err != nil:
		return editorFailed("read", path, err), nil
	}
	if exists && steps[0].OldString == "" && old != "" {
		return toolError("Cannot create new file - file already exists."), nil
	}
	_, known := t.seen(path)
	if exists && t.stale(path, old) {
		return failed(staleText), nil
	}
	// Claude sees lines ending in "\n" (Read shows no "\r"): match on
	// that, and give the file its CRLF endings back.
	crlf := strings.Contains(old, "\r\n")
	lf := func(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }
	before := lf(old)
	next := before
	for _, s := range steps {
		o, n := lf(s.OldString), lf(s.NewString)
		if o == "" {
			next = n
			continue
		}
		switch c := strings.Count(next, o); {
		case c == 0:
			return toolError("String to replace not found in file.\nString: %s", s.OldString), nil
		case c > 1 && !s.ReplaceAll:
			return toolError("Found %d matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: %s", c, s.OldString), nil
		case s.ReplaceAll:
			next = strings.ReplaceAll(next, o, n)
		default:
			next = strings.Replace(next, o, n, 1)
		}
	}
	text := next
	if crlf {
		text = strings.ReplaceAll(next, "\n", "\r\n")
	}
	if err := t.fs.WriteTextFile(ctx, path, text); err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return editorFailed("write", path, err), nil
	}
	t.saw(path, text)
	msg := "The file " + file + " has been updated successfully."
	if len(steps) == 1 && steps[0].ReplaceAll {
		msg = "The file " + file + " has been updated. All occurrences were successfully replaced."
	}
	if known || !exists {
		msg += fileStateSuffix
	}
	return Result{Text: msg, Structured: map[string]any{
		"filePath": file, "originalFile": lf(old), "structuredPatch": toolview.StructuredPatch(before, next),
		"userModified": false,
	}}, nil
}
