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

// The initialize gate for ACP v1 and v2 (gate.go; docs/acp-v2.md, tables
// "Choosing the version" and "Before and around initialize"), over real
// pipes with a small agent that answers initialize with
// {"protocolVersion":N}, N negotiated from [1, 2].

// gateAgent is the handler behind the gate. An initialize whose params
// carry "hold": true blocks until release is closed; with "async": true
// it first lets the dispatcher go on (acp.Async), as a v2 agent that does
// slow work in initialize would.
type gateAgent struct {
	entered chan struct{} // one value per held initialize that started
	release chan struct{}
	notes   atomic.Int32 // "note" notifications handled
	inits   atomic.Int32 // initialize handlers run
}

func newGateAgent() *gateAgent {
	return &gateAgent{entered: make(chan struct{}, 8), release: make(chan struct{})}
}

func (g *gateAgent) handler() Handler {
	m := NewMux()
	On(m, "initialize", func(ctx context.Context, p *json.RawMessage) (any, error) {
		g.inits.Add(1)
		var opts struct {
			Hold  bool `json:"hold"`
			Async bool `json:"async"`
		}
		_ = json.Unmarshal(*p, &opts)
		if opts.Hold {
			if opts.Async {
				Async(ctx)
			}
			g.entered <- struct{}{}
			<-g.release
		}
		requested, err := PeekProtocolVersion(*p)
		if err != nil {
			return nil, err
		}
		v, err := NegotiateVersion(requested, []int{ProtocolV1, ProtocolV2})
		if err != nil {
			return nil, err
		}
		return map[string]int{"protocolVersion": v}, nil
	})
	On(m, "echo", func(ctx context.Context, p *json.RawMessage) (any, error) { return p, nil })
	OnNotification(m, "note", func(ctx context.Context, p *json.RawMessage) error {
		g.notes.Add(1)
		return nil
	})
	return m
}

type gateReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func startGate(t *testing.T, opts ...func(*Options)) (*testPeer, *gateAgent) {
	t.Helper()
	g := newGateAgent()
	o := Options{Handler: g.handler(), InitializeMethod: "initialize"}
	for _, f := range opts {
		f(&o)
	}
	p := newTestPeer(t, o)
	t.Cleanup(func() {
		select {
		case <-g.release:
		default:
			close(g.release)
		}
	})
	return p, g
}

const gateWait = 10 * time.Second // a bound on a broken gate, not a latency claim

// next reads one reply and checks its id.
func (p *testPeer) reply(id string) gateReply {
	p.t.Helper()
	line := p.recv(gateWait)
	var r gateReply
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		p.t.Fatalf("reply %q: %v", line, err)
	}
	if string(r.ID) != id {
		p.t.Fatalf("reply %s: id %s, want %s", line, r.ID, id)
	}
	return r
}

func (p *testPeer) wantResult(id, result string) {
	p.t.Helper()
	r := p.reply(id)
	if r.Error != nil || string(r.Result) != result {
		p.t.Fatalf("reply to %s: result %s error %+v, want result %s", id, r.Result, r.Error, result)
	}
}

func (p *testPeer) wantError(id string, code int, msgPart string) gateReply {
	p.t.Helper()
	r := p.reply(id)
	if r.Error == nil || r.Error.Code != code || !strings.Contains(r.Error.Message+" "+string(r.Error.Data), msgPart) {
		p.t.Fatalf("reply to %s: result %s error %+v, want %d containing %q", id, r.Result, r.Error, code, msgPart)
	}
	return r
}

// initOK sends an initialize asking for version and wants it answered
// with that version.
func (p *testPeer) initOK(id string, version int) {
	p.t.Helper()
	p.send(initLine(id, version, ""))
	p.wantResult(id, fmt.Sprintf(`{"protocolVersion":%d}`, version))
}

// initError sends an initialize asking for version and wants it refused
// with code and an error mentioning msgPart.
func (p *testPeer) initError(id string, version, code int, msgPart string) {
	p.t.Helper()
	p.send(initLine(id, version, ""))
	p.wantError(id, code, msgPart)
}

// echoOK sends an echo request and wants it served.
func (p *testPeer) echoOK(id string) {
	p.t.Helper()
	p.send(echoLine(id))
	p.wantResult(id, `{"n":`+id+`}`)
}

// wantVersion checks the version the connection has negotiated (0: none).
func (p *testPeer) wantVersion(v int) {
	p.t.Helper()
	if got := p.conn.ProtocolVersion(); got != v {
		p.t.Errorf("ProtocolVersion() = %d, want %d", got, v)
	}
}

// wantInits checks how many initialize handlers have run: refused
// initializes never reach the handler.
func wantInits(t *testing.T, g *gateAgent, n int32) {
	t.Helper()
	if got := g.inits.Load(); got != n {
		t.Errorf("%d initialize handlers ran, want %d", got, n)
	}
}

