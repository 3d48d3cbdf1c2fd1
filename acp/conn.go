package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// A Handler answers the requests and notifications a peer sends.
//
// For a request, the returned value is the result and a non-nil error the
// error response (an *Error as it is; any other error becomes -32603 naming
// the method). Returning (nil, nil) means the handler gave no answer; the
// peer then gets -32603. For a notification the result is ignored and an
// error is only logged.
//
// Handlers run in their own goroutine but start in wire order: the next
// message is not dispatched until the handler returns, calls [Async], or its
// request is cancelled, or [Options.ReleaseTimeout] has passed. A handler
// that will wait (a prompt turn, a call to the peer) calls Async first,
// after registering whatever later messages must find; one that forgets
// holds the connection back by ReleaseTimeout at most, never for good.
type Handler interface {
	Handle(ctx context.Context, req *Request) (any, error)
}

// HandlerFunc adapts a function to [Handler].
type HandlerFunc func(ctx context.Context, req *Request) (any, error)

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, req *Request) (any, error) { return f(ctx, req) }

// Request is an inbound request or notification.
type Request struct {
	ID     ID // zero for a notification
	Method string
	Params json.RawMessage // nil when absent
}

// IsNotification reports whether the peer expects no response.
func (r *Request) IsNotification() bool { return r.ID.IsZero() }

// Options configure a [Conn]. The zero value is usable.
type Options struct {
	// Handler serves inbound messages; nil answers every request -32601.
	Handler Handler
	// Logger receives diagnostics; never message payloads. Nil discards.
	Logger *slog.Logger
	// MaxFrameSize bounds one inbound line (default DefaultMaxFrameSize).
	// A larger frame is answered with an error; the connection lives on.
	MaxFrameSize int
	// MaxInFlight bounds the inbound requests read and not yet answered
	// (default 4096). A request past it is answered at once with -32603
	// (data.reason "overloaded") and costs nothing more: the connection
	// never stops reading because of requests, so cancellations and
	// control requests always get through.
	MaxInFlight int
	// MaxInFlightBytes bounds the bytes of those requests (default
	// 256 MiB); a request that would pass it is refused the same way,
	// unless nothing else is in flight.
	MaxInFlightBytes int
	// MaxQueuedBytes bounds notifications read but not yet dispatched
	// (default 128 MiB); past it the connection stops reading until the
	// dispatcher catches up (notification handlers run inline and are
	// quick, and an unreleased handler holds it ReleaseTimeout at most).
	MaxQueuedBytes int
	// ReleaseTimeout is how long the dispatcher waits for a request's
	// handler to return or call [Async] before it dispatches the next
	// message anyway (default 1 s). A cancelled request releases at once.
	ReleaseTimeout time.Duration
	// CancelGrace is how long a handler may run after its request was
	// cancelled before the connection answers for it (default 10 s).
	CancelGrace time.Duration
	// CancelledResult, if set, gives the successful result to send when a
	// cancelled request's handler does not answer in time or panics (ACP's
	// session/prompt answers {"stopReason":"cancelled"}). Otherwise -32800.
	CancelledResult func(method string) (result any, ok bool)
	// InitializeMethod, if set, gates the connection: until a request with
	// this method has succeeded, other requests get -32600 and
	// notifications are dropped; a second successful one gets -32600.
	InitializeMethod string
	// FreeMemoryAfter is the inbound frame size (default
	// DefaultFreeMemoryAfter, 8 MiB) from which the connection returns
	// freed memory to the operating system soon after reading the frame
	// and after answering it (see memory.go); negative disables it.
	FreeMemoryAfter int
	// OutputFilter, if set, rewrites every frame before it is written: one
	// whole JSON-RPC message ending in a newline, which it must return as
	// one whole, valid message (or the frame itself, unchanged). It must
	// not keep the frame, whose buffer is reused. The agent removes the
	// secrets it knows here, whatever path they took to the peer.
	OutputFilter func(frame []byte) []byte
}

