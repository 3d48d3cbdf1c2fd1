package jsonfast

// Shape is one object shape a fast path decodes: the names of its members.
// Fields walks an object of that shape.
//
// internal/tools/shapegen generates a Shape from a //jsonfast:shape line,
// with a constant for each member's index and a walker whose Next looks the
// names up in a switch, so that the names, the indexes and the
// case-insensitive check that uses Names cannot drift apart.
type Shape struct {
	Names []string
}

// Fields walks the members of an object Object entered, for a caller that
// decodes one Shape. The zero value is ready:
//
//	var f jsonfast.Fields
//	for f.Next(d, &shape) {
//		switch f.I {
//		case 0: // Names[0]
//			...
//		}
//	}
//
// Every case must consume the member's value. What encoding/json would
// decode into a struct of that shape differently sets Odd: a member name
// with escapes, a name it would match to one of Names without regard to
// case, a second member of the same name. A Shape has at most 64 names.
//
// Generated walkers (shapegen) embed Fields and bring their own Next, built
// from Key, Other and Take, with the lookup inlined.
type Fields struct {
	seen  uint64
	begun bool
	// I is the index in the Shape's Names of the member at the cursor.
	I int
}

// Next moves d's cursor to the value of the next member named in s and
// sets I; members not in s are skipped (and validated). It returns false
// at the closing brace, or when the text is bad.
func (f *Fields) Next(d *Dec, s *Shape) bool {
	for {
		key, esc, ok := f.Key(d)
		if !ok {
			return false
		}
		i := -1
		if !esc {
			for j, n := range s.Names {
				if string(key) == n {
					i = j
					break
				}
			}
		}
		if i < 0 {
			f.Other(d, s, key, esc)
			continue
		}
		f.Take(d, i)
		return true
	}
}

// Key reads the next member name, with the cursor on its value; ok is
// false (and the object closed) at the closing brace. esc reports that the
// name holds backslash escapes (key is then raw). It is FirstKey and then
// NextKey, in one call.
func (f *Fields) Key(d *Dec) (key []byte, esc, ok bool) {
	if d.bad {
		return nil, false, false
	}
	d.ws()
	if d.i >= len(d.b) {
		d.fail()
		return nil, false, false
	}
	switch c := d.b[d.i]; {
	case c == '}':
		d.i++
		d.depth--
		return nil, false, false
	case !f.begun:
		f.begun = true
		return d.key()
	case c == ',':
		d.i++
		d.ws()
		return d.key()
	}
	d.fail()
	return nil, false, false
}

// Other skips the value of a member s does not name. A name with escapes,
// or one encoding/json would match to one of s's names without regard to
// case, sets Odd.
func (f *Fields) Other(d *Dec, s *Shape, key []byte, esc bool) {
	if esc || FoldKey(key, s.Names...) {
		d.odd = true
	}
	d.Skip()
}

// Take makes Names[i] the member at the cursor. A second member of the
// same name sets Odd.
func (f *Fields) Take(d *Dec, i int) {
	bit := uint64(1) << i
	if f.seen&bit != 0 {
		d.odd = true
	}
	f.seen |= bit
	f.I = i
}
