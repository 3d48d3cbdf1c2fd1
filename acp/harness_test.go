package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"testing"
	"time"
)

// testPeer is the far end of a Conn over real OS pipes: it writes raw lines
// to the connection and reads raw lines back.
type testPeer struct {
	t    testing.TB
	conn *Conn
	in   *os.File // we write here; the Conn reads
	out  *bufio.Reader
	outF *os.File
	got  chan string
}

func newTestPeer(t testing.TB, opts Options) *testPeer {
	t.Helper()
	connR, peerW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	peerR, connW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &testPeer{t: t, in: peerW, outF: peerR, out: bufio.NewReaderSize(peerR, 1<<20), got: make(chan string, 1024)}
	p.conn = NewConn(connR, connW, opts)
	go func() {
		defer close(p.got)
		for {
			line, err := p.out.ReadString('\n')
			if err != nil {
				return
			}
			p.got <- line[:len(line)-1]
		}
	}()
	t.Cleanup(func() {
		p.conn.Close()
		_ = peerW.Close()
		_ = connW.Close()
		p.conn.Wait()
		_ = peerR.Close()
		_ = connR.Close()
		for range p.got {
		}
	})
	return p
}

func (p *testPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatalf("write: %v", err)
	}
}

// recv returns the next line the connection wrote, failing after timeout.
func (p *testPeer) recv(timeout time.Duration) string {
	p.t.Helper()
	select {
	case l, ok := <-p.got:
		if !ok {
			p.t.Fatal("connection output closed")
		}
		return l
	case <-time.After(timeout):
		p.t.Fatal("timed out waiting for output")
	}
	return ""
}

// quiet asserts nothing more is written within d.
func (p *testPeer) quiet(d time.Duration) {
	p.t.Helper()
	select {
	case l, ok := <-p.got:
		if ok {
			p.t.Fatalf("unexpected extra output: %s", l)
		}
	case <-time.After(d):
	}
}

// testHandler is the agent the conformance files talk to. Each method
// exercises one behaviour of the connection.
func testHandler(conn func() *Conn) Handler {
	m := NewMux()
	type named struct {
		Name  string          `json:"name"`
		Count int             `json:"count"`
		Meta  json.RawMessage `json:"_meta,omitempty"`
	}
	On(m, "initialize", func(ctx context.Context, p *struct {
		ProtocolVersion *int `json:"protocolVersion"`
	}) (any, error) {
		if p.ProtocolVersion == nil {
			return nil, NewInvalidParams("protocolVersion", "required")
		}
		v, err := NegotiateVersion(*p.ProtocolVersion, []int{1})
		if err != nil {
			return nil, err
		}
		return map[string]int{"protocolVersion": v}, nil
	})
	On(m, "echo", func(ctx context.Context, p *json.RawMessage) (any, error) { return p, nil })
	On(m, "typed", func(ctx context.Context, p *named) (any, error) {
		if p.Name == "" {
			return nil, &FieldError{Path: "name", Reason: "required"}
		}
		return p, nil
	})
	On(m, "error", func(ctx context.Context, p *struct{}) (any, error) {
		return nil, NewAuthRequired("Run `claude /login` in a terminal, then try again.")
	})
	On(m, "plain_error", func(ctx context.Context, p *struct{}) (any, error) {
		return nil, errors.New("open /home/someone/.secret: token sk-live-123")
	})
	On(m, "session_missing", func(ctx context.Context, p *struct{}) (any, error) {
		return nil, NewSessionNotFound("sess-1")
	})
	On(m, "panic", func(ctx context.Context, p *struct{}) (any, error) { panic("boom") })
	On(m, "nothing", func(ctx context.Context, p *struct{}) (*struct{}, error) { return nil, nil })
	On(m, "wait", func(ctx context.Context, p *struct{}) (any, error) {
		Async(ctx)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	On(m, "wait_nothing", func(ctx context.Context, p *struct{}) (any, error) {
		Async(ctx)
		<-ctx.Done()
		return nil, nil
	})
	On(m, "wait_panic", func(ctx context.Context, p *struct{}) (any, error) {
		Async(ctx)
		<-ctx.Done()
		panic("late boom")
	})
	On(m, "stuck", func(ctx context.Context, p *struct{}) (any, error) {
		Async(ctx)
		time.Sleep(2 * time.Second)
		return map[string]bool{"late": true}, nil
	})
	On(m, "notes_then_reply", func(ctx context.Context, p *named) (any, error) {
		for i := 0; i < p.Count; i++ {
			if err := conn().Notify(ctx, "note", map[string]int{"i": i}); err != nil {
				return nil, err
			}
		}
		return map[string]bool{"done": true}, nil
	})
	On(m, "prompt", func(ctx context.Context, p *struct{}) (any, error) {
		Async(ctx)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	// ask calls the peer's "question" and returns what it answered, or the
	// error the call ended with; "into" picks the result type.
	On(m, "ask", func(ctx context.Context, p *struct {
		Into string `json:"into"`
	}) (any, error) {
		Async(ctx)
		var err error
		var got any
		switch p.Into {
		case "write":
			var r WriteTextFileResponse
			err, got = conn().Call(ctx, "question", p, &r), &r
		case "permission":
			var r RequestPermissionResponse
			err, got = conn().Call(ctx, "question", p, &r), &r
		case "raw":
			var r json.RawMessage
			err, got = conn().Call(ctx, "question", p, &r), &r
		default:
			var r map[string]any
			err, got = conn().Call(ctx, "question", p, &r), &r
		}
		if err != nil {
			return nil, err
		}
		return map[string]any{"got": got}, nil
	})
	OnNotification(m, "notify_panic", func(ctx context.Context, p *struct{}) error { panic("notification boom") })
	OnNotification(m, "notify_error", func(ctx context.Context, p *struct{}) error { return errors.New("nope") })
	return m
}
