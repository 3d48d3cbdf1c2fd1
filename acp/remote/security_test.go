package remote

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

func dialWS(ctx context.Context, url string, header http.Header) (*websocket.Conn, *http.Response, error) {
	return websocket.Dial(ctx, strings.Replace(url, "http", "ws", 1), &websocket.DialOptions{HTTPHeader: header})
}

func bearer(token string) http.Header {
	return http.Header{"Authorization": {"Bearer " + token}}
}

// TestTokenRequired: without the bearer token, or with a wrong one, every
// kind of request is refused 401 and opens nothing; the health check
// answers without one and says nothing else.
func TestTokenRequired(t *testing.T) {
	ts := newTestServer(t, nil)
	for _, auth := range []string{"", "Bearer wrong-token", "Bearer " + testToken + "x", "Basic " + testToken, "Bearer"} {
		for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
			resp := ts.request(t, method, initBody, "Authorization", auth, "Accept", "text/event-stream", HeaderConnectionID, "x")
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s with Authorization %q: %d, want 401", method, auth, resp.StatusCode)
			}
		}
		h := http.Header{}
		if auth != "" {
			h.Set("Authorization", auth)
		}
		_, resp, err := dialWS(context.Background(), ts.URL, h)
		if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("WebSocket with Authorization %q: %v %v, want 401", auth, resp, err)
		}
	}
	if n := ts.agent.ended.Load() + ts.agent.running.Load(); n != 0 {
		t.Fatalf("%d agent connections started for refused requests", n)
	}
	resp, err := http.Get(ts.http.URL + HealthPath)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "ok\n" {
		t.Fatalf("health: %d %q", resp.StatusCode, body)
	}
	resp, _ = http.Get(ts.http.URL + "/anything")
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("another path without the token: %d, want 401", resp.StatusCode)
	}
	// With the token, it works.
	if ts.initHTTP(t) == "" {
		t.Fatal("no connection id")
	}
}

// TestOriginAndHost: a browser Origin that is not allowed is refused
// (cross-site requests, DNS rebinding), even with the token; an allowed
// one passes; a Host that is not allowed is refused.
func TestOriginAndHost(t *testing.T) {
	ts := newTestServer(t, func(o *Options) {
		o.AllowedOrigins = []string{"https://editor.example"}
		o.AllowedHosts = []string{"127.0.0.1", "localhost"}
	})
	resp := ts.request(t, http.MethodPost, initBody, "Origin", "https://evil.example")
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("wrong Origin: %d, want 403", resp.StatusCode)
	}
	_, resp, err := dialWS(context.Background(), ts.URL, http.Header{"Authorization": {"Bearer " + testToken}, "Origin": {"http://evil.example"}})
	if err == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("WebSocket with a wrong Origin: %v %v", resp, err)
	}
	resp = ts.request(t, http.MethodPost, initBody, "Origin", "https://editor.example")
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Access-Control-Allow-Origin") != "https://editor.example" ||
		resp.Header.Get("Access-Control-Expose-Headers") != HeaderConnectionID {
		t.Fatalf("allowed Origin: %d %v, want 200 with CORS headers", resp.StatusCode, resp.Header)
	}
	// A browser's preflight (no credentials) from an allowed origin is
	// answered, and from another refused; neither opens anything.
	started := ts.agent.ended.Load() + ts.agent.running.Load()
	resp = ts.request(t, http.MethodOptions, "", "Authorization", "", "Origin", "https://editor.example", "Access-Control-Request-Method", "POST")
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent || !strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "Authorization") {
		t.Fatalf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
	resp = ts.request(t, http.MethodOptions, "", "Authorization", "", "Origin", "https://evil.example", "Access-Control-Request-Method", "POST")
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("preflight of another origin: %d %v", resp.StatusCode, resp.Header)
	}
	if ts.agent.ended.Load()+ts.agent.running.Load() != started {
		t.Fatal("a preflight started a connection")
	}
	req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(initBody))
	req.Host = "rebound.evil.example"
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("rebound Host: %d, want 403", resp.StatusCode)
	}
}

