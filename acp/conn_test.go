package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// pipePair connects two Conns (agent and client) over OS pipes.
func pipePair(t testing.TB, agent, client Options) (a, c *Conn) {
	t.Helper()
	ar, cw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cr, aw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	a = NewConn(ar, aw, agent)
	c = NewConn(cr, cw, client)
	t.Cleanup(func() {
		a.Close()
		c.Close()
		for _, f := range []*os.File{ar, aw, cr, cw} {
			_ = f.Close()
		}
		a.Wait()
		c.Wait()
	})
	return a, c
}

func TestCallBothDirections(t *testing.T) {
	var agent *Conn
	am := NewMux()
	On(am, "session/prompt", func(ctx context.Context, p *struct {
		SessionID string `json:"sessionId"`
	}) (any, error) {
		Async(ctx)
		// The agent calls back into the client while handling a request.
		var res struct {
			Outcome string `json:"outcome"`
		}
		if err := agent.Call(ctx, "session/request_permission", map[string]string{"sessionId": p.SessionID}, &res); err != nil {
			return nil, err
		}
		return map[string]string{"stopReason": "end_turn", "permission": res.Outcome}, nil
	})
	cm := NewMux()
	On(cm, "session/request_permission", func(ctx context.Context, p *struct{}) (any, error) {
		return map[string]string{"outcome": "selected"}, nil
	})
	agent, client := pipePair(t, Options{Handler: am}, Options{Handler: cm})
	var out map[string]string
	if err := client.Call(context.Background(), "session/prompt", map[string]string{"sessionId": "s"}, &out); err != nil {
		t.Fatal(err)
	}
	if out["stopReason"] != "end_turn" || out["permission"] != "selected" {
		t.Fatalf("got %v", out)
	}
	// An error response comes back as *Error with its code intact, even a
	// code we do not know.
	err := client.Call(context.Background(), "nope", nil, nil)
	if !errors.Is(err, ErrMethodNotFound) {
		t.Fatalf("got %v, want -32601", err)
	}
}

func TestUnknownErrorCodeFromPeerIsKept(t *testing.T) {
	am := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		return nil, &Error{Code: -31999, Message: "vendor failure"}
	})
	_, client := pipePair(t, Options{Handler: am}, Options{})
	err := client.Call(context.Background(), "x", nil, nil)
	var e *Error
	if !errors.As(err, &e) || e.Code != -31999 || e.Message != "vendor failure" {
		t.Fatalf("got %v", err)
	}
}

func TestOutgoingCancelSendsCancelRequest(t *testing.T) {
	causes := make(chan error, 1)
	am := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		Async(ctx)
		<-ctx.Done()
		causes <- context.Cause(ctx)
		return nil, ctx.Err()
	})
	_, client := pipePair(t, Options{Handler: am}, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- client.Call(ctx, "slow", nil, nil) }()
	time.Sleep(20 * time.Millisecond)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Call returned %v, want context.Canceled", err)
	}
	if cause := <-causes; !errors.Is(cause, ErrCancelledByPeer) {
		t.Fatalf("handler saw cause %v, want ErrCancelledByPeer", cause)
	}
}

// TestPromptThenCancelNeverLost writes a prompt and its session/cancel in
// one write, many times. The cancel must always reach the turn: handlers
// start in wire order, and the prompt registers its turn before Async.
// The community Go SDK loses 3–100% of these.
func TestPromptThenCancelNeverLost(t *testing.T) {
	for _, procs := range []int{1, runtime.GOMAXPROCS(0)} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			n := 2000
			if testing.Short() {
				n = 200
			}
			var mu sync.Mutex
			turns := map[string]context.CancelFunc{}
			m := NewMux()
			On(m, "session/prompt", func(ctx context.Context, p *struct {
				SessionID string `json:"sessionId"`
			}) (any, error) {
				turn, cancel := context.WithCancel(ctx)
				defer cancel()
				mu.Lock()
				turns[p.SessionID] = cancel
				mu.Unlock()
				Async(ctx)
				select {
				case <-turn.Done():
					return map[string]string{"stopReason": "cancelled"}, nil
				case <-time.After(5 * time.Second):
					return map[string]string{"stopReason": "end_turn"}, nil
				}
			})
			OnNotification(m, "session/cancel", func(ctx context.Context, p *struct {
				SessionID string `json:"sessionId"`
			}) error {
				mu.Lock()
				cancel := turns[p.SessionID]
				mu.Unlock()
				if cancel != nil {
					cancel()
				}
				return nil
			})
			peer := newTestPeer(t, Options{Handler: m})
			for i := 0; i < n; i++ {
				sid := fmt.Sprintf("s%d", i)
				peer.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":%q}}`+"\n"+
					`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":%q}}`, i, sid, sid))
				got := peer.recv(10 * time.Second)
				if !strings.Contains(got, `"cancelled"`) {
					t.Fatalf("iteration %d: cancel lost: %s", i, got)
				}
			}
		})
	}
}