// Conn is one JSON-RPC 2.0 connection over newline-delimited JSON. The same
// type serves both ends of ACP: the agent answers the client's requests and
// calls the client, and a client does the reverse.
type Conn struct {
	opts   Options
	log    *slog.Logger
	reader io.Reader
	lr     *lineReader

	wmu sync.Mutex // one whole frame per Write
	w   io.Writer
	// While held (Hold), frames are appended to held and written together
	// when the last hold ends; holds counts them. Both behind wmu.
	holds int
	held  []byte

	// mu guards st, the connection's whole mutable state; cond signals
	// every change of it (a message queued or handled, a dispatch, the
	// end).
	mu   sync.Mutex
	cond *sync.Cond
	st   connState

	nextID atomic.Int64

	// Sequence numbers make a response wait for the notifications read
	// before it: a Call returns only after every notification that
	// preceded its response has been handled, as the peer intended.
	readSeq uint64 // last message queued (reader goroutine only)

	// baseCtx is the parent of every handler context; it ends with the
	// connection, with the shutdown cause.
	baseCtx    context.Context
	baseCancel context.CancelCauseFunc

	handlers sync.WaitGroup
	running  atomic.Int64 // messages dequeued and not yet fully handled
	hmu      sync.Mutex   // orders handlers.Add against Wait after shutdown
	done     chan struct{}
	doneOnce sync.Once
	cause    error
	readDone chan struct{}
}

// connState is what changes while a connection runs, all of it behind
// Conn.mu.
type connState struct {
	inflight      map[string]*inflight // inbound requests by id key
	inflightBytes int                  // their frame sizes, for MaxInFlightBytes
	pending       map[string]*pending  // outbound calls by id key
	gate          initGate             // the initialize gate (gate.go)
	eof           bool                 // the peer closed its side
	queue         []*inflight          // read, not yet dispatched
	queued        int                  // bytes of queued notifications
	doneSeq       uint64               // last message whose handler was started and released
}

// inflight tracks one inbound message from read to reply.
type inflight struct {
	req       Request
	seq       uint64
	size      int
	ctx       context.Context
	cancel    context.CancelCauseFunc
	mu        sync.Mutex
	replied   bool
	cancelled bool
	grace     *time.Timer
	initV2    bool // an initialize asking for protocol 2 or later (gate.go)
}

type pending struct {
	method string
	ch     chan inbound
}

// NewConn starts a connection reading r and writing w. Reading begins at
// once; the connection ends when r reaches EOF, a write fails, or Close.
func NewConn(r io.Reader, w io.Writer, opts Options) *Conn {
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = 4096
	}
	if opts.MaxInFlightBytes <= 0 {
		opts.MaxInFlightBytes = 256 << 20
	}
	if opts.MaxQueuedBytes <= 0 {
		opts.MaxQueuedBytes = 128 << 20
	}
	if opts.ReleaseTimeout <= 0 {
		opts.ReleaseTimeout = time.Second
	}
	if opts.CancelGrace <= 0 {
		opts.CancelGrace = 10 * time.Second
	}
	if opts.Handler == nil {
		opts.Handler = HandlerFunc(func(_ context.Context, req *Request) (any, error) {
			return nil, NewMethodNotFound(req.Method)
		})
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Conn{
		opts:     opts,
		log:      log,
		reader:   r,
		lr:       newLineReader(r, opts.MaxFrameSize),
		w:        w,
		st:       connState{inflight: make(map[string]*inflight), pending: make(map[string]*pending)},
		done:     make(chan struct{}),
		readDone: make(chan struct{}),
	}
	c.baseCtx, c.baseCancel = context.WithCancelCause(context.Background())
	c.cond = sync.NewCond(&c.mu)
	go c.readLoop()
	c.handlers.Add(1) // the dispatcher runs notification handlers itself
	go func() {
		defer c.handlers.Done()
		c.dispatchLoop()
	}()
	return c
}

// Done is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err says why the connection ended: ErrPeerClosed, ErrShutdown or an
// error wrapping ErrTransport. It is nil while the connection is open.
func (c *Conn) Err() error {
	select {
	case <-c.done:
		return c.cause
	default:
		return nil
	}
}

// Wait blocks until the connection has ended and every handler has
// returned, and reports Err.
func (c *Conn) Wait() error {
	<-c.done
	c.hmu.Lock() // a handler being added right now is counted before we wait
	c.hmu.Unlock()
	c.handlers.Wait()
	return c.cause
}

