package remote

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
)

const testToken = "test-token-that-must-never-be-logged"

// toyAgent serves a tiny ACP agent per connection: initialize,
// session/new (a fresh id), session/prompt (params.count updates, then
// end_turn), and session/ask (a permission request to the client, whose
// answer it returns). It counts connections running and ended.
type toyAgent struct {
	running atomic.Int64
	ended   atomic.Int64
	nextID  atomic.Int64
}

func (a *toyAgent) serve(ctx context.Context, r io.Reader, w io.Writer) error {
	a.running.Add(1)
	defer a.running.Add(-1)
	defer a.ended.Add(1)
	var conn *acp.Conn
	ready := make(chan struct{})
	conn = acp.NewConn(r, w, acp.Options{
		InitializeMethod: "initialize",
		Handler: acp.HandlerFunc(func(hctx context.Context, req *acp.Request) (any, error) {
			<-ready
			var p struct {
				SessionID string `json:"sessionId"`
				Count     int    `json:"count"`
				Size      int    `json:"size"`
			}
			json.Unmarshal(req.Params, &p)
			switch req.Method {
			case "initialize":
				return map[string]any{"protocolVersion": 1, "agentCapabilities": map[string]any{"loadSession": true}}, nil
			case "session/new":
				return map[string]any{"sessionId": "s" + string(rune('0'+a.nextID.Add(1)%10))}, nil
			case "session/prompt":
				acp.Async(hctx)
				text := strings.Repeat("x", p.Size)
				for i := 0; i < p.Count; i++ {
					if err := conn.Notify(hctx, "session/update", map[string]any{"sessionId": p.SessionID, "update": map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": text}}}); err != nil {
						return nil, err
					}
				}
				return map[string]any{"stopReason": "end_turn"}, nil
			case "session/ask":
				acp.Async(hctx)
				var out map[string]any
				if err := conn.Call(hctx, "session/request_permission", map[string]any{"sessionId": p.SessionID}, &out); err != nil {
					return nil, err
				}
				return out, nil
			}
			return nil, acp.NewMethodNotFound(req.Method)
		}),
	})
	close(ready)
	select {
	case <-conn.Done():
	case <-ctx.Done():
	}
	conn.Close()
	conn.Wait()
	return nil
}

// lockedBuffer collects the server's log.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

type testServer struct {
	*Server
	agent *toyAgent
	http  *httptest.Server
	URL   string // …/acp
	log   *lockedBuffer
}

// newTestServer serves the toy agent on a loopback port; change adjusts
// the options. At cleanup it checks that the log never shows the token.
func newTestServer(t *testing.T, change func(*Options)) *testServer {
	t.Helper()
	a := &toyAgent{}
	logs := &lockedBuffer{}
	opts := Options{
		Serve:  a.serve,
		Token:  testToken,
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	if change != nil {
		change(&opts)
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(nil)
	hs.Config = NewHTTPServer(s)
	hs.Start()
	ts := &testServer{Server: s, agent: a, http: hs, URL: hs.URL + Path, log: logs}
	t.Cleanup(func() {
		hs.CloseClientConnections()
		s.Close()
		hs.Close()
		if strings.Contains(logs.String(), testToken) {
			t.Errorf("the log shows the token:\n%s", logs.String())
		}
		if n := a.running.Load(); n != 0 {
			t.Errorf("%d agent connections still running after Close", n)
		}
	})
	return ts
}

func (ts *testServer) request(t *testing.T, method, body string, headers ...string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(method, ts.URL, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testToken)
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] == "" {
			req.Header.Del(headers[i])
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`

// initHTTP opens a Streamable HTTP connection and returns its id.
func (ts *testServer) initHTTP(t *testing.T) string {
	t.Helper()
	resp := ts.request(t, http.MethodPost, initBody)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("initialize: %d %s", resp.StatusCode, b)
	}
	return resp.Header.Get(HeaderConnectionID)
}

// sse opens a stream and returns its events, one JSON text each.
func (ts *testServer) sse(t *testing.T, connID, session string) (<-chan string, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(HeaderConnectionID, connID)
	if session != "" {
		req.Header.Set(HeaderSessionID, session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %d", resp.StatusCode)
	}
	events := make(chan string, 1024)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				events <- data
			}
		}
	}()
	return events, func() { cancel(); resp.Body.Close() }
}

func next(t *testing.T, events <-chan string) string {
	t.Helper()
	select {
	case e, ok := <-events:
		if !ok {
			t.Fatal("the stream ended")
		}
		return e
	case <-time.After(20 * time.Second):
		t.Fatal("no event")
	}
	return ""
}

// eventually waits for cond, polling: for effects with no event to wait on
// (a goroutine that ended, a count that dropped).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
