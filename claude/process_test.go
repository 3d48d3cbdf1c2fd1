package claude

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// hangGuard only keeps a broken test from hanging forever; tests never
// assert how long something took.
const hangGuard = 60 * time.Second

func fakeOptions(scenario string) Options {
	return Options{
		Executable: os.Args[0],
		// GORACE: a race-enabled fake would otherwise sleep 1 s at exit.
		Env:            append(os.Environ(), "CLAUDE_FAKE_SCENARIO="+scenario, "GORACE=atexit_sleep_ms=0"),
		StartupTimeout: hangGuard,
		// Short shutdown timings keep the tests of the escalation fast;
		// the order of the steps is what the tests check.
		CloseGrace: 300 * time.Millisecond,
		TermGrace:  500 * time.Millisecond,
	}
}

func startFake(t *testing.T, scenario string, opts Options) *Process {
	t.Helper()
	base := fakeOptions(scenario)
	if opts.Executable == "" {
		opts.Executable = base.Executable
	}
	opts.Env = append(base.Env, opts.Env...)
	if opts.StartupTimeout == 0 {
		opts.StartupTimeout = base.StartupTimeout
	}
	p, err := Start(context.Background(), opts)
	for try := 1; try < 3 && wineFlake(err); try++ {
		t.Logf("Start(%s): %v; again (Wine)", scenario, err)
		p, err = Start(context.Background(), opts)
	}
	if err != nil {
		t.Fatalf("Start(%s): %v", scenario, err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// next returns the next message, failing the test if the channel closes.
func next(t *testing.T, p *Process) Message {
	t.Helper()
	select {
	case m, ok := <-p.Messages():
		if !ok {
			t.Fatalf("Messages closed early; Err = %v", p.Err())
		}
		return m
	case <-time.After(hangGuard):
		t.Fatal("no message")
	}
	return Message{}
}

// until collects messages up to and including the first that matches.
func until(t *testing.T, p *Process, match func(Message) bool) []Message {
	t.Helper()
	var got []Message
	for {
		m := next(t, p)
		got = append(got, m)
		if match(m) {
			return got
		}
	}
}

func isType(typ string) func(Message) bool {
	return func(m Message) bool { return m.Type == typ }
}

// drain reads Messages until it is closed.
func drain(t *testing.T, p *Process) []Message {
	t.Helper()
	var got []Message
	timeout := time.After(hangGuard)
	for {
		select {
		case m, ok := <-p.Messages():
			if !ok {
				return got
			}
			got = append(got, m)
		case <-timeout:
			t.Fatal("Messages not closed")
		}
	}
}

func sendText(t *testing.T, p *Process, text string) {
	t.Helper()
	if err := p.Send(context.Background(), Text(text)); err != nil {
		t.Fatalf("Send: %v", err)
	}
}

func TestEchoTurnAndInitialize(t *testing.T) {
	t.Parallel()
	p := startFake(t, "echo", Options{
		SystemPrompt:       []string{""},
		AppendSystemPrompt: "be brief",
		Hooks:              map[string][]HookMatcher{"PreToolUse": {{Matcher: "Bash", HookCallbackIDs: []string{"hook_0"}}}},
		SDKMCPServers:      []string{"mysrv"},
		Agents:             map[string]json.RawMessage{"helper": json.RawMessage(`{"description":"d","prompt":"p"}`)},
		InitializeExtra:    map[string]any{"title": "t", "systemPrompt": "overridden"},
	})
	init := p.InitializeResponse()
	if init.ClaudeCodeVersion != "9.9.9-fake" || len(init.Models) != 1 || init.Account.APIKeySource != "none" {
		t.Errorf("initialize response %+v", init)
	}
	var echo struct {
		Echo map[string]any `json:"echo"`
	}
	if err := json.Unmarshal(init.Raw, &echo); err != nil {
		t.Fatal(err)
	}
	want := `{"agents":{"helper":{"description":"d","prompt":"p"}},"appendSystemPrompt":"be brief","hooks":{"PreToolUse":[{"hookCallbackIds":["hook_0"],"matcher":"Bash"}]},"sdkMcpServers":["mysrv"],"subtype":"initialize","systemPrompt":[""],"title":"t"}`
	if got, _ := json.Marshal(echo.Echo); string(got) != want {
		t.Errorf("initialize request\n got %s\nwant %s", got, want)
	}

	for _, text := range []string{"hello", "again"} {
		sendText(t, p, text)
		got := until(t, p, isType("result"))
		if len(got) != 3 || got[0].Subtype != "init" || got[1].Type != "assistant" {
			t.Fatalf("turn frames %v", got)
		}
		a := got[1].Body.(*AssistantMessage)
		if a.Message.Content.Text() != "echo: "+text {
			t.Errorf("assistant %q", a.Message.Content.Text())
		}
		r := got[2].Body.(*ResultMessage)
		if r.Result != "echo: "+text || r.IsError {
			t.Errorf("result %+v", r)
		}
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, ok := <-p.Messages(); ok {
		t.Error("Messages open after Close")
	}
	if !errors.Is(p.Err(), ErrClosed) {
		t.Errorf("Err = %v, want ErrClosed", p.Err())
	}
	if err := p.Send(context.Background(), Text("late")); !errors.Is(err, ErrClosed) {
		t.Errorf("Send after Close = %v", err)
	}
	if err := p.Interrupt(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Interrupt after Close = %v", err)
	}
}

func TestArgsAndEnvReachTheCLI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := startFake(t, "args", Options{
		Dir:                    dir,
		Env:                    []string{"NODE_OPTIONS=--inspect", "DEBUG=1", "KEEP_ME=yes"},
		Model:                  "m1",
		FallbackModel:          "m2",
		IncludePartialMessages: true,
		SessionID:              "sid",
		SettingSources:         []string{},
		MCPServers:             map[string]any{"ext": map[string]any{"type": "stdio", "command": "true"}},
		CanUseTool: func(context.Context, CanUseToolRequest) (PermissionResult, error) {
			return Allow(nil), nil
		},
		EnableFileCheckpointing: true,
	})
	m := until(t, p, isType("fake_args"))[0]
	var got struct {
		Args      []string          `json:"args"`
		Env       map[string]string `json:"env"`
		CWD       string            `json:"cwd"`
		MCPConfig string            `json:"mcpConfig"`
		MCPMode   string            `json:"mcpMode"`
	}
	if err := json.Unmarshal(m.Raw, &got); err != nil {
		t.Fatal(err)
	}
	// The MCP servers come in a file only the user can read, gone once
	// the CLI has answered initialize.
	var mcpPath string
	if i := slices.Index(got.Args, "--mcp-config"); i >= 0 && i+1 < len(got.Args) {
		mcpPath = got.Args[i+1]
		got.Args[i+1] = "PATH"
	}
	if got.MCPConfig != `{"mcpServers":{"ext":{"command":"true","type":"stdio"}}}` || got.MCPMode != "-rw-------" {
		t.Errorf("MCP configuration file: %q, mode %s", got.MCPConfig, got.MCPMode)
	}
	if _, err := os.Stat(mcpPath); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("MCP configuration file %q still there after initialize: %v", mcpPath, err)
	}
	want := "--output-format stream-json --verbose --input-format stream-json --model=m1 --permission-prompt-tool=stdio " +
		`--mcp-config PATH --setting-sources= --fallback-model=m2 ` +
		"--include-partial-messages --session-id=sid"
	if s := strings.Join(got.Args, " "); s != want {
		t.Errorf("args\n got %s\nwant %s", s, want)
	}
	wantEnv := map[string]string{"CLAUDE_CODE_ENTRYPOINT": "sdk-ts", "CLAUDE_CODE_SDK_READS_SESSION_STATE": "1",
		"KEEP_ME": "yes", "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING": "true"}
	if len(got.Env) != len(wantEnv) {
		t.Errorf("env %v, want %v", got.Env, wantEnv)
	}
	for k, v := range wantEnv {
		if got.Env[k] != v {
			t.Errorf("env %s=%q, want %q", k, got.Env[k], v)
		}
	}
	if got.CWD != dir {
		t.Errorf("cwd %q, want %q", got.CWD, dir)
	}
}

func TestGarbageLinesAreSkippedAndUnknownKindsPassRaw(t *testing.T) {
	t.Parallel()
	p := startFake(t, "garbage", Options{})
	sendText(t, p, "go")
	got := until(t, p, isType("result"))
	if len(got) != 3 {
		t.Fatalf("got %d frames: %v", len(got), got)
	}
	if got[0].Type != "brand_new_kind" || string(got[0].Raw) != `{"payload":{"a":[1,"}"]},"type":"brand_new_kind"}` || got[0].Body != nil {
		t.Errorf("unknown kind: %+v", got[0])
	}
	if got[1].Type != "system" || got[1].Subtype != "brand_new_subtype" || got[1].Body != nil {
		t.Errorf("unknown subtype: %+v", got[1])
	}
}

func TestCrashMidTurn(t *testing.T) {
	t.Parallel()
	p := startFake(t, "crash", Options{})
	sendText(t, p, "go")
	got := drain(t, p)
	if len(got) != 1 || got[0].Subtype != "message_start" {
		t.Errorf("frames before the crash: %v", got)
	}
	var ee *ExitError
	if !errors.As(p.Err(), &ee) || ee.ExitCode != 3 || !strings.Contains(ee.Stderr, "something broke") {
		t.Fatalf("Err = %#v", p.Err())
	}
	if !strings.Contains(ee.Error(), "exited with code 3") {
		t.Errorf("message %q", ee.Error())
	}
	if err := p.Send(context.Background(), Text("again")); !errors.Is(err, ErrExited) || !errors.As(err, &ee) {
		t.Errorf("Send after crash = %v", err)
	}
	if _, err := p.Request(context.Background(), "interrupt", nil); !errors.Is(err, ErrExited) {
		t.Errorf("Request after crash = %v", err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close after crash = %v", err)
	}
	if !errors.As(p.Err(), &ee) {
		t.Errorf("Close changed Err to %v", p.Err())
	}
}

func TestStartupFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		scenario string
		opts     Options
		reason   error
		exitCode int // 0: no ExitError expected
		text     string
	}{
		{"hang", Options{StartupTimeout: 200 * time.Millisecond}, ErrStartupTimeout, 0, "did not answer initialize"},
		{"session_in_use", Options{}, ErrSessionInUse, 1, "is already in use"},
		{"resume_missing", Options{}, ErrSessionNotFound, 1, "No conversation found with session ID: 7e5"},
		{"root_bypass", Options{}, ErrRootBypass, 1, "cannot be used with root"},
		{"init_error", Options{}, nil, 0, "bad initialize"},
		{"exit0_early", Options{}, nil, 0, "exited before answering initialize"},
		{"echo", Options{Executable: "/nonexistent/claude"}, nil, 0, "cannot run"},
		{"echo", Options{Model: "same", FallbackModel: "same"}, nil, 0, "must differ"},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			t.Parallel()
			opts := fakeOptions(tt.scenario)
			if tt.opts.StartupTimeout != 0 {
				opts.StartupTimeout = tt.opts.StartupTimeout
			}
			if tt.opts.Executable != "" {
				opts.Executable = tt.opts.Executable
			}
			opts.Model, opts.FallbackModel = tt.opts.Model, tt.opts.FallbackModel
			p, err := Start(context.Background(), opts)
			if err == nil {
				p.Close()
				t.Fatal("Start succeeded")
			}
			if tt.reason != nil && !errors.Is(err, tt.reason) {
				t.Errorf("err = %v, want %v", err, tt.reason)
			}
			var ee *ExitError
			if tt.exitCode != 0 && (!errors.As(err, &ee) || ee.ExitCode != tt.exitCode) {
				t.Errorf("err = %#v, want exit code %d", err, tt.exitCode)
			}
			if !strings.Contains(err.Error(), tt.text) {
				t.Errorf("err = %q, want it to mention %q", err, tt.text)
			}
		})
	}
	if tt := tests[2]; true {
		_, err := Start(context.Background(), fakeOptions(tt.scenario))
		var se *StartupError
		if !errors.As(err, &se) || len(se.Errors) != 1 {
			t.Errorf("resume_missing: %#v", err)
		}
	}
}

func TestStartContextCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := Start(ctx, fakeOptions("hang"))
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrStartupTimeout) {
		t.Errorf("err = %v", err)
	}
}

func TestStderrFloodKeepsOnlyTheTail(t *testing.T) {
	t.Parallel()
	p := startFake(t, "stderr_flood", Options{})
	sendText(t, p, "go")
	drain(t, p)
	var ee *ExitError
	if !errors.As(p.Err(), &ee) || ee.ExitCode != 2 {
		t.Fatalf("Err = %v", p.Err())
	}
	if len(ee.Stderr) > stderrTailSize || !strings.HasSuffix(ee.Stderr, "FLOOD-END") || !strings.HasPrefix(ee.Stderr, "flood") {
		t.Errorf("stderr tail (%d bytes) %q", len(ee.Stderr), ee.Stderr)
	}
}

func TestTwentyMegabyteLine(t *testing.T) {
	t.Parallel()
	p := startFake(t, "big_line", Options{})
	sendText(t, p, "go")
	got := until(t, p, isType("result"))
	a := got[0].Body.(*AssistantMessage)
	if n := len(a.Message.Content.Text()); n != 20<<20 {
		t.Errorf("text length %d", n)
	}
}

func TestConcurrentSendsWriteWholeLines(t *testing.T) {
	t.Parallel()
	p := startFake(t, "echo", Options{})
	const n = 20
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			big := strings.Repeat("z", 80<<10) // larger than a pipe buffer
			if err := p.Send(context.Background(), Text(big)); err != nil {
				t.Error(err)
			}
			if _, err := p.Request(context.Background(), "set_permission_mode", map[string]string{"mode": "plan"}); err != nil {
				t.Error(err)
			}
		}()
	}
	results := 0
	for results < n {
		if next(t, p).Type == "result" {
			results++
		}
	}
	wg.Wait()
}

