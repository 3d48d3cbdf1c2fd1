package claude

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
)

// Bounds of the queue between the reader and the Messages channel. While
// the queue is full the reader stops reading, which is the backpressure the
// package promises; see waitRoom for the exception that avoids a deadlock.
const (
	maxQueuedMessages = 256
	maxQueuedBytes    = 8 << 20
)

// maxLineSize bounds one stdout line. Lines of tens of MB (large tool
// results) are normal; a longer one is dropped, with a warning, rather than
// exhausting memory.
const maxLineSize = 512 << 20

// readLoop is the only reader of the CLI's stdout. It answers the control
// protocol itself and queues every other frame for delivery in wire order.
func (p *Process) readLoop() {
	defer p.finish()
	defer p.stdout.Close()
	src := afterExitReader{r: p.stdout, exited: &p.exitedNow}
	if p.outPipe != nil {
		src.f = p.outPipe
	}
	br := bufio.NewReaderSize(src, 64<<10)
	pace := p.deltaPacer()
	for {
		p.waitRoom()
		line, owned, err := readLine(br)
		if len(line) > 0 {
			pace.saw(p.handleLine(line, owned), br.Buffered())
		}
		if err != nil {
			if errors.Is(err, errLineTooLong) {
				p.log.Warn("claude: dropped an oversized stdout line", "limit", maxLineSize)
				continue
			}
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
				p.log.Debug("claude: reading stdout", "err", err)
			}
			return
		}
	}
}

var errLineTooLong = errors.New("line too long")

// readLine returns the next line without its line ending. Unlike
// bufio.Scanner it has no small line limit. A line that fits in br's
// buffer, nearly every line, is br's own bytes (owned is false), valid
// until the next read: handleLine copies what it keeps, together with
// the frame it decodes when it can (decodeStreamFrame). A longer line is
// a copy the caller owns.
func readLine(br *bufio.Reader) (line []byte, owned bool, err error) {
	frag, err := br.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return bytes.TrimSpace(frag), false, err
	}
	buf := bytes.Clone(frag)
	tooLong := false
	for {
		frag, err := br.ReadSlice('\n')
		switch {
		case tooLong:
		case len(buf)+len(frag) > maxLineSize:
			tooLong, buf = true, nil
		default:
			buf = append(buf, frag...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			if err == nil {
				err = errLineTooLong
			}
			return nil, false, err
		}
		return bytes.TrimSpace(buf), true, err
	}
}

// waitRoom blocks the reader while the delivery queue is full, except while
// one of our control requests is pending or the process is shutting down.
// Without that exception a consumer that calls, say, Interrupt from the
// goroutine that also receives Messages would wait for a response that the
// reader never reaches.
func (p *Process) waitRoom() {
	p.mu.Lock()
	for !p.draining && !p.abandon && len(p.pending) == 0 &&
		(p.queue.len() >= maxQueuedMessages || p.queued >= maxQueuedBytes) {
		p.cond.Wait()
	}
	p.mu.Unlock()
}

// handleLine dispatches one stdout line; owned says whether the line is
// the caller's to keep (see readLine). It reports whether the line was a
// streamed content_block_delta (paceDeltas).
func (p *Process) handleLine(line []byte, owned bool) (delta bool) {
	// Most lines are streamed deltas. A line the stream_event fast path
	// takes has that one type (it refuses duplicate keys), so it needs
	// no scan of its envelope first: that scan, byte by byte over the
	// event, was the largest piece of ours in a relayed chunk.
	if owned {
		if ev, ok := decodeStreamEvent(line); ok {
			delta = ev.Event.Type == "content_block_delta"
			p.deliver(streamEventMessage(line, ev))
			return delta
		}
	} else {
		ev, kept, storage, ok := decodeStreamFrame(line)
		if ok {
			delta = ev.Event.Type == "content_block_delta"
			m := streamEventMessage(kept, ev)
			m.storage = storage
			p.deliver(m)
			return delta
		}
		if kept == nil {
			kept = bytes.Clone(line)
		}
		line = kept
	}
	typ, _, ok := peekEnvelope(line)
	if !ok {
		p.skipLine(line)
		return
	}
	switch typ {
	case "control_response":
		p.handleResponse(line)
		return
	case "control_request":
		p.handleRequest(line)
		return
	case "control_cancel_request":
		p.handleCancel(line)
		return
	}
	m, err := decodeMessage(line)
	if err != nil {
		p.skipLine(line)
		return
	}
	if m.DecodeErr != nil {
		p.log.Debug("claude: frame decoded partially", "err", m.DecodeErr)
	}
	p.deliver(m)
	return false
}

