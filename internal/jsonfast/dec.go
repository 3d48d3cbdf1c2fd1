// Package jsonfast is a small validating JSON cursor for the hot decoding
// paths: the CLI's stream events (package claude), the records of a
// transcript (claude/transcript), and whatever else must not pay for
// encoding/json's reflection and double pass (tool inputs and structured
// results in the agent). Callers walk a value member by member and decode only what
// they need; everything else is skipped, but every byte is validated, so a
// text the cursor accepts is one encoding/json accepts too.
//
// The cursor has no notion of Go types. Its callers implement one exact
// shape each and give up (fall back to encoding/json) on anything the
// shape does not cover: a member of an unexpected JSON type, a duplicate
// member, a member name that encoding/json would match without regard to
// case. That keeps the fast paths simple and lets tests compare them with
// encoding/json byte for byte.
//
// An object of one known shape is walked with Fields: a caller names the
// members it decodes in a //jsonfast:shape line, internal/tools/shapegen
// generates the names, an index constant per member and a walker with the
// lookup inlined, and the caller writes one switch case per member. The
// checks that keep the fast path equal to encoding/json (escaped,
// case-folded and duplicate names) live in Fields, once.
package jsonfast

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// maxDepth is encoding/json's nesting limit; deeper texts are invalid for it.
const maxDepth = 10000

// Dec walks one JSON text. The zero value is not usable; call Reset.
//
// Two failure states are kept rather than returned at each step:
//   - Bad: the text is not valid JSON. Every later call is a no-op.
//   - Odd: the text is valid so far but not of the shape the caller asked
//     for (a string where a number was wanted, a duplicate key, …). The
//     cursor goes on validating, so the caller can still tell Bad from Odd.
type Dec struct {
	b     []byte
	i     int
	depth int
	bad   bool
	odd   bool
	share bool // Str may return strings that share b (ResetShared)
	lax   bool // strings are not validated inside (ResetLax)
	ascii bool // the string scanned last has only ASCII bytes (ValidUTF8)
	slow  bool // tests: Skip never takes skipContainerLax
}

// Reset starts walking b.
func (d *Dec) Reset(b []byte) {
	*d = Dec{b: b}
}

// ResetShared is Reset for a text that is never changed while what is
// decoded from it is in use (a frame's or a record's own copy): Str and
// Value then return strings without escapes as views of b instead of
// copies.
func (d *Dec) ResetShared(b []byte) {
	*d = Dec{b: b, share: true}
}

// ResetLax is Reset for a first look at a text that is validated in full
// later, if it matters at all (a transcript line that may be on a dead
// branch): strings are skipped to their closing quote many bytes at a
// time, their insides (escapes, control characters) unchecked. Everything
// else is validated as by Reset.
func (d *Dec) ResetLax(b []byte) {
	*d = Dec{b: b, lax: true}
}

// Bad reports whether the text was found not to be valid JSON.
func (d *Dec) Bad() bool { return d.bad }

// Odd reports whether the text did not have the shape the caller wanted.
func (d *Dec) Odd() bool { return d.odd }

// SetOdd records that the caller met something its shape does not cover.
func (d *Dec) SetOdd() { d.odd = true }

// Pos returns the offset of the cursor.
func (d *Dec) Pos() int { return d.i }

func (d *Dec) fail() {
	d.bad = true
	d.i = len(d.b)
}

func (d *Dec) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// End checks that nothing but white space follows the top-level value and
// reports whether the whole text was valid and of the wanted shape.
func (d *Dec) End() bool {
	if d.bad {
		return false
	}
	d.ws()
	if d.i != len(d.b) {
		d.fail()
		return false
	}
	return !d.odd
}

// Kind returns the first byte of the next value: '{', '[', '"', 't', 'f',
// 'n' or '0' for a number; 0 at the end of the text or after an error.
func (d *Dec) Kind() byte {
	if d.bad {
		return 0
	}
	d.ws()
	if d.i >= len(d.b) {
		return 0
	}
	switch c := d.b[d.i]; c {
	case '{', '[', '"', 't', 'f', 'n':
		return c
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return '0'
	}
	return 0
}