// Close ends the connection: reading stops, handlers' contexts are
// cancelled with ErrShutdown and pending calls fail. Nothing more is sent.
func (c *Conn) Close() error {
	c.shutdown(ErrShutdown)
	if rc, ok := c.reader.(io.Closer); ok {
		_ = rc.Close()
	}
	return nil
}

func (c *Conn) shutdown(cause error) {
	c.doneOnce.Do(func() {
		c.mu.Lock()
		c.cause = cause
		close(c.done)
		running := c.st.inflight
		pend := c.st.pending
		c.st.inflight = map[string]*inflight{}
		c.st.inflightBytes = 0
		c.st.pending = map[string]*pending{}
		c.mu.Unlock()
		c.baseCancel(cause)
		for _, f := range running {
			f.cancel(cause)
		}
		for _, p := range pend {
			p.ch <- inbound{err: &Error{Code: CodeInternalError, Message: "connection closed before the response: " + cause.Error(), cause: cause}}
		}
		c.mu.Lock()
		c.cond.Broadcast()
		c.mu.Unlock()
		c.mu.Lock()
		for _, f := range c.st.queue {
			f.cancel(cause)
		}
		c.st.queue = nil
		c.cond.Broadcast()
		c.mu.Unlock()
	})
}

// readLoop reads frames in wire order. It answers framing errors, routes
// responses and $/cancel_request at once, and queues everything else for
// the dispatcher, registering requests first so a cancel can find them.
func (c *Conn) readLoop() {
	defer close(c.readDone)
	for {
		line, err := c.lr.next()
		if errors.Is(err, errFrameTooLarge) {
			c.frameTooLarge()
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) {
				c.drain()
			} else {
				c.shutdown(fmt.Errorf("%w: read: %v", ErrTransport, err))
			}
			return
		}
		select {
		case <-c.done:
			return
		default:
		}
		if c.bigFrame(int64(len(line))) {
			freeMemorySoon() // the line and its garbage; the handler's copy after its reply
		}
		c.accept(classify(line))
	}
}

// DrainTimeout bounds how long a connection whose peer closed its input
// keeps answering the requests it had already read.
const DrainTimeout = 5 * time.Second

// drain handles EOF from the peer: it may still read our output, so the
// requests it sent before closing are answered. Handlers see their context
// end with ErrPeerClosed (so no new work starts), calls to the peer fail at
// once (it can no longer answer), and the connection ends when everything
// read has been handled, or after DrainTimeout.
func (c *Conn) drain() {
	c.mu.Lock()
	c.st.eof = true
	pend := c.st.pending
	c.st.pending = map[string]*pending{}
	c.mu.Unlock()
	for _, p := range pend {
		p.ch <- inbound{err: &Error{Code: CodeInternalError, Message: "connection closed before the response: " + ErrPeerClosed.Error(), cause: ErrPeerClosed}}
	}
	c.baseCancel(ErrPeerClosed)
	// Wait for the last message read to be handled (done signals each
	// one), for the deadline, or for the connection to end otherwise.
	timeout := time.AfterFunc(DrainTimeout, func() { c.signalHandled() })
	defer timeout.Stop()
	deadline := time.Now().Add(DrainTimeout)
	c.mu.Lock()
	for (len(c.st.queue) > 0 || c.running.Load() > 0) && !c.closed() && time.Now().Before(deadline) {
		c.cond.Wait()
	}
	c.mu.Unlock()
	c.shutdown(ErrPeerClosed)
}

// handled ends the accounting of one dequeued message and wakes a drain
// waiting for the last one.
func (c *Conn) handled() {
	if c.running.Add(-1) == 0 {
		c.signalHandled()
	}
}

func (c *Conn) signalHandled() {
	c.mu.Lock()
	c.cond.Broadcast()
	c.mu.Unlock()
}