func TestCloseEscalation(t *testing.T) {
	t.Parallel()
	t.Run("SIGTERM", func(t *testing.T) {
		t.Parallel()
		p := startFake(t, "ignore_eof", Options{})
		if err := p.Close(); err != nil {
			t.Errorf("Close = %v", err)
		}
		if !errors.Is(p.Err(), ErrClosed) {
			t.Errorf("Err = %v", p.Err())
		}
	})
	t.Run("SIGKILL", func(t *testing.T) {
		t.Parallel()
		p := startFake(t, "ignore_term", Options{})
		if err := p.Close(); !errors.Is(err, errKilled) {
			t.Errorf("Close = %v", err)
		}
		if err := p.Close(); !errors.Is(err, errKilled) {
			t.Errorf("second Close = %v", err)
		}
	})
	t.Run("Kill", func(t *testing.T) {
		t.Parallel()
		p := startFake(t, "ignore_term", Options{})
		if err := p.Kill(); err != nil {
			t.Errorf("Kill = %v", err)
		}
		<-p.Done()
		if err := p.Wait(); !errors.Is(err, ErrClosed) {
			t.Errorf("Wait = %v", err)
		}
	})
}

// TestAbortInterruptsThenTerminates: Abort stops a CLI in the middle of a
// turn without letting the turn finish (as Close would): the CLI gets an
// interrupt first (so it records the interruption), then SIGTERM, and a
// CLI that ignores SIGTERM is killed.
func TestAbortInterruptsThenTerminates(t *testing.T) {
	t.Parallel()
	for _, scenario := range []string{"interruptible", "ignore_term"} {
		t.Run(scenario, func(t *testing.T) {
			t.Parallel()
			mark := filepath.Join(t.TempDir(), "mark")
			p := startFake(t, scenario, Options{Env: []string{"CLAUDE_FAKE_MARK=" + mark}})
			sendText(t, p, "work for a long time")
			if scenario == "interruptible" {
				until(t, p, isType("system"))
			}
			if err := p.Abort(); err != nil {
				t.Errorf("Abort = %v", err)
			}
			<-p.Done()
			if !errors.Is(p.Err(), ErrClosed) {
				t.Errorf("Err = %v", p.Err())
			}
			if got, _ := os.ReadFile(mark); scenario == "interruptible" && string(got) != "interrupted" {
				t.Errorf("the CLI was not interrupted before it was stopped (mark %q)", got)
			}
			if err := p.Abort(); err != nil {
				t.Errorf("second Abort = %v", err)
			}
		})
	}
}