func initLine(id string, version int, extra string) string {
	v, _ := json.Marshal(version)
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"initialize","params":{"protocolVersion":` + string(v) + extra + `}}`
}

func echoLine(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"echo","params":{"n":` + id + `}}`
}

func waitEntered(t *testing.T, g *gateAgent) {
	t.Helper()
	select {
	case <-g.entered:
	case <-time.After(gateWait):
		t.Fatal("the held initialize never started")
	}
}

// Choosing the version: 1 is 1, 2 and later are 2, 0 is -32022 with
// {requested, supported}, and malformed versions are -32602; failures
// leave the connection uninitialized.
func TestGateChoosingTheVersion(t *testing.T) {
	for _, c := range []struct {
		name    string
		params  string
		result  string
		code    int
		data    string
		version int
	}{
		{name: "v1", params: `{"protocolVersion":1}`, result: `{"protocolVersion":1}`, version: 1},
		{name: "v2", params: `{"protocolVersion":2}`, result: `{"protocolVersion":2}`, version: 2},
		{name: "v3 answers 2", params: `{"protocolVersion":3}`, result: `{"protocolVersion":2}`, version: 2},
		{name: "v65535 answers 2", params: `{"protocolVersion":65535}`, result: `{"protocolVersion":2}`, version: 2},
		{name: "v0", params: `{"protocolVersion":0}`, code: CodeUnsupportedProtocolVersion, data: `{"requested":0,"supported":[1,2]}`},
		{name: "missing", params: `{}`, code: CodeInvalidParams},
		{name: "string", params: `{"protocolVersion":"2"}`, code: CodeInvalidParams},
		{name: "fraction", params: `{"protocolVersion":1.5}`, code: CodeInvalidParams},
		{name: "negative", params: `{"protocolVersion":-1}`, code: CodeInvalidParams},
		{name: "too big", params: `{"protocolVersion":65536}`, code: CodeInvalidParams},
		{name: "not an object", params: `[2]`, code: CodeInvalidParams},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, _ := startGate(t)
			p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":` + c.params + `}`)
			if c.code == 0 {
				p.wantResult("1", c.result)
			} else {
				r := p.wantError("1", c.code, "")
				if c.data != "" && string(r.Error.Data) != c.data {
					t.Errorf("data %s, want %s", r.Error.Data, c.data)
				}
				if c.code == CodeInvalidParams && c.name != "not an object" && !strings.Contains(string(r.Error.Data), "protocolVersion") {
					t.Errorf("-32602 should name protocolVersion: %s", r.Error.Data)
				}
			}
			p.wantVersion(c.version)
			// A failed initialize leaves the connection uninitialized,
			// and the client may retry.
			p.send(echoLine("2"))
			if c.code == 0 {
				p.wantResult("2", `{"n":2}`)
				return
			}
			p.wantError("2", CodeInvalidRequest, "")
			p.initOK("3", 2)
			p.echoOK("4")
		})
	}
}

// Before initialize, on either version: a request is -32600 and the
// connection stays open; a notification is dropped (never handled, not
// even once initialize has succeeded).
func TestGateBeforeInitialize(t *testing.T) {
	for _, v := range []int{1, 2} {
		t.Run(map[int]string{1: "v1", 2: "v2"}[v], func(t *testing.T) {
			p, g := startGate(t)
			p.send(`{"jsonrpc":"2.0","method":"note","params":{}}`)
			p.send(echoLine("1"))
			p.wantError("1", CodeInvalidRequest, "initialize")
			p.initOK("2", v)
			p.send(`{"jsonrpc":"2.0","method":"note","params":{}}`)
			p.echoOK("3")
			if n := g.notes.Load(); n != 1 {
				t.Errorf("%d notes handled, want 1 (the one before initialize dropped)", n)
			}
		})
	}
}

// v1: a request sent while initialize is in flight waits for it, and is
// then served.
func TestGateV1RequestWaitsForInitialize(t *testing.T) {
	p, g := startGate(t)
	p.send(initLine("1", 1, `,"hold":true`))
	waitEntered(t, g)
	p.send(echoLine("2"))
	p.quiet(200 * time.Millisecond) // nothing answered while initialize runs
	close(g.release)
	p.wantResult("1", `{"protocolVersion":1}`)
	p.wantResult("2", `{"n":2}`)
}

// v2: a request sent while initialize is in flight is refused (-32600)
// instead of waiting, whether or not the initialize handler let the
// dispatcher go on; the initialize itself then succeeds.
func TestGateV2RequestDuringInitializeRefused(t *testing.T) {
	for _, async := range []bool{true, false} {
		t.Run(map[bool]string{true: "async handler", false: "blocking handler"}[async], func(t *testing.T) {
			p, g := startGate(t, func(o *Options) { o.ReleaseTimeout = 50 * time.Millisecond })
			extra := `,"hold":true`
			if async {
				extra += `,"async":true`
			}
			p.send(initLine("1", 2, extra))
			waitEntered(t, g)
			p.send(echoLine("2"))
			p.wantError("2", CodeInvalidRequest, "in progress")
			// A second initialize while one is in flight is refused too.
			p.initError("3", 2, CodeInvalidRequest, "in progress")
			close(g.release)
			p.wantResult("1", `{"protocolVersion":2}`)
			p.echoOK("4")
			wantInits(t, g, 1)
		})
	}
}

