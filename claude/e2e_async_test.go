package claude

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// TestE2EStartAsyncPromptFirst: a user message written right after
// StartAsync returns, before the CLI has answered initialize, is answered
// as under Start, and what initialize carried (the appended system prompt,
// the hooks, the permission callback) already applies to that first turn.
func TestE2EStartAsyncPromptFirst(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	sb.API.Script(
		fakeapi.ToolUse("toolu_first", "Bash", map[string]any{"command": "touch first", "description": "Create first"}),
		fakeapi.Text("done first"))
	const marker = "ASYNC-INIT-MARKER-5b1f"
	var hooked, asked atomic.Int32
	p, err := StartAsync(context.Background(), realOptions(sb, Options{
		IncludePartialMessages: true,
		AppendSystemPrompt:     marker,
		Hooks:                  map[string][]HookMatcher{"PreToolUse": {{Matcher: "Bash", HookCallbackIDs: []string{"hook_pre"}}}},
		HookCallback: func(ctx context.Context, req HookCallbackRequest) (any, error) {
			if req.CallbackID == "hook_pre" {
				hooked.Add(1)
			}
			return map[string]any{}, nil
		},
		CanUseTool: func(ctx context.Context, req CanUseToolRequest) (PermissionResult, error) {
			asked.Add(1)
			return Allow(req.Input), nil
		},
	}))
	if err != nil {
		t.Fatalf("StartAsync: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	sendText(t, p, "run it")
	select {
	case <-p.Initialized():
		t.Fatal("the CLI answered initialize before the prompt was written; the test proves nothing")
	default:
	}
	got := until(t, p, isType("result"))
	res := got[len(got)-1].Body.(*ResultMessage)
	if res.IsError || res.Result != "done first" {
		t.Errorf("result %+v", res)
	}
	resp, err := p.WaitInitialized(context.Background())
	if err != nil || resp == nil || resp.ClaudeCodeVersion == "" {
		t.Errorf("WaitInitialized = %+v, %v", resp, err)
	}
	if hooked.Load() == 0 {
		t.Error("the PreToolUse hook from initialize did not run on the first turn")
	}
	if asked.Load() == 0 {
		t.Error("can_use_tool was not asked on the first turn")
	}
	main := sb.API.MainRequests()
	if len(main) == 0 || !strings.Contains(main[0].System, marker) {
		t.Error("the first request's system prompt lacks appendSystemPrompt from initialize")
	}
	if len(main) == 0 || !strings.Contains(main[0].LastUserText, "run it") {
		t.Errorf("first request %+v", main)
	}
}

// TestE2EStartAsyncStartupError: a start that fails after StartAsync has
// returned (here --resume of an unknown session) is still reported as the
// *StartupError Start would return, by WaitInitialized and Err; a prompt
// written meanwhile does not fail the caller, and no frame of the failed
// start is delivered.
func TestE2EStartAsyncStartupError(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	p, err := StartAsync(context.Background(), realOptions(sb, Options{Resume: uuid.NewString()}))
	if err != nil {
		t.Fatalf("StartAsync: %v", err)
	}
	defer p.Close()
	_ = p.Send(context.Background(), Text("hello")) // may or may not reach the CLI before it exits
	_, err = p.WaitInitialized(context.Background())
	var se *StartupError
	var ee *ExitError
	if !errors.As(err, &se) || !errors.Is(err, ErrSessionNotFound) || !errors.As(err, &ee) || !strings.Contains(err.Error(), "No conversation found") {
		t.Fatalf("WaitInitialized err = %v", err)
	}
	if got := p.Err(); got != err {
		t.Errorf("Err = %v, want the startup error", got)
	}
	if p.InitErr() != err {
		t.Errorf("InitErr = %v", p.InitErr())
	}
	timeout := time.After(hangGuard)
	for {
		select {
		case m, ok := <-p.Messages():
			if !ok {
				if err := p.Send(context.Background(), Text("again")); !errors.Is(err, ErrExited) || !errors.Is(err, ErrSessionNotFound) {
					t.Errorf("Send after the failed start: %v", err)
				}
				return
			}
			t.Errorf("frame of a failed start delivered: %s", m.Raw)
		case <-timeout:
			t.Fatal("Messages not closed")
		}
	}
}
