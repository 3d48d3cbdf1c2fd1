package acptest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"
)

// Conversation checks the lines of one connection in the order they
// crossed it: each with ValidateLine for its sender and, for a response,
// the method of the request it answers, which must have gone the other
// way before it.
type Conversation struct {
	// Version is the negotiated protocol version: 1 or 2.
	Version int
	// OffSchema, when set, picks the client requests a test sends off the
	// schema on purpose: such a request is not checked, and its answer
	// only as an envelope (and error object).
	OffSchema func(method string, params json.RawMessage) bool
	// Counts is how many lines each side sent (true: the agent).
	Counts map[bool]int

	methods map[string]string // sender/id → method of its request
	skipped map[string]bool   // sender/id of off-schema requests
}

// Check checks the next line, sent by the agent or the client.
func (c *Conversation) Check(t testing.TB, fromAgent bool, line []byte) {
	t.Helper()
	if c.methods == nil {
		c.methods, c.skipped = map[string]string{}, map[string]bool{}
	}
	if c.Counts == nil {
		c.Counts = map[bool]int{}
	}
	c.Counts[fromAgent]++
	l := Line{Version: c.Version, FromAgent: fromAgent}
	// The line is parsed once, for the schema, and its id and method read
	// from that.
	inst, err := parse(line)
	msg, isObject := inst.(map[string]any)
	if err != nil || !isObject {
		ValidateLine(t, l, line) // says what it is instead (not JSON, a batch)
		return
	}
	id, hasID := msg["id"]
	method, _ := msg["method"].(string)
	key := func(fromAgent bool) string { return fmt.Sprintf("%v/%s", fromAgent, idKey(id, hasID)) }
	switch {
	case method != "" && hasID:
		c.methods[key(fromAgent)] = method
		if !fromAgent && c.OffSchema != nil {
			var env struct {
				Params json.RawMessage `json:"params"`
			}
			_ = json.Unmarshal(line, &env) // the params as sent, for OffSchema
			if c.OffSchema(method, env.Params) {
				c.skipped[key(false)] = true
				return
			}
		}
	case method != "":
	case c.skipped[key(!fromAgent)]:
		// The answer to an off-schema request: envelope and error only.
	default:
		l.Method = c.methods[key(!fromAgent)]
		if l.Method == "" {
			t.Errorf("response to no request: %s", line)
		}
	}
	reportLine(t, l, line, validateMessage(l, inst, true))
}

// idKey is a JSON-RPC id as parsed (json.Number, string or nil) in a form
// that tells them apart: 1 and "1" are different ids.
func idKey(id any, present bool) string {
	switch v := id.(type) {
	case nil:
		if present {
			return "null"
		}
		return ""
	case string:
		return strconv.Quote(v)
	case json.Number:
		return string(v)
	}
	b, _ := json.Marshal(id)
	return string(b)
}

// ValidateWireFile checks a conversation recorded at path, one
// {"fromAgent":bool,"line":"..."} record a line (as the scripts in
// testdata/sdkv2 write it), for version, and returns how many lines each
// side sent (true: the agent).
func ValidateWireFile(t testing.TB, version int, path string) map[bool]int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := Conversation{Version: version}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var rec struct {
			FromAgent bool   `json:"fromAgent"`
			Line      string `json:"line"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("wire record: %v", err)
		}
		c.Check(t, rec.FromAgent, []byte(rec.Line))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if c.Counts == nil {
		return map[bool]int{}
	}
	return c.Counts
}
