package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ErrInvalidCursor reports a cursor List did not make.
var ErrInvalidCursor = errors.New("transcript: unknown list cursor")

// DefaultPageSize is the page size of List when Filter.Limit is 0; it is the
// adapter's session/list page size.
const DefaultPageSize = 1000

// liteReadSize is how much of each end of a file List reads.
const liteReadSize = 64 << 10

// SessionInfo is one row of List.
type SessionInfo struct {
	SessionID string
	Cwd       string
	Title     string
	// UpdatedAt is the file's modification time. The CLI appends to the
	// transcript on every change, so the mtime is the last activity, and it
	// costs a stat instead of reading the file's tail; it is also what the
	// SDK's listing sorts by.
	UpdatedAt time.Time
	Path      string
}

// Filter selects and pages List results.
type Filter struct {
	// Cwd limits the listing to sessions stored for this working directory
	// (see FindProjectDir). Empty lists every project.
	Cwd string
	// Cursor continues from a previous Page.NextCursor; empty starts over.
	Cursor string
	// Limit is the page size; 0 means DefaultPageSize.
	Limit int
}

// Page is one page of List.
type Page struct {
	Sessions []SessionInfo
	// NextCursor is non-empty when more sessions follow.
	NextCursor string
}

// cursor formats are "offset:<n>", the form the adapter's session/list uses.
const cursorPrefix = "offset:"

// ParseCursor returns the offset in a cursor made by List; "" is 0.
func ParseCursor(c string) (int, error) {
	if c == "" {
		return 0, nil
	}
	rest, ok := strings.CutPrefix(c, cursorPrefix)
	n, err := strconv.Atoi(rest)
	if !ok || err != nil || n < 0 || strconv.Itoa(n) != rest {
		return 0, fmt.Errorf("%w: %q", ErrInvalidCursor, c)
	}
	return n, nil
}

// FormatCursor returns the cursor for an offset.
func FormatCursor(offset int) string { return cursorPrefix + strconv.Itoa(offset) }

// List returns sessions newest first (by UpdatedAt, then id). It stats every
// transcript in scope but reads only the head and tail (64 KiB each) of the
// files it needs to fill the page, so its cost does not grow with the size of
// the transcripts. Sessions without a cwd or a title, and subagent
// transcripts, are left out, as the adapter does.
func List(configDir string, f Filter) (Page, error) {
	offset, err := ParseCursor(f.Cursor)
	if err != nil {
		return Page{}, err
	}
	limit := f.Limit
	if limit <= 0 {
		limit = DefaultPageSize
	}
	var dirs []string
	if f.Cwd != "" {
		if d := FindProjectDir(configDir, f.Cwd); d != "" {
			dirs = append(dirs, d)
		}
	} else {
		entries, err := os.ReadDir(ProjectsDir(configDir))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return Page{}, fmt.Errorf("transcript: reading projects directory: %w", err)
		}
		for _, e := range entries {
			if e.IsDir() {
				dirs = append(dirs, filepath.Join(ProjectsDir(configDir), e.Name()))
			}
		}
	}
	cands := candidates(dirs)
	var page Page
	valid := 0
	for _, c := range cands {
		info, ok := readLite(c)
		if !ok {
			continue
		}
		if info.Cwd == "" {
			info.Cwd = f.Cwd
		}
		if info.Cwd == "" {
			continue
		}
		if valid >= offset+limit {
			page.NextCursor = FormatCursor(offset + limit)
			break
		}
		if valid >= offset {
			page.Sessions = append(page.Sessions, info)
		}
		valid++
	}
	return page, nil
}

// candidate is a transcript file found by List.
type candidate struct {
	id    string
	path  string
	mtime time.Time
	size  int64
}

// candidates stats the transcripts in dirs, keeps the newest copy of each
// session, and sorts them newest first.
func candidates(dirs []string) []candidate {
	byID := make(map[string]candidate)
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range entries {
			id, ok := strings.CutSuffix(e.Name(), ".jsonl")
			if !ok || !ValidSessionID(id) || !e.Type().IsRegular() {
				continue
			}
			fi, err := e.Info()
			if err != nil {
				continue
			}
			c := candidate{id: id, path: filepath.Join(d, e.Name()), mtime: fi.ModTime(), size: fi.Size()}
			if old, ok := byID[id]; !ok || c.mtime.After(old.mtime) {
				byID[id] = c
			}
		}
	}
	out := make([]candidate, 0, len(byID))
	for _, c := range byID {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b candidate) int {
		if c := b.mtime.Compare(a.mtime); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	return out
}

// Describe is List's row for one transcript file: its title and last
// update, read from its head and tail. It reports false for what List
// would leave out.
func Describe(path string) (SessionInfo, bool) {
	fi, err := os.Stat(path)
	id, ok := strings.CutSuffix(filepath.Base(path), ".jsonl")
	if err != nil || !ok || !fi.Mode().IsRegular() {
		return SessionInfo{}, false
	}
	return readLite(candidate{id: id, path: path, mtime: fi.ModTime(), size: fi.Size()})
}

// readLite builds a row from the head and tail of a transcript. It reports
// false for unreadable files, subagent transcripts and files with nothing to
// title them.
func readLite(c candidate) (SessionInfo, bool) {
	f, err := os.Open(c.path)
	if err != nil {
		return SessionInfo{}, false
	}
	defer f.Close()
	row, ok := liteRow(f, c.size)
	if !ok {
		return SessionInfo{}, false
	}
	return SessionInfo{SessionID: c.id, Cwd: row.cwd, Title: row.title, UpdatedAt: c.mtime, Path: c.path}, true
}

// lite is what the head and tail of a transcript say.
type lite struct{ cwd, title string }

