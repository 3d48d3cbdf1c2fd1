package sdkmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The messages below are the ones a real CLI (2.1.332) sends an SDK
// server (claude-cli-protocol.md, 6.3).
const (
	initialize  = `{"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-code","version":"2.1.332"}},"jsonrpc":"2.0","id":0}`
	initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	toolsList   = `{"method":"tools/list","jsonrpc":"2.0","id":1}`
)

func call(id int, tool, args string) string {
	return `{"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `,"_meta":{"claudecode/toolUseId":"toolu_1"}},"jsonrpc":"2.0","id":` + itoa(id) + `}`
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

type echoIn struct {
	Text string `json:"text"`
}

// newServer has an echo tool and a tool that waits until its call is
// cancelled, reporting that on cancelled (and its start on started, if
// given).
func newServer(cancelled chan<- error, started ...chan<- struct{}) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(ctx context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + in.Text}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "wait"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		for _, c := range started {
			c <- struct{}{}
		}
		<-ctx.Done()
		cancelled <- ctx.Err()
		return nil, nil, ctx.Err()
	})
	return srv
}

func handle(t *testing.T, b *Bridge, msg string) map[string]any {
	t.Helper()
	out, err := b.Handle(context.Background(), json.RawMessage(msg))
	if err != nil {
		t.Fatalf("Handle(%s): %v", msg, err)
	}
	if out == nil {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("answer %s: %v", out, err)
	}
	return m
}

func handshake(t *testing.T, b *Bridge) {
	t.Helper()
	if r := handle(t, b, initialize); r["result"] == nil {
		t.Fatalf("initialize: %v", r)
	}
	if r := handle(t, b, initialized); r != nil {
		t.Fatalf("a notification has no answer, got %v", r)
	}
}

func TestBridgeHandshakeAndCall(t *testing.T) {
	b := New(newServer(make(chan error, 1)))
	defer b.Close()
	handshake(t, b)
	r := handle(t, b, toolsList)
	tools, _ := r["result"].(map[string]any)["tools"].([]any)
	if len(tools) != 2 {
		t.Fatalf("tools/list: %v", r)
	}
	r = handle(t, b, call(2, "echo", `{"text":"ping"}`))
	if id, _ := r["id"].(float64); id != 2 {
		t.Errorf("answer id %v", r["id"])
	}
	content, _ := r["result"].(map[string]any)["content"].([]any)
	if len(content) != 1 || content[0].(map[string]any)["text"] != "echo: ping" {
		t.Errorf("tools/call: %v", r)
	}
}

// Calls run concurrently: a call that waits does not hold up the next.
func TestBridgeConcurrentCalls(t *testing.T) {
	cancelled, started := make(chan error, 1), make(chan struct{}, 1)
	b := New(newServer(cancelled, started))
	defer b.Close()
	handshake(t, b)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	var waitErr error
	go func() {
		defer wg.Done()
		_, waitErr = b.Handle(ctx, json.RawMessage(call(7, "wait", `{}`)))
	}()
	for i := range 10 {
		r := handle(t, b, call(100+i, "echo", `{"text":"x"}`))
		if r["error"] != nil {
			t.Fatalf("echo while another call waits: %v", r)
		}
	}
	<-started // withdrawn while it runs
	cancel()
	wg.Wait()
	if !errors.Is(waitErr, context.Canceled) {
		t.Errorf("a withdrawn call returns %v", waitErr)
	}
	// The server heard of it: its handler's context ended.
	if err := <-cancelled; !errors.Is(err, context.Canceled) {
		t.Errorf("the tool's context: %v", err)
	}
}

// A second initialize (the CLI reconnecting the server) starts a fresh
// session, and the old one's waiting calls end.
func TestBridgeReconnect(t *testing.T) {
	started := make(chan struct{}, 1)
	b := New(newServer(make(chan error, 1), started))
	defer b.Close()
	handshake(t, b)
	errc := make(chan error, 1)
	go func() {
		out, err := b.Handle(context.Background(), json.RawMessage(call(3, "wait", `{}`)))
		var r struct {
			Error  any
			Result struct{ IsError bool }
		}
		if err == nil && json.Unmarshal(out, &r) == nil && (r.Error != nil || r.Result.IsError) {
			// The cancelled call's own error answer, which may come
			// before the end of the session.
			err = fmt.Errorf("answered %s", out)
		}
		errc <- err
	}()
	<-started // the call runs in the first session
	handshake(t, b)
	r := handle(t, b, call(3, "echo", `{"text":"again"}`))
	if content, _ := r["result"].(map[string]any)["content"].([]any); len(content) != 1 {
		t.Fatalf("call after reconnect: %v", r)
	}
	if err := <-errc; err == nil {
		t.Error("a call of the old session must end with it")
	}
}

func TestBridgeErrors(t *testing.T) {
	b := New(newServer(make(chan error, 1)))
	handshake(t, b)
	if _, err := b.Handle(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":`)); err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Errorf("malformed message: %v", err)
	}
	r := handle(t, b, call(4, "nope", `{}`))
	if r["error"] == nil && r["result"].(map[string]any)["isError"] != true {
		t.Errorf("unknown tool: %v", r)
	}
	b.Close()
	if _, err := b.Handle(context.Background(), json.RawMessage(toolsList)); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}