// Object enters an object. For null it consumes the null and returns false;
// for any other kind of value it skips it, sets Odd and returns false.
func (d *Dec) Object() bool {
	switch d.Kind() {
	case '{':
		d.i++
		d.depth++
		if d.depth > maxDepth {
			d.fail()
			return false
		}
		return true
	case 'n':
		d.Skip()
		return false
	}
	d.Skip()
	d.odd = true
	return false
}

// FirstKey returns the first member name of an object Object entered, with
// the cursor on its value; ok is false for an empty object (then closed).
// esc reports that the name holds backslash escapes (key is then raw).
func (d *Dec) FirstKey() (key []byte, esc, ok bool) {
	if d.bad {
		return nil, false, false
	}
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		d.depth--
		return nil, false, false
	}
	return d.key()
}

// NextKey returns the next member name after a member's value was consumed;
// ok is false (and the object closed) at the closing brace.
func (d *Dec) NextKey() (key []byte, esc, ok bool) {
	if d.bad {
		return nil, false, false
	}
	d.ws()
	if d.i >= len(d.b) {
		d.fail()
		return nil, false, false
	}
	switch d.b[d.i] {
	case '}':
		d.i++
		d.depth--
		return nil, false, false
	case ',':
		d.i++
		d.ws()
		return d.key()
	}
	d.fail()
	return nil, false, false
}

func (d *Dec) key() (key []byte, esc, ok bool) {
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		d.fail()
		return nil, false, false
	}
	start := d.i + 1
	end, e := d.scanString()
	if d.bad {
		return nil, false, false
	}
	key = d.b[start:end]
	d.ws()
	if d.i >= len(d.b) || d.b[d.i] != ':' {
		d.fail()
		return nil, false, false
	}
	d.i++
	return key, e, true
}

// Array enters an array, with null and other kinds as for Object.
func (d *Dec) Array() bool {
	switch d.Kind() {
	case '[':
		d.i++
		d.depth++
		if d.depth > maxDepth {
			d.fail()
			return false
		}
		return true
	case 'n':
		d.Skip()
		return false
	}
	d.Skip()
	d.odd = true
	return false
}

// FirstElem reports whether an array Array entered has a first element (the
// cursor is then on it); an empty array is closed.
func (d *Dec) FirstElem() bool {
	if d.bad {
		return false
	}
	d.ws()
	if d.i >= len(d.b) {
		d.fail()
		return false
	}
	if d.b[d.i] == ']' {
		d.i++
		d.depth--
		return false
	}
	return true
}

// NextElem moves past the comma to the next element, or closes the array.
func (d *Dec) NextElem() bool {
	if d.bad {
		return false
	}
	d.ws()
	if d.i >= len(d.b) {
		d.fail()
		return false
	}
	switch d.b[d.i] {
	case ']':
		d.i++
		d.depth--
		return false
	case ',':
		d.i++
		return true
	}
	d.fail()
	return false
}

// Null consumes a null and reports whether there was one.
func (d *Dec) Null() bool {
	if d.Kind() != 'n' {
		return false
	}
	d.literal("null")
	return !d.bad
}

// StrRaw consumes a string value and returns its bytes between the quotes,
// still escaped if esc. ok is false for any other kind of value (skipped;
// Odd is set unless it was null).
func (d *Dec) StrRaw() (raw []byte, esc, ok bool) {
	switch d.Kind() {
	case '"':
	case 'n':
		d.Skip()
		return nil, false, false
	default:
		d.Skip()
		d.odd = true
		return nil, false, false
	}
	start := d.i + 1
	end, esc := d.scanString()
	if d.bad {
		return nil, false, false
	}
	return d.b[start:end], esc, true
}

