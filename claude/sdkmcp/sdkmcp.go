// Package sdkmcp serves an MCP server that lives in the host's process to
// the Claude Code CLI: what the TypeScript Agent SDK calls an SDK MCP
// server. The CLI names such a server in its initialize request
// (claude.Options.SDKMCPServers) and then speaks MCP to it through the
// control protocol, one JSON-RPC message per mcp_message request; the
// answer is the JSON-RPC response (see claude-cli-protocol.md, section 6.3).
//
// A [Bridge] is that channel for one *mcp.Server of the official MCP Go
// SDK. It is a transport: the server decodes, validates and dispatches as
// it would over stdio, and runs tool calls concurrently.
//
//	srv := mcp.NewServer(&mcp.Implementation{Name: "editor"}, nil)
//	mcp.AddTool(srv, …)
//	b := sdkmcp.New(srv)
//	defer b.Close()
//	opts.SDKMCPServers = []string{"editor"}
//	opts.MCPMessage = func(ctx context.Context, req claude.MCPMessageRequest) (json.RawMessage, error) {
//		return b.Handle(ctx, req.Message)
//	}
//
// Every MCP initialize request starts a new server session (the CLI
// reconnects a server that way); a request whose mcp_message the CLI
// withdraws, or whose context ends otherwise, is cancelled in the server
// with notifications/cancelled, as an MCP client would.
package sdkmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrClosed is returned by [Bridge.Handle] after [Bridge.Close].
var ErrClosed = errors.New("sdkmcp: bridge closed")

// A Bridge carries the mcp_message traffic of one CLI to one MCP server.
// Its methods are safe for concurrent use.
type Bridge struct {
	srv *mcp.Server

	mu      sync.Mutex
	conn    *conn // the server session's connection; nil before the first message
	session *mcp.ServerSession
	closed  bool
}

// New returns a bridge to srv. The server session starts with the CLI's
// first message.
func New(srv *mcp.Server) *Bridge { return &Bridge{srv: srv} }

// Handle delivers one JSON-RPC message from the CLI to the server and
// returns the server's JSON-RPC response, or nil for a notification
// (which has none). It returns when the server answered or ctx ended; an
// error means the message could not be handled at all (the CLI then gets
// a control error, as for any failed request).
func (b *Bridge) Handle(ctx context.Context, raw json.RawMessage) (json.RawMessage, error) {
	msg, err := jsonrpc.DecodeMessage(raw)
	if err != nil {
		return nil, fmt.Errorf("sdkmcp: malformed MCP message: %w", err)
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		// A response: the server sends the CLI no requests, so there is
		// nothing it could answer.
		return nil, nil
	}
	c, err := b.connFor(ctx, req)
	if err != nil {
		return nil, err
	}
	if !req.IsCall() {
		c.deliver(req)
		return nil, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err() // withdrawn already: the server never sees it
	}
	key := idKey(req.ID)
	wait := c.expect(req.ID)
	c.deliver(req)
	select {
	case resp := <-wait:
		out, err := jsonrpc.EncodeMessage(resp)
		if err != nil {
			return nil, fmt.Errorf("sdkmcp: cannot encode the server's answer: %w", err)
		}
		return out, nil
	case <-c.done:
		c.forget(key)
		return nil, ErrClosed
	case <-ctx.Done():
		c.forget(key)
		c.cancel(req.ID, context.Cause(ctx))
		return nil, ctx.Err()
	}
}

// connFor returns the connection of the current server session, starting
// a new session for an initialize request.
func (b *Bridge) connFor(ctx context.Context, req *jsonrpc.Request) (*conn, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, ErrClosed
	}
	if b.conn != nil && req.Method != "initialize" {
		return b.conn, nil
	}
	b.endSession() // the CLI reconnects: the old session is over
	c := newConn()
	ss, err := b.srv.Connect(context.WithoutCancel(ctx), transport{c}, nil)
	if err != nil {
		return nil, fmt.Errorf("sdkmcp: cannot start the server session: %w", err)
	}
	b.conn, b.session = c, ss
	return c, nil
}

// Close ends the server session. Messages handled after it fail with
// [ErrClosed]; calls in flight are cancelled.
func (b *Bridge) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	b.endSession()
	return nil
}

