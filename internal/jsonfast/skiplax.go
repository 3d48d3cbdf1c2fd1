package jsonfast

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// skipLaxDepth is how deeply nested a container skipContainerLax takes:
// one bit per level records whether it is an object. Deeper ones (never
// met in a transcript) go on by the general path.
const skipLaxDepth = 64

// skipContainerLax is Skip for the object or array at d.i of a lax Dec
// (ResetLax), in one loop instead of a few calls per member: the first
// pass over a transcript skips every line's message this way, and most of
// its time went to those calls. It accepts and rejects exactly what the
// general path does (TestSkipLaxAgrees, FuzzSkipLax): the structure,
// numbers and literals are validated, strings are found to their closing
// quote and not looked into. It returns false, having changed nothing,
// when d is too deep already for it to count the levels it adds.
func (d *Dec) skipContainerLax() bool {
	if d.depth+skipLaxDepth > maxDepth {
		return false
	}
	b := d.b
	i := d.i
	var objects uint64 // bit n: the container at level n+1 is an object
	level := 0
	ok := true
	for {
		// At a value.
		i = skipWS(b, i)
		if i >= len(b) {
			d.fail()
			return true
		}
		switch c := b[i]; c {
		case '{', '[':
			if level == skipLaxDepth {
				d.i, d.depth = i, d.depth+level // the general path goes on from here
				d.skipNested(objects, level)
				return true
			}
			objects &^= 1 << level
			if c == '{' {
				objects |= 1 << level
			}
			level++
			i = skipWS(b, i+1)
			if i >= len(b) {
				d.fail()
				return true
			}
			if c == '{' && b[i] == '}' || c == '[' && b[i] == ']' {
				i++
				level--
				break // an empty container is a value
			}
			if c == '{' {
				if i, ok = laxKey(b, i); !ok {
					d.fail()
					return true
				}
			}
			continue
		case '"':
			i, ok = laxString(b, i)
		case 't':
			i, ok = literalAt(b, i, "true")
		case 'f':
			i, ok = literalAt(b, i, "false")
		case 'n':
			i, ok = literalAt(b, i, "null")
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			d.i = i
			d.number()
			i, ok = d.i, !d.bad
		default:
			ok = false
		}
		if !ok {
			d.fail()
			return true
		}
		// After a value: the containers that close here, then a comma
		// and the next member or element.
		for {
			if level == 0 {
				d.i = i
				return true
			}
			i = skipWS(b, i)
			if i >= len(b) {
				d.fail()
				return true
			}
			obj := objects&(1<<(level-1)) != 0
			if c := b[i]; obj && c == '}' || !obj && c == ']' {
				i++
				level--
				continue
			} else if c != ',' {
				d.fail()
				return true
			}
			i++
			if obj {
				if i, ok = laxKey(b, skipWS(b, i)); !ok {
					d.fail()
					return true
				}
			}
			break
		}
	}
}

// skipNested finishes, by the general path, a skip that went deeper than
// skipLaxDepth: d.i is at the container that was too deep, inside level
// open containers (objects tells which are objects), which d.depth counts.
func (d *Dec) skipNested(objects uint64, level int) {
	d.Skip() // the deep container itself
	for l := level; l > 0 && !d.bad; l-- {
		if objects&(1<<(l-1)) != 0 {
			for _, _, ok := d.NextKey(); ok; _, _, ok = d.NextKey() {
				d.Skip()
			}
		} else {
			for d.NextElem() {
				d.Skip()
			}
		}
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// laxString returns the offset past the string whose opening quote is at
// b[i]: its first quote not escaped by an odd run of backslashes.
func laxString(b []byte, i int) (int, bool) {
	open := i
	i++
	for {
		q := nextQuote(b, i)
		if q < 0 {
			return i, false
		}
		n := 0
		for k := q - 1; k > open && b[k] == '\\'; k-- {
			n++
		}
		i = q + 1
		if n%2 == 0 {
			return i, true
		}
	}
}

// nextQuote returns the offset of the first quote at or after i, or -1.
// Most strings are short (names, types, ids), so the first 32 bytes are
// looked at eight at a time, where bytes.IndexByte would spend longer
// setting up; it takes over for long text.
func nextQuote(b []byte, i int) int {
	for n := 0; n < 4 && i+8 <= len(b); n++ {
		x := binary.LittleEndian.Uint64(b[i:]) ^ (lsb * '"')
		if m := (x - lsb) &^ x & msb; m != 0 {
			return i + bits.TrailingZeros64(m)>>3 // the lowest flag is exact
		}
		i += 8
	}
	if j := bytes.IndexByte(b[i:], '"'); j >= 0 {
		return i + j
	}
	return -1
}

// laxKey reads a member name at b[i] and the colon after it.
func laxKey(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	i, ok := laxString(b, i)
	if !ok {
		return i, false
	}
	i = skipWS(b, i)
	if i >= len(b) || b[i] != ':' {
		return i, false
	}
	return i + 1, true
}

func literalAt(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}
