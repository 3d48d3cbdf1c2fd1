package remote

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"time"
)

// httpState is what a Streamable HTTP connection keeps beside its conn,
// all of it behind conn.mu: the streams the agent's messages wait in for
// their GET, and the routes that say which stream a response goes to.
type httpState struct {
	c       *conn
	initial chan []byte // the agent's first message: the initialize answer
	routing bool        // the initialize answer was taken; route the rest

	connStream      *mailbox
	sessions        map[string]*mailbox
	buffered        int // bytes queued on all streams (MaxBufferedBytes)
	bufferedStreams int // session streams without a receiver (MaxBufferedSessionStreams)

	pending      map[string]string // client request id → session whose stream gets the answer ("" connection)
	loads        map[string]string // session/load request id → the session it replays (see mailbox.after)
	clientRoutes map[string]string // agent request id → session whose header the answer must carry

	streams int       // GETs open now
	lastUse time.Time // last request or stream end, for IdleTimeout
	idle    *time.Timer
}

// A mailbox is one SSE stream's queue: messages wait here for the GET
// that receives them.
type mailbox struct {
	session  string
	queue    [][]byte
	receiver bool
	wake     chan struct{} // a message was queued, or the connection ended

	// A session/load is answered on the connection's stream (as the SDK's
	// server does) while its replay goes on the session's: two streams
	// the client reads independently. So that the client has the whole
	// history when the load's answer arrives, the answer waits here until
	// the session's stream has flushed every message queued before it.
	appended, flushed uint64 // messages queued on this stream, and written out
	after             []heldAnswer
}

// A heldAnswer goes to the connection's stream once its session's stream
// has flushed upTo messages.
type heldAnswer struct {
	upTo uint64
	msg  []byte
}

func newMailbox(session string) *mailbox {
	return &mailbox{session: session, wake: make(chan struct{}, 1)}
}

func (m *mailbox) signal() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

func newHTTPState(c *conn) *httpState {
	return &httpState{
		c:            c,
		initial:      make(chan []byte, 1),
		connStream:   newMailbox(""),
		sessions:     map[string]*mailbox{},
		pending:      map[string]string{},
		loads:        map[string]string{},
		clientRoutes: map[string]string{},
		lastUse:      time.Now(),
	}
}

// httpOut routes one agent message to its stream, then holds the agent
// back while the client has MaxBufferedBytes unread.
func httpOut(c *conn, line []byte) error {
	h := c.http
	msg := append([]byte(nil), line...)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return c.closeCause()
	}
	if !h.routing {
		h.routing = true
		h.initial <- msg
		c.mu.Unlock()
		return nil
	}
	err := h.route(msg)
	c.mu.Unlock()
	if err != nil {
		c.srv.log.Warn("remote: closing a connection over a limit", "connection", c.id, "error", err)
		c.close(err)
		return err
	}
	return c.waitForRoom(c.ctx, func() bool { return h.buffered >= c.srv.opts.MaxBufferedBytes })
}

// route queues msg on the stream it belongs to: a response where its
// request's route says, a request or notification on its session's
// stream, anything else on the connection's. c.mu is held.
func (h *httpState) route(msg []byte) error {
	env, _, _ := peek(msg, true)
	session := ""
	if env.isResponse() {
		session = h.pending[env.id]
		delete(h.pending, env.id)
		if len(env.result) > h.c.srv.opts.MaxIDLength {
			return errTooLong // a session id this connection could not route
		}
		if replayed, ok := h.loads[env.id]; ok {
			delete(h.loads, env.id)
			if m := h.sessions[replayed]; m != nil && m.receiver && m.flushed < m.appended {
				m.after = append(m.after, heldAnswer{upTo: m.appended, msg: msg})
				h.buffered += len(msg)
				return nil
			}
		}
	} else {
		session = env.session
		if env.isRequest() {
			h.clientRoutes[env.id] = session
		}
	}
	m := h.connStream
	if session != "" {
		var err error
		if m, err = h.ensure(session); err != nil {
			return err
		}
	}
	m.queue = append(m.queue, msg)
	m.appended++
	h.buffered += len(msg)
	m.signal()
	return nil
}

