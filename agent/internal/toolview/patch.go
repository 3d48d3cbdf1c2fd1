package toolview

// PatchHunk is one hunk of a structuredPatch, the diff Claude Code's Edit
// and Write tools report in their results (a jsdiff hunk): lines start
// with ' ' (context), '-' (removed) or '+' (added). Starts are 1-based.
type PatchHunk struct {
	OldStart int      `json:"oldStart"`
	OldLines int      `json:"oldLines"`
	NewStart int      `json:"newStart"`
	NewLines int      `json:"newLines"`
	Lines    []string `json:"lines"`
}

// StructuredPatch diffs old and new text the way Claude Code reports an
// edit, with three lines of context: a tool that changes files on Claude
// Code's behalf reports the same shape, so its calls show like Claude
// Code's own. Equal texts give no hunks.
func StructuredPatch(old, new string) []PatchHunk {
	a, b := splitLines(old), splitLines(new)
	ops := editScript(a, b)
	out := []PatchHunk{}
	for _, span := range hunkSpans(ops) {
		h := PatchHunk{OldStart: ops[span[0]].a + 1, NewStart: ops[span[0]].b + 1}
		var ins []string // a change's added lines go after its removed ones, as in jsdiff
		for _, op := range ops[span[0]:span[1]] {
			switch op.kind {
			case opSame:
				h.Lines = append(h.Lines, ins...)
				ins = ins[:0]
				h.Lines = append(h.Lines, " "+a[op.a])
				h.OldLines++
				h.NewLines++
			case opDel:
				h.Lines = append(h.Lines, "-"+a[op.a])
				h.OldLines++
			case opIns:
				ins = append(ins, "+"+b[op.b])
				h.NewLines++
			}
		}
		h.Lines = append(h.Lines, ins...)
		out = append(out, h)
	}
	return out
}
