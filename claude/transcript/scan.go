package transcript

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/claude-agent-acp/claude-agent-acp/internal/jsonfast"
)

// field names a top-level key that the first pass keeps. Everything else in a
// line is skipped without being decoded.
type field uint8

const (
	fNone field = iota
	fType
	fUUID
	fParentUUID
	fIsSidechain
	fIsMeta
	fIsMetaSnake
	fTeamName
	fIsCompactSummary
	fTimestamp
	fCwd
	fSessionID
	fCustomTitle
	fAITitle
	fSummary
	fLastPrompt
	fLeafUUID
	fAgentName
	fRequestSessionID
	numFields
)

func lookupField(key []byte) field {
	switch string(key) { // the compiler does not allocate for this conversion
	case "type":
		return fType
	case "uuid":
		return fUUID
	case "parentUuid":
		return fParentUUID
	case "isSidechain":
		return fIsSidechain
	case "isMeta":
		return fIsMeta
	case "is_meta":
		return fIsMetaSnake
	case "teamName":
		return fTeamName
	case "isCompactSummary":
		return fIsCompactSummary
	case "timestamp":
		return fTimestamp
	case "cwd":
		return fCwd
	case "sessionId":
		return fSessionID
	case "customTitle":
		return fCustomTitle
	case "aiTitle":
		return fAITitle
	case "summary":
		return fSummary
	case "lastPrompt":
		return fLastPrompt
	case "leafUuid":
		return fLeafUUID
	case "agentName":
		return fAgentName
	case "requestSessionId":
		return fRequestSessionID
	}
	return fNone
}

// Value kinds of a kept field.
const (
	kindString = 's'
	kindTrue   = 't'
	kindFalse  = 'f'
	kindNull   = 'n'
	kindOther  = 'o' // number, object or array
)

// maxCapture bounds how many raw bytes of one string value are kept. Titles
// and prompts longer than this are cut (they are shortened for display
// anyway); uuids and types are far shorter.
const maxCapture = 4096

// value is one kept top-level field of the current line.
type value struct {
	set   bool
	kind  byte
	esc   bool // raw holds backslash escapes
	trunc bool // raw was cut at maxCapture
	raw   []byte
}

// str returns the decoded string value, or "" for other kinds.
func (v *value) str() string {
	if !v.set || v.kind != kindString {
		return ""
	}
	if !v.esc && utf8.Valid(v.raw) {
		return string(v.raw)
	}
	raw := v.raw
	if v.trunc {
		raw = trimPartialEscape(raw)
	}
	q := make([]byte, 0, len(raw)+2)
	q = append(q, '"')
	q = append(q, raw...)
	q = append(q, '"')
	var s string
	if err := json.Unmarshal(q, &s); err != nil {
		// Not a valid JSON string (raw control characters, bad escapes):
		// keep the bytes, made printable.
		return strings.ToValidUTF8(string(raw), "\uFFFD")
	}
	return s
}

// is reports whether the value is the string s, without allocating.
func (v *value) is(s string) bool {
	return v.set && v.kind == kindString && !v.esc && string(v.raw) == s
}

// trimPartialEscape drops a backslash escape cut off at the end of raw.
func trimPartialEscape(raw []byte) []byte {
	i := bytes.LastIndexByte(raw, '\\')
	if i < 0 {
		return raw
	}
	// Count the run of backslashes ending at i; an odd run starts an escape.
	n := 0
	for j := i; j >= 0 && raw[j] == '\\'; j-- {
		n++
	}
	if n%2 == 0 {
		return raw
	}
	rest := raw[i+1:]
	switch {
	case len(rest) == 0:
		return raw[:i]
	case rest[0] == 'u' && len(rest) < 5:
		return raw[:i]
	}
	return raw
}

// Scanner states. The scanner checks the grammar of the top-level object
// exactly and of nested values only loosely (brackets and strings), which is
// enough to find the kept fields and to reject cut or garbled lines; lines
// that reach the second pass are decoded in full there.
const (
	stStart      = iota // before '{'
	stKeyOrEnd          // after '{'
	stKeyStart          // after ','
	stKey               // inside a key
	stColon             // after a key
	stValue             // after ':'
	stString            // inside a top-level string value
	stLiteral           // inside true/false/null or a number
	stNested            // inside an object or array value
	stNestedStr         // inside a string inside a nested value
	stCommaOrEnd        // after a value
	stDone              // after the closing '}'
	stBad               // the line is not a JSON object
)