// Str consumes a string value and returns it decoded as encoding/json
// does (invalid UTF-8 becomes U+FFFD). null gives "" and other kinds set
// Odd. present reports whether the value was a string.
func (d *Dec) Str() (s string, present bool) {
	raw, esc, ok := d.StrRaw()
	if !ok {
		return "", false
	}
	if d.share && !esc && len(raw) > 0 && d.ValidUTF8(raw) {
		return unsafe.String(&raw[0], len(raw)), true
	}
	return String(raw, esc), true
}

// StrLike is Str for a value that often repeats a string decoded before
// (a Bash result's stdout repeats the tool result's text): when the
// value's raw bytes equal prevRaw, the raw bytes prev was decoded from,
// it returns prev without decoding (or copying) the value again.
//
// prevRaw must be the bytes between the quotes of a valid JSON string (as
// StrRaw returns them): then a value that starts with a quote, prevRaw and
// a quote is that string, and is taken with one comparison instead of a
// validating scan (a Bash result's 13 KB of output: a few times faster).
func (d *Dec) StrLike(prevRaw []byte, prev string) (s string, present bool) {
	if d.Kind() != '"' {
		return d.Str() // null, or not a string
	}
	if end := d.i + 1 + len(prevRaw); prevRaw != nil && end < len(d.b) &&
		d.b[end] == '"' && bytes.Equal(d.b[d.i+1:end], prevRaw) {
		d.i = end + 1
		d.ascii = false // not looked at
		return prev, true
	}
	raw, esc, ok := d.StrRaw()
	if !ok {
		return "", false
	}
	if prevRaw != nil && bytes.Equal(raw, prevRaw) {
		return prev, true
	}
	if d.share && !esc && len(raw) > 0 && d.ValidUTF8(raw) {
		return unsafe.String(&raw[0], len(raw)), true
	}
	return String(raw, esc), true
}

// ValidUTF8 reports whether raw, the bytes of the string StrRaw (or a
// method that decodes a string) returned last, is valid UTF-8. A string
// whose scan saw only ASCII bytes is, without a second look at its bytes.
func (d *Dec) ValidUTF8(raw []byte) bool {
	return d.ascii || utf8.Valid(raw)
}

// String converts the raw bytes of a string as StrRaw returned them.
func String(raw []byte, esc bool) string {
	if !esc && utf8.Valid(raw) {
		return string(raw)
	}
	b := Unescape(make([]byte, 0, len(raw)), raw)
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b)) // b is not used again
}

// Bool consumes a boolean. null gives false; other kinds set Odd.
func (d *Dec) Bool() bool {
	switch d.Kind() {
	case 't':
		d.literal("true")
		return !d.bad
	case 'f':
		d.literal("false")
		return false
	case 'n':
		d.literal("null")
		return false
	}
	d.Skip()
	d.odd = true
	return false
}

