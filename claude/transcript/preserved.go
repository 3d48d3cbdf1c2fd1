package transcript

import "encoding/json"

// Messages kept across a compaction. When Claude Code compacts a
// conversation it may keep its latest messages verbatim: the compact
// boundary record (parentUuid null, the root of everything after it) lists
// them in compactMetadata as a preservedSegment {headUuid, anchorUuid,
// tailUuid}, a run of lines from before the cut chained by parentUuid from
// head to tail, and, in newer CLIs, also as preservedMessages {anchorUuid,
// uuids}. No line after the cut points at them. When Claude Code loads the
// session it links them back in (the first after the anchor, the summary
// it wrote; what hung from the anchor then hangs from the tail), so the
// model sees them after the summary. withPreserved puts them in the same
// place on the branch, so a replay shows what Claude kept.
//
// As in Claude Code, a list that names a line the file does not have, or a
// segment whose walk from tail to head breaks, is left out whole.

// compactMetadata is what withPreserved reads of a boundary's
// compactMetadata.
type compactMetadata struct {
	PreservedSegment *struct {
		HeadUUID   string `json:"headUuid"`
		AnchorUUID string `json:"anchorUuid"`
		TailUUID   string `json:"tailUuid"`
	} `json:"preservedSegment"`
	PreservedMessages *struct {
		AnchorUUID string   `json:"anchorUuid"`
		UUIDs      []string `json:"uuids"`
	} `json:"preservedMessages"`
}

// withPreserved returns the branch ids with the lines a compaction kept
// inserted after its anchor. Only the branch's root can be the boundary
// that kept them: an earlier compaction's lines are behind the cut.
func (r *Reader) withPreserved(x *index, ids []int32) []int32 {
	if len(ids) == 0 || x.nodes[ids[0]].kind != nodeSystem {
		return ids
	}
	root := &x.nodes[ids[0]]
	rec, err := r.read(root.off, root.n, alone)
	if err != nil || rec == nil || rec.Subtype != "compact_boundary" || len(rec.CompactMetadata) == 0 {
		return ids
	}
	var m compactMetadata
	if json.Unmarshal(rec.CompactMetadata, &m) != nil {
		return ids
	}
	var anchor string
	var kept []int32
	switch {
	case m.PreservedMessages != nil && len(m.PreservedMessages.UUIDs) > 0:
		anchor = m.PreservedMessages.AnchorUUID
		for _, u := range m.PreservedMessages.UUIDs {
			id := x.lookup([]byte(u))
			if id < 0 || !x.nodes[id].defined() {
				return ids
			}
			kept = append(kept, id)
		}
	case m.PreservedSegment != nil:
		seg := m.PreservedSegment
		anchor = seg.AnchorUUID
		head := x.lookup([]byte(seg.HeadUUID))
		seen := map[int32]bool{}
		for cur := x.lookup([]byte(seg.TailUUID)); ; cur = x.nodes[cur].parent {
			if cur < 0 || !x.nodes[cur].defined() || seen[cur] {
				return ids // the walk broke before the head
			}
			seen[cur] = true
			kept = append(kept, cur)
			if cur == head {
				break
			}
		}
		for i, j := 0, len(kept)-1; i < j; i, j = i+1, j-1 {
			kept[i], kept[j] = kept[j], kept[i]
		}
	default:
		return ids
	}
	at := -1
	if a := x.lookup([]byte(anchor)); a >= 0 {
		for i, id := range ids {
			if id == a {
				at = i
				break
			}
		}
	}
	if at < 0 {
		return ids // the anchor is not on the branch: nothing to hang them from
	}
	onBranch := map[int32]bool{}
	for _, id := range ids {
		onBranch[id] = true
	}
	out := make([]int32, 0, len(ids)+len(kept))
	out = append(out, ids[:at+1]...)
	for _, id := range kept {
		if !onBranch[id] {
			out = append(out, id)
		}
	}
	return append(out, ids[at+1:]...)
}
