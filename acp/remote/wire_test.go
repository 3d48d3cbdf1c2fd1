package remote

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/coder/websocket"
)

// TestStreamableHTTPWire walks the RFD's flow by hand and every refusal
// the SDK's server gives, with its status.
func TestStreamableHTTPWire(t *testing.T) {
	ts := newTestServer(t, nil)
	status := func(resp *http.Response) (int, string) {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(b)
	}
	expect := func(what string, resp *http.Response, want int, body string) {
		t.Helper()
		got, b := status(resp)
		if got != want || !strings.Contains(b, body) {
			t.Errorf("%s: %d %q, want %d %q", what, got, b, want, body)
		}
	}
	expect("text/plain body", ts.request(t, http.MethodPost, initBody, "Content-Type", "text/plain"), 415, "Unsupported Media Type")
	expect("invalid JSON", ts.request(t, http.MethodPost, `{"jsonrpc":`), 400, "Invalid JSON")
	expect("a batch", ts.request(t, http.MethodPost, `[`+initBody+`]`), 400, `"code":-32600`)
	expect("a string", ts.request(t, http.MethodPost, `"hello"`), 400, "Invalid JSON-RPC message")
	expect("no connection id", ts.request(t, http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{}}`), 400, "Missing Acp-Connection-Id")
	expect("unknown connection", ts.request(t, http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{}}`, HeaderConnectionID, "nope"), 404, "Unknown Acp-Connection-Id")
	expect("GET without Accept", ts.request(t, http.MethodGet, "", HeaderConnectionID, "nope"), 406, "Not Acceptable")
	expect("PUT", ts.request(t, http.MethodPut, ""), 405, "Method Not Allowed")

	id := ts.initHTTP(t)
	expect("initialize on a connection", ts.request(t, http.MethodPost, initBody, HeaderConnectionID, id), 400, "Initialize not allowed")
	events, stop := ts.sse(t, id, "")
	defer stop()
	expect("a second receiver", ts.request(t, http.MethodGet, "", "Accept", "text/event-stream", HeaderConnectionID, id), 409, "active receiver")

	expect("session/new", ts.request(t, http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{}}`, HeaderConnectionID, id), 202, "")
	if e := next(t, events); !strings.Contains(e, `"id":2`) || !strings.Contains(e, `"sessionId":"s1"`) {
		t.Fatalf("session/new's answer on the connection's stream: %s", e)
	}
	prompt := `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","count":2,"size":5}}`
	expect("prompt without Acp-Session-Id", ts.request(t, http.MethodPost, prompt, HeaderConnectionID, id), 400, "Missing Acp-Session-Id")
	expect("prompt with another session's header", ts.request(t, http.MethodPost, prompt, HeaderConnectionID, id, HeaderSessionID, "s2"), 400, "Mismatched Acp-Session-Id")

	// The session's messages wait for its stream, opened after the prompt.
	expect("prompt", ts.request(t, http.MethodPost, prompt, HeaderConnectionID, id, HeaderSessionID, "s1"), 202, "")
	session, stopSession := ts.sse(t, id, "s1")
	defer stopSession()
	for i := 0; i < 2; i++ {
		if e := next(t, session); !strings.Contains(e, `"method":"session/update"`) {
			t.Fatalf("update %d: %s", i, e)
		}
	}
	if e := next(t, session); !strings.Contains(e, `"id":3`) || !strings.Contains(e, "end_turn") {
		t.Fatalf("the prompt's answer on the session's stream: %s", e)
	}

	// The agent asks the client; the answer must name the session.
	expect("ask", ts.request(t, http.MethodPost, `{"jsonrpc":"2.0","id":4,"method":"session/ask","params":{"sessionId":"s1"}}`, HeaderConnectionID, id, HeaderSessionID, "s1"), 202, "")
	ask := next(t, session)
	if !strings.Contains(ask, `"method":"session/request_permission"`) {
		t.Fatalf("the agent's request on the session's stream: %s", ask)
	}
	answer := `{"jsonrpc":"2.0","id":1,"result":{"outcome":"allowed"}}` // the toy agent's first call has id 1
	expect("answer without Acp-Session-Id", ts.request(t, http.MethodPost, answer, HeaderConnectionID, id), 400, "Missing Acp-Session-Id")
	expect("answer", ts.request(t, http.MethodPost, answer, HeaderConnectionID, id, HeaderSessionID, "s1"), 202, "")
	if e := next(t, session); !strings.Contains(e, `"id":4`) || !strings.Contains(e, "allowed") {
		t.Fatalf("ask's answer: %s", e)
	}

	expect("DELETE", ts.request(t, http.MethodDelete, "", HeaderConnectionID, id), 202, "")
	for range events {
	} // the connection's stream ends
	expect("after DELETE", ts.request(t, http.MethodPost, prompt, HeaderConnectionID, id, HeaderSessionID, "s1"), 404, "Unknown Acp-Connection-Id")
	expect("DELETE again", ts.request(t, http.MethodDelete, "", HeaderConnectionID, id), 404, "")
}

// TestWebSocketWire: the upgrade's 101 carries Acp-Connection-Id, text
// frames carry messages both ways (a pretty-printed one too), binary
// frames are ignored, and the agent's end closes the socket.
func TestWebSocketWire(t *testing.T) {
	ts := newTestServer(t, nil)
	ctx := context.Background()
	ws, resp, err := dialWS(ctx, ts.URL, bearer(testToken))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	if resp.Header.Get(HeaderConnectionID) == "" {
		t.Fatal("no Acp-Connection-Id on the 101")
	}
	ws.Write(ctx, websocket.MessageBinary, []byte("ignored"))
	ws.Write(ctx, websocket.MessageText, []byte("{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"method\": \"initialize\",\n  \"params\": {\"protocolVersion\": 1}\n}"))
	_, b, err := ws.Read(ctx)
	if err != nil || !strings.Contains(string(b), `"protocolVersion":1`) {
		t.Fatalf("initialize: %s %v", b, err)
	}
	ws.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","count":3,"size":4}}`))
	for i := 0; i < 4; i++ {
		if _, b, err = ws.Read(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(string(b), "end_turn") {
		t.Fatalf("last message: %s", b)
	}
	ws.Close(websocket.StatusNormalClosure, "")
	eventually(t, "the agent to end", func() bool { return ts.Connections() == 0 })
}

// TestMaxConnections: past MaxConnections, a new connection of either kind
// is refused 503 and costs nothing; once one ends, there is room again.
func TestMaxConnections(t *testing.T) {
	ts := newTestServer(t, func(o *Options) { o.MaxConnections = 3 })
	var ids []string
	for i := 0; i < 3; i++ {
		ids = append(ids, ts.initHTTP(t))
	}
	resp := ts.request(t, http.MethodPost, initBody)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a fourth connection: %d, want 503", resp.StatusCode)
	}
	if _, resp, err := dialWS(context.Background(), ts.URL, bearer(testToken)); err == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a fourth connection over WebSocket: %v", err)
	}
	ts.request(t, http.MethodDelete, "", HeaderConnectionID, ids[0]).Body.Close()
	eventually(t, "room for one more", func() bool { return ts.Connections() < 3 })
	ts.initHTTP(t)
}
