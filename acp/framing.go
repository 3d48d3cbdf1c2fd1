package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// DefaultMaxFrameSize is the largest inbound line accepted. It is above the
// 32 MiB the official TypeScript SDK allows, so we never refuse what an
// official peer sends.
const DefaultMaxFrameSize = 64 << 20

// lineReader reads newline-delimited frames of any length up to a limit.
// An over-limit frame is skipped to its newline and reported as
// errFrameTooLarge; while its bytes stream past, scan follows the top level
// of the JSON object in constant memory, so the connection can answer it on
// its id (wherever in the frame the id is) and keep going.
type lineReader struct {
	r     *bufio.Reader
	max   int
	buf   []byte
	scan  frameScan // the top level of the last over-limit frame
	total int64     // size of the last over-limit frame
}

var errFrameTooLarge = errors.New("frame too large")

func newLineReader(r io.Reader, max int) *lineReader {
	if max <= 0 {
		max = DefaultMaxFrameSize
	}
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next non-empty line without its "\n" or "\r\n" and
// without a UTF-8 byte-order mark at its start. The slice is valid until
// the following call.
func (lr *lineReader) next() ([]byte, error) {
	for {
		line, err := lr.readLine()
		if err != nil {
			return nil, err
		}
		line = bytes.TrimRight(line, "\r")
		line = bytes.TrimPrefix(line, utf8BOM)
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		return line, nil
	}
}

func (lr *lineReader) readLine() ([]byte, error) {
	lr.buf = lr.buf[:0]
	// Release a huge buffer from an earlier frame so one big message does
	// not pin its memory for the life of the connection.
	if cap(lr.buf) > 1<<20 {
		lr.buf = nil
	}
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if len(lr.buf)+len(chunk) > lr.max+1 { // +1: the newline itself
			return nil, lr.skip(chunk, err)
		}
		lr.buf = append(lr.buf, chunk...)
		switch {
		case err == nil:
			return lr.buf[:len(lr.buf)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(lr.buf) > lr.max:
			return nil, lr.skip(nil, err)
		case errors.Is(err, io.EOF) && len(lr.buf) > 0:
			return lr.buf, nil // last line without a newline
		default:
			return nil, err
		}
	}
}

// skip discards the rest of an over-limit frame, scanning all of it.
func (lr *lineReader) skip(chunk []byte, err error) error {
	lr.scan = frameScan{}
	lr.scan.feed(lr.buf)
	lr.scan.feed(chunk)
	lr.total = int64(len(lr.buf) + len(chunk))
	lr.buf = nil
	for errors.Is(err, bufio.ErrBufferFull) {
		chunk, err = lr.r.ReadSlice('\n')
		lr.scan.feed(chunk)
		lr.total += int64(len(chunk))
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return errFrameTooLarge
}

// frameScan follows the top level of one JSON object as its bytes stream
// past, keeping none of them but the raw value of a top-level "id" (up to
// maxScanID bytes): it notes which of the top-level keys "id", "method",
// "params", "result" and "error" appear, wherever they are. Nested values
// and strings are skipped by tracking depth, strings and escapes. It does
// not validate: on anything that is not an object it stops (isObject
// false), and a frame cut short keeps what was seen so far. As
// encoding/json does, the last of duplicate keys wins.
type frameScan struct {
	state    scanState
	bom      int  // bytes of a leading byte-order mark matched so far
	depth    int  // nesting inside the current top-level value
	inString bool // inside a string within the current value
	escaped  bool // after a backslash inside a string
	key      []byte
	keyLong  bool // the key is longer than maxScanKey: none we look for
	curKey   string
	val      []byte // raw "id" value being read
	valLong  bool

	isObject                                         bool
	hasID, hasMethod, hasParams, hasResult, hasError bool
	id                                               []byte // raw top-level id, nil when too long
}

type scanState int

const (
	scanStart      scanState = iota // before the opening brace
	scanKeyOrEnd                    // after "{" or ",": a key, or "}"
	scanKey                         // inside a key
	scanColon                       // after a key
	scanValueStart                  // after ":"
	scanValue                       // inside a value
	scanAfterValue                  // after a value: "," or "}"
	scanDone                        // the object ended, or it is not one
)

const (
	maxScanKey = 64   // room for any of our keys, even fully \u-escaped
	maxScanID  = 1024 // a longer id is taken as unreadable
)

func isJSONSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\r' || b == '\n' }

// feed scans the next bytes of the frame.
func (s *frameScan) feed(b []byte) {
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch s.state {
		case scanStart:
			if s.bom < len(utf8BOM) && c == utf8BOM[s.bom] {
				s.bom++
				continue
			}
			s.bom = len(utf8BOM)
			if isJSONSpace(c) {
				continue
			}
			if c != '{' {
				s.state = scanDone
				return
			}
			s.isObject = true
			s.state = scanKeyOrEnd
		case scanKeyOrEnd:
			switch {
			case isJSONSpace(c):
			case c == '"':
				s.key, s.keyLong, s.escaped = s.key[:0], false, false
				s.state = scanKey
			default: // "}" or garbage: the top level is over
				s.state = scanDone
				return
			}
		case scanKey:
			if s.escaped {
				s.escaped = false
			} else if c == '\\' {
				s.escaped = true
			} else if c == '"' {
				s.state = scanColon
				continue
			}
			if len(s.key) < maxScanKey {
				s.key = append(s.key, c)
			} else {
				s.keyLong = true
			}
		case scanColon:
			if c == ':' {
				s.curKey = s.keyName()
				s.state = scanValueStart
			} else if !isJSONSpace(c) {
				s.state = scanDone
				return
			}
		case scanValueStart:
			if isJSONSpace(c) {
				continue
			}
			s.markKey()
			s.depth, s.inString, s.escaped = 0, false, false
			s.val, s.valLong = s.val[:0], false
			s.state = scanValue
			i-- // the value's first byte is read in scanValue
		case scanValue:
			n, done := s.value(b[i:])
			if s.curKey == "id" {
				s.captureID(b[i : i+n])
			}
			i += n - 1
			if done {
				if s.curKey == "id" {
					s.hasID = true
					s.id = nil
					if !s.valLong {
						s.id = append([]byte(nil), s.val...)
					}
				}
				s.state = scanAfterValue
			}
		case scanAfterValue:
			switch {
			case isJSONSpace(c):
			case c == ',':
				s.state = scanKeyOrEnd
			default:
				s.state = scanDone
				return
			}
		case scanDone:
			return
		}
	}
}

// value consumes bytes of the current value from b. It returns how many
// belong to it and whether the value ended; a scalar ends before the byte
// that follows it, which is left for scanAfterValue.
func (s *frameScan) value(b []byte) (n int, done bool) {
	for n < len(b) {
		c := b[n]
		switch {
		case s.inString:
			if s.escaped {
				s.escaped = false
				n++
				continue
			}
			// Skip to the next quote or backslash in one step: the bulk of
			// a huge frame is string content.
			j := bytes.IndexAny(b[n:], "\"\\")
			if j < 0 {
				return len(b), false
			}
			n += j
			if b[n] == '\\' {
				s.escaped = true
				n++
				continue
			}
			n++ // the closing quote
			s.inString = false
			if s.depth == 0 {
				return n, true
			}
		case s.depth > 0:
			j := bytes.IndexAny(b[n:], "\"{}[]")
			if j < 0 {
				return len(b), false
			}
			n += j
			switch b[n] {
			case '"':
				s.inString = true
			case '{', '[':
				s.depth++
			default:
				s.depth--
			}
			n++
			if s.depth == 0 && !s.inString {
				return n, true
			}
		default: // the value's first byte, or inside a scalar
			switch {
			case c == '"':
				s.inString = true
				n++
			case c == '{' || c == '[':
				s.depth = 1
				n++
			case c == ',' || c == '}' || c == ']' || isJSONSpace(c):
				return n, true
			default:
				n++
			}
		}
	}
	return n, false
}

func (s *frameScan) captureID(b []byte) {
	if s.valLong {
		return
	}
	if len(s.val)+len(b) > maxScanID {
		s.valLong = true
		return
	}
	s.val = append(s.val, b...)
}

// keyName is the key just read, unescaped; "" for one we never look for.
func (s *frameScan) keyName() string {
	if s.keyLong {
		return ""
	}
	if bytes.IndexByte(s.key, '\\') < 0 {
		return string(s.key)
	}
	var k string
	if json.Unmarshal(append(append([]byte{'"'}, s.key...), '"'), &k) != nil {
		return ""
	}
	return k
}

func (s *frameScan) markKey() {
	switch s.curKey {
	case "method":
		s.hasMethod = true
	case "params":
		s.hasParams = true
	case "result":
		s.hasResult = true
	case "error":
		s.hasError = true
	}
}

// topID is the frame's id as the answer should carry it: the zero ID when
// it has none, null when it has one that cannot be read.
func (s *frameScan) topID() ID {
	if !s.hasID {
		return ID{}
	}
	if s.id == nil {
		return nullID
	}
	if id, ok := parseID(s.id); ok {
		return id
	}
	return nullID
}
