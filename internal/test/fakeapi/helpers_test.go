package fakeapi

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// sseEvent is one parsed server-sent event.
type sseEvent struct {
	Name string
	Data map[string]any
}

// client returns an HTTP client with its own transport, closed at the end of the test so
// that no connection goroutines outlive it.
func client(t *testing.T) *http.Client {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// msgBody builds a Messages request body.
type msgBody struct {
	Model    string
	Stream   bool
	Tools    []string
	System   string
	Messages []map[string]any
}

func (b msgBody) json() []byte {
	tools := []map[string]any{}
	for _, n := range b.Tools {
		tools = append(tools, map[string]any{"name": n, "input_schema": map[string]any{"type": "object"}})
	}
	msgs := b.Messages
	if msgs == nil {
		msgs = []map[string]any{userText("hi")}
	}
	m := map[string]any{"model": cmp.Or(b.Model, "claude-opus-5-5"), "max_tokens": 1000,
		"stream": b.Stream, "messages": msgs, "tools": tools,
		"system": []map[string]any{{"type": "text", "text": b.System}}}
	data, _ := json.Marshal(m)
	return data
}

func userText(s string) map[string]any {
	return map[string]any{"role": "user", "content": []map[string]any{{"type": "text", "text": s}}}
}

// post sends a Messages request and returns the response; the caller closes the body.
func post(t *testing.T, c *http.Client, s *Server, b msgBody) *http.Response {
	t.Helper()
	return postCtx(t, context.Background(), c, s, b)
}

func postCtx(t *testing.T, ctx context.Context, c *http.Client, s *Server, b msgBody) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+"/v1/messages?beta=true", bytes.NewReader(b.json()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-api-key", "sk-fake")
	req.Header.Set("anthropic-beta", "claude-code-20250219")
	req.Header.Set("User-Agent", "claude-cli/test")
	req.Header.Set("X-Claude-Code-Session-Id", "sess-1")
	req.Header.Set("X-Stainless-Retry-Count", "0")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// readSSE parses a whole event stream.
func readSSE(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var out []sseEvent
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var name string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatalf("bad data line %q: %v", line, err)
			}
			if d["type"] != name {
				t.Errorf("event %q carries data type %v", name, d["type"])
			}
			out = append(out, sseEvent{Name: name, Data: d})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading SSE: %v", err)
	}
	return out
}

// names lists the event names, collapsing runs of content_block_delta into one "delta*".
func names(evs []sseEvent) []string {
	var out []string
	for _, e := range evs {
		n := e.Name
		if n == "content_block_delta" {
			n = "delta*"
		}
		if len(out) > 0 && n == "delta*" && out[len(out)-1] == n {
			continue
		}
		out = append(out, n)
	}
	return out
}

// deltas returns the delta objects of block index i.
func deltas(evs []sseEvent, i int) []map[string]any {
	var out []map[string]any
	for _, e := range evs {
		if e.Name == "content_block_delta" && e.Data["index"] == float64(i) {
			out = append(out, e.Data["delta"].(map[string]any))
		}
	}
	return out
}

// joinDeltas concatenates field f of block i's deltas.
func joinDeltas(evs []sseEvent, i int, f string) string {
	var sb strings.Builder
	for _, d := range deltas(evs, i) {
		if s, ok := d[f].(string); ok {
			sb.WriteString(s)
		}
	}
	return sb.String()
}

func messageDelta(t *testing.T, evs []sseEvent) map[string]any {
	t.Helper()
	for _, e := range evs {
		if e.Name == "message_delta" {
			return e.Data
		}
	}
	t.Fatal("no message_delta")
	return nil
}

func decodeJSON(t *testing.T, r io.Reader) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.NewDecoder(r).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}
