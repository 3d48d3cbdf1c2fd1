package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// A conn is one ACP connection: the agent's Serve running over a pipe
// (client messages in) and conn itself as its writer (agent messages out,
// handed to the transport's sink).
type conn struct {
	id  string
	srv *Server
	in  *io.PipeWriter // the client's messages, one line each, to the agent
	// out delivers one agent message (a line without its newline) to the
	// client: a WebSocket write, or routing to a Streamable HTTP stream.
	// It returns an error once the message can never be delivered.
	out func(line []byte) error

	ctx    context.Context // ends the agent's Serve at once (Server.Close)
	cancel context.CancelFunc
	done   chan struct{} // closed when Serve returned
	inMu   sync.Mutex    // one client message at a time into the pipe

	mu       sync.Mutex
	closed   bool
	cause    error
	closedCh chan struct{} // closed by close
	progress chan struct{} // closed and replaced when the client reads or the conn closes

	http *httpState      // Streamable HTTP only
	ws   *websocket.Conn // WebSocket only
	// writingSince is when the WebSocket write under way began (unix ns;
	// 0: none), for the stall watchdog (ws.go).
	writingSince atomic.Int64
}

// newConn admits a connection, lets setup complete it and starts its
// Serve; out delivers the agent's messages.
func (s *Server) newConn(out func(*conn, []byte) error, setup func(*conn)) (*conn, error) {
	if err := s.admit(); err != nil {
		return nil, err
	}
	r, w := io.Pipe()
	c := &conn{
		id:       newConnectionID(),
		srv:      s,
		in:       w,
		done:     make(chan struct{}),
		closedCh: make(chan struct{}),
		progress: make(chan struct{}),
	}
	c.out = func(line []byte) error { return out(c, line) }
	c.ctx, c.cancel = context.WithCancel(s.ctx)
	if setup != nil {
		setup(c)
	}
	go func() {
		defer s.release(c)
		defer close(c.done)
		defer c.cancel()
		err := s.opts.Serve(c.ctx, r, (*agentWriter)(c))
		r.CloseWithError(io.ErrClosedPipe)
		if err != nil {
			s.log.Warn("remote: connection's agent ended", "connection", c.id, "error", err)
		}
		c.close(errAgentEnded)
	}()
	return c, nil
}

var errAgentEnded = errors.New("agent ended the connection")

// agentWriter is the agent's side of a conn: each Write is one or more
// whole lines.
type agentWriter conn

func (w *agentWriter) Write(p []byte) (int, error) {
	c := (*conn)(w)
	n := 0
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		line := p
		if i >= 0 {
			line = p[:i]
		}
		if len(line) > 0 {
			if err := c.out(line); err != nil {
				return n, err
			}
		}
		if i < 0 {
			n += len(p)
			break
		}
		n += i + 1
		p = p[i+1:]
	}
	return n, nil
}

// send hands one client message to the agent. It fails once the
// connection is closed.
func (c *conn) send(msg []byte) error {
	c.inMu.Lock()
	defer c.inMu.Unlock()
	if c.isClosed() {
		return c.closeCause()
	}
	line := make([]byte, 0, len(msg)+1)
	line = append(append(line, oneLine(msg)...), '\n')
	if _, err := c.in.Write(line); err != nil {
		return c.closeCause()
	}
	return nil
}

// close ends the connection: the agent reads EOF (a client that went away:
// its Serve ends gently), streams end, and waiters wake. For the server's
// own Close the context has already ended. Idempotent.
func (c *conn) close(cause error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	c.cause = cause
	close(c.closedCh)
	close(c.progress)
	c.progress = make(chan struct{})
	c.mu.Unlock()
	c.in.CloseWithError(io.EOF)
	if c.http != nil {
		c.http.finish()
	}
	if cause != errAgentEnded && cause != errServerClosed {
		c.srv.log.Info("remote: connection closed", "connection", c.id, "reason", cause.Error())
	}
}

func (c *conn) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

func (c *conn) closeCause() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cause == nil {
		return errAgentEnded
	}
	return fmt.Errorf("connection closed: %w", c.cause)
}

// progressed wakes whoever waits for the client to read (waitForRoom).
// c.mu is held.
func (c *conn) progressed() {
	close(c.progress)
	c.progress = make(chan struct{})
}

// waitForRoom waits while full reports true, until the client reads
// something (progress) or the connection closes. A client that reads
// nothing for MaxOutputStall is not coming back for it: the connection
// closes, freeing the agent and the requests held back. ctx ends the wait
// early (a client that gave up on its POST).
func (c *conn) waitForRoom(ctx context.Context, full func() bool) error {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return c.closeCause()
		}
		if !full() {
			c.mu.Unlock()
			return nil
		}
		wake := c.progress
		c.mu.Unlock()
		if timer == nil {
			timer = time.NewTimer(c.srv.opts.MaxOutputStall)
		}
		select {
		case <-wake:
			if !timer.Stop() {
				<-timer.C
			}
			timer.Reset(c.srv.opts.MaxOutputStall)
		case <-timer.C:
			c.srv.log.Warn("remote: closing a connection whose client stopped reading", "connection", c.id, "limit", "MaxOutputStall")
			c.close(errStalled)
			return c.closeCause()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

var (
	errStalled   = errors.New("connection output stalled for MaxOutputStall")
	errTooLong   = errors.New("id exceeds MaxIDLength")
	errTooMuch   = errors.New("connection exceeds MaxBufferedSessionStreams")
	errDeleted   = errors.New("closed by the client (DELETE)")
	errIdle      = errors.New("no stream and no request for IdleTimeout")
	errClientEOF = errors.New("the client went away")
)
