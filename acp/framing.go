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
// errFrameTooLarge together with its first bytes, so the connection can
// answer it and keep going.
type lineReader struct {
	r     *bufio.Reader
	max   int
	buf   []byte
	head  []byte // first bytes of an over-limit frame
	total int64  // size of the last over-limit frame
}

var errFrameTooLarge = errors.New("frame too large")

const frameHeadSize = 4096

func newLineReader(r io.Reader, max int) *lineReader {
	if max <= 0 {
		max = DefaultMaxFrameSize
	}
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next non-empty line without its "\n" or "\r\n". The
// slice is valid until the following call.
func (lr *lineReader) next() ([]byte, error) {
	for {
		line, err := lr.readLine()
		if err != nil {
			return nil, err
		}
		line = bytes.TrimRight(line, "\r")
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

// skip discards the rest of an over-limit frame, keeping its head.
func (lr *lineReader) skip(chunk []byte, err error) error {
	lr.head = append(lr.head[:0], lr.buf...)
	lr.head = appendCapped(lr.head, chunk, frameHeadSize)
	lr.total = int64(len(lr.buf) + len(chunk))
	lr.buf = nil
	for errors.Is(err, bufio.ErrBufferFull) {
		chunk, err = lr.r.ReadSlice('\n')
		lr.head = appendCapped(lr.head, chunk, frameHeadSize)
		lr.total += int64(len(chunk))
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return errFrameTooLarge
}

func appendCapped(dst, src []byte, limit int) []byte {
	if room := limit - len(dst); room > 0 {
		if len(src) > room {
			src = src[:room]
		}
		dst = append(dst, src...)
	}
	return dst
}

// scanHead recovers the top-level "id" of a truncated frame, and whether it
// carried a "method" before that point, by streaming tokens from its head.
func scanHead(head []byte) (id ID, hasMethod bool) {
	dec := json.NewDecoder(bytes.NewReader(head))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ID{}, false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return id, hasMethod
		}
		key, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return id, hasMethod
		}
		switch key {
		case "id":
			if parsed, ok := parseID(raw); ok {
				id = parsed
			}
		case "method":
			hasMethod = true
		}
	}
	return id, hasMethod
}
