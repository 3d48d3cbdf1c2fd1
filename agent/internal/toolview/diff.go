package toolview

import (
	"encoding/json"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/jsonfast"
)

// Edit review: the diffs an editor shows for Edit, MultiEdit and Write.
//
// Before the tool runs (at the call and in the permission request) the
// diff is a preview: the file as it is on disk against the file with the
// input applied in memory, cut into hunks with a few lines of context, so
// the editor shows exactly what will change and where. After the tool ran,
// the CLI's own structuredPatch gives the final hunks. When the preview
// cannot be computed (file too big, not UTF-8, old_string not found) the
// diff falls back to the input itself (old_string → new_string).

const (
	diffContext     = 3       // lines of context around each hunk
	maxPreviewBytes = 1 << 20 // larger files get the input-only diff
	maxDiffEdits    = 1000    // beyond this many changed lines: one hunk
)

// Hunk is one changed region of a file with its context. Starts are
// 1-based line numbers.
type Hunk struct {
	oldStart, newStart int
	old, new           []string
}

// FileDiff returns the per-hunk diff content for a change of path from
// old to new, and a location per hunk so the editor can follow. isNew
// marks a file that does not exist yet (oldText null).
func FileDiff(path, old, new string, isNew bool) ([]acp.ToolCallContent, []acp.ToolCallLocation) {
	if isNew {
		return []acp.ToolCallContent{diffContent(path, nil, new)},
			[]acp.ToolCallLocation{{Path: path, Line: acp.Some(uint32(1))}}
	}
	return HunksContent(path, lineHunks(splitLines(old), splitLines(new)))
}

func HunksContent(path string, hs []Hunk) ([]acp.ToolCallContent, []acp.ToolCallLocation) {
	var content []acp.ToolCallContent
	var locs []acp.ToolCallLocation
	for _, h := range hs {
		old := strings.Join(h.old, "\n")
		content = append(content, diffContent(path, &old, strings.Join(h.new, "\n")))
		line := max(h.newStart, 1)
		locs = append(locs, acp.ToolCallLocation{Path: path, Line: acp.Some(uint32(line))})
	}
	return content, locs
}

func diffContent(path string, old *string, new string) acp.ToolCallContent {
	d := &acp.Diff{Path: path, NewText: new}
	if old != nil {
		d.OldText = acp.Some(*old)
	}
	return acp.ToolCallContent{Diff: d}
}

// splitLines splits text into lines without their line breaks; a final
// line break does not start another line.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// lineHunks diffs two line slices and groups the changes into hunks.
func lineHunks(a, b []string) []Hunk {
	ops := editScript(a, b)
	if ops == nil {
		return nil
	}
	return groupHunks(ops, a, b)
}

// editScript diffs two line slices: common prefix and suffix first, then
// Myers' algorithm on the middle. Nil when they are equal.
func editScript(a, b []string) []editOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	if pre == len(a) && pre == len(b) {
		return nil
	}
	ops := make([]editOp, 0, len(a)+len(b))
	for i := 0; i < pre; i++ {
		ops = append(ops, editOp{kind: opSame, a: i, b: i})
	}
	for _, op := range myers(a[pre:len(a)-suf], b[pre:len(b)-suf]) {
		op.a += pre
		op.b += pre
		ops = append(ops, op)
	}
	for i := 0; i < suf; i++ {
		ops = append(ops, editOp{kind: opSame, a: len(a) - suf + i, b: len(b) - suf + i})
	}
	return ops
}

type opKind int

const (
	opSame opKind = iota
	opDel
	opIns
)

// editOp is one step of an edit script: a line kept (a and b set), deleted
// from a, or inserted from b.
type editOp struct {
	kind opKind
	a, b int
}

// myers returns an edit script turning a into b (Myers' O(ND) algorithm,
// keeping for each step only the diagonals it reached). Past maxDiffEdits
// differences it gives up and replaces all of a with all of b, which is
// still a correct, if coarse, diff.
func myers(a, b []string) []editOp {
	n, m := len(a), len(b)
	maxD := min(n+m, maxDiffEdits)
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int // trace[d][k+d+1] = v[k] before step d
	for d := 0; d <= maxD; d++ {
		trace = append(trace, append([]int(nil), v[off-d-1:off+d+2]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, d, n, m)
			}
		}
	}
	ops := make([]editOp, 0, n+m)
	for i := range n {
		ops = append(ops, editOp{kind: opDel, a: i})
	}
	for j := range m {
		ops = append(ops, editOp{kind: opIns, a: n, b: j})
	}
	return ops
}

