package acp

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// These tests check the connection's timers on a fake clock
// (testing/synctest): what is measured is the connection's own rule, not
// how fast the machine is.

// pipePeer is a peer over in-memory pipes, for use inside a bubble.
type pipePeer struct {
	conn *Conn
	w    *io.PipeWriter
	r    *bufio.Reader
	rw   *io.PipeReader
	cw   *io.PipeWriter
}

func newPipePeer(opts Options) *pipePeer {
	connR, peerW := io.Pipe()
	peerR, connW := io.Pipe()
	return &pipePeer{conn: NewConn(connR, connW, opts), w: peerW, r: bufio.NewReader(peerR), rw: peerR, cw: connW}
}

func (p *pipePeer) send(line string) { _, _ = io.WriteString(p.w, line+"\n") }

func (p *pipePeer) recv(t *testing.T) string {
	t.Helper()
	line, err := p.r.ReadString('\n')
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return strings.TrimSuffix(line, "\n")
}

func (p *pipePeer) close() {
	p.conn.Close()
	p.w.Close()
	p.rw.Close()
	p.cw.Close()
	p.conn.Wait()
}

// TestReleaseTimeoutOnFakeClock: a handler that never calls Async holds
// the next message exactly ReleaseTimeout.
func TestReleaseTimeoutOnFakeClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := NewMux()
		On(m, "stuck", func(ctx context.Context, _ *struct{}) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
		On(m, "ping", func(ctx context.Context, _ *struct{}) (any, error) { return "pong", nil })
		p := newPipePeer(Options{Handler: m, ReleaseTimeout: 3 * time.Second})
		defer p.close()
		start := time.Now()
		p.send(`{"jsonrpc":"2.0","id":1,"method":"stuck"}`)
		p.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
		if got := p.recv(t); !strings.Contains(got, "pong") {
			t.Fatalf("got %s", got)
		}
		if d := time.Since(start); d != 3*time.Second {
			t.Fatalf("ping answered after %v, want exactly the 3 s ReleaseTimeout", d)
		}
	})
}

// TestCancelGraceOnFakeClock: a cancelled request whose handler ignores
// the cancel is answered by the connection exactly CancelGrace later, with
// the cancelled result when one is configured.
func TestCancelGraceOnFakeClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		m := NewMux()
		On(m, "deaf", func(ctx context.Context, _ *struct{}) (any, error) {
			Async(ctx)
			<-release // ignores its context
			return nil, nil
		})
		p := newPipePeer(Options{Handler: m, CancelGrace: 7 * time.Second,
			CancelledResult: func(method string) (any, bool) { return map[string]string{"stopReason": "cancelled"}, true }})
		defer func() { close(release); p.close() }()
		p.send(`{"jsonrpc":"2.0","id":1,"method":"deaf"}`)
		synctest.Wait()
		start := time.Now()
		p.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}}`)
		got := p.recv(t)
		if !strings.Contains(got, `"stopReason":"cancelled"`) {
			t.Fatalf("got %s", got)
		}
		if d := time.Since(start); d != 7*time.Second {
			t.Fatalf("answered %v after the cancel, want exactly the 7 s CancelGrace", d)
		}
	})
}
