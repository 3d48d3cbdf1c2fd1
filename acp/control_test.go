package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// These tests pin issue 13's rule: work in flight never holds back control
// traffic. Requests are bounded by refusing the excess at once, not by
// stopping to read; a handler that forgets Async delays what follows by
// ReleaseTimeout at most, and not at all once its request is cancelled.

// TestThousandWaitingRequestsDoNotBlockControl: 1,000 requests whose
// handlers wait until cancelled; a request and a notification behind them
// are served at once, and $/cancel_request answers every one of them.
func TestThousandWaitingRequestsDoNotBlockControl(t *testing.T) {
	var noted atomic.Int64
	m := NewMux()
	On(m, "wait", func(ctx context.Context, _ *struct{}) (any, error) {
		Async(ctx)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	On(m, "ping", func(ctx context.Context, _ *struct{}) (any, error) { return map[string]bool{"pong": true}, nil })
	OnNotification(m, "note", func(ctx context.Context, _ *struct{}) error { noted.Add(1); return nil })
	peer := newTestPeer(t, Options{Handler: m, CancelGrace: time.Minute})
	const n = 1000
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, `{"jsonrpc":"2.0","id":%d,"method":"wait"}`+"\n", i)
	}
	sb.WriteString(`{"jsonrpc":"2.0","method":"note"}` + "\n")
	sb.WriteString(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	peer.send(sb.String())
	got := peer.recv(5 * time.Second)
	if !strings.Contains(got, `"id":"p"`) || !strings.Contains(got, "pong") {
		t.Fatalf("first answer is not the ping: %s", got)
	}
	if noted.Load() != 1 {
		t.Fatalf("the notification behind the waiting requests was not handled")
	}
	sb.Reset()
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":%d}}`+"\n", i)
	}
	peer.send(strings.TrimSuffix(sb.String(), "\n"))
	seen := map[int]bool{}
	for len(seen) < n {
		var resp struct {
			ID    int
			Error *Error
		}
		if err := json.Unmarshal([]byte(peer.recv(5*time.Second)), &resp); err != nil {
			t.Fatal(err)
		}
		if resp.Error == nil || resp.Error.Code != CodeRequestCancelled {
			t.Fatalf("request %d: want -32800, got %+v", resp.ID, resp.Error)
		}
		seen[resp.ID] = true
	}
}

// TestMaxInFlightRefusesExcess: past MaxInFlight a request is refused at
// once with a clear error (the connection keeps reading), and the requests
// already in flight are unaffected.
func TestMaxInFlightRefusesExcess(t *testing.T) {
	var running atomic.Int64
	m := NewMux()
	On(m, "wait", func(ctx context.Context, _ *struct{}) (any, error) {
		Async(ctx)
		running.Add(1)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	On(m, "ping", func(ctx context.Context, _ *struct{}) (any, error) { return map[string]bool{"pong": true}, nil })
	peer := newTestPeer(t, Options{Handler: m, MaxInFlight: 4})
	var sb strings.Builder
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&sb, `{"jsonrpc":"2.0","id":%d,"method":"wait"}`+"\n", i)
	}
	peer.send(strings.TrimSuffix(sb.String(), "\n"))
	for i := 5; i <= 6; i++ {
		var resp struct {
			ID    int
			Error *Error
		}
		if err := json.Unmarshal([]byte(peer.recv(5*time.Second)), &resp); err != nil {
			t.Fatal(err)
		}
		if resp.ID != i || resp.Error == nil || resp.Error.Code != CodeInternalError || !strings.Contains(string(resp.Error.Data), "overloaded") {
			t.Fatalf("want request %d refused as overloaded, got %+v", i, resp)
		}
	}
	// Once one is answered there is room again.
	peer.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}}`)
	if got := peer.recv(5 * time.Second); !strings.Contains(got, `"id":1`) {
		t.Fatalf("want the cancelled request's answer, got %s", got)
	}
	peer.send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	if got := peer.recv(5 * time.Second); !strings.Contains(got, "pong") {
		t.Fatalf("want pong, got %s", got)
	}
	// The admitted handlers run on their own goroutines: wait for the
	// fourth to start instead of expecting it already.
	for deadline := time.Now().Add(5 * time.Second); running.Load() < 4 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if r := running.Load(); r != 4 {
		t.Fatalf("%d handlers ran, want 4", r)
	}
}

// TestUnreleasedHandlerReleasedByCancel: a handler that blocks without
// Async holds the dispatcher only until its request is cancelled.
func TestUnreleasedHandlerReleasedByCancel(t *testing.T) {
	m := NewMux()
	On(m, "stuck", func(ctx context.Context, _ *struct{}) (any, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	On(m, "ping", func(ctx context.Context, _ *struct{}) (any, error) { return map[string]bool{"pong": true}, nil })
	peer := newTestPeer(t, Options{Handler: m, ReleaseTimeout: time.Hour})
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"stuck"}`)
	peer.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	peer.quiet(100 * time.Millisecond) // held in order behind "stuck"
	peer.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}}`)
	got := []string{peer.recv(5 * time.Second), peer.recv(5 * time.Second)}
	joined := strings.Join(got, "\n")
	if !strings.Contains(joined, `"id":1,"error":{"code":-32800`) || !strings.Contains(joined, "pong") {
		t.Fatalf("want the cancel answered and the ping served:\n%s", joined)
	}
}
