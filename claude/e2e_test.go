package claude

// End-to-end tests: the driver against the real, pinned Claude Code CLI,
// which talks to the scripted fake Messages API of internal/test/fakeapi on
// 127.0.0.1. internal/test/clitest skips them when the CLI is not installed
// (`make deps`) and fails them under CI.

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// newSandbox returns a sandbox whose CLIs are checked for leftovers when the
// test ends (registered first, so it runs after every Close).
func newSandbox(t *testing.T) *clitest.Sandbox {
	t.Helper()
	t.Cleanup(func() { clitest.NoOrphans(t) })
	return clitest.NewSandbox(t)
}

// realOptions points opts at the sandbox's CLI, work directory and
// environment.
func realOptions(sb *clitest.Sandbox, opts Options) Options {
	opts.Executable = sb.CLI
	opts.Dir = sb.WorkDir
	if opts.Env == nil {
		opts.Env = sb.Env
	}
	if opts.StartupTimeout == 0 {
		opts.StartupTimeout = hangGuard
	}
	return opts
}

func startReal(t *testing.T, sb *clitest.Sandbox, opts Options) *Process {
	t.Helper()
	p, err := Start(context.Background(), realOptions(sb, opts))
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// turn sends text and returns the frames up to and including the result.
func turn(t *testing.T, p *Process, text string) ([]Message, *ResultMessage) {
	t.Helper()
	sendText(t, p, text)
	got := until(t, p, isType("result"))
	return got, got[len(got)-1].Body.(*ResultMessage)
}

func TestE2ETextTurnWithPartialMessages(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	sb.API.Script(fakeapi.Text("Hello from the script."))
	p := startReal(t, sb, Options{IncludePartialMessages: true})
	if v := p.InitializeResponse().ClaudeCodeVersion; v == "" {
		t.Error("initialize response has no version")
	}
	got, res := turn(t, p, "say hi")
	var deltas strings.Builder
	var sawInit, sawStart, sawStop, sawAssistant bool
	for _, m := range got {
		if m.DecodeErr != nil {
			t.Errorf("%s: %v", m.Type, m.DecodeErr)
		}
		switch b := m.Body.(type) {
		case *SystemInit:
			sawInit = b.Model != "" && b.CWD != ""
		case *StreamEvent:
			switch m.Subtype {
			case "message_start":
				sawStart = true
			case "content_block_delta":
				deltas.WriteString(b.Event.Delta.Text)
			case "message_delta":
				sawStop = b.Event.Delta.StopReason == "end_turn"
			}
		case *AssistantMessage:
			sawAssistant = b.Message.Content.Text() == "Hello from the script." && !b.IsSynthetic()
		}
	}
	if !sawInit || !sawStart || !sawStop || !sawAssistant {
		t.Errorf("init %v, message_start %v, message_delta end_turn %v, assistant %v", sawInit, sawStart, sawStop, sawAssistant)
	}
	if deltas.String() != "Hello from the script." {
		t.Errorf("deltas %q", deltas.String())
	}
	if res.IsError || res.Subtype != ResultSuccess || res.Result != "Hello from the script." || res.StopReason != "end_turn" {
		t.Errorf("result %+v", res)
	}
	until(t, p, func(m Message) bool {
		s, ok := m.Body.(*SessionStateChanged)
		return ok && s.State == StateIdle
	})
	if main := sb.API.MainRequests(); len(main) != 1 || main[0].LastUserText != "say hi" {
		t.Errorf("requests %+v", main)
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

func TestE2EToolPermission(t *testing.T) {
	t.Parallel()
	for _, allow := range []bool{true, false} {
		name := map[bool]string{true: "allow", false: "deny"}[allow]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sb := newSandbox(t)
			sb.API.Script(
				fakeapi.ToolUse("toolu_touch", "Bash", map[string]any{"command": "touch x", "description": "Create x"}),
				fakeapi.Text("done"))
			asked := make(chan CanUseToolRequest, 1)
			p := startReal(t, sb, Options{
				CanUseTool: func(ctx context.Context, req CanUseToolRequest) (PermissionResult, error) {
					asked <- req
					if allow {
						return Allow(req.Input), nil
					}
					return Deny("not now"), nil
				},
			})
			got, res := turn(t, p, "make a file")
			req := <-asked
			var in struct{ Command string }
			if err := json.Unmarshal(req.Input, &in); err != nil || req.ToolName != "Bash" || in.Command != "touch x" || req.ToolUseID != "toolu_touch" {
				t.Errorf("can_use_tool %+v", req)
			}
			_, statErr := os.Stat(filepath.Join(sb.WorkDir, "x"))
			if allow != (statErr == nil) {
				t.Errorf("allow=%v but stat: %v", allow, statErr)
			}
			var toolResult *ContentBlock
			for _, m := range got {
				if u, ok := m.Body.(*UserFrame); ok {
					for i, b := range u.Message.Content {
						if b.Type == "tool_result" && b.ToolUseID == "toolu_touch" {
							toolResult = &u.Message.Content[i]
						}
					}
				}
			}
			if toolResult == nil || toolResult.IsError == allow {
				t.Errorf("tool result %+v", toolResult)
			} else if c, _ := toolResult.ResultContent(); !allow && !strings.Contains(c.Text(), "not now") {
				t.Errorf("deny text %q", c.Text())
			}
			if res.IsError || res.Result != "done" {
				t.Errorf("result %+v", res)
			}
		})
	}
}

// TestE2EInterruptAndNextTurn interrupts a hanging stream, then runs a
// normal second turn in the same process.
func TestE2EInterruptAndNextTurn(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	sb.API.Script(fakeapi.Hang(0), fakeapi.Text("after the interrupt"))
	p := startReal(t, sb, Options{IncludePartialMessages: true})
	sendText(t, p, "think forever")
	until(t, p, func(m Message) bool { return m.Subtype == "content_block_delta" })
	if err := p.Interrupt(context.Background()); err != nil {
		t.Fatalf("Interrupt: %v", err)
	}
	got := until(t, p, isType("result"))
	res := got[len(got)-1].Body.(*ResultMessage)
	if res.Subtype != ResultErrorDuringExecution || res.TerminalReason != "aborted_streaming" || !res.IsError {
		t.Errorf("result %+v", res)
	}
	_, res = turn(t, p, "again")
	if res.IsError || res.Result != "after the interrupt" {
		t.Errorf("second result %+v", res)
	}
}

// TestE2ETwoTurnsAndResume runs two turns in one process, then resumes the
// session in a new process and checks that the history reaches the API.
func TestE2ETwoTurnsAndResume(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	sb.API.Script(fakeapi.Text("one"), fakeapi.Text("two"), fakeapi.Text("three"))
	id := uuid.NewString()
	p := startReal(t, sb, Options{SessionID: id})
	if _, res := turn(t, p, "first"); res.Result != "one" || res.SessionID != id {
		t.Errorf("first result %+v", res)
	}
	if _, res := turn(t, p, "second"); res.Result != "two" {
		t.Errorf("second result %+v", res)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	// The id is taken now.
	_, err := Start(context.Background(), realOptions(sb, Options{SessionID: id}))
	if !errors.Is(err, ErrSessionInUse) {
		t.Errorf("reusing the session id: %v", err)
	}

	p2 := startReal(t, sb, Options{Resume: id})
	if _, res := turn(t, p2, "third"); res.Result != "three" || res.SessionID != id {
		t.Errorf("resumed result %+v", res)
	}
	main := sb.API.MainRequests()
	if len(main) != 3 {
		t.Fatalf("%d main requests", len(main))
	}
	// The resumed request carries the whole conversation, in order. (User
	// texts may carry CLI reminders, hence Contains.)
	want := []struct{ role, text string }{
		{"user", "first"}, {"assistant", "one"}, {"user", "second"}, {"assistant", "two"}, {"user", "third"},
	}
	msgs := main[2].Messages
	for _, w := range want {
		for len(msgs) > 0 && !(msgs[0].Role == w.role && strings.Contains(msgs[0].Text, w.text)) {
			msgs = msgs[1:]
		}
		if len(msgs) == 0 {
			t.Fatalf("resumed request lacks %s %q in order", w.role, w.text)
		}
		msgs = msgs[1:]
	}
}

func TestE2EStartupErrors(t *testing.T) {
	t.Parallel()
	t.Run("unknown resume id", func(t *testing.T) {
		t.Parallel()
		sb := newSandbox(t)
		_, err := Start(context.Background(), realOptions(sb, Options{Resume: uuid.NewString()}))
		var ee *ExitError
		if !errors.Is(err, ErrSessionNotFound) || !errors.As(err, &ee) || !strings.Contains(err.Error(), "No conversation found") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("root bypass", func(t *testing.T) {
		t.Parallel()
		if os.Geteuid() != 0 {
			t.Skip("needs root")
		}
		sb := newSandbox(t)
		_, err := Start(context.Background(), realOptions(sb, Options{
			Env:            sb.With("IS_SANDBOX"),
			PermissionMode: PermissionBypass,
		}))
		var se *StartupError
		if !errors.Is(err, ErrRootBypass) || !errors.As(err, &se) || se.FailureReason != "bypass_root" {
			t.Errorf("err = %#v", err)
		}
	})
}

// TestE2EAPIErrors: with CLAUDE_CODE_MAX_RETRIES=0 (set by the sandbox) an
// API error becomes a synthetic assistant message and an error result; the
// process lives on.
func TestE2EAPIErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		status  int
		errType string
		class   string
	}{
		{429, "rate_limit_error", "rate_limit"},
		{529, "overloaded_error", "server_error"},
		{401, "authentication_error", "authentication_failed"},
	} {
		t.Run(tt.errType, func(t *testing.T) {
			t.Parallel()
			sb := newSandbox(t)
			sb.API.Script(fakeapi.HTTPError(tt.status, tt.errType, "").Times(-1))
			p := startReal(t, sb, Options{})
			got, res := turn(t, p, "hi")
			var synth *AssistantMessage
			for _, m := range got {
				if a, ok := m.Body.(*AssistantMessage); ok && a.IsSynthetic() {
					synth = a
				}
			}
			if synth == nil || synth.Error != tt.class || synth.APIErrorStatus == nil || *synth.APIErrorStatus != tt.status {
				t.Errorf("synthetic assistant %+v", synth)
			}
			if !res.IsError || res.APIErrorStatus == nil || *res.APIErrorStatus != tt.status || res.TerminalReason != "api_error" {
				t.Errorf("result %+v", res)
			}
			// The process survives an API error.
			if err := p.SetPermissionMode(context.Background(), PermissionDefault); err != nil {
				t.Errorf("after the error: %v", err)
			}
		})
	}
}

func TestE2ERefusal(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	sb.API.Script(fakeapi.Refusal("I can't", "cyber", "Looks like malware."))
	p := startReal(t, sb, Options{})
	got, res := turn(t, p, "do something bad")
	var noFallback *ModelRefusalNoFallback
	var synth *AssistantMessage
	for _, m := range got {
		switch b := m.Body.(type) {
		case *ModelRefusalNoFallback:
			noFallback = b
		case *AssistantMessage:
			if b.IsSynthetic() {
				synth = b
			}
		}
	}
	if noFallback == nil || noFallback.APIRefusalCategory != "cyber" {
		t.Errorf("model_refusal_no_fallback %+v", noFallback)
	}
	if synth == nil || synth.Message.StopReason != "refusal" {
		t.Errorf("synthetic assistant %+v", synth)
	}
	if !res.IsError || res.StopReason != "refusal" {
		t.Errorf("result %+v", res)
	}
}