// Int consumes an integer that fits in an int64. null gives 0, false;
// other kinds, fractions and exponents set Odd.
func (d *Dec) Int() (int64, bool) {
	switch d.Kind() {
	case '0':
	case 'n':
		d.literal("null")
		return 0, false
	default:
		d.Skip()
		d.odd = true
		return 0, false
	}
	start := d.i
	d.number()
	if d.bad {
		return 0, false
	}
	b := d.b[start:d.i]
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) > 18 { // may overflow; not worth the care here
		d.odd = true
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			d.odd = true
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// Bytes returns the text from start (an earlier Pos) to the cursor: the
// raw JSON of what was consumed since.
func (d *Dec) Bytes(start int) []byte { return d.b[start:d.i] }

// Raw consumes any value and returns its bytes exactly as written.
func (d *Dec) Raw() []byte {
	if d.Kind() == 0 {
		d.fail()
		return nil
	}
	start := d.i
	d.Skip()
	if d.bad {
		return nil
	}
	return d.b[start:d.i]
}

// Skip consumes and validates any value.
func (d *Dec) Skip() {
	k := d.Kind()
	if d.lax && !d.slow && (k == '{' || k == '[') && d.skipContainerLax() {
		return
	}
	d.skipValue(k)
}

// skipValue is Skip's general path, for the value of kind k at d.i.
func (d *Dec) skipValue(k byte) {
	switch k {
	case '"':
		d.scanString()
	case '{':
		if !d.Object() {
			return
		}
		for _, _, ok := d.FirstKey(); ok; _, _, ok = d.NextKey() {
			d.Skip()
		}
	case '[':
		if !d.Array() {
			return
		}
		for ok := d.FirstElem(); ok; ok = d.NextElem() {
			d.Skip()
		}
	case 't':
		d.literal("true")
	case 'f':
		d.literal("false")
	case 'n':
		d.literal("null")
	case '0':
		d.number()
	default:
		d.fail()
	}
}

func (d *Dec) literal(lit string) {
	if len(d.b)-d.i < len(lit) || string(d.b[d.i:d.i+len(lit)]) != lit {
		d.fail()
		return
	}
	d.i += len(lit)
}

// number validates -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *Dec) number() {
	b, i := d.b, d.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i++; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		}
	default:
		d.fail()
		return
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			d.fail()
			return
		}
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			d.fail()
			return
		}
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		}
	}
	d.i = i
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// special flags, in the high bit of each byte of x, the bytes a string
// scan must stop at: a quote, a backslash, a control character. x ^ 0x02
// turns the quote (0x22) into 0x20 and keeps the controls below 0x20, so
// one "less than 0x21" test finds both. Only the lowest flag is exact
// (borrows may flag bytes above it), which is all the scan uses.
func special(x uint64) uint64 {
	t := x ^ (lsb * 0x02)
	u := x ^ (lsb * '\\')
	return ((t-lsb*0x21) & ^t | (u-lsb) & ^u) & msb
}

// scanString validates the string starting at the quote at d.i and moves
// past it. It returns the offset of the closing quote and whether the
// string holds escapes.
func (d *Dec) scanString() (end int, esc bool) {
	if d.lax {
		return d.scanStringLax()
	}
	b := d.b
	i := d.i + 1
	var seen uint64 // every byte read, or-ed: its high bits say whether one was not ASCII
	for {
		// Eight bytes at a time to the next byte that needs a look.
		for i+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[i:])
			seen |= x // bytes past the stop too: at worst a string is validated needlessly
			if m := special(x); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(b) {
			d.fail()
			return 0, false
		}
		switch c := b[i]; {
		case c == '"':
			d.i = i + 1
			d.ascii = seen&msb == 0
			return i, esc
		case c == '\\':
			esc = true
			if i+1 >= len(b) {
				d.fail()
				return 0, false
			}
			if shortEscape[b[i+1]] != 0 {
				i += 2
				continue
			}
			if b[i+1] != 'u' || i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
				d.fail()
				return 0, false
			}
			i += 6
		case c < 0x20:
			d.fail()
			return 0, false
		default:
			seen |= uint64(c)
			i++ // the tail of the text, under eight bytes
		}
	}
}