const maxKeyLen = 24

// scanner extracts the kept fields from one JSON object line. Input may come
// in any number of chunks, so lines of any length are handled in constant
// memory.
type scanner struct {
	state    uint8
	nonEmpty bool // saw a byte other than white space
	slashes  int  // backslashes just before the current position in a string
	depth    int  // nesting inside stNested
	key      [maxKeyLen]byte
	keyLen   int
	keyBad   bool // key too long or escaped: not a kept field
	cur      field
	lit      [8]byte
	litLen   int
	vals     [numFields]value
	dec      jsonfast.Dec // for scanLine
}

// reset prepares the scanner for a new line, keeping its buffers.
func (s *scanner) reset() {
	s.state = stStart
	s.nonEmpty = false
	s.slashes = 0
	s.depth = 0
	for i := range s.vals {
		v := &s.vals[i]
		v.set, v.kind, v.esc, v.trunc, v.raw = false, 0, false, false, v.raw[:0]
	}
}

// valid reports whether the line fed so far is one complete JSON object.
func (s *scanner) valid() bool { return s.state == stDone }

// empty reports whether the line so far holds only white space.
func (s *scanner) empty() bool { return !s.nonEmpty }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// feed scans the next chunk of the line.
func (s *scanner) feed(p []byte) {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !s.nonEmpty && !isSpace(c) {
			s.nonEmpty = true
		}
		switch s.state {
		case stStart:
			if c == '{' {
				s.state = stKeyOrEnd
			} else if !isSpace(c) {
				s.state = stBad
			}
		case stKeyOrEnd, stKeyStart:
			switch {
			case c == '"':
				s.state, s.keyLen, s.keyBad, s.slashes = stKey, 0, false, 0
			case c == '}' && s.state == stKeyOrEnd:
				s.state = stDone
			case !isSpace(c):
				s.state = stBad
			}
		case stKey:
			if c == '"' && s.slashes%2 == 0 {
				s.cur = fNone
				if !s.keyBad {
					s.cur = lookupField(s.key[:s.keyLen])
				}
				s.state = stColon
				continue
			}
			if c == '\\' {
				s.slashes++
				s.keyBad = true
			} else {
				s.slashes = 0
			}
			if s.keyLen < maxKeyLen {
				s.key[s.keyLen] = c
				s.keyLen++
			} else {
				s.keyBad = true
			}
		case stColon:
			if c == ':' {
				s.state = stValue
			} else if !isSpace(c) {
				s.state = stBad
			}
		case stValue:
			switch {
			case c == '"':
				s.state, s.slashes = stString, 0
				s.begin(kindString)
			case c == '{' || c == '[':
				s.state, s.depth = stNested, 1
				s.begin(kindOther)
			case c == 't' || c == 'f' || c == 'n' || c == '-' || '0' <= c && c <= '9':
				s.state, s.litLen = stLiteral, 0
				s.litByte(c)
			case !isSpace(c):
				s.state = stBad
			}
		case stString:
			// Fast path: jump to the next quote, keeping what lies between.
			j := bytes.IndexByte(p[i:], '"')
			if j < 0 {
				s.capture(p[i:])
				i = len(p)
				continue
			}
			s.capture(p[i : i+j])
			i += j
			if s.slashes%2 == 1 { // escaped quote: part of the string
				s.capture(p[i : i+1])
				s.slashes = 0
				continue
			}
			s.state = stCommaOrEnd
		case stLiteral:
			if isSpace(c) || c == ',' || c == '}' {
				if !s.endLiteral() {
					s.state = stBad
					continue
				}
				s.state = stCommaOrEnd
				i-- // the terminator belongs to the next state
				continue
			}
			s.litByte(c)
		case stNested:
			switch c {
			case '"':
				s.state, s.slashes = stNestedStr, 0
			case '{', '[':
				s.depth++
			case '}', ']':
				s.depth--
				if s.depth == 0 {
					s.state = stCommaOrEnd
				}
			}
		case stNestedStr:
			j := bytes.IndexByte(p[i:], '"')
			if j < 0 {
				s.countSlashes(p[i:])
				i = len(p)
				continue
			}
			s.countSlashes(p[i : i+j])
			i += j
			if s.slashes%2 == 1 {
				s.slashes = 0
				continue
			}
			s.state = stNested
		case stCommaOrEnd:
			switch {
			case c == ',':
				s.state = stKeyStart
			case c == '}':
				s.state = stDone
			case !isSpace(c):
				s.state = stBad
			}
		case stDone:
			if !isSpace(c) {
				s.state = stBad
			}
		case stBad:
			return
		}
	}
}