// TestUnreadMessagesDoNotBlockClose: a consumer that stopped reading must
// not keep Close (or the CLI) from finishing.
func TestUnreadMessagesDoNotBlockClose(t *testing.T) {
	t.Parallel()
	p := startFake(t, "flood", Options{})
	sendText(t, p, "go")
	if err := p.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
}

func TestTailBuffer(t *testing.T) {
	tb := newTailBuffer(16)
	tb.Write([]byte("short\n"))
	if tb.String() != "short" {
		t.Errorf("%q", tb.String())
	}
	tb.Write([]byte("0123456789\nabcdefghij\n"))
	if s := tb.String(); s != "abcdefghij" {
		t.Errorf("%q", s)
	}
	tb.Write([]byte(strings.Repeat("q", 100) + "\nend"))
	if s := tb.String(); s != "end" {
		t.Errorf("%q", s)
	}
	for i := 0; i < 1000; i++ {
		tb.Write([]byte("ab"))
	}
	if len(tb.buf) > 32 || len(tb.String()) > 16 {
		t.Errorf("grew to %d", len(tb.buf))
	}
}

// TestStartAsyncFailures: every startup failure of Start is reported the
// same by StartAsync, through WaitInitialized and Err, and no frame of a
// failed start (resume_missing writes an error result) is delivered.
func TestStartAsyncFailures(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		scenario string
		timeout  time.Duration
		reason   error
		text     string
	}{
		{"hang", 200 * time.Millisecond, ErrStartupTimeout, "did not answer initialize"},
		{"session_in_use", 0, ErrSessionInUse, "is already in use"},
		{"resume_missing", 0, ErrSessionNotFound, "No conversation found with session ID: 7e5"},
		{"init_error", 0, nil, "bad initialize"},
		{"exit0_early", 0, nil, "exited before answering initialize"},
	} {
		t.Run(tt.scenario, func(t *testing.T) {
			t.Parallel()
			opts := fakeOptions(tt.scenario)
			if tt.timeout != 0 {
				opts.StartupTimeout = tt.timeout
			}
			p, err := StartAsync(context.Background(), opts)
			if err != nil {
				t.Fatalf("StartAsync: %v", err)
			}
			defer p.Close()
			_ = p.Send(context.Background(), Text("hello")) // the prompt goes out at once
			_, err = p.WaitInitialized(context.Background())
			var se *StartupError
			if !errors.As(err, &se) || tt.reason != nil && !errors.Is(err, tt.reason) || !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("WaitInitialized err = %v", err)
			}
			if p.Err() != err || p.InitErr() != err {
				t.Errorf("Err = %v, InitErr = %v", p.Err(), p.InitErr())
			}
			if got := drain(t, p); len(got) != 0 {
				t.Errorf("%d frames of a failed start delivered, first %s", len(got), got[0].Raw)
			}
			if err := p.Send(context.Background(), Text("again")); !errors.Is(err, ErrExited) || !errors.As(err, &se) {
				t.Errorf("Send after the failed start: %v", err)
			}
		})
	}
	t.Run("before the CLI runs", func(t *testing.T) {
		opts := fakeOptions("echo")
		opts.Executable = "/nonexistent/claude"
		if p, err := StartAsync(context.Background(), opts); p != nil || !strings.Contains(fmt.Sprint(err), "cannot run") {
			t.Errorf("StartAsync = %v, %v", p, err)
		}
	})
	t.Run("context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		p, err := StartAsync(ctx, fakeOptions("hang"))
		if err != nil {
			t.Fatal(err)
		}
		cancel()
		if _, err := p.WaitInitialized(context.Background()); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v", err)
		}
		p.Close()
	})
}