func backtrack(trace [][]int, d, n, m int) []editOp {
	var rev []editOp
	x, y := n, m
	for ; d > 0; d-- {
		v := trace[d]
		at := func(k int) int { return v[k+d+1] }
		k := x - y
		pk := k - 1
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		}
		px := at(pk)
		py := px - pk
		for x > px && y > py {
			x, y = x-1, y-1
			rev = append(rev, editOp{kind: opSame, a: x, b: y})
		}
		if x == px {
			y--
			rev = append(rev, editOp{kind: opIns, a: x, b: y})
		} else {
			x--
			rev = append(rev, editOp{kind: opDel, a: x, b: y})
		}
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		rev = append(rev, editOp{kind: opSame, a: x, b: y})
	}
	ops := make([]editOp, len(rev))
	for i, op := range rev {
		ops[len(rev)-1-i] = op
	}
	return ops
}

// groupHunks cuts an edit script into hunks with diffContext lines of
// context, merging changes whose contexts touch.
func groupHunks(ops []editOp, a, b []string) []Hunk {
	var out []Hunk
	for _, span := range hunkSpans(ops) {
		h := Hunk{oldStart: -1, newStart: -1}
		for _, op := range ops[span[0]:span[1]] {
			if h.oldStart < 0 {
				h.oldStart, h.newStart = op.a+1, op.b+1
			}
			switch op.kind {
			case opSame:
				h.old = append(h.old, a[op.a])
				h.new = append(h.new, b[op.b])
			case opDel:
				h.old = append(h.old, a[op.a])
			case opIns:
				h.new = append(h.new, b[op.b])
			}
		}
		out = append(out, h)
	}
	return out
}