func (c *Conn) accept(in inbound) {
	switch in.kind {
	case kindInvalid:
		if in.orResponse && c.failPending(in.id, invalidResponse("it has neither result nor error")) {
			c.log.Debug("acp: invalid response to a call")
			return
		}
		c.log.Debug("acp: invalid inbound message", "code", in.err.Code)
		c.writeError(in.id, in.err)
	case kindIgnore:
		c.log.Debug("acp: ignoring a response without a usable id")
	case kindResponse:
		in.seq = c.readSeq
		c.deliver(in)
	case kindNotification:
		if in.method == methodCancelRequest {
			c.cancelInbound(in.params)
			return
		}
		c.enqueue(c.newInflight(in))
	case kindRequest:
		key := in.id.key()
		c.mu.Lock()
		_, dup := c.st.inflight[key]
		over := !dup && (len(c.st.inflight) >= c.opts.MaxInFlight ||
			c.st.inflightBytes > 0 && c.st.inflightBytes+in.size > c.opts.MaxInFlightBytes)
		var f *inflight
		if !dup && !over {
			f = c.newInflight(in)
			c.st.inflight[key] = f
			c.st.inflightBytes += in.size
		}
		c.mu.Unlock()
		switch {
		case dup:
			c.writeError(in.id, NewInvalidRequest("duplicate request id: a request with this id is still in flight"))
		case over:
			c.log.Warn("acp: refusing a request: too many in flight", "method", in.method, "limit", c.opts.MaxInFlight)
			c.writeError(in.id, &Error{Code: CodeInternalError,
				Message: "Too many requests in flight; retry once some have been answered",
				Data:    mustMarshal(map[string]any{"reason": "overloaded", "limit": c.opts.MaxInFlight})})
		default:
			c.enqueue(f)
		}
	}
}

const methodCancelRequest = "$/cancel_request"

func (c *Conn) newInflight(in inbound) *inflight {
	if in.kind == kindNotification {
		// Notifications cannot be cancelled one by one: they share the
		// connection's context, which saves allocations on the hot path.
		return &inflight{
			req:    Request{Method: in.method, Params: in.params},
			size:   in.size,
			ctx:    c.baseCtx,
			cancel: func(error) {},
		}
	}
	ctx, cancel := context.WithCancelCause(c.baseCtx)
	return &inflight{
		req:    Request{ID: in.id, Method: in.method, Params: in.params},
		size:   in.size,
		ctx:    ctx,
		cancel: cancel,
	}
}

// enqueue hands a message to the dispatcher. A notification waits while
// too many bytes of notifications wait (a peer that floods us is slowed by
// the pipe, not by dropping); a request never waits here: accept has
// already bounded requests, and waiting would hold back the cancellations
// read after it.
func (c *Conn) enqueue(f *inflight) {
	c.readSeq++
	f.seq = c.readSeq
	c.mu.Lock()
	defer c.mu.Unlock()
	if f.req.IsNotification() {
		for c.st.queued > 0 && c.st.queued+f.size > c.opts.MaxQueuedBytes && !c.closed() {
			c.cond.Wait()
		}
	}
	if c.closed() {
		f.cancel(c.cause)
		return
	}
	c.st.queue = append(c.st.queue, f)
	if f.req.IsNotification() {
		c.st.queued += f.size
	}
	c.cond.Broadcast()
}

func (c *Conn) closed() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

func (c *Conn) dequeue() *inflight {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.st.queue) == 0 && !c.closed() {
		c.cond.Wait()
	}
	if c.closed() {
		return nil
	}
	f := c.st.queue[0]
	c.st.queue[0] = nil
	c.st.queue = c.st.queue[1:]
	c.running.Add(1) // counted before it leaves the queue, for drain
	if f.req.IsNotification() {
		c.st.queued -= f.size
	}
	c.cond.Broadcast()
	return f
}

