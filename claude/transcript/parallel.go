package transcript

import (
	"cmp"
	"slices"
)

// Parallel tool calls. When the model calls several tools in one message,
// Claude Code writes one assistant line per content block, each the child
// of the one before, and each tool's result as the child of the line that
// holds its tool_use, in the order the tools finish. The conversation goes
// on from the result written last, so the active branch passes through
// some of the calls and results only; the others hang off it. Claude Code
// (and the SDK's getSessionMessages) put them back when they load a
// session; withParallelCalls does the same, so that every call on the
// branch comes with its result.
//
// What is put back: the lines of the branch's assistant messages that are
// off the branch (same message id, each the child of a line of that
// message), then the results hanging from any line of such a message
// (user lines answering a tool_use of the line they hang from), each group
// in file order, right after the branch's last line of that message. Only
// transcripts with such lines pay for more than one pass over the index.

// idSet is a set of node ids, one bit each.
type idSet []uint64

func newIDSet(n int) idSet       { return make(idSet, (n+63)/64) }
func (b idSet) has(i int32) bool { return b[i/64]&(1<<(uint(i)%64)) != 0 }
func (b idSet) set(i int32)      { b[i/64] |= 1 << (uint(i) % 64) }

// withParallelCalls returns the branch ids with the off-branch lines of
// its parallel tool calls inserted.
func (r *Reader) withParallelCalls(x *index, ids []int32) []int32 {
	n := len(x.nodes)
	if len(ids) == 0 || n == 0 {
		return ids
	}
	onBranch := newIDSet(n)
	for _, id := range ids {
		onBranch.set(id)
	}
	// Candidates: user or assistant lines off the branch whose parent is an
	// assistant line on the branch or a candidate assistant. Parents come
	// before their children in id order, so one pass normally finds them
	// all; the loop only repeats for files written out of order.
	cand := newIDSet(n)
	var found []int32
	for changed := true; changed; {
		changed = false
		for i := range x.nodes {
			id := int32(i)
			nd := &x.nodes[i]
			if !nd.defined() || !nd.userOrAssistant() || nd.flags != 0 || nd.parent < 0 || onBranch.has(id) || cand.has(id) {
				continue
			}
			p := nd.parent
			if pn := &x.nodes[p]; pn.kind != nodeAssistant || !onBranch.has(p) && !cand.has(p) {
				continue
			}
			cand.set(id)
			found = append(found, id)
			changed = true
		}
	}
	if len(found) == 0 {
		return ids
	}
	// Check each candidate against its parent, in file order (a parent is
	// checked before its children): an assistant line must carry its
	// parent's message id, a user line must answer a tool_use of its parent.
	slices.SortFunc(found, func(a, b int32) int { return cmp.Compare(x.nodes[a].seq, x.nodes[b].seq) })
	lines := map[int32]*Record{}
	rec := func(id int32) *Record {
		if l, ok := lines[id]; ok {
			return l
		}
		nd := &x.nodes[id]
		l, err := r.read(nd.off, nd.n, alone)
		if err != nil || l != nil && l.Message == nil {
			l = nil
		}
		lines[id] = l
		return l
	}
	valid := newIDSet(n)
	root := map[int32]int32{} // a kept line → the branch line its group hangs from
	var keep []int32
	for _, id := range found {
		p := x.nodes[id].parent
		if !onBranch.has(p) && !valid.has(p) {
			continue
		}
		self, parent := rec(id), rec(p)
		if self == nil || parent == nil || !sameCall(self, parent) {
			continue
		}
		valid.set(id)
		keep = append(keep, id)
		if onBranch.has(p) {
			root[id] = p
		} else {
			root[id] = root[p]
		}
	}
	if len(keep) == 0 {
		return ids
	}
	// Insert each group after the branch's last line of its message: the
	// run of assistant lines with the root's message id that follows it.
	at := map[int32]int{} // root → branch index to insert after
	for _, p := range root {
		at[p] = -1
	}
	for i, id := range ids {
		if _, isRoot := at[id]; !isRoot {
			continue
		}
		end, msg := i, rec(id).Message.ID
		for end+1 < len(ids) && msg != "" && x.nodes[ids[end+1]].kind == nodeAssistant {
			if next := rec(ids[end+1]); next == nil || next.Message.ID != msg {
				break
			}
			end++
		}
		at[id] = end
	}
	after := map[int][]int32{} // branch index → lines to insert after it
	for _, assistants := range []bool{true, false} {
		for _, id := range keep {
			if (x.nodes[id].kind == nodeAssistant) == assistants {
				i := at[root[id]]
				after[i] = append(after[i], id)
			}
		}
	}
	out := make([]int32, 0, len(ids)+len(keep))
	for i, id := range ids {
		out = append(out, id)
		out = append(out, after[i]...)
	}
	return out
}

// sameCall reports whether line belongs with parent in a parallel call:
// an assistant line of the same message, or a result of one of the
// parent's tool calls.
func sameCall(line, parent *Record) bool {
	switch line.Type {
	case TypeAssistant:
		return parent.Type == TypeAssistant && line.Message.ID != "" && line.Message.ID == parent.Message.ID
	case TypeUser:
		calls := map[string]bool{}
		for _, b := range parent.Message.Content {
			if b.Type == "tool_use" || b.Type == "server_tool_use" || b.Type == "mcp_tool_use" {
				calls[b.ID] = true
			}
		}
		answers := false
		for _, b := range line.Message.Content {
			if b.Type == "tool_result" {
				if !calls[b.ToolUseID] {
					return false
				}
				answers = true
			}
		}
		return answers
	}
	return false
}
