package transcript

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
)

// The first pass over a large transcript runs on two threads: the second
// half of the file is indexed by a goroutine of its own into an index and
// counts of its own, which are then appended to the first half's as if one
// pass had read on. The result is exactly what one pass makes (the same
// node ids, sequence numbers, metadata and counts): ids are handed out in
// the order uuids are first named, and the second half's new uuids come
// after the first half's, in their own order.
//
// Why: session/load cannot send the first message of a conversation before
// the whole file is read, because only the end of it says which branch is
// the active one; for a long thread that first pass was a quarter of the
// replay. A replay has a second thread while it runs (agent/threads.go).

// halvesMin is the smallest file read in two halves: a smaller one takes a
// millisecond or less in one pass, too little to be worth a hand-over.
const halvesMin = 1 << 20

// maxSplitSearch bounds how far past the middle the split looks for the
// start of a line; a file whose middle line is longer is read in one pass.
const maxSplitSearch = 1 << 20

// splitPoint returns where the second half starts (just after a newline at
// or past the middle of the file), or 0 for one pass: a small file, one
// thread, or no line break near the middle.
func splitPoint(ra io.ReaderAt, size int64) int64 {
	if size < halvesMin || runtime.GOMAXPROCS(0) < 2 {
		return 0
	}
	buf := make([]byte, 16<<10)
	for off := size / 2; off < size && off-size/2 < maxSplitSearch; off += int64(len(buf)) {
		n, err := ra.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			if split := off + int64(i) + 1; split < size {
				return split
			}
			return 0
		}
		if err != nil {
			return 0 // the pass proper reports read errors
		}
	}
	return 0
}

// indexHalves indexes [0, split) here and [split, size) on another
// goroutine, then appends the second half to x and to r.
func (r *Reader) indexHalves(x *index, ra io.ReaderAt, split, size int64) error {
	second := &Reader{log: r.log}
	x2 := newIndex(size - split)
	var err2 error
	var crash any
	done := make(chan struct{})
	go func() {
		defer close(done)
		// A panic belongs to the caller, whose recover (the agent's
		// replay) turns it into a failed load, not a dead process.
		defer func() { crash = recover() }()
		err2 = second.indexSection(x2, ra, split, size)
	}()
	err := r.indexSection(x, ra, 0, split)
	<-done
	if crash != nil {
		panic(fmt.Sprint("transcript: first pass: ", crash))
	}
	if err == nil {
		err = err2
	}
	if err != nil {
		return err
	}
	x.append(x2)
	r.appendCounts(second)
	return nil
}

// append adds the index of the lines that follow x's in the file.
func (x *index) append(next *index) {
	// The uuid of each of next's ids, to intern in id order (first named
	// first), as one pass would have.
	canonical := make([]bool, len(next.nodes))
	keys := make([][16]byte, len(next.nodes))
	for k, id := range next.ids {
		keys[id], canonical[id] = k, true
	}
	names := make([]string, len(next.nodes))
	for name, id := range next.other {
		names[id] = name
	}
	to := make([]int32, len(next.nodes)) // next's id → x's
	for id := range next.nodes {
		if canonical[id] {
			to[id] = x.internKey(keys[id])
		} else {
			to[id] = x.internName(names[id])
		}
	}
	for id := range next.nodes {
		nd := next.nodes[id]
		if !nd.defined() {
			continue
		}
		if nd.parent >= 0 {
			nd.parent = to[nd.parent]
		}
		nd.seq += x.seq
		x.nodes[to[id]] = nd // a uuid defined again keeps its last line
	}
	x.seq += next.seq
}

// appendCounts adds the metadata and counts of the second half, second.
func (r *Reader) appendCounts(second *Reader) {
	m, m2 := &r.meta, &second.meta
	if m.SessionID == "" {
		m.SessionID = m2.SessionID
	}
	if m.Cwd == "" {
		m.Cwd = m2.Cwd
	}
	if m.FirstTimestamp == "" {
		m.FirstTimestamp = m2.FirstTimestamp
	}
	for f := range second.latest {
		if second.latest[f].set {
			r.latest[f] = second.latest[f]
		}
	}
	if second.latest[fLeafUUID].set {
		r.leafOff = second.leafOff
	}
	for i, off := range second.prompt {
		if len(r.prompt) == maxPromptCandidates {
			break
		}
		r.prompt, r.plen = append(r.prompt, off), append(r.plen, second.plen[i])
	}
	r.forked = r.forked || second.forked
	r.stats.Lines += second.stats.Lines
	r.stats.Messages += second.stats.Messages
	r.stats.Corrupt += second.stats.Corrupt
	// The first half ends at a line break, unless the file shrank after
	// the split was chosen.
	r.stats.TruncatedTail = r.stats.TruncatedTail || second.stats.TruncatedTail
}