// dispatchLoop starts handlers one at a time in wire order, each after the
// previous one has returned or called Async, or its request was cancelled,
// or ReleaseTimeout passed. It never waits for anything else, so work in
// flight cannot hold back the messages behind it for long.
func (c *Conn) dispatchLoop() {
	release := time.NewTimer(time.Hour)
	release.Stop()
	defer release.Stop()
	for {
		f := c.dequeue()
		if f == nil {
			return
		}
		if !c.admit(f) {
			c.markDispatched(f.seq)
			c.handled()
			continue
		}
		if f.req.IsNotification() {
			// Notifications run in order on this goroutine: they must be
			// quick, and nothing else may start before they are handled.
			c.runNotification(f)
			c.markDispatched(f.seq)
			c.handled()
			continue
		}
		hs := &handlerState{released: make(chan struct{}), seq: f.seq}
		c.hmu.Lock()
		if c.closed() {
			c.hmu.Unlock()
			f.cancel(c.cause)
			return
		}
		c.handlers.Add(1)
		c.hmu.Unlock()
		go c.run(f, hs)
		// The initialize gate needs its answer before anything else runs
		// (v1); under v2 the requests behind it are refused instead, at
		// once.
		switch {
		case f.initV2:
			hs.release()
		case f.req.Method != c.opts.InitializeMethod:
			release.Reset(c.opts.ReleaseTimeout)
		}
		cancelled := f.ctx.Done()
	wait:
		for {
			select {
			case <-hs.released:
				break wait
			case <-cancelled:
				// Cancelled by the peer: what follows may be about it.
				// (The context also ends when the peer closes its side;
				// then order still matters for what it sent before.)
				if errors.Is(context.Cause(f.ctx), ErrCancelledByPeer) {
					hs.release()
					break wait
				}
				cancelled = nil
			case <-release.C:
				c.log.Debug("acp: handler neither returned nor called Async in time; dispatching on", "method", f.req.Method)
				hs.release()
				break wait
			case <-c.done:
				return
			}
		}
		release.Stop()
		c.markDispatched(f.seq)
	}
}

func (c *Conn) markDispatched(seq uint64) {
	c.mu.Lock()
	if seq > c.st.doneSeq {
		c.st.doneSeq = seq
	}
	c.mu.Unlock()
	c.cond.Broadcast()
}

// waitDispatched blocks until every message read before seq was handled
// (or the connection ended).
func (c *Conn) waitDispatched(seq uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.st.doneSeq < seq && !c.closed() {
		c.cond.Wait()
	}
}

// handlerState lets a handler release the dispatcher early (Async).
type handlerState struct {
	once     sync.Once
	released chan struct{}
	seq      uint64 // the message this handler serves
}

func (h *handlerState) isReleased() bool {
	if h.released == nil {
		return false
	}
	select {
	case <-h.released:
		return true
	default:
		return false
	}
}

func (h *handlerState) release() {
	if h.released == nil {
		return // an inline notification handler: nothing to release
	}
	h.once.Do(func() { close(h.released) })
}

type handlerKey struct{}

// Async lets the connection dispatch the next inbound message while the
// calling handler keeps running. Call it once the handler has registered
// what later messages depend on (a prompt's turn, so its cancel finds it).
// It is a no-op outside a handler.
func Async(ctx context.Context) {
	if h, ok := ctx.Value(handlerKey{}).(*handlerState); ok {
		h.release()
	}
}

func (c *Conn) runNotification(f *inflight) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("acp: notification handler panicked", "method", f.req.Method, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
		}
	}()
	// The marker lets a Call made from this handler skip waiting for its
	// own message (the dispatcher is busy running it).
	ctx := context.WithValue(f.ctx, handlerKey{}, &handlerState{seq: f.seq})
	if _, err := c.opts.Handler.Handle(ctx, &f.req); err != nil {
		c.log.Warn("acp: notification handler failed", "method", f.req.Method, "error", err)
	}
}

func (c *Conn) run(f *inflight, hs *handlerState) {
	defer c.handlers.Done()
	defer c.handled()
	defer hs.release()
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("acp: handler panicked", "method", f.req.Method, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			if f.req.Method == c.opts.InitializeMethod {
				c.initFinished(nil, false)
			}
			c.replyAbandoned(f, "handler panicked")
		}
	}()
	ctx := context.WithValue(f.ctx, handlerKey{}, hs)
	result, err := c.opts.Handler.Handle(ctx, &f.req)
	if f.req.Method == c.opts.InitializeMethod {
		// Before the answer goes out: what the client sends once it has
		// the answer is judged by the gate's new state.
		c.initFinished(result, err == nil && !isNil(result))
	}
	switch {
	case err != nil:
		var e *Error
		if !errors.As(err, &e) {
			c.log.Warn("acp: request handler failed", "method", f.req.Method, "error", err)
		}
		c.reply(f, nil, toWireError(err, f.req.Method, f.isCancelled() || errors.Is(context.Cause(f.ctx), ErrPeerClosed)))
	case isNil(result):
		c.replyAbandoned(f, "handler returned no result")
	default:
		c.reply(f, result, nil)
	}
}

