package transcript

// Kinds of chain records, kept in one byte per node.
const (
	nodeUser uint8 = iota + 1
	nodeAssistant
	nodeSystem
	nodeAttachment
	nodeProgress
)

// Node flags.
const (
	flagSidechain uint8 = 1 << iota
	flagMeta
	flagTeam
)

// node is what the first pass keeps for one uuid: 24 bytes. A uuid that is
// only named as a parent and never defined has seq == -1.
type node struct {
	off    int64 // byte offset of the line
	n      int32 // line length in bytes, without the newline
	parent int32 // node id of parentUuid, or -1
	seq    int32 // index of the defining line among message lines, or -1
	kind   uint8
	flags  uint8
}

func (n *node) defined() bool { return n.seq >= 0 }

func (n *node) userOrAssistant() bool {
	return n.kind == nodeUser || n.kind == nodeAssistant
}

// index interns uuids to dense int32 ids and keeps one node per id. Canonical
// lower-case UUIDs, the only form the CLI writes, are keyed by their 16 bytes
// so that interning allocates no string; any other spelling falls back to a
// string key.
type index struct {
	ids   map[[16]byte]int32
	other map[string]int32
	nodes []node
	seq   int32
}

// newIndex sizes the index for a file of size bytes. Message lines are
// rarely under 2 KiB, so this seldom over-allocates, and it spares most of
// the regrowth of the node slice and the map.
func newIndex(size int64) *index {
	hint := int(min(size/2048, 1<<22))
	return &index{ids: make(map[[16]byte]int32, hint), nodes: make([]node, 0, hint)}
}

// lookup returns the id of uuid, or -1 if it was never seen.
func (x *index) lookup(uuid []byte) int32 {
	if k, ok := parseUUID(uuid); ok {
		if id, ok := x.ids[k]; ok {
			return id
		}
		return -1
	}
	if id, ok := x.other[string(uuid)]; ok {
		return id
	}
	return -1
}

// intern returns the id of uuid, adding an undefined node if it is new.
func (x *index) intern(uuid []byte) int32 {
	if k, ok := parseUUID(uuid); ok {
		return x.internKey(k)
	}
	if id, ok := x.other[string(uuid)]; ok {
		return id
	}
	return x.internName(string(uuid))
}

// internKey is intern for a canonical uuid, given by its 16 bytes.
func (x *index) internKey(k [16]byte) int32 {
	if id, ok := x.ids[k]; ok {
		return id
	}
	id := x.add()
	x.ids[k] = id
	return id
}

// internName is intern for any other spelling.
func (x *index) internName(name string) int32 {
	if id, ok := x.other[name]; ok {
		return id
	}
	if x.other == nil {
		x.other = make(map[string]int32)
	}
	id := x.add()
	x.other[name] = id
	return id
}

func (x *index) add() int32 {
	x.nodes = append(x.nodes, node{parent: -1, seq: -1})
	return int32(len(x.nodes) - 1)
}

// define records the line of a message. A uuid defined twice keeps its last
// line, as the CLI's loader does.
func (x *index) define(uuid, parent []byte, off int64, n int32, kind, flags uint8) {
	id := x.intern(uuid)
	p := int32(-1)
	if len(parent) > 0 {
		p = x.intern(parent)
	}
	nd := &x.nodes[id]
	nd.off, nd.n, nd.parent, nd.seq, nd.kind, nd.flags = off, n, p, x.seq, kind, flags
	x.seq++
}

// parseUUID decodes a canonical lower-case UUID.
func parseUUID(b []byte) (k [16]byte, ok bool) {
	if len(b) != 36 || b[8] != '-' || b[13] != '-' || b[18] != '-' || b[23] != '-' {
		return k, false
	}
	j := 0
	for i := 0; i < 36; i++ {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			continue // the dashes checked above; each group has an even length
		}
		hi, ok1 := lowerHex(b[i])
		lo, ok2 := lowerHex(b[i+1])
		if !ok1 || !ok2 {
			return k, false
		}
		k[j] = hi<<4 | lo
		j++
		i++
	}
	return k, true
}

func lowerHex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// nearestMessage returns, for every node, the closest user or assistant
// node at or above it, or -1; memo values: -2 unknown, -3 on the current
// walk (a cycle).
func (x *index) nearestMessage(start int32, memo []int32) int32 {
	var path []int32
	cur := start
	result := int32(-1)
	for cur >= 0 {
		if m := memo[cur]; m != -2 {
			if m != -3 {
				result = m
			}
			break
		}
		nd := &x.nodes[cur]
		if !nd.defined() {
			break
		}
		if nd.userOrAssistant() {
			result = cur
			break
		}
		memo[cur] = -3
		path = append(path, cur)
		cur = nd.parent
	}
	for _, p := range path {
		memo[p] = result
	}
	return result
}

// leaf picks the message the active branch ends at, following the SDK's
// getSessionMessages: among the nodes nothing points to (terminals), take
// each one's nearest user or assistant ancestor; prefer those that are not
// sidechain, team or meta messages, and among them the one written last.
//
// preferred is the leaf the CLI recorded in its newest last-prompt line,
// written at prefOff. It wins when that line comes after the leaf found
// above and names a main-chain message: the CLI writes it at the end of each
// turn and when the user rewinds, so a newer one that points elsewhere means
// the conversation was rewound after the last message was written. An older
// one is stale: messages written after it are the newer truth.
func (x *index) leaf(preferred int32, prefOff int64) int32 {
	n := len(x.nodes)
	hasChild := make([]uint64, (n+63)/64)
	for i := range x.nodes {
		nd := &x.nodes[i]
		if nd.defined() && nd.parent >= 0 {
			hasChild[nd.parent/64] |= 1 << (uint(nd.parent) % 64)
		}
	}
	memo := make([]int32, n)
	for i := range memo {
		memo[i] = -2
	}
	best, bestMain := int32(-1), int32(-1)
	for i := range x.nodes {
		nd := &x.nodes[i]
		if !nd.defined() || hasChild[i/64]&(1<<(uint(i)%64)) != 0 {
			continue
		}
		l := x.nearestMessage(int32(i), memo)
		if l < 0 {
			continue
		}
		ln := &x.nodes[l]
		if best < 0 || ln.seq > x.nodes[best].seq {
			best = l
		}
		if ln.flags == 0 && (bestMain < 0 || ln.seq > x.nodes[bestMain].seq) {
			bestMain = l
		}
	}
	if bestMain >= 0 {
		best = bestMain
	}
	if preferred >= 0 && preferred != best && (best < 0 || prefOff > x.nodes[best].off) {
		p := &x.nodes[preferred]
		if p.defined() && p.userOrAssistant() && p.flags&flagSidechain == 0 {
			return preferred
		}
	}
	return best
}

// chain returns the node ids from the root down to leaf. It stops at a
// parent that was never written (for example a corrupt line) and reports
// that the chain is broken.
func (x *index) chain(leaf int32) (ids []int32, broken bool) {
	if leaf < 0 {
		return nil, false
	}
	seen := make([]uint64, (len(x.nodes)+63)/64)
	for cur := leaf; cur >= 0; {
		if seen[cur/64]&(1<<(uint(cur)%64)) != 0 {
			break // a cycle: keep what was walked
		}
		seen[cur/64] |= 1 << (uint(cur) % 64)
		nd := &x.nodes[cur]
		if !nd.defined() {
			broken = true
			break
		}
		ids = append(ids, cur)
		cur = nd.parent
	}
	for i, j := 0, len(ids)-1; i < j; i, j = i+1, j-1 {
		ids[i], ids[j] = ids[j], ids[i]
	}
	return ids, broken
}