func TestPeerCloseCancelsHandlers(t *testing.T) {
	causes := make(chan error, 1)
	m := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		Async(ctx)
		<-ctx.Done()
		causes <- context.Cause(ctx)
		return nil, ctx.Err()
	})
	peer := newTestPeer(t, Options{Handler: m})
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"wait"}`)
	time.Sleep(20 * time.Millisecond)
	_ = peer.in.Close()
	if cause := <-causes; !errors.Is(cause, ErrPeerClosed) {
		t.Fatalf("cause %v, want ErrPeerClosed", cause)
	}
	// The peer may still read: the request it sent before closing is
	// answered -32800 (its handler stopped because the peer left), once.
	if got := peer.recv(5 * time.Second); got != `{"jsonrpc":"2.0","id":1,"error":{"code":-32800,"message":"Request cancelled"}}` {
		t.Fatalf("got %s", got)
	}
	if err := peer.conn.Wait(); !errors.Is(err, ErrPeerClosed) {
		t.Fatalf("Wait: %v", err)
	}
	peer.quiet(50 * time.Millisecond)
}

func TestCallFailsWhenPeerGoes(t *testing.T) {
	r, w := io.Pipe()
	conn := NewConn(r, io.Discard, Options{})
	done := make(chan error, 1)
	go func() { done <- conn.Call(context.Background(), "x", nil, nil) }()
	time.Sleep(10 * time.Millisecond)
	_ = w.Close()
	if err := <-done; err == nil {
		t.Fatal("Call succeeded after the peer closed")
	}
	conn.Wait()
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestWriteErrorEndsConnection(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	conn := NewConn(r, failingWriter{}, Options{})
	if err := conn.Notify(context.Background(), "x", nil); !errors.Is(err, ErrTransport) {
		t.Fatalf("Notify: %v", err)
	}
	<-conn.Done()
	if !errors.Is(conn.Err(), ErrTransport) {
		t.Fatalf("Err: %v", conn.Err())
	}
	conn.Close()
	conn.Wait()
}

// TestSlowPeerGetsBackpressure: a peer that stops reading blocks our
// writers (bounded memory) instead of being disconnected, and once it
// reads again every notification arrives, in order.
func TestSlowPeerGetsBackpressure(t *testing.T) {
	peer := newTestPeer(t, Options{})
	// Stop the peer's reader by not draining p.got: its buffer (1024) plus
	// the pipe fill up, then Notify blocks.
	const n = 5000
	payload := strings.Repeat("y", 1024)
	var sent atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < n; i++ {
			if err := peer.conn.Notify(context.Background(), "note", map[string]any{"i": i, "p": payload}); err != nil {
				return
			}
			sent.Add(1)
		}
	}()
	time.Sleep(200 * time.Millisecond)
	if s := sent.Load(); s >= n {
		t.Fatalf("all %d notifications were accepted while the peer read nothing: no backpressure", s)
	}
	for i := 0; i < n; i++ {
		var msg struct {
			Params struct{ I int } `json:"params"`
		}
		if err := json.Unmarshal([]byte(peer.recv(10*time.Second)), &msg); err != nil {
			t.Fatal(err)
		}
		if msg.Params.I != i {
			t.Fatalf("notification %d arrived as %d", i, msg.Params.I)
		}
	}
	<-done
}

// TestLargeFramesBothWays: frames above the community SDK's 10 MiB limit
// pass in both directions. (12 MiB: 20 took 19 s of CPU under the race
// detector, for the same code path.)
func TestLargeFramesBothWays(t *testing.T) {
	big := strings.Repeat("z", 12<<20)
	cm := NewMux()
	On(cm, "fs/read_text_file", func(ctx context.Context, p *struct{}) (any, error) {
		return map[string]string{"content": big}, nil
	})
	am := NewMux()
	On(am, "echo", func(ctx context.Context, p *json.RawMessage) (any, error) { return p, nil })
	agent, client := pipePair(t, Options{Handler: am}, Options{Handler: cm})
	var res struct{ Content string }
	if err := agent.Call(context.Background(), "fs/read_text_file", struct{}{}, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != len(big) {
		t.Fatalf("got %d bytes", len(res.Content))
	}
	var echoed map[string]string
	if err := client.Call(context.Background(), "echo", map[string]string{"s": big}, &echoed); err != nil {
		t.Fatal(err)
	}
	if len(echoed["s"]) != len(big) {
		t.Fatalf("echo lost data")
	}
}

func TestNegotiateVersion(t *testing.T) {
	for _, tc := range []struct {
		req       int
		supported []int
		want      int
		code      int
	}{
		{1, []int{1}, 1, 0},
		{2, []int{1}, 1, 0},
		{7, []int{1, 2}, 2, 0},
		{1, []int{1, 2}, 1, 0},
		{0, []int{1}, 0, CodeUnsupportedProtocolVersion},
	} {
		got, err := NegotiateVersion(tc.req, tc.supported)
		var e *Error
		if tc.code != 0 {
			if !errors.As(err, &e) || e.Code != tc.code {
				t.Errorf("NegotiateVersion(%d): err %v, want code %d", tc.req, err, tc.code)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("NegotiateVersion(%d, %v) = %d, %v; want %d", tc.req, tc.supported, got, err, tc.want)
		}
	}
}

func TestErrorHelpers(t *testing.T) {
	wrapped := fmt.Errorf("context: %w", NewSessionNotFound("abc"))
	if e := InternalError(wrapped); e.Code != CodeResourceNotFound {
		t.Fatalf("InternalError dropped the typed error: %v", e)
	}
	if e := InternalError(errors.New("disk full")); e.Code != CodeInternalError || !strings.Contains(string(e.Data), "disk full") {
		t.Fatalf("InternalError: %v", e)
	}
	if !errors.Is(NewInvalidParams("x", "y"), ErrInvalidParams) {
		t.Fatal("errors.Is by code failed")
	}
}

// TestCallSeesEarlierNotifications: when a Call returns, every
// notification the peer sent before its response has been handled.
func TestCallSeesEarlierNotifications(t *testing.T) {
	var agent *Conn
	am := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		for i := 0; i < 50; i++ {
			_ = agent.Notify(ctx, "note", map[string]int{"i": i})
		}
		return struct{}{}, nil
	})
	var seen atomic.Int64
	cm := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		time.Sleep(time.Millisecond)
		seen.Add(1)
		return nil, nil
	})
	agent, client := pipePair(t, Options{Handler: am}, Options{Handler: cm})
	if err := client.Call(context.Background(), "go", nil, nil); err != nil {
		t.Fatal(err)
	}
	if n := seen.Load(); n != 50 {
		t.Fatalf("Call returned after %d of 50 earlier notifications were handled", n)
	}
}

// TestCallFromUnreleasedHandler: a handler that calls the peer before
// Async does not deadlock on its own message.
func TestCallFromUnreleasedHandler(t *testing.T) {
	var agent *Conn
	am := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		var out map[string]string
		if err := agent.Call(ctx, "ask", nil, &out); err != nil {
			return nil, err
		}
		return out, nil
	})
	cm := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		return map[string]string{"answer": "yes"}, nil
	})
	agent, client := pipePair(t, Options{Handler: am}, Options{Handler: cm})
	var out map[string]string
	if err := client.Call(context.Background(), "go", nil, &out); err != nil || out["answer"] != "yes" {
		t.Fatalf("%v %v", out, err)
	}
}

// TestCallFromNotificationHandler: a notification handler that calls the
// peer does not deadlock on its own message.
func TestCallFromNotificationHandler(t *testing.T) {
	got := make(chan string, 1)
	var client *Conn
	cm := NewMux()
	OnNotification(cm, "poke", func(ctx context.Context, p *struct{}) error {
		var out map[string]string
		err := client.Call(ctx, "ask", nil, &out)
		got <- out["answer"]
		return err
	})
	am := NewMux()
	On(am, "ask", func(ctx context.Context, p *struct{}) (any, error) {
		return map[string]string{"answer": "yes"}, nil
	})
	agent, c := pipePair(t, Options{Handler: am}, Options{Handler: cm})
	client = c
	if err := agent.Notify(context.Background(), "poke", struct{}{}); err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-got:
		if a != "yes" {
			t.Fatalf("answer %q", a)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("deadlock: a notification handler's Call never returned")
	}
}

// TestEOFAfterRequestsStillAnswers: a peer that writes its requests and
// closes its side at once (`printf … | agent`) still gets every answer.
func TestEOFAfterRequestsStillAnswers(t *testing.T) {
	m := NewMux()
	On(m, "echo", func(ctx context.Context, p *json.RawMessage) (any, error) { return p, nil })
	On(m, "slow", func(ctx context.Context, p *struct{}) (any, error) {
		Async(ctx)
		<-ctx.Done() // the peer is gone: wrap up
		return map[string]string{"cause": context.Cause(ctx).Error()}, nil
	})
	peer := newTestPeer(t, Options{Handler: m})
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":1}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"slow"}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"echo","params":{"b":2}}`)
	_ = peer.in.Close()
	got := map[string]bool{}
	for i := 0; i < 3; i++ {
		got[peer.recv(5*time.Second)] = true
	}
	for _, want := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"a":1}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"cause":"acp: peer closed the connection"}}`,
		`{"jsonrpc":"2.0","id":3,"result":{"b":2}}`,
	} {
		if !got[want] {
			t.Errorf("missing %s; got %v", want, got)
		}
	}
	if err := peer.conn.Wait(); !errors.Is(err, ErrPeerClosed) {
		t.Fatalf("Wait: %v", err)
	}
}