// replyAbandoned answers a request whose handler gave no answer: -32800 (or
// the cancelled result) if the peer had cancelled it, else -32603.
func (c *Conn) replyAbandoned(f *inflight, why string) {
	if f.isCancelled() {
		c.replyCancelled(f)
		return
	}
	c.reply(f, nil, &Error{Code: CodeInternalError, Message: "Internal error: " + why,
		Data: mustMarshal(map[string]string{"method": f.req.Method})})
}

func (c *Conn) replyCancelled(f *inflight) {
	if c.opts.CancelledResult != nil {
		if res, ok := c.opts.CancelledResult(f.req.Method); ok {
			c.reply(f, res, nil)
			return
		}
	}
	c.reply(f, nil, ErrRequestCancelled)
}

func (f *inflight) isCancelled() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cancelled
}

// reply sends the one response a request gets; later attempts, and any
// attempt after the connection ended, send nothing. It reports whether this
// call's answer went out.
func (c *Conn) reply(f *inflight, result any, rerr *Error) bool {
	f.mu.Lock()
	if f.replied || c.closed() {
		f.mu.Unlock()
		return false
	}
	f.replied = true
	if f.grace != nil {
		f.grace.Stop()
	}
	f.mu.Unlock()
	c.mu.Lock()
	if c.st.inflight[f.req.ID.key()] == f {
		delete(c.st.inflight, f.req.ID.key())
		c.st.inflightBytes -= f.size
	}
	c.mu.Unlock()
	defer f.cancel(nil)

	buf := getBuf()
	defer putBuf(buf)
	if rerr == nil {
		if err := encodeResult(buf, f.req.ID, result); err != nil {
			c.log.Error("acp: cannot encode result", "method", f.req.Method, "error", err)
			buf.Reset()
			rerr = &Error{Code: CodeInternalError, Message: "Internal error: the result could not be encoded",
				Data: mustMarshal(map[string]string{"method": f.req.Method})}
		}
	}
	if rerr != nil {
		encodeError(buf, f.req.ID, rerr)
	}
	ok := c.write(buf.Bytes()) == nil
	if c.bigFrame(int64(f.size)) {
		freeMemorySoon()
	}
	return ok
}

// cancelInbound applies $/cancel_request: the handler's context is
// cancelled, and if it has not answered within CancelGrace the connection
// answers for it. Unknown ids and malformed params are ignored.
func (c *Conn) cancelInbound(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || p.RequestID == nil {
		c.log.Debug("acp: ignoring malformed $/cancel_request")
		return
	}
	c.mu.Lock()
	f := c.st.inflight[idKey(p.RequestID)]
	c.mu.Unlock()
	if f == nil {
		return
	}
	f.mu.Lock()
	if f.replied || f.cancelled {
		f.mu.Unlock()
		return
	}
	f.cancelled = true
	f.grace = time.AfterFunc(c.opts.CancelGrace, func() { c.replyCancelled(f) })
	f.mu.Unlock()
	f.cancel(ErrCancelledByPeer)
}

// frameTooLarge handles an over-limit frame by what its top level holds,
// wherever in the frame its keys are (ids are per direction, so only a
// response can name one of our calls):
//   - a "method" and an id: -32600 naming the limit, on that id (null if
//     the id cannot be read); a "method" and no id: a notification, nothing;
//   - no "method" but a "result" or an "error": a response; it fails the
//     call waiting on its id, if any (-32603 "peer sent an invalid
//     response: over the frame size limit"), and is never answered;
//   - neither: if it has no "params" and its id names a call of ours, that
//     call fails (as with a small frame, see inbound.orResponse);
//     otherwise it is answered -32600 on its id, or null.
func (c *Conn) frameTooLarge() {
	s := &c.lr.scan
	id := s.topID()
	size := c.lr.total
	c.log.Warn("acp: inbound frame over the size limit", "bytes", size, "limit", c.opts.maxFrame())
	if c.bigFrame(size) {
		freeMemorySoon() // the frame's first MaxFrameSize bytes were buffered
	}
	data := map[string]any{"reason": "frame too large", "limit": c.opts.maxFrame(), "size": size}
	e := NewInvalidRequest("frame too large").WithData(data)
	callErr := invalidResponse("over the frame size limit").WithData(data)
	switch {
	case s.hasMethod:
		if !id.IsZero() {
			c.writeError(id, e)
		}
	case s.hasResult || s.hasError:
		c.failPending(id, callErr)
	default:
		if !s.hasParams && c.failPending(id, callErr) {
			return
		}
		c.writeError(orNull(id), e)
	}
}