// liteRow reads the head and tail (liteReadSize each) of the size bytes of
// ra. It reports false as readLite does.
func liteRow(ra io.ReaderAt, size int64) (lite, bool) {
	head := make([]byte, min(size, liteReadSize))
	n, err := ra.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return lite{}, false
	}
	head = head[:n]
	if len(head) == 0 {
		return lite{}, false
	}
	tail := head
	tailCut := false
	if size > liteReadSize {
		// One byte more than the tail, so that a tail starting exactly at a
		// line start still sees the newline before it.
		tail = make([]byte, liteReadSize+1)
		n, err := ra.ReadAt(tail, size-liteReadSize-1)
		if err != nil && !errors.Is(err, io.EOF) {
			return lite{}, false
		}
		tail = tail[:n]
		tailCut = true
	}

	var h, t liteFields
	var s scanner
	firstLine := true
	sidechain := false
	eachLine(head, false, func(line []byte) {
		s.reset()
		s.feed(line)
		if !s.valid() {
			return
		}
		if firstLine {
			firstLine = false
			sidechain = s.isTrue(fIsSidechain)
		}
		h.take(&s, line, true)
	})
	if sidechain {
		return lite{}, false
	}
	// A fork's records copied from its source end somewhere: if the head
	// has some, everything in the tail after the last copied line the tail
	// holds is the fork's own.
	t.inherited = h.inherited
	eachLine(tail, tailCut, func(line []byte) {
		s.reset()
		s.feed(line)
		if s.valid() {
			t.take(&s, line, false)
		}
	})
	first := h.firstPrompt
	if first == "" {
		first = h.command
	}
	cwd := h.cwd
	if size > liteReadSize {
		// A record longer than the head, the first prompt's, hides what
		// the head should have given (listcut.go).
		if first == "" && head[len(head)-1] != '\n' {
			first = cutPrompt(head[bytes.LastIndexByte(head, '\n')+1:])
		}
		if cwd == "" {
			if cwd = lastCwd(tail); cwd == "" {
				cwd = cwdBefore(ra, int64(len(head)), size-int64(len(tail)))
			}
		}
	}
	custom, ai := or(t.customTitle, h.customTitle), or(t.aiTitle, h.aiTitle)
	title := pickTitle(custom, ai, t.lastPrompt, t.summary, first)
	if h.inherited || t.inherited {
		own := t.own // the copy reaches into the tail: the fork's own prompts follow it there
		if !t.inheritedHere && pickTitle(custom, ai, "", "", "") == "" {
			own = ownFirstPrompt(ra, size) // fork.go
		}
		title = forkTitle(custom, ai, own, title)
	}
	if title == "" {
		return lite{}, false
	}
	return lite{cwd: cwd, title: title}, true
}

// forkTitle is the title of a fork: the name the user or Claude Code gave
// it, else its own first prompt, else (it has none yet) the title its
// copy of the source gives, marked as a fork. The CLI started with
// --fork-session keeps writing the source's last prompt as the fork's,
// which would otherwise title it.
func forkTitle(custom, ai, own, source string) string {
	if t := pickTitle(custom, ai, own, "", ""); t != "" {
		return t
	}
	if source == "" {
		return ""
	}
	return source + " (fork)"
}
func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// liteFields collects title inputs from a run of lines; later lines win
// except for cwd and the first prompt.
type liteFields struct {
	cwd, customTitle, aiTitle, lastPrompt, summary string
	firstPrompt, command                           string
	// A fork's copied lines (inherited, fork.go): inherited is set once
	// one was seen, inheritedHere once one of these lines was (the tail
	// starts with the head's inherited); own is the first prompt after
	// the last of them here, looked for in the tail only.
	inherited, inheritedHere bool
	own                      string
}

// take reads one valid line. With first (the head), user lines are
// decoded to find the first prompt; otherwise (the tail), after a fork's
// copied lines, to find its own.
func (l *liteFields) take(s *scanner, line []byte, first bool) {
	if l.cwd == "" {
		l.cwd = s.text(fCwd)
	}
	t := &s.vals[fType]
	switch {
	case t.is(TypeUser):
		wantFirst := first && l.firstPrompt == ""
		wantOwn := !first && l.inheritedHere && l.own == ""
		if !wantFirst && !wantOwn || s.isTrue(fIsMeta) || s.isTrue(fIsCompactSummary) || s.isTrue(fIsSidechain) {
			return
		}
		rec, err := decodeRecord(line)
		if err != nil {
			return
		}
		p, cmd := firstPrompt(rec)
		if wantOwn {
			l.own = p
		}
		if wantFirst {
			l.firstPrompt = p
			if l.command == "" {
				l.command = cmd
			}
		}
	case t.is(TypeAssistant):
		if inherited(s) {
			l.inherited, l.inheritedHere, l.own = true, true, ""
		}
	case t.is(TypeSystem), t.is(TypeAttachment), t.is("progress"):
	default:
		if v := s.text(fCustomTitle); v != "" {
			l.customTitle = v
		}
		if v := s.text(fAITitle); v != "" {
			l.aiTitle = v
		}
		if v := s.text(fLastPrompt); v != "" {
			l.lastPrompt = v
		}
		if v := s.text(fSummary); v != "" {
			l.summary = v
		}
	}
}

// eachLine calls fn for each complete line of buf. The last piece is
// passed too (it fails to scan if it is cut); with skipFirst the first piece
// is dropped, because a tail read starts mid-line.
func eachLine(buf []byte, skipFirst bool, fn func([]byte)) {
	if skipFirst {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			return
		}
		buf = buf[i+1:]
	}
	for len(buf) > 0 {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			fn(buf)
			return
		}
		fn(buf[:i])
		buf = buf[i+1:]
	}
}
