package agent_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent"
	"github.com/claude-agent-acp/claude-agent-acp/internal/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/faultcli"
)

// These tests inject the faults users meet into the CLI side, with the
// fake CLI of internal/faultcli (this test binary, re-executed). Each
// checks that the open turn ends with a clear error, that the next prompt
// works, and (at cleanup) that no fake CLI outlived the agent.

// startFake runs the agent against the fake CLI; env adds fake settings.
// It returns the harness and the fake's state directory.
func startFake(t *testing.T, cfg func(*agent.Config), env ...string) (*agenttest.Harness, string) {
	t.Helper()
	dir := t.TempDir()
	// Registered before the harness, so it runs after the agent stopped.
	t.Cleanup(func() {
		if alive := faultcli.WaitGone(dir, 10*time.Second); len(alive) > 0 {
			t.Errorf("fake CLI processes outlived the agent: %v", alive)
		}
	})
	h := agenttest.Start(t, agenttest.Options{Config: func(c *agent.Config) {
		c.Executable = os.Args[0]
		c.Env = faultcli.Env(dir, env...)
		if cfg != nil {
			cfg(c)
		}
	}})
	return h, dir
}

// promptAsync sends a prompt and returns where its outcome arrives.
func promptAsync(h *agenttest.Harness, sid, text string) <-chan promptResult {
	ch := make(chan promptResult, 1)
	go func() {
		r, err := h.Prompt(sid, text)
		ch <- promptResult{r, err}
	}()
	return ch
}

type promptResult struct {
	resp *acp.PromptResponse
	err  error
}

// wantEndTurn fails unless text got a normal answer containing want.
func wantEndTurn(t *testing.T, h *agenttest.Harness, sid, text, want string) {
	t.Helper()
	resp, err := h.Prompt(sid, text)
	if err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt %q: %+v %v", text, resp, err)
	}
	if !strings.Contains(h.AgentText(sid), want) {
		t.Fatalf("prompt %q: agent text %q lacks %q", text, h.AgentText(sid), want)
	}
}

// wantRPCError fails unless err is a JSON-RPC error with code whose message
// contains every one of parts.
func wantRPCError(t *testing.T, err error, code int, parts ...string) *acp.Error {
	t.Helper()
	var ae *acp.Error
	if !errors.As(err, &ae) || ae.Code != code {
		t.Fatalf("got %v, want a %d error", err, code)
	}
	for _, p := range parts {
		if !strings.Contains(ae.Message, p) {
			t.Fatalf("error message %q lacks %q", ae.Message, p)
		}
	}
	return ae
}

func lastPID(t *testing.T, dir string) int {
	t.Helper()
	pids := faultcli.PIDs(dir)
	if len(pids) == 0 {
		t.Fatal("no fake CLI was started")
	}
	return pids[len(pids)-1]
}

func TestFakeCLIBaseline(t *testing.T) {
	h, _ := startFake(t, nil)
	sid := h.NewSession(h.Sandbox.WorkDir)
	wantEndTurn(t, h, sid, "hello there", "echo: hello there")
}