// TestStartAsyncTurn: a prompt sent right after StartAsync is answered,
// and Close during a pending handshake returns once it has ended.
func TestStartAsyncTurn(t *testing.T) {
	t.Parallel()
	p, err := StartAsync(context.Background(), fakeOptions("echo"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	sendText(t, p, "ping")
	got := until(t, p, isType("result"))
	if r := got[len(got)-1].Body.(*ResultMessage); r.IsError {
		t.Errorf("result %+v", r)
	}
	select {
	case <-p.Initialized():
	default:
		t.Error("a frame was delivered before the handshake ended")
	}
	if resp, err := p.WaitInitialized(context.Background()); err != nil || resp == nil {
		t.Errorf("WaitInitialized = %v, %v", resp, err)
	}

	q, err := StartAsync(context.Background(), fakeOptions("hang"))
	if err != nil {
		t.Fatal(err)
	}
	q.Close()
	select {
	case <-q.Initialized():
	default:
		t.Error("Close returned before the handshake ended")
	}
	if !errors.Is(q.Err(), ErrClosed) {
		t.Errorf("Err after Close = %v", q.Err())
	}
}

// TestTryMessageKeepsOrder: a consumer that takes what is queued with
// TryMessage between receives from Messages gets every frame once, in the
// CLI's order, while the reader keeps queueing behind it.
func TestTryMessageKeepsOrder(t *testing.T) {
	t.Parallel()
	p := startFake(t, "flood", Options{})
	defer p.Close()
	sendText(t, p, "go")
	next, tried := 0, 0
	check := func(m Message) bool {
		switch b := m.Body.(type) {
		case *StreamEvent:
			if b.Event.Index != next {
				t.Fatalf("delta %d after %d", b.Event.Index, next-1)
			}
			next++
		case *ResultMessage:
			return true
		}
		return false
	}
	for done := false; !done; {
		m, ok := <-p.Messages()
		if !ok {
			t.Fatal("Messages closed before the result")
		}
		done = check(m)
		if next%100 == 0 {
			time.Sleep(time.Millisecond) // let the queue fill
		}
		for !done {
			m, ok := p.TryMessage()
			if !ok {
				break
			}
			tried++
			done = check(m)
		}
	}
	if next != 5000 {
		t.Errorf("%d deltas, want 5000", next)
	}
	if tried == 0 {
		t.Error("TryMessage never had a frame ready")
	}
}