// scanStringLax is scanString without looking inside the string: it finds
// the first quote not escaped by an odd run of backslashes (bytes.IndexByte
// is many times faster than the validating scan), and reports escapes if
// there is any backslash.
func (d *Dec) scanStringLax() (end int, esc bool) {
	d.ascii = false // not looked at
	b := d.b
	open := d.i
	i := open + 1
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			d.fail()
			return 0, false
		}
		esc = esc || bytes.IndexByte(b[i:i+j], '\\') >= 0
		i += j
		n := 0
		for k := i - 1; k > open && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			d.i = i + 1
			return i, esc
		}
		i++
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// Unescape appends the decoded form of the raw bytes of a valid JSON
// string (without its quotes) to dst, exactly as encoding/json decodes
// strings: escapes resolved, bad surrogates and invalid UTF-8 replaced by
// U+FFFD.
//
// It is one pass that copies eight bytes at a time and stops only at a
// backslash or a byte from 0x80. Source code and test logs have an escape
// every ten bytes or so (tabs, newlines, quotes): a search for the next
// backslash, a UTF-8 check and a copy per run between two, as this once
// did, cost more than the runs themselves (BenchmarkUnescape).
func Unescape(dst, raw []byte) []byte {
	// out has room for the rest of raw past w, the bytes written, so that
	// a whole word can be stored before knowing how much of it counts: no
	// fast step writes more than it reads.
	w := len(dst)
	out := slices.Grow(dst, len(raw))
	out = out[:cap(out)]
	i := 0
	for {
		for i+8 <= len(raw) {
			x := binary.LittleEndian.Uint64(raw[i:])
			binary.LittleEndian.PutUint64(out[w:], x)
			u := x ^ (lsb * '\\')
			// The lowest flag is exact: a backslash, or a byte from 0x80.
			if m := ((u-lsb)&^u | x) & msb; m != 0 {
				k := bits.TrailingZeros64(m) >> 3
				i += k
				w += k
				break
			}
			i += 8
			w += 8
		}
		if i >= len(raw) {
			return out[:w]
		}
		c := raw[i]
		if c < utf8.RuneSelf && c != '\\' { // the tail, under eight bytes
			out[w] = c
			w++
			i++
			continue
		}
		if c == '\\' && i+1 < len(raw) && shortEscape[raw[i+1]] != 0 {
			out[w] = shortEscape[raw[i+1]]
			w++
			i += 2
			continue
		}
		// A non-ASCII byte or a \u escape: decoded with append, which may
		// write more than it reads (U+FFFD for one bad byte).
		out = out[:w]
		if c == '\\' {
			i = unescapeOne(&out, raw, i)
		} else if r, size := utf8.DecodeRune(raw[i:]); r == utf8.RuneError && size == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
			i++
		} else {
			out = append(out, raw[i:i+size]...)
			i += size
		}
		w = len(out)
		out = slices.Grow(out, len(raw)-i)
		out = out[:cap(out)]
	}
}

// shortEscape is the character of each two-byte escape, by its second
// byte; 0 for the others.
var shortEscape = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// unescapeOne appends the character of an escape at raw[i] (a backslash)
// that shortEscape does not hold, a \u escape in a valid string, and
// returns the offset after it. What only an unvalidated string can hold
// (a lax walk's: a backslash at the end, a bad \u, another letter) gives
// U+FFFD or the letter, without a panic.
func unescapeOne(dst *[]byte, raw []byte, i int) int {
	if i+1 >= len(raw) {
		*dst = utf8.AppendRune(*dst, utf8.RuneError)
		return len(raw)
	}
	if raw[i+1] != 'u' {
		*dst = append(*dst, raw[i+1])
		return i + 2
	}
	rr := getu4(raw[i:])
	if rr < 0 {
		*dst = utf8.AppendRune(*dst, utf8.RuneError)
		return i + 2
	}
	i += 6
	if utf16.IsSurrogate(rr) {
		if rr1 := getu4(raw[i:]); rr1 >= 0 {
			if dec := utf16.DecodeRune(rr, rr1); dec != unicode.ReplacementChar {
				*dst = utf8.AppendRune(*dst, dec)
				return i + 6
			}
		}
		rr = unicode.ReplacementChar
	}
	*dst = utf8.AppendRune(*dst, rr)
	return i
}

func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c = c - '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// FoldKey reports whether an unknown member name could still be matched by
// encoding/json to one of names (which are ASCII): it matches names
// without regard to case, and with Unicode folding (the Kelvin sign is a
// k). Fast paths give up on such a name.
func FoldKey(key []byte, names ...string) bool {
	for _, c := range key {
		if c >= utf8.RuneSelf {
			return true
		}
	}
	for _, n := range names {
		if len(n) == len(key) && asciiEqualFold(key, n) {
			return true
		}
	}
	return false
}

func asciiEqualFold(a []byte, b string) bool {
	for i := range a {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
