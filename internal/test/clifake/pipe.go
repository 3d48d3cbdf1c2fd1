package clifake

import (
	"errors"
	"io"
	"sync"
)

// A pipe is an in-memory pipe with a kernel pipe's buffer: a write returns
// once its bytes fit in the buffer, and blocks only while the buffer is
// full, as a write to a real pipe does. (io.Pipe has no buffer: a writer
// waits for the reader, which couples the agent's writes to the CLI's
// reads in ways a real CLI's pipes do not.) Its waits are on a sync.Cond,
// which testing/synctest counts as durably blocked.
type pipe struct {
	mu     sync.Mutex
	cond   *sync.Cond
	buf    []byte
	max    int
	closed bool  // the writer closed: EOF once drained
	rerr   error // the reader closed: writes fail with it
}

// pipeBuffer is Linux's default pipe buffer.
const pipeBuffer = 64 << 10

func newPipe() *pipe {
	p := &pipe{max: pipeBuffer}
	p.cond = sync.NewCond(&p.mu)
	return p
}

// reader and writer are the pipe's two ends.
type pipeReader struct{ p *pipe }
type pipeWriter struct{ p *pipe }

func (r pipeReader) Read(b []byte) (int, error) {
	p := r.p
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.buf) == 0 && !p.closed && p.rerr == nil {
		p.cond.Wait()
	}
	if p.rerr != nil {
		return 0, io.ErrClosedPipe
	}
	if len(p.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(b, p.buf)
	p.buf = p.buf[n:]
	if len(p.buf) == 0 {
		p.buf = nil
	}
	p.cond.Broadcast()
	return n, nil
}

// Close closes the read end: writes fail from now on.
func (r pipeReader) Close() error { return r.CloseWithError(io.ErrClosedPipe) }

// CloseWithError closes the read end with err for writers.
func (r pipeReader) CloseWithError(err error) error {
	p := r.p
	p.mu.Lock()
	if p.rerr == nil {
		p.rerr = err
	}
	p.buf = nil
	p.cond.Broadcast()
	p.mu.Unlock()
	return nil
}

func (w pipeWriter) Write(b []byte) (int, error) {
	p := w.p
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for len(b) > 0 {
		for len(p.buf) >= p.max && p.rerr == nil && !p.closed {
			p.cond.Wait()
		}
		if p.rerr != nil {
			return n, p.rerr
		}
		if p.closed {
			return n, errors.New("clifake: write on a closed pipe")
		}
		k := min(len(b), p.max-len(p.buf))
		p.buf = append(p.buf, b[:k]...)
		b, n = b[k:], n+k
		p.cond.Broadcast()
	}
	return n, nil
}

// Close closes the write end: the reader sees EOF once it has read all.
func (w pipeWriter) Close() error {
	p := w.p
	p.mu.Lock()
	p.closed = true
	p.cond.Broadcast()
	p.mu.Unlock()
	return nil
}