// written records that n more of m's messages reached the client, and
// passes on the answers that waited for them. c.mu is held.
func (h *httpState) written(m *mailbox, n int) {
	m.flushed += uint64(n)
	for len(m.after) > 0 && (m.after[0].upTo <= m.flushed || !m.receiver) {
		h.connStream.queue = append(h.connStream.queue, m.after[0].msg)
		h.connStream.appended++
		m.after = m.after[1:]
		h.connStream.signal()
	}
}

// ensure returns session's stream, made to buffer until its GET comes.
func (h *httpState) ensure(session string) (*mailbox, error) {
	if len(session) > h.c.srv.opts.MaxIDLength {
		return nil, errTooLong
	}
	if m := h.sessions[session]; m != nil {
		return m, nil
	}
	if h.bufferedStreams >= h.c.srv.opts.MaxBufferedSessionStreams {
		return nil, errTooMuch
	}
	m := newMailbox(session)
	h.sessions[session] = m
	h.bufferedStreams++
	return m, nil
}

// acquire makes the caller the receiver of a stream; nil when it has one.
// c.mu is held.
func (h *httpState) acquire(session string) *mailbox {
	m := h.connStream
	if session != "" {
		m = h.sessions[session]
		if m == nil {
			m = newMailbox(session)
			h.sessions[session] = m
		} else if !m.receiver {
			h.bufferedStreams--
		}
	}
	if m.receiver {
		return nil
	}
	m.receiver = true
	h.streams++
	return m
}

// leave ends a receiver's hold on m: a session stream with nothing queued
// is forgotten, one with messages left buffers them (and counts). It
// returns an error when that passes MaxBufferedSessionStreams. c.mu is
// held.
func (h *httpState) leave(m *mailbox) error {
	m.receiver = false
	h.streams--
	h.lastUse = time.Now()
	h.written(m, 0) // answers held for this stream go now
	if m.session == "" || h.c.closed {
		return nil
	}
	if len(m.queue) == 0 {
		delete(h.sessions, m.session)
		return nil
	}
	h.bufferedStreams++
	if h.bufferedStreams > h.c.srv.opts.MaxBufferedSessionStreams {
		return errTooMuch
	}
	return nil
}

// finish wakes every stream so that its GET ends (conn.close).
func (h *httpState) finish() {
	h.c.mu.Lock()
	defer h.c.mu.Unlock()
	h.connStream.signal()
	for _, m := range h.sessions {
		m.signal()
	}
	if h.idle != nil {
		h.idle.Stop()
	}
}

// touch records a request, for IdleTimeout.
func (h *httpState) touch() {
	h.c.mu.Lock()
	h.lastUse = time.Now()
	h.c.mu.Unlock()
}

// checkIdle closes a connection that had no stream and no request for
// IdleTimeout, and otherwise looks again when it could be.
func (h *httpState) checkIdle() {
	c := h.c
	idle := c.srv.opts.IdleTimeout
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	left := idle - time.Since(h.lastUse)
	if h.streams == 0 && left <= 0 {
		c.mu.Unlock()
		c.close(errIdle)
		return
	}
	if left <= 0 {
		left = idle
	}
	h.idle.Reset(left)
	c.mu.Unlock()
}