func TestFaultCLIKilledMidTurn(t *testing.T) {
	h, dir := startFake(t, nil)
	sid := h.NewSession(h.Sandbox.WorkDir)
	other := h.NewSession(h.Sandbox.WorkDir)
	wantEndTurn(t, h, other, "warm up", "echo: warm up")
	done := promptAsync(h, sid, "hang")
	h.WaitFor("streamed text", 30*time.Second, func() bool { return strings.Contains(h.AgentText(sid), "working on it") })
	var victim int
	for _, e := range faultcli.Trace(dir) {
		if e.What == "frame" && strings.HasPrefix(e.Detail, "user") {
			victim = e.PID // the process that got the "hang" prompt is the last to get a user frame
		}
	}
	if err := syscall.Kill(victim, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	r := <-done
	wantRPCError(t, r.err, acp.CodeInternalError, "exited unexpectedly", "signal", "Send your prompt again")
	// The session restarts its CLI, and the other session never noticed.
	wantEndTurn(t, h, sid, "are you back", "echo: are you back")
	wantEndTurn(t, h, other, "still here", "echo: still here")
}

func TestFaultCLICrashes(t *testing.T) {
	tests := []struct {
		prompt string
		parts  []string // in the error message
	}{
		{"crash", []string{"exited unexpectedly", "signal"}},
		{"exit 3", []string{"exited unexpectedly", "code 3", "injected exit 3"}},
		{"garbage-exit", []string{"exited unexpectedly", "code 1", "injected garbage"}},
		{"flood-stderr", []string{"exited unexpectedly", "code 2", "FLOOD-END"}},
	}
	h, _ := startFake(t, nil)
	sid := h.NewSession(h.Sandbox.WorkDir)
	for _, tc := range tests {
		_, err := h.Prompt(sid, tc.prompt)
		ae := wantRPCError(t, err, acp.CodeInternalError, tc.parts...)
		// The stderr tail is bounded: a CLI that floods stderr does not
		// flood the editor.
		if len(ae.Message) > 4<<10 {
			t.Errorf("%s: error message of %d bytes", tc.prompt, len(ae.Message))
		}
		wantEndTurn(t, h, sid, "after "+tc.prompt, "echo: after "+tc.prompt)
	}
}

func TestFaultGarbageOnStdout(t *testing.T) {
	h, _ := startFake(t, nil)
	sid := h.NewSession(h.Sandbox.WorkDir)
	// Lines that are not frames are skipped; the turn completes.
	wantEndTurn(t, h, sid, "garbage", "before garbage after garbage")
	wantEndTurn(t, h, sid, "next", "echo: next")
	if !h.ValidJSON() {
		t.Error("garbage from the CLI reached the client")
	}
}

func TestFaultCLIStartup(t *testing.T) {
	tests := []struct {
		kind  string
		parts []string
	}{
		{"exit", []string{"could not start", "injected startup failure"}},
		{"garbage", []string{"could not start", "injected garbage"}},
		{"flood", []string{"could not start", "FLOOD-END"}},
		{"hang", []string{"could not start", "in time"}},
	}
	for _, tc := range tests {
		t.Run(tc.kind, func(t *testing.T) {
			h, dir := startFake(t, func(c *agent.Config) { c.StartupTimeout = 2 * time.Second }, faultcli.EnvStart+"="+tc.kind)
			sid := h.NewSession(h.Sandbox.WorkDir)
			_, err := h.Prompt(sid, "hello")
			ae := wantRPCError(t, err, acp.CodeInternalError, tc.parts...)
			if len(ae.Message) > 4<<10 {
				t.Errorf("error message of %d bytes", len(ae.Message))
			}
			if err := faultcli.Heal(dir); err != nil {
				t.Fatal(err)
			}
			wantEndTurn(t, h, sid, "try again", "echo: try again")
		})
	}
}

// TestFaultPermissionAfterCancel: the user pressed Stop, and only then the
// CLI asks whether the tool of the cancelled turn may run. The agent must
// deny it (without bothering the user), so the tool never runs.
func TestFaultPermissionAfterCancel(t *testing.T) {
	h, dir := startFake(t, nil)
	sid := h.NewSession(h.Sandbox.WorkDir)
	done := promptAsync(h, sid, "tool-after-cancel")
	h.WaitFor("the tool call", 30*time.Second, func() bool {
		for _, u := range h.Updates(sid) {
			if u.ToolCall != nil {
				return true
			}
		}
		return false
	})
	h.Cancel(sid)
	if r := <-done; r.err != nil || r.resp.StopReason != acp.StopReasonCancelled {
		t.Fatalf("got %+v, want cancelled", r)
	}
	h.WaitFor("the CLI's permission outcome", 30*time.Second, func() bool { return permissionTrace(dir) != "" })
	if got := permissionTrace(dir); got != "deny" {
		t.Errorf("can_use_tool after cancel answered %q, want deny", got)
	}
	if n := len(h.Permissions()); n != 0 {
		t.Errorf("the client was asked %d times about a cancelled turn's tool", n)
	}
	wantEndTurn(t, h, sid, "next", "echo: next")
}

// TestFaultCancelWhileAsking: Stop while the permission prompt is open.
// The client's prompt is withdrawn ($/cancel_request), the turn answers
// cancelled, the tool does not run, and the session goes on.
func TestFaultCancelWhileAsking(t *testing.T) {
	h, dir := startFake(t, nil)
	withdrawn := make(chan struct{})
	h.Permission = func(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		<-ctx.Done()
		close(withdrawn)
		return nil, ctx.Err()
	}
	sid := h.NewSession(h.Sandbox.WorkDir)
	done := promptAsync(h, sid, "ask")
	h.WaitFor("the permission request", 30*time.Second, func() bool { return len(h.Permissions()) == 1 })
	h.Cancel(sid)
	if r := <-done; r.err != nil || r.resp.StopReason != acp.StopReasonCancelled {
		t.Fatalf("got %+v, want cancelled", r)
	}
	select {
	case <-withdrawn:
	case <-time.After(30 * time.Second):
		t.Fatal("the client's permission request was not withdrawn")
	}
	h.WaitFor("the CLI's permission outcome", 30*time.Second, func() bool { return permissionTrace(dir) != "" })
	if got := permissionTrace(dir); got == "allow" {
		t.Errorf("the tool of a cancelled turn was allowed")
	}
	wantEndTurn(t, h, sid, "next", "echo: next")
}

func permissionTrace(dir string) string {
	for _, e := range faultcli.Trace(dir) {
		if e.What == "permission" {
			return e.Detail
		}
	}
	return ""
}

// TestClientGoneWhileCLIStarts: the editor goes away (stdin EOF) while a
// session's CLI hangs in its startup. The agent must not wait for the
// startup timeout, and must leave no CLI behind (checked at cleanup).
func TestClientGoneWhileCLIStarts(t *testing.T) {
	h, dir := startFake(t, nil, faultcli.EnvStart+"=hang")
	sid := h.NewSession(h.Sandbox.WorkDir)
	done := promptAsync(h, sid, "hello")
	h.WaitFor("the hanging CLI", 30*time.Second, func() bool {
		for _, e := range faultcli.Trace(dir) {
			if e.What == "start-fault" {
				return true
			}
		}
		return false
	})
	_ = done // answered or failed when the harness closes the connection
}

// TestClientGoneMidTurn: stdin EOF while turns run in several sessions.
// Serve returns and every CLI is stopped (checked at cleanup).
func TestClientGoneMidTurn(t *testing.T) {
	h, dir := startFake(t, nil)
	var done []<-chan promptResult
	for range 3 {
		sid := h.NewSession(h.Sandbox.WorkDir)
		done = append(done, promptAsync(h, sid, "hang"))
	}
	h.WaitFor("three running turns", 30*time.Second, func() bool {
		n := 0
		for _, e := range faultcli.Trace(dir) {
			if e.What == "frame" && strings.HasPrefix(e.Detail, "user") {
				n++
			}
		}
		return n == 3
	})
	_ = done
}