// TestOversizedMessages: a POST body or a WebSocket message over
// MaxMessageBytes is refused (413; the socket closed with 1009); the
// server and the other connections go on.
func TestOversizedMessages(t *testing.T) {
	ts := newTestServer(t, func(o *Options) { o.MaxMessageBytes = 4096 })
	id := ts.initHTTP(t)
	big := `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"` + strings.Repeat("a", 8000) + `"}}`
	resp := ts.request(t, http.MethodPost, big, HeaderConnectionID, id)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("oversized POST: %d, want 413", resp.StatusCode)
	}
	ctx := context.Background()
	ws, _, err := dialWS(ctx, ts.URL, bearer(testToken))
	if err != nil {
		t.Fatal(err)
	}
	ws.Write(ctx, websocket.MessageText, []byte(big))
	_, _, err = ws.Read(ctx)
	if websocket.CloseStatus(err) != websocket.StatusMessageTooBig {
		t.Fatalf("oversized WebSocket message: %v, want close 1009", err)
	}
	// The HTTP connection still works.
	events, stop := ts.sse(t, id, "")
	defer stop()
	resp = ts.request(t, http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"session/new","params":{}}`, HeaderConnectionID, id)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST after the oversized one: %d", resp.StatusCode)
	}
	if e := next(t, events); !strings.Contains(e, `"sessionId"`) {
		t.Fatalf("answer: %s", e)
	}
}

// TestSlowLorisReaders: a client that opens its stream and never reads it
// while the agent streams, over either transport, holds at most
// MaxBufferedBytes (plus the socket's buffers) and is disconnected after
// MaxOutputStall; its agent is released, and a second client on the same
// server is served meanwhile and after.
func TestSlowLorisReaders(t *testing.T) {
	ts := newTestServer(t, func(o *Options) {
		o.MaxBufferedBytes = 64 << 10
		o.MaxOutputStall = 300 * time.Millisecond
	})
	prompt := `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","count":20000,"size":1000}}`

	t.Run("http", func(t *testing.T) {
		id := ts.initHTTP(t)
		// A raw stream request that is never read.
		conn, err := net.Dial("tcp", ts.http.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\nAccept: text/event-stream\r\n%s: %s\r\n%s: s1\r\n\r\n",
			Path, testToken, HeaderConnectionID, id, HeaderSessionID)
		resp := ts.request(t, http.MethodPost, prompt, HeaderConnectionID, id, HeaderSessionID, "s1")
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("prompt: %d", resp.StatusCode)
		}
		eventually(t, "the stalled connection to close", func() bool { return ts.lookup(id) == nil })
	})
	t.Run("websocket", func(t *testing.T) {
		ctx := context.Background()
		ws, _, err := dialWS(ctx, ts.URL, bearer(testToken))
		if err != nil {
			t.Fatal(err)
		}
		defer ws.CloseNow()
		ws.Write(ctx, websocket.MessageText, []byte(initBody))
		ws.Write(ctx, websocket.MessageText, []byte(prompt))
		// Never read: the agent's writes stall.
		before := ts.agent.ended.Load()
		eventually(t, "the stalled WebSocket's agent to end", func() bool { return ts.agent.ended.Load() > before })
	})
	eventually(t, "every connection to end", func() bool { return ts.Connections() == 0 })
	// The server still serves.
	id := ts.initHTTP(t)
	events, stop := ts.sse(t, id, "s1")
	defer stop()
	resp := ts.request(t, http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","count":3,"size":10}}`, HeaderConnectionID, id, HeaderSessionID, "s1")
	resp.Body.Close()
	for i := 0; i < 3; i++ {
		next(t, events)
	}
	if e := next(t, events); !strings.Contains(e, "end_turn") {
		t.Fatalf("answer: %s", e)
	}
}

// TestSlowBody: a POST whose body trickles in is cut off after
// BodyTimeout, not held open forever.
func TestSlowBody(t *testing.T) {
	ts := newTestServer(t, func(o *Options) { o.BodyTimeout = 200 * time.Millisecond })
	conn, err := net.Dial("tcp", ts.http.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":", Path, testToken)
	conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	b, _ := io.ReadAll(conn)
	if !strings.HasPrefix(string(b), "HTTP/1.1 400") && len(b) != 0 {
		t.Fatalf("slow body answered %q", b)
	}
	if ts.Connections() != 0 {
		t.Fatal("a slow body opened a connection")
	}
}

// TestThousandConnections: 1,000 connections opened and dropped (half
// WebSockets closed without a word, half Streamable HTTP connections
// initialized and abandoned) leave nothing behind: the WebSockets' agents
// end, the abandoned HTTP connections are bounded by MaxConnections and
// closed after IdleTimeout, goroutines return to where they were, and a
// client that comes next is served.
func TestThousandConnections(t *testing.T) {
	ts := newTestServer(t, func(o *Options) {
		o.MaxConnections = 100
		o.IdleTimeout = 200 * time.Millisecond
	})
	base := runtime.NumGoroutine()
	ctx := context.Background()
	refused := 0
	for i := 0; i < 500; i++ {
		ws, resp, err := dialWS(ctx, ts.URL, bearer(testToken))
		if err != nil {
			if resp != nil && resp.StatusCode == http.StatusServiceUnavailable {
				refused++
				continue
			}
			t.Fatal(err)
		}
		if i%2 == 0 {
			ws.Write(ctx, websocket.MessageText, []byte(initBody))
		}
		ws.CloseNow()
		resp = ts.request(t, http.MethodPost, initBody)
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusOK:
		case http.StatusServiceUnavailable:
			refused++
		default:
			t.Fatalf("initialize %d: %d", i, resp.StatusCode)
		}
	}
	if max := ts.opts.MaxConnections; ts.Connections() > max {
		t.Fatalf("%d connections open, over MaxConnections %d", ts.Connections(), max)
	}
	eventually(t, "every dropped connection to end", func() bool { return ts.Connections() == 0 })
	http.DefaultClient.CloseIdleConnections()
	eventually(t, "goroutines to return", func() bool { return runtime.NumGoroutine() <= base+10 })
	t.Logf("refused %d of 1000 while over MaxConnections", refused)
	id := ts.initHTTP(t)
	events, stop := ts.sse(t, id, "")
	defer stop()
	resp := ts.request(t, http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{}}`, HeaderConnectionID, id)
	resp.Body.Close()
	if e := next(t, events); !strings.Contains(e, `"sessionId"`) {
		t.Fatalf("answer: %s", e)
	}
}