func (s *Server) handlePost(w http.ResponseWriter, r *http.Request) {
	if ct, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";"); !strings.EqualFold(strings.TrimSpace(ct), "application/json") {
		textError(w, http.StatusUnsupportedMediaType, "Unsupported Media Type")
		return
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(s.opts.BodyTimeout)) // a slow-loris body is cut off
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(s.opts.MaxMessageBytes)))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			s.refuse(w, r, http.StatusRequestEntityTooLarge, "Request body too large")
			return
		}
		textError(w, http.StatusBadRequest, "Could not read the request body")
		return
	}
	_ = rc.SetReadDeadline(time.Time{})
	env, kind, ok := peek(body, false)
	switch {
	case !ok:
		textError(w, http.StatusBadRequest, "Invalid JSON")
		return
	case kind == '[':
		// ACP has no batches: one -32600 with a null id, as the SDK answers.
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":"JSON-RPC batches are not supported"}}`)
		return
	case kind != '{':
		textError(w, http.StatusBadRequest, "Invalid JSON-RPC message")
		return
	}
	connID := r.Header.Get(HeaderConnectionID)
	if env.hasMethod && env.method == "initialize" && env.hasID {
		if connID != "" {
			textError(w, http.StatusBadRequest, "Initialize not allowed on existing connection")
			return
		}
		s.initialize(w, r, &env, body)
		return
	}
	if connID == "" {
		textError(w, http.StatusBadRequest, "Missing Acp-Connection-Id")
		return
	}
	c := s.lookup(connID)
	if c == nil {
		textError(w, http.StatusNotFound, "Unknown Acp-Connection-Id")
		return
	}
	h := c.http
	h.touch()
	header := r.Header.Get(HeaderSessionID)
	if !env.hasMethod && env.hasID {
		// The client's answer to one of the agent's requests: it must name
		// the session the request came from.
		c.mu.Lock()
		route, known := h.clientRoutes[env.id]
		c.mu.Unlock()
		if known && route != "" && header == "" {
			textError(w, http.StatusBadRequest, "Missing Acp-Session-Id")
			return
		}
		if known && route != "" && header != route {
			textError(w, http.StatusBadRequest, "Mismatched Acp-Session-Id")
			return
		}
		c.mu.Lock()
		delete(h.clientRoutes, env.id)
		c.mu.Unlock()
	} else {
		if (sessionScoped[env.method] || env.session != "") && header == "" {
			textError(w, http.StatusBadRequest, "Missing Acp-Session-Id")
			return
		}
		if header != "" && env.session != "" && header != env.session {
			textError(w, http.StatusBadRequest, "Mismatched Acp-Session-Id")
			return
		}
		route := header
		if route == "" {
			route = env.session
		}
		if len(route) > s.opts.MaxIDLength || len(env.id) > s.opts.MaxIDLength {
			textError(w, http.StatusBadRequest, errTooLong.Error())
			return
		}
		if env.isRequest() {
			// A request makes the agent answer: wait until the client has
			// read enough of its output to make room.
			if err := c.waitForRoom(r.Context(), func() bool { return h.buffered >= s.opts.MaxBufferedBytes }); err != nil {
				textError(w, http.StatusNotFound, "Unknown Acp-Connection-Id")
				return
			}
			c.mu.Lock()
			if env.method == "session/load" {
				// Its answer goes where the client waits for it, the
				// connection's stream, after the replay (mailbox.after).
				h.loads[env.id] = route
				route = ""
			}
			h.pending[env.id] = route
			c.mu.Unlock()
		}
	}
	if err := c.send(body); err != nil {
		textError(w, http.StatusNotFound, "Unknown Acp-Connection-Id")
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// initialize opens a Streamable HTTP connection: the agent's answer to the
// initialize request is the POST's body, with the new connection's id.
func (s *Server) initialize(w http.ResponseWriter, r *http.Request, env *envelope, body []byte) {
	if env.id == "" {
		textError(w, http.StatusBadRequest, "Initialize request must include an ID")
		return
	}
	c, err := s.newConn(httpOut, func(c *conn) { c.http = newHTTPState(c) })
	if err != nil {
		s.refuse(w, r, http.StatusServiceUnavailable, "Cannot open a connection: "+err.Error())
		return
	}
	s.mu.Lock()
	s.conns[c.id] = c
	s.mu.Unlock()
	var answer []byte
	if err = c.send(body); err == nil {
		select {
		case answer = <-c.http.initial:
		case <-c.done:
			err = errAgentEnded
		case <-r.Context().Done():
			err = r.Context().Err()
		}
	}
	if got, _, _ := peek(answer, true); err == nil && got.id != env.id {
		err = errors.New("the agent's first message is not the initialize answer")
	}
	if err != nil {
		c.close(err)
		s.log.Warn("remote: initialize failed", "error", err)
		textError(w, http.StatusInternalServerError, "Initialize failed")
		return
	}
	c.mu.Lock()
	c.http.idle = time.AfterFunc(s.opts.IdleTimeout, c.http.checkIdle)
	c.mu.Unlock()
	s.log.Info("remote: connection opened", "connection", c.id, "transport", "http", "remote", r.RemoteAddr)
	w.Header().Set(HeaderConnectionID, c.id)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(answer)
}

func (s *Server) handleDelete(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get(HeaderConnectionID)
	if id == "" {
		textError(w, http.StatusBadRequest, "Missing Acp-Connection-Id")
		return
	}
	c := s.lookup(id)
	if c == nil {
		textError(w, http.StatusNotFound, "Unknown Acp-Connection-Id")
		return
	}
	c.close(errDeleted)
	w.WriteHeader(http.StatusAccepted)
}

// handleGet opens an SSE stream: the connection's, or a session's with
// Acp-Session-Id. A session's stream may open before the session exists
// (a client reattaching with session/load opens it first), as the SDK
// allows; its messages wait for it meanwhile.
func (s *Server) handleGet(w http.ResponseWriter, r *http.Request) {
	if !strings.Contains(strings.ToLower(r.Header.Get("Accept")), "text/event-stream") {
		textError(w, http.StatusNotAcceptable, "Not Acceptable")
		return
	}
	id := r.Header.Get(HeaderConnectionID)
	if id == "" {
		textError(w, http.StatusBadRequest, "Missing Acp-Connection-Id")
		return
	}
	c := s.lookup(id)
	if c == nil {
		textError(w, http.StatusNotFound, "Unknown Acp-Connection-Id")
		return
	}
	session := r.Header.Get(HeaderSessionID)
	if len(session) > s.opts.MaxIDLength {
		textError(w, http.StatusBadRequest, errTooLong.Error())
		return
	}
	h := c.http
	c.mu.Lock()
	var m *mailbox
	if !c.closed {
		m = h.acquire(session)
	}
	c.mu.Unlock()
	if m == nil {
		if c.isClosed() {
			textError(w, http.StatusNotFound, "Unknown Acp-Connection-Id")
			return
		}
		textError(w, http.StatusConflict, "Outbound stream already has an active receiver")
		return
	}
	defer func() {
		c.mu.Lock()
		err := h.leave(m)
		c.mu.Unlock()
		if err != nil {
			c.close(err)
		}
	}()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	s.stream(w, r, c, m)
}

// stream writes a mailbox's messages as SSE events until the connection
// ends (after what was queued) or the client goes. A write the client does
// not take within MaxOutputStall ends the stream.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, c *conn, m *mailbox) {
	rc := http.NewResponseController(w)
	flush := func(b []byte) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(s.opts.MaxOutputStall))
		if len(b) > 0 {
			if _, err := w.Write(b); err != nil {
				return false
			}
		}
		return rc.Flush() == nil
	}
	if !flush(nil) {
		return
	}
	keepAlive := time.NewTicker(keepAliveInterval)
	defer keepAlive.Stop()
	var buf []byte
	for {
		c.mu.Lock()
		batch := m.queue
		m.queue = nil
		closed := c.closed
		for _, msg := range batch {
			c.http.buffered -= len(msg)
		}
		if len(batch) > 0 {
			c.progressed()
		}
		c.mu.Unlock()
		if len(batch) > 0 {
			buf = buf[:0]
			for _, msg := range batch {
				buf = append(buf, "data: "...)
				buf = append(buf, msg...)
				buf = append(buf, "\n\n"...)
			}
			if !flush(buf) {
				return
			}
			c.mu.Lock()
			c.http.written(m, len(batch))
			c.mu.Unlock()
			if cap(buf) > 1<<20 {
				buf = nil
			}
			continue
		}
		if closed {
			return
		}
		select {
		case <-m.wake:
		case <-c.closedCh:
		case <-r.Context().Done():
			return
		case <-keepAlive.C:
			if !flush([]byte(":\n\n")) {
				return
			}
		}
	}
}