// endSession ends the current server session, if any: its calls in
// flight are cancelled and their Handle calls return. The server's own
// shutdown, which waits for its handlers to return, goes on in the
// background, so that a handler slow to notice its cancellation holds
// nobody up. b.mu is held.
func (b *Bridge) endSession() {
	if b.session == nil {
		return
	}
	b.conn.shutdown()
	go b.session.Close()
	b.conn, b.session = nil, nil
}

// idKey is a request id as a map key: the JSON of its value, so that the
// number 1 and the string "1" stay apart.
func idKey(id jsonrpc.ID) string {
	b, _ := json.Marshal(id.Raw())
	return string(b)
}

// transport hands the server its one connection.
type transport struct{ c *conn }

func (t transport) Connect(context.Context) (mcp.Connection, error) { return t.c, nil }

// conn is the server's side of the bridge: Read returns what the CLI sent,
// Write routes the server's responses to the Handle calls waiting for
// them.
type conn struct {
	mu      sync.Mutex
	queue   []jsonrpc.Message // delivered, not yet read
	ready   chan struct{}     // signalled when queue grows
	waiting map[string]waiter
	done    chan struct{}
	once    sync.Once
}

func newConn() *conn {
	return &conn{ready: make(chan struct{}, 1), waiting: map[string]waiter{}, done: make(chan struct{})}
}

// A waiter is a Handle call waiting for the response to its request.
type waiter struct {
	id jsonrpc.ID
	ch chan *jsonrpc.Response
}

// expect registers a Handle call waiting for the response to id.
func (c *conn) expect(id jsonrpc.ID) <-chan *jsonrpc.Response {
	ch := make(chan *jsonrpc.Response, 1)
	c.mu.Lock()
	c.waiting[idKey(id)] = waiter{id, ch}
	c.mu.Unlock()
	return ch
}

// shutdown cancels the requests in flight in the server (the cancels are
// read before the end of the connection) and ends the connection, which
// returns the Handle calls still waiting.
func (c *conn) shutdown() {
	c.mu.Lock()
	var ids []jsonrpc.ID
	for _, w := range c.waiting {
		ids = append(ids, w.id)
	}
	c.mu.Unlock()
	for _, id := range ids {
		c.cancel(id, ErrClosed)
	}
	c.Close()
}

func (c *conn) forget(key string) {
	c.mu.Lock()
	delete(c.waiting, key)
	c.mu.Unlock()
}

// deliver queues a message for the server. The queue is unbounded: the
// CLI's calls are few and each is waited for.
func (c *conn) deliver(m jsonrpc.Message) {
	c.mu.Lock()
	c.queue = append(c.queue, m)
	c.mu.Unlock()
	select {
	case c.ready <- struct{}{}:
	default:
	}
}

// cancel tells the server that the CLI no longer waits for request id.
func (c *conn) cancel(id jsonrpc.ID, cause error) {
	reason := "the request was withdrawn"
	if cause != nil {
		reason = cause.Error()
	}
	params, _ := json.Marshal(map[string]any{"requestId": id.Raw(), "reason": reason})
	c.deliver(&jsonrpc.Request{Method: "notifications/cancelled", Params: params})
}

func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		c.mu.Lock()
		if len(c.queue) > 0 {
			m := c.queue[0]
			c.queue[0] = nil
			c.queue = c.queue[1:]
			c.mu.Unlock()
			return m, nil
		}
		c.mu.Unlock()
		select {
		case <-c.ready:
		case <-c.done:
			return nil, mcp.ErrConnectionClosed
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (c *conn) Write(_ context.Context, m jsonrpc.Message) error {
	resp, ok := m.(*jsonrpc.Response)
	if !ok {
		// A request or notification of the server's own (progress,
		// logging, list changes): the control channel has no way to the
		// CLI for them, as with the TypeScript SDK's servers.
		return nil
	}
	key := idKey(resp.ID)
	c.mu.Lock()
	w, ok := c.waiting[key]
	delete(c.waiting, key)
	c.mu.Unlock()
	if ok {
		w.ch <- resp
	}
	return nil
}

func (c *conn) Close() error {
	c.once.Do(func() { close(c.done) })
	return nil
}

func (c *conn) SessionID() string { return "" }