// begin starts the value of the current key.
func (s *scanner) begin(kind byte) {
	if s.cur == fNone {
		return
	}
	v := &s.vals[s.cur]
	v.set, v.kind, v.esc, v.trunc, v.raw = true, kind, false, false, v.raw[:0]
}

// capture keeps string bytes of the current value and tracks the backslash
// run that decides whether a following quote is escaped.
func (s *scanner) capture(b []byte) {
	s.countSlashes(b)
	if s.cur == fNone {
		return
	}
	v := &s.vals[s.cur]
	if bytes.IndexByte(b, '\\') >= 0 {
		v.esc = true
	}
	room := maxCapture - len(v.raw)
	if len(b) > room {
		b = b[:room]
		v.trunc = true
	}
	v.raw = append(v.raw, b...)
}

// countSlashes updates the length of the backslash run at the end of the
// bytes seen so far inside a string.
func (s *scanner) countSlashes(b []byte) {
	if len(b) == 0 {
		return
	}
	n := 0
	for n < len(b) && b[len(b)-1-n] == '\\' {
		n++
	}
	if n == len(b) {
		s.slashes += n
	} else {
		s.slashes = n
	}
}

func (s *scanner) litByte(c byte) {
	if s.litLen < len(s.lit) {
		s.lit[s.litLen] = c
	}
	s.litLen++
}

// endLiteral checks a finished literal and records it for a kept key.
func (s *scanner) endLiteral() bool {
	if s.litLen > len(s.lit) {
		// Only numbers are this long; check the first bytes loosely.
		return isNumberByte(s.lit[0])
	}
	lit := s.lit[:s.litLen]
	var kind byte
	switch string(lit) {
	case "true":
		kind = kindTrue
	case "false":
		kind = kindFalse
	case "null":
		kind = kindNull
	default:
		for _, c := range lit {
			if !isNumberByte(c) {
				return false
			}
		}
		kind = kindOther
	}
	s.begin(kind)
	return true
}

func isNumberByte(c byte) bool {
	return '0' <= c && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// text returns the decoded string of a kept field, or "".
func (s *scanner) text(f field) string { return s.vals[f].str() }

// isTrue reports whether a kept field is the literal true.
func (s *scanner) isTrue(f field) bool {
	v := &s.vals[f]
	return v.set && v.kind == kindTrue
}

// scanLine is feed for a whole line at once: one pass of the jsonfast
// cursor over the top-level members, which skips nested values and long
// strings many bytes at a time, strings to their closing quote without
// looking inside, as feed does (ResetLax: the records replayed are
// validated when they are decoded). It leaves the scanner exactly as
// feed would and reports true, or reports false for a line that is not a
// valid JSON object (or only white space), which the caller then feeds to
// the byte-by-byte scanner: its looser check of nested values decides
// about such lines, as before.
func (s *scanner) scanLine(line []byte) bool {
	d := &s.dec
	d.ResetLax(line) // like feed, which looks only for the quotes; the decode validates the records replayed
	if d.Kind() != '{' || !d.Object() {
		return false
	}
	for key, esc, more := d.FirstKey(); more; key, esc, more = d.NextKey() {
		f := fNone
		if !esc {
			f = lookupField(key)
		}
		if f == fNone {
			d.Skip()
			continue
		}
		v := &s.vals[f]
		switch d.Kind() {
		case '"':
			raw, e, _ := d.StrRaw()
			v.set, v.kind, v.esc, v.trunc = true, kindString, e, len(raw) > maxCapture
			v.raw = append(v.raw[:0], raw[:min(len(raw), maxCapture)]...)
		case 't':
			d.Skip()
			v.set, v.kind, v.esc, v.trunc, v.raw = true, kindTrue, false, false, v.raw[:0]
		case 'f':
			d.Skip()
			v.set, v.kind, v.esc, v.trunc, v.raw = true, kindFalse, false, false, v.raw[:0]
		case 'n':
			d.Skip()
			v.set, v.kind, v.esc, v.trunc, v.raw = true, kindNull, false, false, v.raw[:0]
		default:
			d.Skip()
			v.set, v.kind, v.esc, v.trunc, v.raw = true, kindOther, false, false, v.raw[:0]
		}
	}
	if !d.End() {
		return false
	}
	s.state, s.nonEmpty = stDone, true
	return true
}
