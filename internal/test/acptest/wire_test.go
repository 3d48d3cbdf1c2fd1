package acptest

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestConversation: responses are checked against the method of the
// request they answer, answers to nothing and batches fail, and an
// off-schema request is passed over while its answer's envelope is not.
func TestConversation(t *testing.T) {
	r := &recorder{TB: t}
	c := Conversation{Version: 1, OffSchema: func(method string, _ json.RawMessage) bool { return method == "not/a_method" }}
	c.Check(r, false, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`))
	c.Check(r, true, []byte(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}`))
	c.Check(r, false, []byte(`{"jsonrpc":"2.0","id":1,"method":"not/a_method","params":{}}`))
	c.Check(r, true, []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`))
	if len(r.errs) != 0 {
		t.Fatalf("a valid conversation fails: %v", r.errs)
	}
	c.Check(r, true, []byte(`{"jsonrpc":"2.0","id":0,"result":{}}`)) // initialize again, without protocolVersion
	c.Check(r, true, []byte(`{"jsonrpc":"2.0","id":7,"result":{}}`))
	c.Check(r, false, []byte(`[{"jsonrpc":"2.0","id":2,"method":"session/new","params":{}}]`))
	if len(r.errs) != 3 || !strings.Contains(r.errs[0], "initialize response") ||
		!strings.Contains(r.errs[1], "response to no request") || !strings.Contains(r.errs[2], "batch") {
		t.Errorf("errors %q", r.errs)
	}
	if c.Counts[true] != 4 || c.Counts[false] != 3 {
		t.Errorf("counts %v", c.Counts)
	}
}

// TestConversationIDs: a response answers the request with its id, the
// same JSON value: "5" and 5 are two ids, and an id spelt with escapes is
// the same string.
func TestConversationIDs(t *testing.T) {
	r := &recorder{TB: t}
	c := Conversation{Version: 1}
	c.Check(r, false, []byte(`{"jsonrpc":"2.0","id":"5","method":"session/close","params":{"sessionId":"s"}}`))
	c.Check(r, true, []byte(`{"jsonrpc":"2.0","id":"\u0035","result":{}}`))
	if len(r.errs) != 0 {
		t.Fatalf("the answer to request \"5\" fails: %v", r.errs)
	}
	c.Check(r, true, []byte(`{"jsonrpc":"2.0","id":5,"result":{}}`))
	if len(r.errs) != 1 || !strings.Contains(r.errs[0], "response to no request") {
		t.Errorf("an answer to id 5 after a request \"5\": errors %q", r.errs)
	}
}
