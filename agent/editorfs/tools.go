package editorfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// FS is the editor's file system, as an ACP client offers it. Paths are
// absolute.
type FS interface {
	// ReadTextFile returns the text of path as the editor has it: an
	// unsaved buffer's contents, else the file's.
	ReadTextFile(ctx context.Context, path string) (string, error)
	// WriteTextFile replaces the text of path (creating the file) in the
	// editor.
	WriteTextFile(ctx context.Context, path, content string) error
}

// Tools are the file tools of one session. Their methods are safe for
// concurrent use: the CLI runs a turn's parallel calls at once.
type Tools struct {
	fs  FS
	cwd string
	// files is what Claude has seen of each file (the stale-read rule).
	mu    sync.Mutex
	files map[string]string
	// refusals are the calls permission was refused to, by tool use id
	// (Refuse).
	refusals map[string]string
}

// New returns the tools of a session whose directory is cwd (relative
// paths are resolved against it, as Claude Code does).
func New(editor FS, cwd string) *Tools {
	return &Tools{fs: editor, cwd: cwd, files: map[string]string{}, refusals: map[string]string{}}
}

// Refuse makes the call toolUseID fail with reason, the text Claude reads
// (a [Decision]'s). Denying the call from the CLI's PreToolUse hook
// instead would give Claude the reason behind "PreToolUse:… hook error:",
// which is not what Claude Code's own tool says; so the agent lets such a
// call through and it fails here, with the built-in's words.
func (t *Tools) Refuse(toolUseID, reason string) {
	t.mu.Lock()
	t.refusals[toolUseID] = reason
	t.mu.Unlock()
}

// Refused reports whether permission was refused to toolUseID.
func (t *Tools) Refused(toolUseID string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.refusals[toolUseID]
	return ok
}

// refused takes the refusal of toolUseID, if any.
func (t *Tools) refused(toolUseID string) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r, ok := t.refusals[toolUseID]
	delete(t.refusals, toolUseID)
	return r, ok
}

// A Result is what a tool call gives back: Text for the model (or an
// Image), IsError, and Structured, the result Claude Code's own tool would
// have reported, for the agent's view of the call.
type Result struct {
	Text       string
	Image      *Image
	PDF        []byte
	IsError    bool
	Structured any
}

// An Image read from the disk.
type Image struct {
	Data     []byte
	MIMEType string
}

// Texts Claude Code's tools use where Claude relies on them.
const (
	fileStateSuffix = " (file state is current in your context — no need to Read it back)"
	staleText       = "File content has changed since it was last read. This commonly happens when a linter or formatter run via Bash rewrites the file. Call Read on this file to refresh, then retry the edit."
)

// toolError is a validation error as Claude Code words it to the model.
func toolError(format string, args ...any) Result {
	return Result{Text: "<tool_use_error>" + fmt.Sprintf(format, args...) + "</tool_use_error>", IsError: true}
}

// failed is an error Claude Code reports without the tag (I/O errors).
func failed(format string, args ...any) Result {
	return Result{Text: fmt.Sprintf(format, args...), IsError: true}
}

// Path resolves a tool's path argument the way Claude Code does: relative
// to the session's directory, cleaned.
func (t *Tools) Path(p string) string {
	if p == "" {
		return ""
	}
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(t.cwd, p)
	}
	return filepath.Clean(p)
}

func (t *Tools) missing() Result {
	return failed("File does not exist. Note: your current working directory is %s.", t.cwd)
}

// saw records the text of path as Claude now knows it.
func (t *Tools) saw(path, text string) {
	t.mu.Lock()
	t.files[path] = text
	t.mu.Unlock()
}

// seen returns the text of path as Claude last saw it.
func (t *Tools) seen(path string) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.files[path]
	return s, ok
}

// Seen returns the text of path as Claude last read or wrote it through
// these tools, for a preview of its next edit.
func (t *Tools) Seen(path string) (string, bool) { return t.seen(path) }

// errMissing marks a file that neither the editor nor the disk has.
var errMissing = errors.New("file does not exist")

// current returns the editor's text of path. A file the editor cannot
// give and the disk does not have is errMissing; any other failure of the
// editor is an error with its message. A cancelled ctx is returned as is.
func (t *Tools) current(ctx context.Context, path string) (string, error) {
	text, err := t.fs.ReadTextFile(ctx, path)
	if err == nil {
		return text, nil
	}
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	if _, serr := os.Stat(path); errors.Is(serr, fs.ErrNotExist) {
		return "", errMissing
	}
	return "", err
}

// editorFailed is what Claude is told when the editor refused a read or a
// write: the editor's own message, which says why (a read-only buffer, a
// path outside the project).
func editorFailed(verb, path string, err error) Result {
	return failed("The editor could not %s %s: %v", verb, path, err)
}

// stale reports whether path changed since Claude last saw it.
func (t *Tools) stale(path, text string) bool {
	seen, ok := t.seen(path)
	return ok && seen != text
}