// failPending fails the outbound call waiting on id with e, reporting
// whether there was one.
func (c *Conn) failPending(id ID, e *Error) bool {
	if id.IsZero() || id == nullID {
		return false
	}
	key := id.key()
	c.mu.Lock()
	p := c.st.pending[key]
	delete(c.st.pending, key)
	c.mu.Unlock()
	if p == nil {
		return false
	}
	p.ch <- inbound{err: e, seq: c.readSeq}
	return true
}

func (o *Options) maxFrame() int {
	if o.MaxFrameSize > 0 {
		return o.MaxFrameSize
	}
	return DefaultMaxFrameSize
}

func (c *Conn) writeError(id ID, e *Error) {
	buf := getBuf()
	defer putBuf(buf)
	encodeError(buf, id, e)
	_ = c.write(buf.Bytes())
}

// write sends one whole frame, or queues it behind the held ones while
// the connection is held (Hold). A failed write ends the connection.
func (c *Conn) write(frame []byte) error { return c.writeFrame(frame, false) }

// maxHeld bounds the bytes a hold keeps back: past it they are written at
// once.
const maxHeld = 256 << 10

// writeFrame is write; now writes at once even while held (with what is
// held before it), for a request whose answer the caller will wait for.
func (c *Conn) writeFrame(frame []byte, now bool) error {
	if c.closed() {
		return c.cause
	}
	if f := c.opts.OutputFilter; f != nil {
		frame = f(frame)
	}
	c.wmu.Lock()
	var err error
	switch {
	case c.holds > 0 && !now && len(c.held)+len(frame) <= maxHeld:
		c.held = append(c.held, frame...)
	case len(c.held) > 0:
		c.held = append(c.held, frame...)
		err = c.flushHeld()
	default:
		_, err = c.w.Write(frame)
	}
	c.wmu.Unlock()
	return c.writeFailed(err)
}

// flushHeld writes the held frames in one Write; c.wmu is held.
func (c *Conn) flushHeld() error {
	_, err := c.w.Write(c.held)
	if cap(c.held) > 4*maxHeld {
		c.held = nil // a huge frame passed through: let it go
	} else {
		c.held = c.held[:0]
	}
	return err
}

func (c *Conn) writeFailed(err error) error {
	if err != nil {
		err = fmt.Errorf("%w: write: %v", ErrTransport, err)
		c.shutdown(err)
		return err
	}
	return nil
}

// Hold batches the connection's writes until the returned release is
// called: notifications and responses sent meanwhile, by any goroutine,
// are appended in order to one buffer and go out in one Write when the
// last hold is released. A request is written at once (with everything
// held before it), since its caller waits for the answer, and so is
// everything once 256 KiB are held. While held, Notify and a handler's
// response return before their frame is written (a failed write still
// ends the connection). A hold must be short: it is for a burst of
// notifications that are ready together, such as output that queued up
// while the peer was slow to read, so that they cost one system call and
// one wake-up of the peer instead of one each. Frames held when the
// connection ends are not sent.
func (c *Conn) Hold() (release func()) {
	c.wmu.Lock()
	c.holds++
	c.wmu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			c.wmu.Lock()
			c.holds--
			var err error
			if c.holds == 0 && len(c.held) > 0 {
				if c.closed() {
					c.held = c.held[:0]
				} else {
					err = c.flushHeld()
				}
			}
			c.wmu.Unlock()
			_ = c.writeFailed(err)
		})
	}
}