// hunkSpans returns the [start, end) ranges of ops that make one hunk
// each: the changes with diffContext lines of context, merging changes
// whose contexts touch.
func hunkSpans(ops []editOp) [][2]int {
	var out [][2]int
	i := 0
	for i < len(ops) {
		for i < len(ops) && ops[i].kind == opSame {
			i++
		}
		if i == len(ops) {
			break
		}
		start := max(i-diffContext, 0)
		end := i
		for end < len(ops) {
			if ops[end].kind != opSame {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == opSame {
				run++
			}
			if run == len(ops) || run-end > 2*diffContext {
				end = min(end+diffContext, run)
				break
			}
			end = run
		}
		out = append(out, [2]int{start, end})
		i = end
	}
	return out
}

// patchHunk is one hunk of the CLI's structuredPatch (a jsdiff hunk).
type patchHunk struct {
	OldStart int      `json:"oldStart"`
	NewStart int      `json:"newStart"`
	Lines    []string `json:"lines"`
}

// PatchHunks turns a structuredPatch into hunks; lines start with ' ', '-'
// or '+' (and '\' for "no newline at end of file", which is skipped).
func PatchHunks(raw json.RawMessage) ([]Hunk, bool) {
	ph, ok := patchFast(raw)
	if !ok && json.Unmarshal(raw, &ph) != nil {
		return nil, false
	}
	return hunksOf(ph)
}

// hunksOf is PatchHunks for a decoded structuredPatch.
func hunksOf(ph []patchHunk) ([]Hunk, bool) {
	if len(ph) == 0 {
		return nil, false
	}
	out := make([]Hunk, 0, len(ph))
	for _, p := range ph {
		h := Hunk{oldStart: p.OldStart, newStart: p.NewStart, old: []string{}, new: []string{}}
		for _, l := range p.Lines {
			if l == "" {
				continue
			}
			switch l[0] {
			case ' ':
				h.old = append(h.old, l[1:])
				h.new = append(h.new, l[1:])
			case '-':
				h.old = append(h.old, l[1:])
			case '+':
				h.new = append(h.new, l[1:])
			}
		}
		out = append(out, h)
	}
	return out, true
}

// ReadText reads a file for a preview: its text, whether it exists, and
// whether it could be used (small enough, valid UTF-8).
func ReadText(path string) (text string, exists, ok bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", false, os.IsNotExist(err)
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxPreviewBytes {
		return "", true, false
	}
	b, err := os.ReadFile(path)
	if err != nil || !utf8.Valid(b) {
		return "", true, false
	}
	return string(b), true, true
}

// EditPreview computes the diff an Edit, MultiEdit or Write would make,
// from the file on disk. ok is false when the preview cannot be trusted
// (the caller then shows the input-only diff).
func EditPreview(name, path string, in map[string]any) (content []acp.ToolCallContent, locs []acp.ToolCallLocation, ok bool) {
	return editPreview(name, path, in, ReadText)
}

func editPreview(name, path string, in map[string]any, read func(string) (string, bool, bool)) (content []acp.ToolCallContent, locs []acp.ToolCallLocation, ok bool) {
	if path == "" {
		return nil, nil, false
	}
	old, exists, readable := read(path)
	if !readable {
		return nil, nil, false
	}
	var next string
	switch name {
	case "Write":
		c, isStr := in["content"].(string)
		if !isStr {
			return nil, nil, false
		}
		next = c
	case "Edit":
		var good bool
		next, good = applyEdit(old, exists, in)
		if !good {
			return nil, nil, false
		}
	case "MultiEdit":
		edits, _ := in["edits"].([]any)
		if len(edits) == 0 {
			return nil, nil, false
		}
		next = old
		for i, e := range edits {
			em, _ := e.(map[string]any)
			var good bool
			next, good = applyEdit(next, exists || i > 0, em)
			if !good {
				return nil, nil, false
			}
		}
	default:
		return nil, nil, false
	}
	if exists && next == old {
		return nil, nil, false
	}
	content, locs = FileDiff(path, old, next, !exists)
	return content, locs, len(content) > 0
}

// applyEdit applies one old_string → new_string replacement the way the
// Edit tool does: the old string must occur exactly once unless
// replace_all is set; an empty old string creates a new file.
func applyEdit(text string, exists bool, in map[string]any) (string, bool) {
	oldS, ok1 := in["old_string"].(string)
	newS, ok2 := in["new_string"].(string)
	if !ok1 || !ok2 {
		return "", false
	}
	if oldS == "" {
		if exists && text != "" {
			return "", false
		}
		return newS, true
	}
	n := strings.Count(text, oldS)
	all, _ := in["replace_all"].(bool)
	switch {
	case n == 0, n > 1 && !all:
		return "", false
	case all:
		return strings.ReplaceAll(text, oldS, newS), true
	}
	return strings.Replace(text, oldS, newS, 1), true
}

// InputDiff is the fallback diff straight from the tool input.
func InputDiff(name, path string, in map[string]any) []acp.ToolCallContent {
	if path == "" {
		return nil
	}
	switch name {
	case "Write":
		c, _ := in["content"].(string)
		return []acp.ToolCallContent{diffContent(path, nil, c)}
	case "Edit":
		return []acp.ToolCallContent{editInputDiff(path, in)}
	case "MultiEdit":
		edits, _ := in["edits"].([]any)
		var out []acp.ToolCallContent
		for _, e := range edits {
			if em, ok := e.(map[string]any); ok {
				out = append(out, editInputDiff(path, em))
			}
		}
		return out
	}
	return nil
}

func editInputDiff(path string, in map[string]any) acp.ToolCallContent {
	oldS, _ := in["old_string"].(string)
	newS, _ := in["new_string"].(string)
	if oldS == "" {
		return diffContent(path, nil, newS)
	}
	return diffContent(path, &oldS, newS)
}

var patchHunkNames = []string{"oldStart", "newStart", "lines"}

// patchFast decodes a structuredPatch without reflection; ok is false when
// encoding/json must decide (anything but an array of hunks with integer
// starts and string lines, or what Members calls odd), so that both agree.
func patchFast(raw []byte) (hunks []patchHunk, ok bool) {
	var d jsonfast.Dec
	d.Reset(raw)
	hunks = []patchHunk{}
	shape := d.Elems(func() {
		var h patchHunk
		if !d.ObjectMembers(patchHunkNames, func(i int) {
			switch i {
			case 0, 1:
				n, isInt := d.Int()
				if !isInt || int64(int(n)) != n {
					d.SetOdd() // not an int: encoding/json decides
				}
				if i == 0 {
					h.OldStart = int(n)
				} else {
					h.NewStart = int(n)
				}
			case 2:
				h.Lines = []string{}
				if !d.Elems(func() {
					if d.Kind() != '"' {
						d.Skip()
						d.SetOdd()
						return
					}
					s, _ := d.Str()
					h.Lines = append(h.Lines, s)
				}) {
					d.SetOdd()
				}
			}
		}) {
			d.SetOdd()
		}
		hunks = append(hunks, h)
	})
	if !shape || !d.End() || d.Odd() {
		return nil, false
	}
	return hunks, true
}
