package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/faultcli"
)

// Bad ACP input through the real binary: each bad message gets the right
// JSON-RPC error (or, for a notification, nothing), and the connection and
// the sessions on it keep working.

// badLines pairs a line with the id and code of the answer it must get;
// code 0 means no answer at all.
var badLines = []struct {
	name string
	line string
	id   string // the answer's id, raw JSON
	code int
}{
	{"malformed JSON", `{"jsonrpc":"2.0","id":1,"method":`, "null", -32700},
	{"not an object", `42`, "null", -32600},
	{"empty batch", `[]`, "null", -32600},
	{"wrong jsonrpc", `{"jsonrpc":"1.0","id":2,"method":"session/new","params":{}}`, "2", -32600},
	{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"session/new","params":{}}`, "null", -32600},
	{"method not a string", `{"jsonrpc":"2.0","id":3,"method":5}`, "3", -32600},
	{"method missing", `{"jsonrpc":"2.0","id":"m","params":{}}`, `"m"`, -32600},
	{"id only", `{"jsonrpc":"2.0","id":16}`, "16", -32600},
	{"byte-order mark", "\uFEFF" + `{"jsonrpc":"2.0","id":17,"method":"no/such/method","params":{}}`, "17", -32601},
	{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"x\xff\"}", "null", -32700},
	{"unknown method", `{"jsonrpc":"2.0","id":5,"method":"no/such/method","params":{}}`, "5", -32601},
	{"unknown vendor method", `{"jsonrpc":"2.0","id":"v","method":"_vendor/thing","params":{}}`, `"v"`, -32601},
	{"params not an object", `{"jsonrpc":"2.0","id":6,"method":"session/prompt","params":[1,2]}`, "6", -32602},
	{"sessionId of the wrong type", `{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":5,"prompt":[]}}`, "7", -32602},
	{"prompt of the wrong type", `{"jsonrpc":"2.0","id":8,"method":"session/prompt","params":{"sessionId":"$SID","prompt":"hello"}}`, "8", -32602},
	{"prompt missing", `{"jsonrpc":"2.0","id":9,"method":"session/prompt","params":{"sessionId":"$SID"}}`, "9", -32602},
	{"unknown content type", `{"jsonrpc":"2.0","id":10,"method":"session/prompt","params":{"sessionId":"$SID","prompt":[{"type":"bogus"}]}}`, "10", -32602},
	{"cwd of the wrong type", `{"jsonrpc":"2.0","id":11,"method":"session/new","params":{"cwd":7,"mcpServers":[]}}`, "11", -32602},
	{"relative cwd", `{"jsonrpc":"2.0","id":12,"method":"session/new","params":{"cwd":"some/dir","mcpServers":[]}}`, "12", -32602},
	{"prompt to an unknown session", `{"jsonrpc":"2.0","id":13,"method":"session/prompt","params":{"sessionId":"no-such-session","prompt":[{"type":"text","text":"hi"}]}}`, "13", -32002},
	{"set_mode on an unknown session", `{"jsonrpc":"2.0","id":14,"method":"session/set_mode","params":{"sessionId":"no-such-session","modeId":"plan"}}`, "14", -32002},
	{"second initialize", `{"jsonrpc":"2.0","id":15,"method":"initialize","params":{"protocolVersion":1}}`, "15", -32600},
	{"cancel of an unknown session", `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"no-such-session"}}`, "", 0},
	{"unknown notification", `{"jsonrpc":"2.0","method":"no/such/notification","params":{}}`, "", 0},
	{"response nobody asked for", `{"jsonrpc":"2.0","id":99,"result":{}}`, "", 0},
	{"response with both result and error", `{"jsonrpc":"2.0","id":98,"result":{},"error":{"code":1,"message":"x"}}`, "", 0},
	{"error response with id null", `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}`, "", 0},
	{"cancel_request for nothing", `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":12345}}`, "", 0},
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	p := startAgent(t)
	p.initialize()
	sid := p.newSession("new")
	for i, tc := range badLines {
		p.write(strings.ReplaceAll(tc.line, "$SID", sid) + "\n")
		// A sentinel request after each line: its answer must come next
		// (nothing else answered the bad line) or right after the one
		// answer the bad line gets.
		sentinel := fmt.Sprintf("sentinel-%d", i)
		p.send(sentinel, "no/such/method", nil)
		m := p.nextResponse()
		if tc.code != 0 {
			if m.Error == nil || m.Error.Code != tc.code || string(m.ID) != tc.id {
				t.Errorf("%s: got %s, want code %d with id %s", tc.name, m.raw, tc.code, tc.id)
			}
			if len(m.raw) > 1024 {
				t.Errorf("%s: an answer of %d bytes (it must not echo the input)", tc.name, len(m.raw))
			}
			m = p.nextResponse()
		}
		if want, _ := json.Marshal(sentinel); string(m.ID) != string(want) {
			t.Errorf("%s: got %s, want the sentinel's answer", tc.name, m.raw)
		}
	}
	if got := p.prompt("after", sid, "still fine"); got != "end_turn" {
		t.Fatalf("after the bad input: %s", got)
	}
}

// TestUnknownSessionErrorNamesIt: -32002 carries data.sessionId.
func TestUnknownSessionErrorNamesIt(t *testing.T) {
	t.Parallel()
	p := startAgent(t)
	p.initialize()
	m := p.call(1, "session/prompt", textPrompt("no-such-session", "hi"))
	var data struct {
		SessionID string `json:"sessionId"`
	}
	if m.Error == nil || m.Error.Code != -32002 || json.Unmarshal(m.Error.Data, &data) != nil || data.SessionID != "no-such-session" {
		t.Fatalf("got %s", m.raw)
	}
}

// TestHugeFrames: a 24 MiB prompt (over twice the 10 MiB limit of other
// ACP implementations, hundreds of times the reader's 64 KiB buffer) is a
// prompt like any other; a frame over the 64 MiB limit is refused with
// -32600 and its id; the connection goes on. (The prompt was 50 MB, for
// the same code path and twice the CPU.)
func TestHugeFrames(t *testing.T) {
	t.Parallel()
	p := startAgent(t)
	p.initialize()
	sid := p.newSession(1)
	const big = 24 << 20
	// Built by hand: the text needs no escaping.
	p.write(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"` + sid +
		`","prompt":[{"type":"text","text":"size ` + strings.Repeat("a", big) + `"}]}}` + "\n")
	m := p.response(2)
	if m.Error != nil || !strings.Contains(string(m.Result), "end_turn") {
		t.Fatalf("24 MiB prompt: %.300s", m.raw)
	}
	if want := fmt.Sprintf("size %d", big+len("size ")); !notesContain(p.notes, want) {
		t.Errorf("the CLI did not get the whole prompt (want %q)", want)
	}

	p.write(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"` + sid +
		`","prompt":[{"type":"text","text":"` + strings.Repeat("b", 70<<20) + `"}]}}` + "\n")
	m = p.response(3)
	if m.Error == nil || m.Error.Code != -32600 || !strings.Contains(string(m.Error.Data), "limit") {
		t.Fatalf("70 MB frame: %.300s", m.raw)
	}
	if got := p.prompt(4, sid, "small again"); got != "end_turn" {
		t.Fatalf("after the huge frames: %s", got)
	}
}

func notesContain(notes []wireMsg, s string) bool {
	for _, n := range notes {
		if strings.Contains(string(n.Params), s) {
			return true
		}
	}
	return false
}

// TestBurst: thousands of requests written at once, good and bad mixed,
// each answered exactly once with the right result; real prompts queue and
// all complete.
func TestBurst(t *testing.T) {
	t.Parallel()
	p := startAgent(t)
	p.initialize()
	sid := p.newSession("a")
	idle := p.newSession("b")
	const n = 3000
	want := map[string]int{} // id → code (0: success)
	var buf strings.Builder
	line := func(id any, method string, params any) {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		buf.Write(b)
		buf.WriteByte('\n')
	}
	for i := range n {
		switch i % 6 {
		case 0:
			line(i, "no/such/method", map[string]any{})
			want[fmt.Sprint(i)] = -32601
		case 1:
			line(i, "session/prompt", textPrompt("no-such-session", "hi"))
			want[fmt.Sprint(i)] = -32002
		case 2:
			line(i, "session/prompt", map[string]any{"sessionId": 42})
			want[fmt.Sprint(i)] = -32602
		case 3:
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": idle}})
			buf.Write(b)
			buf.WriteByte('\n')
		case 4:
			line(i, "session/new", map[string]any{"cwd": "relative", "mcpServers": []any{}})
			want[fmt.Sprint(i)] = -32602
		case 5:
			if i%60 == 5 { // 50 real prompts, queued in one CLI
				line(i, "session/prompt", textPrompt(sid, fmt.Sprintf("burst %d", i)))
				want[fmt.Sprint(i)] = 0
			} else {
				buf.WriteString("{oops\n")
			}
		}
	}
	go p.in.Write([]byte(buf.String())) // the agent answers while we write
	got := map[string]int{}
	parseErrors := 0
	for len(got) < len(want) || parseErrors < n/6-50 {
		m := p.next()
		if !m.isResponse() {
			continue
		}
		if string(m.ID) == "null" {
			parseErrors++
			continue
		}
		id := strings.Trim(string(m.ID), `"`)
		if _, dup := got[id]; dup {
			t.Fatalf("a second answer for id %s: %s", id, m.raw)
		}
		code := 0
		if m.Error != nil {
			code = m.Error.Code
		}
		got[id] = code
		if w, ok := want[id]; !ok || w != code {
			t.Fatalf("id %s: got %s, want code %d", id, m.raw, w)
		}
	}
	for _, who := range []string{sid, idle} {
		if got := p.prompt("after-"+who, who, "after the burst"); got != "end_turn" {
			t.Fatalf("after the burst: %s", got)
		}
	}
}

// TestRequestsAfterClose: once a session is closed its id is unknown
// (-32002), closing it again succeeds, its CLI is gone, and other sessions
// are unaffected. A turn running at close ends as cancelled.
func TestRequestsAfterClose(t *testing.T) {
	t.Parallel()
	p := startAgent(t)
	p.initialize()
	a, b := p.newSession(1), p.newSession(2)
	p.send(3, "session/prompt", textPrompt(a, "hang"))
	p.waitUserFrames(1)
	var pidA int
	for _, e := range faultcli.Trace(p.dir) {
		if e.What == "frame" && strings.HasPrefix(e.Detail, "user") {
			pidA = e.PID
		}
	}
	if m := p.call(4, "session/close", map[string]any{"sessionId": a}); m.Error != nil {
		t.Fatalf("session/close: %s", m.raw)
	}
	if m := p.response(3); m.Error != nil || !strings.Contains(string(m.Result), `"cancelled"`) {
		t.Errorf("the running turn: %s, want cancelled", m.raw)
	}
	if faultcli.Alive(pidA) {
		t.Error("the closed session's CLI is still running")
	}
	for i, req := range []struct {
		method string
		params any
		code   int
	}{
		{"session/prompt", textPrompt(a, "hi"), -32002},
		{"session/set_mode", map[string]any{"sessionId": a, "modeId": "plan"}, -32002},
		{"session/close", map[string]any{"sessionId": a}, 0},
	} {
		m := p.call(10+i, req.method, req.params)
		code := 0
		if m.Error != nil {
			code = m.Error.Code
		}
		if code != req.code {
			t.Errorf("%s after close: %s, want code %d", req.method, m.raw, req.code)
		}
	}
	p.send(nil, "session/cancel", map[string]any{"sessionId": a}) // a no-op
	if got := p.prompt(20, b, "other session"); got != "end_turn" {
		t.Fatalf("the other session: %s", got)
	}
}
