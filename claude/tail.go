package claude

import (
	"bytes"
	"strings"
	"sync"
)

// stderrTailSize is how much of the CLI's stderr we keep for error
// messages, the same 2 KiB the SDK keeps.
const stderrTailSize = 2 << 10

// A tailBuffer keeps the last max bytes written to it, so that a CLI that
// floods stderr cannot grow our memory. It is safe for concurrent use.
type tailBuffer struct {
	mu      sync.Mutex
	max     int
	buf     []byte // len ≤ 2*max; the tail is buf[len-max:]
	dropped bool   // some earlier bytes were discarded
}

func newTailBuffer(max int) *tailBuffer {
	return &tailBuffer{max: max, buf: make([]byte, 0, 2*max)}
}

// Write implements io.Writer; it never fails.
func (t *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(p) >= t.max {
		t.dropped = t.dropped || len(p) > t.max || len(t.buf) > 0
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return n, nil
	}
	if len(t.buf)+len(p) > cap(t.buf) {
		keep := t.max - len(p)
		if keep > len(t.buf) {
			keep = len(t.buf)
		}
		t.dropped = true
		copy(t.buf, t.buf[len(t.buf)-keep:])
		t.buf = t.buf[:keep]
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// String returns the kept tail as text: at most max bytes, starting at a
// line boundary when the start was cut off, and valid UTF-8.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	b := t.buf
	cut := t.dropped
	if len(b) > t.max {
		b = b[len(b)-t.max:]
		cut = true
	}
	if cut {
		if i := bytes.IndexByte(b, '\n'); i >= 0 && i < len(b)-1 {
			b = b[i+1:]
		}
	}
	s := string(b)
	t.mu.Unlock()
	return strings.ToValidUTF8(strings.TrimSpace(s), "\uFFFD")
}