// Notify sends a notification. It returns once the frame is written (or,
// while the connection is held, queued behind the held frames: see Hold),
// so notifications sent before a handler returns precede its response.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	buf := getBuf()
	defer putBuf(buf)
	if err := encodeNotification(buf, method, params); err != nil {
		return fmt.Errorf("acp: encoding %s params: %w", method, err)
	}
	return c.write(buf.Bytes())
}

// Call sends a request and waits for its response, decoding the result
// into result (which may be nil). An error response is returned as *Error,
// and so is a response that cannot be used (-32603 "peer sent an invalid
// response: …", see classifyResponse and decodeResult): the call ends at
// once rather than waiting for an answer that will not come.
// If ctx ends first, the peer is sent $/cancel_request and Call returns the
// context's cause at once; a late response is quietly absorbed.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	id := IntID(c.nextID.Add(1))
	key := id.key()
	p := &pending{method: method, ch: make(chan inbound, 1)}
	buf := getBuf()
	defer putBuf(buf)
	if err := encodeRequest(buf, id, method, params); err != nil {
		return fmt.Errorf("acp: encoding %s params: %w", method, err)
	}
	c.mu.Lock()
	if c.closed() {
		c.mu.Unlock()
		return c.cause
	}
	if c.st.eof {
		c.mu.Unlock()
		return ErrPeerClosed // it can no longer answer
	}
	c.st.pending[key] = p
	c.mu.Unlock()
	if err := c.writeFrame(buf.Bytes(), true); err != nil {
		c.mu.Lock()
		delete(c.st.pending, key)
		c.mu.Unlock()
		return err
	}
	select {
	case in := <-p.ch:
		seq := in.seq
		if h, ok := ctx.Value(handlerKey{}).(*handlerState); ok && !h.isReleased() && h.seq <= seq {
			// Called from a handler that still holds the dispatcher: nothing
			// after its own message can be dispatched until it returns.
			seq = h.seq - 1
		}
		c.waitDispatched(seq)
		if in.err != nil {
			return in.err
		}
		return decodeResult(method, in.result, result)
	case <-ctx.Done():
		go c.sendCancel(id)
		return context.Cause(ctx)
	}
}

// decodeResult decodes a call's result into result (which may be nil). A
// result that does not decode into it fails the call with -32603 "peer sent
// an invalid response", as does a null result unless result's type decodes
// null itself (json.Unmarshaler): the generated ACP types accept null for
// a result with no required members, as some clients send for
// fs/write_text_file, and reject it otherwise; a plain struct or map would
// silently stay zero, so null is refused for it.
func decodeResult(method string, raw json.RawMessage, result any) error {
	if result == nil {
		return nil
	}
	if string(bytes.TrimSpace(raw)) == "null" {
		if _, ok := result.(json.Unmarshaler); !ok {
			return invalidResponse("null result").WithData(map[string]string{"method": method})
		}
	}
	if err := json.Unmarshal(raw, result); err != nil {
		return invalidResponse("the result does not decode").WithData(map[string]string{"method": method, "error": err.Error()})
	}
	return nil
}

// sendCancel tells the peer we no longer wait for id. It runs off the
// caller's return path so a slow peer cannot delay the caller.
func (c *Conn) sendCancel(id ID) {
	_ = c.Notify(context.Background(), methodCancelRequest, map[string]json.RawMessage{"requestId": json.RawMessage(id.raw)})
}

func (c *Conn) deliver(in inbound) {
	key := in.id.key()
	c.mu.Lock()
	p := c.st.pending[key]
	delete(c.st.pending, key)
	c.mu.Unlock()
	if p == nil {
		c.log.Debug("acp: response for an unknown id")
		return
	}
	p.ch <- in
}

// isNil reports whether v is nil or a nil pointer, map or slice inside an
// interface: a typed handler returning (*T)(nil) gave no answer.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func getBuf() *bytes.Buffer { return bufPool.Get().(*bytes.Buffer) }

func putBuf(b *bytes.Buffer) {
	if b.Cap() > 1<<20 {
		return // let huge buffers go
	}
	b.Reset()
	bufPool.Put(b)
}