// deliver queues a decoded frame for the Messages channel, or hands it
// straight to a consumer that waits.
func (p *Process) deliver(m Message) {
	p.mu.Lock()
	p.written++
	if r, ok := m.Body.(*ResultMessage); ok && !p.started && r.IsError {
		p.results = append(p.results, r)
	}
	p.noteQuiet(m) // shutdown.go: Abort waits for the turn's end
	if p.queue.len() == 0 && !p.delivering && p.initOver && !p.abandon {
		// Nothing is ahead of this frame: hand it straight to a consumer
		// that is waiting, sparing the wake-up of deliverLoop (a goroutine
		// switch per streamed chunk). Under p.mu, so deliverLoop cannot
		// start delivering meanwhile; never blocking, so the reader never
		// waits for the consumer here.
		select {
		case p.out <- m:
			p.mu.Unlock()
			return
		default:
		}
	}
	p.queue.push(m)
	p.queued += len(m.Raw)
	p.cond.Broadcast()
	p.mu.Unlock()
}

// skipLine logs a stdout line that is not a JSON object. The CLI (or a
// library inside it) occasionally prints such lines; they are never fatal.
func (p *Process) skipLine(line []byte) {
	const show = 200
	s := line
	if len(s) > show {
		s = s[:show]
	}
	p.log.Debug("claude: skipping non-JSON stdout line", "line", string(s), "len", len(line))
}

// deliverLoop moves queued frames to the Messages channel, one at a time,
// blocking on the consumer.
func (p *Process) deliverLoop() {
	defer close(p.deliveryDone)
	defer close(p.out)
	for {
		p.mu.Lock()
		p.delivering = false
		// Frames wait for the initialize handshake (StartAsync): if it
		// fails they are dropped with the process.
		for !p.abandon && (p.queue.len() == 0 && !p.eof || !p.initOver) {
			p.cond.Wait()
		}
		if p.abandon || p.queue.len() == 0 {
			p.queue.drop()
			p.queued = 0
			p.mu.Unlock()
			return
		}
		m := p.queue.pop()
		p.delivering = true // handleLine must not overtake m
		p.deliverSeq++
		p.queued -= len(m.Raw)
		p.cond.Broadcast()
		p.mu.Unlock()
		select {
		case p.out <- m:
		case <-p.abandonCh:
			return
		}
	}
}

// TryMessage returns the next frame of Messages if one is ready now, and
// never waits: the frames the reader queued while the consumer was busy
// (it is behind the CLI). It keeps the order of Messages; a consumer that
// also receives from Messages must call both from one goroutine. ok is
// false when nothing is ready (or the process ended: Messages says so).
func (p *Process) TryMessage() (m Message, ok bool) {
	p.mu.Lock()
	if p.delivering || !p.initOver || p.abandon {
		seq := p.deliverSeq
		p.mu.Unlock()
		// deliverLoop holds the next frame: take it if it is offering it.
		select {
		case m, ok = <-p.out:
		default:
			return Message{}, false
		}
		if ok {
			// That was deliverLoop's frame (a non-blocking receive never
			// meets handleLine's non-blocking send): unless deliverLoop
			// took another meanwhile, the queue is next.
			p.mu.Lock()
			if p.deliverSeq == seq {
				p.delivering = false
			}
			p.mu.Unlock()
		}
		return m, ok
	}
	if p.queue.len() == 0 {
		p.mu.Unlock()
		return Message{}, false
	}
	m = p.queue.pop()
	p.queued -= len(m.Raw)
	p.cond.Broadcast() // room for the reader
	p.mu.Unlock()
	return m, true
}

// Backlog is how many frames wait for the consumer of Messages: how far
// it is behind the CLI.
func (p *Process) Backlog() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := p.queue.len()
	if p.delivering {
		n++
	}
	return n
}

// writeLine writes one complete line (which must end in '\n') to stdin.
// Writes are serialised, so concurrent callers never interleave. The
// context bounds only the wait for our turn: once started, a write goes
// out whole, or fails because stdin was closed.
func (p *Process) writeLine(ctxDone <-chan struct{}, line []byte) error {
	select {
	case p.writeSem <- struct{}{}:
	case <-ctxDone:
		return errCanceledWrite
	case <-p.done:
		return p.deadError()
	}
	defer func() { <-p.writeSem }()
	if p.stdinClosed.Load() {
		return p.deadOrClosed()
	}
	if _, err := p.stdin.Write(line); err != nil {
		return p.deadOrClosed()
	}
	return nil
}

var errCanceledWrite = errors.New("canceled before write")

// deadOrClosed is the error for a write that found stdin closed: ErrClosed
// after Close or Kill, otherwise ErrExited.
func (p *Process) deadOrClosed() error {
	if p.closing.Load() && !p.initKilled.Load() {
		return ErrClosed
	}
	return p.deadError()
}

// marshalLine encodes v as one NDJSON line. encoding/json never emits a raw
// newline (it escapes them in strings and compacts json.RawMessage), which
// the check below double-checks because a broken line kills the CLI.
func marshalLine(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if bytes.IndexByte(b, '\n') >= 0 {
		return nil, errors.New("claude: encoded message contains a newline")
	}
	return append(b, '\n'), nil
}