// v2: initialize may be repeated (asking for 2 or later) until another
// request has been served; asking for less than 2, or after another
// request, is -32600, and a failed repeat keeps the first initialization.
func TestGateV2RepeatedInitialize(t *testing.T) {
	t.Run("before other requests", func(t *testing.T) {
		p, _ := startGate(t)
		p.initOK("1", 2)
		p.initOK("2", 2)
		p.send(initLine("3", 7, ""))
		p.wantResult("3", `{"protocolVersion":2}`)
		p.echoOK("4")
		p.wantVersion(2)
	})
	t.Run("after another request", func(t *testing.T) {
		p, g := startGate(t)
		p.initOK("1", 2)
		p.echoOK("2")
		p.initError("3", 2, CodeInvalidRequest, "after other requests")
		wantInits(t, g, 1)
		p.echoOK("4")
	})
	t.Run("asking for 1", func(t *testing.T) {
		p, g := startGate(t)
		p.initOK("1", 2)
		p.initError("2", 1, CodeInvalidRequest, "protocol version 2 or later")
		p.initError("3", 0, CodeInvalidRequest, "protocol version 2 or later")
		wantInits(t, g, 1)
		p.wantVersion(2)
		// Still nothing but initialize served: a v2 repeat is still allowed.
		p.initOK("4", 2)
	})
	t.Run("malformed repeat", func(t *testing.T) {
		p, _ := startGate(t)
		p.initOK("1", 2)
		p.send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"x"}}`)
		p.wantError("2", CodeInvalidRequest, "protocol version 2 or later")
		p.wantVersion(2)
		p.echoOK("3")
	})
}

// TestGateV2FailedRepeatInHandler: a repeated initialize that the handler
// answers with an error leaves the first initialization in effect.
func TestGateV2FailedRepeatInHandler(t *testing.T) {
	m := NewMux()
	calls := 0
	On(m, "initialize", func(ctx context.Context, p *json.RawMessage) (any, error) {
		calls++
		if calls > 1 {
			return nil, NewInvalidParams("info", "required")
		}
		return map[string]int{"protocolVersion": 2}, nil
	})
	On(m, "echo", func(ctx context.Context, p *json.RawMessage) (any, error) { return p, nil })
	p := newTestPeer(t, Options{Handler: m, InitializeMethod: "initialize"})
	p.initOK("1", 2)
	p.initError("2", 2, CodeInvalidParams, "")
	p.wantVersion(2)
	p.echoOK("3")
}

// v1: initialize cannot be repeated, before or after other requests.
func TestGateV1RepeatedInitializeRefused(t *testing.T) {
	p, g := startGate(t)
	p.initOK("1", 1)
	p.initError("2", 1, CodeInvalidRequest, "already initialized")
	p.initError("3", 2, CodeInvalidRequest, "already initialized")
	wantInits(t, g, 1)
	p.wantVersion(1)
	p.echoOK("4")
}

// Request ids: v2 refuses null (and an initialize asking for 2 with a null
// id) with -32600 and "id": null; v1 serves a null id. Fractional ids are
// never ids.
func TestGateNullID(t *testing.T) {
	t.Run("v2", func(t *testing.T) {
		p, g := startGate(t)
		p.send(`{"jsonrpc":"2.0","id":null,"method":"initialize","params":{"protocolVersion":2}}`)
		p.wantError("null", CodeInvalidRequest, "")
		wantInits(t, g, 0)
		p.wantVersion(0)
		p.initOK(`"a"`, 2)
		p.send(`{"jsonrpc":"2.0","id":null,"method":"echo","params":{"n":1}}`)
		p.wantError("null", CodeInvalidRequest, "")
		p.send(`{"jsonrpc":"2.0","id":1.5,"method":"echo","params":{"n":1}}`)
		p.wantError("null", CodeInvalidRequest, "")
		p.echoOK(`"s"`)
	})
	t.Run("v1", func(t *testing.T) {
		p, _ := startGate(t)
		p.send(`{"jsonrpc":"2.0","id":null,"method":"initialize","params":{"protocolVersion":1}}`)
		p.wantResult("null", `{"protocolVersion":1}`)
		p.send(`{"jsonrpc":"2.0","id":null,"method":"echo","params":{"n":1}}`)
		p.wantResult("null", `{"n":1}`)
	})
}

// A batch is -32600 with "id": null on either version.
func TestGateBatchRefused(t *testing.T) {
	for _, v := range []int{1, 2} {
		p, _ := startGate(t)
		p.send(initLine("1", v, ""))
		p.reply("1")
		p.send(`[` + echoLine("2") + `]`)
		p.wantError("null", CodeInvalidRequest, "")
		p.echoOK("3")
	}
}
