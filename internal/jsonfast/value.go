package jsonfast

import (
	"encoding/binary"
	"math/bits"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// Members walks the members of an object Object entered, up to its closing
// brace. For a member named exactly names[i] it calls f(i) with the cursor
// on the value, which f must consume; other members are skipped (and
// validated). It is Fields for a shape given as a list of names, and sets
// Odd in the same cases.
func (d *Dec) Members(names []string, f func(i int)) {
	s := Shape{Names: names}
	var m Fields
	for m.Next(d, &s) {
		f(m.I)
	}
}

// Elems walks the array at the cursor, calling f with the cursor on each
// element, which f must consume. For any other value (null included) it
// skips it and returns false.
func (d *Dec) Elems(f func()) bool {
	if d.Kind() != '[' {
		d.Skip()
		return false
	}
	d.Array()
	for more := d.FirstElem(); more; more = d.NextElem() {
		f()
	}
	return true
}

// ObjectMembers is Members for the object at the cursor, which it enters.
// For any other value (null included) it skips it and returns false.
func (d *Dec) ObjectMembers(names []string, f func(i int)) bool {
	if d.Kind() != '{' {
		d.Skip()
		return false
	}
	d.Object()
	d.Members(names, f)
	return true
}

// Value consumes any value and returns it as encoding/json decodes into an
// interface value: map[string]any, []any (never nil), string, float64,
// bool or nil. A number that does not fit a float64 and an object with a
// member name twice set Odd (encoding/json would fail, or keep the last).
func (d *Dec) Value() any {
	switch d.Kind() {
	case '{':
		d.Object()
		m := map[string]any{}
		for key, esc, more := d.FirstKey(); more; key, esc, more = d.NextKey() {
			k := String(key, esc)
			if _, dup := m[k]; dup {
				d.odd = true
			}
			m[k] = d.Value()
		}
		return m
	case '[':
		d.Array()
		a := []any{}
		for more := d.FirstElem(); more; more = d.NextElem() {
			a = append(a, d.Value())
		}
		return a
	case '"':
		s, _ := d.Str()
		return s
	case '0':
		start := d.i
		d.number()
		if d.bad {
			return nil
		}
		raw := d.b[start:d.i]
		f, err := strconv.ParseFloat(unsafe.String(&raw[0], len(raw)), 64)
		if err != nil {
			d.odd = true
		}
		return f
	case 't':
		d.literal("true")
		return true
	case 'f':
		d.literal("false")
		return false
	case 'n':
		d.literal("null")
		return nil
	}
	d.fail()
	return nil
}

// Object decodes b as encoding/json decodes it into a map[string]any.
// ok is false when b is not one valid object, or not one Value decodes
// as encoding/json would (see Value): then the caller asks encoding/json.
func Object(b []byte) (m map[string]any, ok bool) {
	var d Dec
	d.Reset(b)
	return object(&d)
}

// ObjectShared is Object for a text that is never changed while the map is
// in use: its strings may share b's memory (see ResetShared).
func ObjectShared(b []byte) (m map[string]any, ok bool) {
	var d Dec
	d.ResetShared(b)
	return object(&d)
}

func object(d *Dec) (map[string]any, bool) {
	if d.Kind() != '{' {
		return nil, false
	}
	m, _ := d.Value().(map[string]any)
	return m, d.End()
}

// AppendString appends s as a JSON string exactly as encoding/json's
// Marshal writes it: with <, > and & escaped (\u003c, …), U+2028 and
// U+2029 escaped, invalid UTF-8 as \ufffd.
func AppendString(dst []byte, s string) []byte { return appendString(dst, s, true) }

// AppendStringNoHTMLEscape is AppendString as an encoding/json Encoder
// with SetEscapeHTML(false) writes it: <, > and & stay as they are. ACP
// frames use it, so that the text the peer sees is the text the agent
// wrote.
func AppendStringNoHTMLEscape(dst []byte, s string) []byte { return appendString(dst, s, false) }

func appendString(dst []byte, s string, html bool) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time over ASCII that needs no escape.
		for i+8 <= len(s) {
			x := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))
			m := special(x) | x&msb
			if html {
				m |= htmlSpecial(x)
			}
			if m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(s) {
			break
		}
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && (!html || b != '<' && b != '>' && b != '&') {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default: // controls, and <, > and & when html
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// htmlSpecial flags the bytes <, > and & of x in their high bits, like
// special (the lowest flag is exact).
func htmlSpecial(x uint64) uint64 {
	a := x ^ (lsb * '<')
	b := x ^ (lsb * '>')
	c := x ^ (lsb * '&')
	return ((a-lsb)&^a | (b-lsb)&^b | (c-lsb)&^c) & msb
}
