package claude

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
)

// fakeAnswer decodes the "response" the fake reports for its request.
func fakeAnswer(t *testing.T, m Message) map[string]any {
	t.Helper()
	var f struct {
		Response map[string]any `json:"response"`
	}
	if err := json.Unmarshal(m.Raw, &f); err != nil {
		t.Fatal(err)
	}
	return f.Response
}

func TestCanUseToolRoundTrip(t *testing.T) {
	t.Parallel()
	p := startFake(t, "can_use_tool", Options{
		CanUseTool: func(ctx context.Context, req CanUseToolRequest) (PermissionResult, error) {
			if req.ToolName != "Bash" || req.RequestID == "" || len(req.PermissionSuggestions) != 1 || !json.Valid(req.Raw) {
				return PermissionResult{}, errors.New("bad request " + string(req.Raw))
			}
			switch req.ToolUseID {
			case "toolu_allow":
				return Allow(json.RawMessage(`{"command":"touch y"}`)), nil
			case "toolu_deny":
				return PermissionResult{Behavior: "deny", Message: "no", Interrupt: true}, nil
			case "toolu_error":
				return PermissionResult{}, errors.New("host blew up")
			case "toolu_panic":
				panic("secret panic value")
			case "toolu_invalid":
				return PermissionResult{Behavior: "maybe"}, nil
			}
			return Allow(nil), nil
		},
	})
	tests := []struct{ id, want string }{
		{"allow", `{"request_id":"perm-1","response":{"behavior":"allow","toolUseID":"toolu_allow","updatedInput":{"command":"touch y"}},"subtype":"success"}`},
		{"deny", `{"request_id":"perm-2","response":{"behavior":"deny","interrupt":true,"message":"no","toolUseID":"toolu_deny"},"subtype":"success"}`},
		{"error", `{"error":"host blew up","request_id":"perm-3","subtype":"error"}`},
		{"panic", `{"error":"internal error in the host's handler","request_id":"perm-4","subtype":"error"}`},
		{"invalid", `{"error":"invalid permission behavior \"maybe\"","request_id":"perm-5","subtype":"error"}`},
		{"plain", `{"request_id":"perm-6","response":{"behavior":"allow","toolUseID":"toolu_plain"},"subtype":"success"}`},
	}
	for _, tt := range tests {
		sendText(t, p, tt.id)
		got := until(t, p, isType("result"))
		if len(got) != 2 || got[0].Type != "fake_permission" {
			t.Fatalf("%s: frames %v", tt.id, got)
		}
		b, _ := json.Marshal(fakeAnswer(t, got[0]))
		if string(b) != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.id, b, tt.want)
		}
	}
}

// TestCanUseToolSaysWhatCameBefore: a permission request names its
// process and how many frames the CLI wrote before it (FramesBefore): the
// frame the CLI writes right after the answer is the next one Messages
// gives, however many frames the consumer has taken when it is asked.
// The agent takes those frames before it handles the request, so that the
// request never overtakes the call it is about (agent/catchup.go).
func TestCanUseToolSaysWhatCameBefore(t *testing.T) {
	t.Parallel()
	type asked struct {
		from   *Process
		before uint64
	}
	reqs := make(chan asked, 4)
	p := startFake(t, "can_use_tool", Options{
		CanUseTool: func(ctx context.Context, req CanUseToolRequest) (PermissionResult, error) {
			reqs <- asked{req.From, req.FramesBefore}
			return Allow(nil), nil
		},
	})
	var taken uint64
	for _, id := range []string{"one", "two", "three"} {
		sendText(t, p, id)
		for {
			m := next(t, p)
			taken++
			if m.Type != "fake_permission" {
				continue
			}
			r := <-reqs
			if r.from != p || r.before != taken-1 {
				t.Fatalf("%s: the answer's echo is frame %d; the request said %d frames came before it (from this process: %v)", id, taken, r.before, r.from == p)
			}
			break
		}
		taken += uint64(len(until(t, p, isType("result"))))
	}
}

