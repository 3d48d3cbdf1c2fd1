package acp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestBrokenResponseFailsCallAtOnce: every kind of unusable answer to a
// Call ends it at once with -32603 "peer sent an invalid response", and
// nothing is written back to the peer.
func TestBrokenResponseFailsCallAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name, answer string // answer: %ID% is the call's id
		result       func() any
		reason       string
	}{
		{"both", `{"jsonrpc":"2.0","id":%ID%,"result":{"outcome":{"outcome":"cancelled"}},"error":{"code":1,"message":"x"}}`, nil, "both result and error"},
		{"neither", `{"jsonrpc":"2.0","id":%ID%}`, nil, "neither result nor error"},
		{"neither, no jsonrpc", `{"id":%ID%}`, nil, "neither result nor error"},
		{"wrong shape", `{"jsonrpc":"2.0","id":%ID%,"result":[1,2]}`, func() any { return &RequestPermissionResponse{} }, "does not decode"},
		{"wrong member type", `{"jsonrpc":"2.0","id":%ID%,"result":{"outcome":"yes"}}`, func() any { return &RequestPermissionResponse{} }, "does not decode"},
		{"null for a required object", `{"jsonrpc":"2.0","id":%ID%,"result":null}`, func() any { return &RequestPermissionResponse{} }, "does not decode"},
		{"null for a plain struct", `{"jsonrpc":"2.0","id":%ID%,"result":null}`, func() any { return &struct{ Outcome string }{} }, "null result"},
		{"malformed error", `{"jsonrpc":"2.0","id":%ID%,"error":{"code":"x"}}`, nil, "malformed error object"},
		{"null error", `{"jsonrpc":"2.0","id":%ID%,"error":null}`, nil, "malformed error object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := newTestPeer(t, Options{})
			var result any
			if tc.result != nil {
				result = tc.result()
			}
			done := make(chan error, 1)
			go func() {
				done <- p.conn.Call(context.Background(), "session/request_permission", map[string]string{}, result)
			}()
			var req struct {
				ID json.RawMessage `json:"id"`
			}
			if err := json.Unmarshal([]byte(p.recv(5*time.Second)), &req); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			p.send(strings.ReplaceAll(tc.answer, "%ID%", string(req.ID)))
			select {
			case err := <-done:
				var e *Error
				if !errors.As(err, &e) || e.Code != CodeInternalError || !strings.Contains(e.Message, "peer sent an invalid response") ||
					!strings.Contains(e.Error(), tc.reason) {
					t.Fatalf("Call returned %v, want -32603 peer sent an invalid response: %s", err, tc.reason)
				}
				if d := time.Since(start); d > time.Second {
					t.Errorf("the call ended after %v", d)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the call is still waiting")
			}
			p.quiet(150 * time.Millisecond) // nothing answered
		})
	}
}

// TestNullResultAcceptedWhereAllowed: null stays acceptable for a result
// type that decodes it (an empty ACP result, a raw message), and a null
// "error" beside a result is taken as absent.
func TestNullResultAcceptedWhereAllowed(t *testing.T) {
	for _, tc := range []struct {
		name, answer string
		result       any
	}{
		{"empty ACP result", `{"jsonrpc":"2.0","id":%ID%,"result":null}`, &WriteTextFileResponse{}},
		{"raw", `{"jsonrpc":"2.0","id":%ID%,"result":null}`, &json.RawMessage{}},
		{"no result wanted", `{"jsonrpc":"2.0","id":%ID%,"result":null}`, nil},
		{"null error beside a result", `{"jsonrpc":"2.0","id":%ID%,"result":{},"error":null}`, &WriteTextFileResponse{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := newTestPeer(t, Options{})
			done := make(chan error, 1)
			go func() {
				done <- p.conn.Call(context.Background(), "fs/write_text_file", map[string]string{}, tc.result)
			}()
			var req struct {
				ID json.RawMessage `json:"id"`
			}
			if err := json.Unmarshal([]byte(p.recv(5*time.Second)), &req); err != nil {
				t.Fatal(err)
			}
			p.send(strings.ReplaceAll(tc.answer, "%ID%", string(req.ID)))
			if err := <-done; err != nil {
				t.Fatalf("Call: %v", err)
			}
			p.quiet(100 * time.Millisecond)
		})
	}
}

// TestInvalidRequestAnsweredOnItsID: a peer's request that is invalid but
// has a readable id gets its error on that id, so the peer's own Call ends
// instead of waiting forever.
func TestInvalidRequestAnsweredOnItsID(t *testing.T) {
	p := newTestPeer(t, Options{})
	for _, l := range []string{
		`{"jsonrpc":"1.0","id":41,"method":"x"}`,
		`{"jsonrpc":"2.0","id":42,"method":7}`,
		`{"jsonrpc":"2.0","id":43,"params":{}}`,
		`{"jsonrpc":"2.0","id":44}`, // no call of ours has id 44
	} {
		p.send(l)
		var m struct {
			ID    json.RawMessage `json:"id"`
			Error *Error          `json:"error"`
		}
		if err := json.Unmarshal([]byte(p.recv(5*time.Second)), &m); err != nil {
			t.Fatal(err)
		}
		var want struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal([]byte(l), &want)
		if string(m.ID) != string(want.ID) || m.Error == nil || m.Error.Code != CodeInvalidRequest {
			t.Errorf("%s: answered id %s error %v", l, m.ID, m.Error)
		}
	}
}
