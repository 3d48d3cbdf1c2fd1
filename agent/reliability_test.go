package agent_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/faultcli"
)

// These tests inject the faults users meet into the CLI side, with the
// fake CLI of internal/test/faultcli (this test binary, re-executed). Each
// checks that the open turn ends with a clear error, that the next prompt
// works, and (at cleanup) that no fake CLI outlived the agent.

// startFake runs the agent against the fake CLI; env adds fake settings.
// It returns the harness and the fake's state directory.
func startFake(t *testing.T, cfg func(*agent.Config), env ...string) (*agenttest.Harness, string) {
	t.Helper()
	dir := t.TempDir()
	// Registered before the harness, so it runs after the agent stopped.
	t.Cleanup(func() {
		if alive := faultcli.KillLeftovers(dir, 10*time.Second); len(alive) > 0 {
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

func lastPID(t *testing.T, dir string) int {
	t.Helper()
	pids := faultcli.PIDs(dir)
	if len(pids) == 0 {
		t.Fatal("no fake CLI was started")
	}
	return pids[len(pids)-1]
}

func TestFakeCLIBaseline(t *testing.T) {
	t.Parallel()
	h, _ := startFake(t, nil)
	sid := h.NewSession(h.Sandbox.WorkDir)
	wantEndTurn(t, h, sid, "hello there", "echo: hello there")
}

func TestFaultCLIKilledMidTurn(t *testing.T) {
	t.Parallel()
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
	if err := clitest.KillPID(victim); err != nil {
		t.Fatal(err)
	}
	r := <-done
	wantRPCError(t, r.err, acp.CodeInternalError, "exited unexpectedly", "signal", "Send your prompt again")
	// The session restarts its CLI, and the other session never noticed.
	wantEndTurn(t, h, sid, "are you back", "echo: are you back")
	wantEndTurn(t, h, other, "still here", "echo: still here")
}

func TestFaultCLICrashes(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
			// Only the hang needs a short startup timeout; the other
			// starts (and every start after Heal) get room for a loaded
			// machine, where a 2 s limit made a slow start look like a hang.
			timeout := 30 * time.Second
			if tc.kind == "hang" {
				timeout = 5 * time.Second
			}
			h, dir := startFake(t, func(c *agent.Config) { c.StartupTimeout = timeout }, faultcli.EnvStart+"="+tc.kind)
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
	t.Parallel()
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
	t.Parallel()
	h, dir := startFake(t, nil)
	withdrawn := holdPermissions(h)
	sid := h.NewSession(h.Sandbox.WorkDir)
	done := promptAsync(h, sid, "ask")
	h.WaitFor("the permission request", 30*time.Second, func() bool { return len(h.Permissions()) == 1 })
	h.Cancel(sid)
	if r := <-done; r.err != nil || r.resp.StopReason != acp.StopReasonCancelled {
		t.Fatalf("got %+v, want cancelled", r)
	}
	wantWithdrawn(t, withdrawn)
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
	t.Parallel()
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
	t.Parallel()
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

// rawPeer is a client that reads the agent's output only when the test
// says so: a slow or stuck editor.
type rawPeer struct {
	t      *testing.T
	dir    string   // the fake CLI's state
	in     *os.File // the agent's stdin
	outR   *os.File // the agent's stdout
	out    *bufio.Reader
	served chan error
}

func startRaw(t *testing.T) *rawPeer {
	t.Helper()
	dir := t.TempDir()
	t.Cleanup(func() {
		if alive := faultcli.KillLeftovers(dir, 10*time.Second); len(alive) > 0 {
			t.Errorf("fake CLI processes outlived the agent: %v", alive)
		}
	})
	agentIn, in, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, agentOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &rawPeer{t: t, dir: dir, in: in, outR: outR, out: bufio.NewReaderSize(outR, 1<<20), served: make(chan error, 1)}
	a := agent.New(agent.Config{Executable: os.Args[0], Env: faultcli.Env(dir), Version: "test"})
	go func() {
		p.served <- a.Serve(context.Background(), agentIn, agentOut)
		agentIn.Close()
		agentOut.Close()
	}()
	t.Cleanup(func() {
		in.Close()
		go io.Copy(io.Discard, outR) // a stuck test must not keep the agent blocked
		select {
		case <-p.served:
		case <-time.After(30 * time.Second):
			t.Error("the agent did not stop within 30s of EOF")
		}
		outR.Close()
	})
	return p
}

func (p *rawPeer) send(id int, method string, params any) {
	p.t.Helper()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		p.t.Fatal(err)
	}
	if _, err := p.in.Write(append(b, '\n')); err != nil {
		p.t.Fatal(err)
	}
}

// wireMsg is the part of an agent line the tests look at.
type wireMsg struct {
	ID     *int            `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *acp.Error      `json:"error"`
	Params struct {
		Update struct {
			SessionUpdate string `json:"sessionUpdate"`
			MessageID     string `json:"messageId"`
			Content       struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"update"`
	} `json:"params"`
}

// chunksUntilAnswer reads the agent's lines up to its answer to prompt
// id, which must end the turn, and gives each agent_message_chunk's text
// and message id to each.
func (p *rawPeer) chunksUntilAnswer(id int, each func(text, messageID string)) {
	p.t.Helper()
	for {
		m := p.next()
		if m.ID != nil && *m.ID == id {
			if m.Error != nil || !strings.Contains(string(m.Result), `"end_turn"`) {
				p.t.Fatalf("prompt answer %s %v", m.Result, m.Error)
			}
			return
		}
		if u := m.Params.Update; u.SessionUpdate == "agent_message_chunk" {
			each(u.Content.Text, u.MessageID)
		}
	}
}

func (p *rawPeer) next() wireMsg {
	p.t.Helper()
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		p.t.Fatalf("reading the agent: %v", err)
	}
	var m wireMsg
	if err := json.Unmarshal(line, &m); err != nil {
		p.t.Fatalf("agent line is not JSON-RPC: %v", err)
	}
	return m
}

// call sends a request and reads up to its response, returning it and the
// notifications before it.
func (p *rawPeer) call(id int, method string, params any) (wireMsg, []wireMsg) {
	p.t.Helper()
	p.send(id, method, params)
	var notes []wireMsg
	for {
		m := p.next()
		if m.ID != nil && *m.ID == id && m.Method == "" {
			return m, notes
		}
		notes = append(notes, m)
	}
}

func (p *rawPeer) newSession(t *testing.T) string {
	t.Helper()
	if m, _ := p.call(1, "initialize", map[string]any{"protocolVersion": 1}); m.Error != nil {
		t.Fatalf("initialize: %v", m.Error)
	}
	m, _ := p.call(2, "session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{}})
	var r struct {
		SessionID string `json:"sessionId"`
	}
	if m.Error != nil || json.Unmarshal(m.Result, &r) != nil {
		t.Fatalf("session/new: %s %v", m.Result, m.Error)
	}
	return r.SessionID
}

func progress(dir string) int {
	n := -1
	for _, e := range faultcli.Trace(dir) {
		if e.What == "progress" {
			n, _ = strconv.Atoi(e.Detail)
		}
	}
	return n
}

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestStuckClientBackpressure: the editor stops reading while Claude
// streams 6 MiB. The agent must not buffer it: the CLI itself is held
// back, the agent's heap grows by less than half of it, and once the editor
// reads again every chunk arrives, once, in order, before the prompt's
// answer.
func TestStuckClientBackpressure(t *testing.T) {
	t.Parallel()
	const chunks, size = 3000, 2 << 10
	p := startRaw(t)
	sid := p.newSession(t)
	base := heapInUse()
	p.send(3, "session/prompt", map[string]any{"sessionId": sid,
		"prompt": []any{map[string]any{"type": "text", "text": fmt.Sprintf("chunks %d %d", chunks, size)}}})

	// Wait until the fake CLI stops making progress: it is blocked on its
	// stdout because nobody reads ours. Its clock starts with its first
	// chunk: a CLI still starting (no progress yet) has not stalled.
	last, since := -1, time.Now()
	for deadline := time.Now().Add(60 * time.Second); last < 0 || time.Since(since) < 500*time.Millisecond; {
		if time.Now().After(deadline) {
			t.Fatalf("the CLI never stalled (at chunk %d)", last)
		}
		if n := progress(p.dir); n != last {
			last, since = n, time.Now()
		}
		time.Sleep(20 * time.Millisecond)
	}
	if last >= chunks/2 {
		t.Fatalf("the CLI wrote %d of %d chunks to a client that reads nothing: no backpressure", last, chunks)
	}
	grew := int64(heapInUse()) - int64(base)
	if grew > chunks*size/2 {
		t.Errorf("heap grew by %d KiB while the client was stuck", grew>>10)
	}
	t.Logf("the CLI stalled after %d of %d chunks; heap +%d KiB", last, chunks, grew>>10)

	// The chunks that queued up while the client was stuck may come
	// coalesced (burst.go): consecutive deltas in one notification.
	next, notes := 0, 0
	var text string
	p.chunksUntilAnswer(3, func(chunk, _ string) {
		notes++
		text += chunk
		for {
			c := fmt.Sprintf("[%d]", next)
			c += strings.Repeat("x", size-len(c))
			rest, ok := strings.CutPrefix(text, c)
			if !ok {
				break
			}
			text = rest
			next++
		}
		if len(text) >= size {
			t.Fatalf("chunk %d: got %.12q: lost, duplicated or reordered", next, text)
		}
	})
	if next != chunks || text != "" {
		t.Fatalf("got %d of %d chunks before the answer (%d bytes left over)", next, chunks, len(text))
	}
	t.Logf("%d chunks in %d notifications", chunks, notes)
}

// TestClientBrokenPipe: the editor closes its end of our stdout (it
// crashed). The next write fails; the agent stops every CLI and Serve
// returns.
func TestClientBrokenPipe(t *testing.T) {
	t.Parallel()
	p := startRaw(t)
	sid := p.newSession(t)
	p.send(3, "session/prompt", map[string]any{"sessionId": sid,
		"prompt": []any{map[string]any{"type": "text", "text": "slow 60000"}}})
	for progressed := false; !progressed; {
		for _, e := range faultcli.Trace(p.dir) {
			progressed = progressed || e.What == "frame" && strings.HasPrefix(e.Detail, "user")
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.outR.Close()
	select {
	case err := <-p.served:
		p.served <- err // for the cleanup
		t.Logf("Serve returned %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the agent kept running after its stdout broke")
	}
	if alive := faultcli.WaitGone(p.dir, 10*time.Second); len(alive) > 0 {
		t.Fatalf("CLIs still running after the client went away: %v", alive)
	}
}

// TestFaultEveryQueuedTurnAnswered: with several prompts queued behind a
// running one, a CLI crash, a failed CLI start and session/close each
// answer every one of them.
func TestFaultEveryQueuedTurnAnswered(t *testing.T) {
	t.Parallel()
	const n = 4
	waitAll := func(t *testing.T, done []<-chan promptResult, ok func(promptResult) bool) {
		t.Helper()
		for i, ch := range done {
			select {
			case r := <-ch:
				if !ok(r) {
					t.Errorf("prompt %d: %+v", i, r)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("prompt %d of %d was never answered", i, len(done))
			}
		}
	}
	// queue sends a hanging prompt and n-1 more, one after another.
	queue := func(h *agenttest.Harness, sid string) []<-chan promptResult {
		var done []<-chan promptResult
		for i := range n {
			text := "hang"
			if i > 0 {
				text = fmt.Sprintf("queued %d", i)
			}
			done = append(done, promptAsync(h, sid, text))
			h.WaitFor("the prompt to reach the agent", 30*time.Second, func() bool {
				c := 0
				for _, l := range h.Wire() {
					if !l.FromAgent && strings.Contains(l.Line, `"session/prompt"`) {
						c++
					}
				}
				return c == i+1
			})
		}
		return done
	}
	isErr := func(r promptResult) bool { return r.err != nil }
	t.Run("crash", func(t *testing.T) {
		h, dir := startFake(t, nil)
		sid := h.NewSession(h.Sandbox.WorkDir)
		done := queue(h, sid)
		h.WaitFor("all prompts at the CLI", 30*time.Second, func() bool {
			c := 0
			for _, e := range faultcli.Trace(dir) {
				if e.What == "frame" && strings.HasPrefix(e.Detail, "user") {
					c++
				}
			}
			return c == n
		})
		if err := clitest.KillPID(lastPID(t, dir)); err != nil {
			t.Fatal(err)
		}
		waitAll(t, done, isErr)
	})
	t.Run("start failure", func(t *testing.T) {
		h, _ := startFake(t, func(c *agent.Config) { c.StartupTimeout = time.Second }, faultcli.EnvStart+"=hang")
		sid := h.NewSession(h.Sandbox.WorkDir)
		waitAll(t, queue(h, sid), isErr)
	})
	t.Run("close", func(t *testing.T) {
		h, _ := startFake(t, nil)
		sid := h.NewSession(h.Sandbox.WorkDir)
		done := queue(h, sid)
		h.WaitFor("the running turn", 30*time.Second, func() bool { return strings.Contains(h.AgentText(sid), "working on it") })
		if err := h.Client.Call(h.Ctx(), acp.MethodSessionClose, &acp.CloseSessionRequest{SessionID: acp.SessionID(sid)}, nil); err != nil {
			t.Fatal(err)
		}
		waitAll(t, done, func(r promptResult) bool { return r.err == nil && r.resp.StopReason == acp.StopReasonCancelled })
	})
}

// TestRealCLIKilledWhileAsking: the real CLI dies while its permission
// request waits for the user. The client's request is withdrawn, the turn
// fails with a clear error, the tool never runs, and the session goes on.
func TestRealCLIKilledWhileAsking(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	withdrawn := holdPermissions(h)
	marker := filepath.Join(h.Sandbox.WorkDir, "must-not-exist")
	h.API().Script(toolUse("toolu_k", "Bash", map[string]any{"command": "touch " + marker, "description": "touch"}),
		fakeapi.Text("unreachable"))
	sid := h.NewSession(h.Sandbox.WorkDir)
	done := promptAsync(h, sid, "touch it")
	h.WaitFor("the permission request", 60*time.Second, func() bool { return len(h.Permissions()) == 1 })
	killTheCLI(t)
	r := <-done
	wantRPCError(t, r.err, acp.CodeInternalError, "exited unexpectedly")
	wantWithdrawn(t, withdrawn)
	if exists(marker) {
		t.Fatal("the tool ran although nobody allowed it")
	}
	h.API().Script(fakeapi.Text("back"))
	wantEndTurn(t, h, sid, "hello again", "back")
}

// TestCancelWithdrawsQueuedPromptsBeforeTheInterrupt: a cancel with 50
// prompts queued behind a running turn writes every withdrawal before the
// interrupt, so the CLI handles them in one round trip: once it has read
// the interrupt, none of the cancelled prompts is left to start (each one
// that did would cost a turn's start and another interrupt, in turn, while
// the next prompt waits). The next prompt then runs normally.
func TestCancelWithdrawsQueuedPromptsBeforeTheInterrupt(t *testing.T) {
	t.Parallel()
	h, dir := startFake(t, nil)
	sid := h.NewSession(h.Sandbox.WorkDir)
	first := promptAsync(h, sid, "hang")
	h.WaitFor("the running turn", 30*time.Second, func() bool { return strings.Contains(h.AgentText(sid), "working on it") })
	const n = 50
	queued := make([]<-chan promptResult, n)
	for i := range n {
		queued[i] = promptAsync(h, sid, fmt.Sprintf("echo queued %d", i))
	}
	userFrames := func() int {
		c := 0
		for _, e := range faultcli.Trace(dir) {
			if e.What == "frame" && strings.HasPrefix(e.Detail, "user") {
				c++
			}
		}
		return c
	}
	h.WaitFor("every prompt in the CLI", 30*time.Second, func() bool { return userFrames() == n+1 })
	h.Cancel(sid)
	for _, ch := range append(queued, first) {
		if r := <-ch; r.err != nil || r.resp.StopReason != acp.StopReasonCancelled {
			t.Fatalf("a cancelled prompt: %+v %v", r.resp, r.err)
		}
	}
	wantEndTurn(t, h, sid, "echo after the cancel", "echo: echo after the cancel")
	withdrawals, interruptAt := 0, -1
	for i, e := range faultcli.Trace(dir) {
		switch {
		case e.What == "frame" && e.Detail == "control_request cancel_async_message":
			withdrawals++
			if interruptAt >= 0 {
				t.Errorf("a withdrawal (trace line %d) after the interrupt (line %d)", i, interruptAt)
			}
		case e.What == "frame" && e.Detail == "control_request interrupt" && interruptAt < 0:
			interruptAt = i
		}
	}
	if withdrawals != n || interruptAt < 0 {
		t.Errorf("%d withdrawals and an interrupt at trace line %d, want %d withdrawals before one interrupt", withdrawals, interruptAt, n)
	}
	if got := strings.Count(h.AgentText(sid), "echo: queued"); got != 0 {
		t.Errorf("%d cancelled prompts ran", got)
	}
}