// TestCancelFromCLI: a control_cancel_request from the CLI ends the
// callback's context and the request is not answered.
func TestCancelFromCLI(t *testing.T) {
	t.Parallel()
	var sawCancel atomic.Bool
	p := startFake(t, "cli_cancel", Options{
		CanUseTool: func(ctx context.Context, req CanUseToolRequest) (PermissionResult, error) {
			<-ctx.Done()
			sawCancel.Store(true)
			return Allow(nil), nil
		},
	})
	sendText(t, p, "go")
	got := until(t, p, isType("result"))
	r := got[len(got)-1].Body.(*ResultMessage)
	if r.Result != "answered=false" {
		t.Errorf("fake says %s", r.Result)
	}
	if !sawCancel.Load() {
		t.Error("callback context not cancelled")
	}
}

func TestRequestsFromCLI(t *testing.T) {
	t.Parallel()
	t.Run("no handlers", func(t *testing.T) {
		t.Parallel()
		p := startFake(t, "cli_request", Options{})
		for _, sub := range []string{"weird_thing", "can_use_tool", "hook_callback", "mcp_message"} {
			sendText(t, p, sub)
			a := fakeAnswer(t, until(t, p, isType("fake_answer"))[0])
			if a["subtype"] != "error" || a["error"] != "Unsupported control request subtype: "+sub {
				t.Errorf("%s: %v", sub, a)
			}
			until(t, p, isType("result"))
		}
	})
	t.Run("handlers", func(t *testing.T) {
		t.Parallel()
		p := startFake(t, "cli_request", Options{
			HookCallback: func(ctx context.Context, req HookCallbackRequest) (any, error) {
				if req.CallbackID != "hook_0" || req.Hook.HookEventName != "PostToolUse" || req.Hook.ToolName != "Bash" {
					return nil, errors.New("bad hook request")
				}
				return map[string]any{"continue": true}, nil
			},
			MCPMessage: func(ctx context.Context, req MCPMessageRequest) (json.RawMessage, error) {
				if req.ServerName != "srv" {
					return nil, errors.New("bad server")
				}
				return json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`), nil
			},
			OnControlRequest: func(ctx context.Context, req ControlRequest) (any, error) {
				if req.Subtype == "elicitation" {
					return map[string]string{"action": "decline"}, nil
				}
				return nil, nil
			},
		})
		for _, tt := range []struct{ sub, want string }{
			{"hook_callback", `{"continue":true}`},
			{"mcp_message", `{"mcp_response":{"id":1,"jsonrpc":"2.0","result":{"tools":[]}}}`},
			{"elicitation", `{"action":"decline"}`},
			{"other", `{}`},
		} {
			sendText(t, p, tt.sub)
			a := fakeAnswer(t, until(t, p, isType("fake_answer"))[0])
			b, _ := json.Marshal(a["response"])
			if a["subtype"] != "success" || string(b) != tt.want {
				t.Errorf("%s: %v", tt.sub, a)
			}
			until(t, p, isType("result"))
		}
	})
}

// TestInterruptWhileConsumerIsBehind: the consumer does not read Messages
// while the CLI floods them, then calls Interrupt from the same goroutine.
// The response is behind thousands of frames; the reader must reach it
// (no deadlock) and still deliver every frame, in order.
func TestInterruptWhileConsumerIsBehind(t *testing.T) {
	t.Parallel()
	p := startFake(t, "flood", Options{})
	sendText(t, p, "go")
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	if err := p.Interrupt(ctx); err != nil {
		t.Fatalf("Interrupt: %v", err)
	}
	got := until(t, p, isType("result"))
	if len(got) != 5001 {
		t.Fatalf("got %d frames, want 5001", len(got))
	}
	for i, m := range got[:5000] {
		if ev := m.Body.(*StreamEvent); ev.Event.Index != i {
			t.Fatalf("frame %d has index %d", i, ev.Event.Index)
		}
	}
}

func TestControlRequests(t *testing.T) {
	t.Parallel()
	p := startFake(t, "echo", Options{})
	ctx := context.Background()
	if err := p.SetPermissionMode(ctx, PermissionAcceptEdits); err != nil {
		t.Errorf("SetPermissionMode: %v", err)
	}
	if err := p.SetModel(ctx, "good-model"); err != nil {
		t.Errorf("SetModel: %v", err)
	}
	err := p.SetModel(ctx, "bad-model")
	var ce *ControlError
	if !errors.As(err, &ce) || ce.Subtype != "set_model" || ce.Message != "Model bad-model is not available" || errors.Is(err, ErrUnsupported) {
		t.Errorf("SetModel(bad) = %#v", err)
	}
	_, err = p.Request(ctx, "no_such_subtype", map[string]int{"x": 1})
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "no_such_subtype") {
		t.Errorf("unknown subtype: %v", err)
	}
	st, err := p.MCPStatus(ctx)
	if err != nil || len(st.MCPServers) != 1 || st.MCPServers[0].Status != "connected" {
		t.Errorf("MCPStatus = %+v, %v", st, err)
	}
	if err := p.SetMaxThinkingTokens(ctx, -1); err != nil {
		t.Errorf("SetMaxThinkingTokens: %v", err)
	}
	echo := until(t, p, isType("fake_echo"))[0]
	if !strings.Contains(string(echo.Raw), `"max_thinking_tokens":null`) {
		t.Errorf("echo %s", echo.Raw)
	}
	if _, err := p.Request(ctx, "x", "not an object"); err == nil {
		t.Error("non-object payload accepted")
	}
}

// TestRequestContextCancel: when the caller gives up on a request, the CLI
// gets a control_cancel_request for it.
func TestRequestContextCancel(t *testing.T) {
	t.Parallel()
	p := startFake(t, "echo", Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := p.Request(ctx, "never_answer", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Request = %v", err)
	}
	m := until(t, p, isType("fake_cancel_seen"))[0]
	if !strings.Contains(string(m.Raw), p.idPrefix+"-") {
		t.Errorf("cancel for %s", m.Raw)
	}
	// The process is still fine.
	if err := p.Interrupt(context.Background()); err != nil {
		t.Errorf("Interrupt after cancel: %v", err)
	}
}

// TestNoDescendantOutlivesTheCLI: a process the CLI started in its group is
// killed when the CLI exits.
func TestNoDescendantOutlivesTheCLI(t *testing.T) {
	t.Parallel()
	p := startFake(t, "grandchild", Options{})
	pid := fakeChildPID(t, until(t, p, isType("fake_child"))[0])
	if !alive(pid) {
		t.Fatal("grandchild not running")
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
}

// TestDescendantHoldingStdout: a descendant that left the process group
// and keeps stdout open must not keep the driver from finishing.
func TestDescendantHoldingStdout(t *testing.T) {
	t.Parallel()
	p := startFake(t, "escaped", Options{})
	pid := fakeChildPID(t, until(t, p, isType("fake_child"))[0])
	defer clitest.KillPID(pid)
	sendText(t, p, "exit now")
	drain(t, p)
	if err := p.Wait(); err != nil {
		t.Errorf("Wait = %v", err)
	}
}

func fakeChildPID(t *testing.T, m Message) int {
	var f struct {
		PID int `json:"pid"`
	}
	if err := json.Unmarshal(m.Raw, &f); err != nil || f.PID == 0 {
		t.Fatalf("fake_child %s: %v", m.Raw, err)
	}
	return f.PID
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for alive(pid) {
		if time.Now().After(deadline) {
			clitest.KillPID(pid)
			t.Fatalf("process %d outlived the CLI", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
