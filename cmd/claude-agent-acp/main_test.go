package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/faultcli"
)

// These tests run the real binary, built once in TestMain, the way an
// editor does: JSON-RPC on its stdin and stdout, logs on stderr, signals.
// Behind it runs the fake CLI (internal/test/faultcli) or, where it matters, the
// real one.

// agentBin is the binary under test; fakeCLI is the fake Claude Code CLI
// (internal/test/faultcli), built without the race detector so that it stays
// fast whatever the tests run with.
var agentBin, fakeCLI string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "claude-agent-acp-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	agentBin, fakeCLI = filepath.Join(dir, "claude-agent-acp"), filepath.Join(dir, "faultcli")
	build := exec.Command("go", "build", "-o", dir+string(filepath.Separator), ".", "../../internal/test/faultcli/cmd/faultcli")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the agent: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// agentProc is one running agent binary.
type agentProc struct {
	t      *testing.T
	dir    string // the fake CLI's state (and HOME)
	cmd    *exec.Cmd
	in     *os.File // its stdin
	outR   *os.File // its stdout
	lines  chan []byte
	stderr *syncBuffer
	exited chan struct{}
	err    error // from Wait, once exited is closed
	notes  []wireMsg
	early  map[string]wireMsg // responses read while waiting for another
	seen   []string           // every line read, in order
}

// startAgent runs the binary against the fake CLI; env adds entries.
func startAgent(t *testing.T, env ...string) *agentProc {
	t.Helper()
	dir := t.TempDir()
	t.Cleanup(func() {
		if alive := faultcli.KillLeftovers(dir, 10*time.Second); len(alive) > 0 {
			t.Errorf("fake CLI processes outlived the agent: %v", alive)
		}
	})
	base := []string{"CLAUDE_CODE_EXECUTABLE=" + fakeCLI, "HOME=" + dir}
	return startBinary(t, dir, faultcli.Env(dir, append(base, env...)...))
}

func startBinary(t *testing.T, dir string, env []string) *agentProc {
	t.Helper()
	return startBinaryCmd(t, dir, env, nil)
}

// startBinaryCmd is startBinary with adjust, when not nil, applied to the
// agent's command before it starts. (A parameter, not a package variable:
// the tests run in parallel.)
func startBinaryCmd(t *testing.T, dir string, env []string, adjust func(*exec.Cmd)) *agentProc {
	t.Helper()
	p := &agentProc{t: t, dir: dir, lines: make(chan []byte, 256), stderr: &syncBuffer{}, exited: make(chan struct{}),
		early: map[string]wireMsg{}}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd = exec.Command(agentBin)
	p.cmd.Env = env
	if adjust != nil {
		adjust(p.cmd)
	}
	p.cmd.Stdin, p.cmd.Stdout, p.cmd.Stderr = inR, outW, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	p.in, p.outR = inW, outR
	go func() {
		br := bufio.NewReaderSize(outR, 1<<20)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				p.lines <- line
			}
			if err != nil {
				close(p.lines)
				return
			}
		}
	}()
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.in.Close()
		go func() {
			for range p.lines {
			}
		}()
		if !p.waitExit(30 * time.Second) {
			t.Error("the agent did not exit within 30s of stdin EOF")
			p.cmd.Process.Kill()
			<-p.exited
		}
		p.outR.Close()
		if t.Failed() {
			t.Logf("agent stderr:\n%s", p.stderr.String())
		}
	})
	return p
}

func (p *agentProc) waitExit(d time.Duration) bool {
	select {
	case <-p.exited:
		return true
	case <-time.After(d):
		return false
	}
}

// exitCode waits for the agent to exit and returns its status.
func (p *agentProc) exitCode() int {
	p.t.Helper()
	if !p.waitExit(30 * time.Second) {
		p.t.Fatal("the agent did not exit")
	}
	return p.cmd.ProcessState.ExitCode()
}

// write sends raw bytes: one or more lines.
func (p *agentProc) write(s string) {
	p.t.Helper()
	if _, err := p.in.Write([]byte(s)); err != nil {
		p.t.Fatalf("writing to the agent: %v", err)
	}
}

func (p *agentProc) send(id any, method string, params any) {
	p.t.Helper()
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if id != nil {
		m["id"] = id
	}
	if params != nil {
		m["params"] = params
	}
	b, err := json.Marshal(m)
	if err != nil {
		p.t.Fatal(err)
	}
	p.write(string(b) + "\n")
}

// wireMsg is one line the agent wrote.
type wireMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
	raw string
}

func (m wireMsg) isResponse() bool { return m.Method == "" }

// next returns the next line the agent wrote.
func (p *agentProc) next() wireMsg {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			p.t.Fatalf("the agent closed stdout; stderr:\n%s", p.stderr.String())
		}
		var m wireMsg
		if err := json.Unmarshal(line, &m); err != nil {
			p.t.Fatalf("the agent wrote a line that is not JSON-RPC: %.200q", line)
		}
		m.raw = string(line)
		p.seen = append(p.seen, m.raw)
		return m
	case <-time.After(60 * time.Second):
		p.t.Fatal("no line from the agent within 60s")
	}
	return wireMsg{}
}

// response reads until the response to id, keeping notifications and
// other responses for later.
func (p *agentProc) response(id any) wireMsg {
	p.t.Helper()
	b, _ := json.Marshal(id)
	want := string(b)
	if m, ok := p.early[want]; ok {
		delete(p.early, want)
		return m
	}
	for {
		m := p.next()
		switch {
		case m.isResponse() && string(m.ID) == want:
			return m
		case m.isResponse():
			p.early[string(m.ID)] = m
		default:
			p.notes = append(p.notes, m)
		}
	}
}

// nextResponse returns the next response, keeping notifications.
func (p *agentProc) nextResponse() wireMsg {
	p.t.Helper()
	for {
		m := p.next()
		if m.isResponse() {
			return m
		}
		p.notes = append(p.notes, m)
	}
}

func (p *agentProc) call(id any, method string, params any) wireMsg {
	p.t.Helper()
	p.send(id, method, params)
	return p.response(id)
}

func (p *agentProc) initialize() {
	p.t.Helper()
	if m := p.call(0, "initialize", map[string]any{"protocolVersion": 1}); m.Error != nil {
		p.t.Fatalf("initialize: %s", m.raw)
	}
}

// newSession opens a session in a fresh directory.
func (p *agentProc) newSession(id any) string {
	p.t.Helper()
	m := p.call(id, "session/new", map[string]any{"cwd": p.t.TempDir(), "mcpServers": []any{}})
	var r struct {
		SessionID string `json:"sessionId"`
	}
	if m.Error != nil || json.Unmarshal(m.Result, &r) != nil || r.SessionID == "" {
		p.t.Fatalf("session/new: %s", m.raw)
	}
	return r.SessionID
}

func textPrompt(sid, text string) map[string]any {
	return map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": text}}}
}

// prompt runs one prompt and returns its stop reason, failing on an error.
func (p *agentProc) prompt(id any, sid, text string) string {
	p.t.Helper()
	m := p.call(id, "session/prompt", textPrompt(sid, text))
	var r struct {
		StopReason string `json:"stopReason"`
	}
	if m.Error != nil || json.Unmarshal(m.Result, &r) != nil {
		p.t.Fatalf("prompt %q: %s", text, m.raw)
	}
	return r.StopReason
}

// wantCLIsGone fails the test if a fake CLI is still alive 5 s after the
// agent exited.
func (p *agentProc) wantCLIsGone() {
	p.t.Helper()
	if alive := faultcli.WaitGone(p.dir, 5*time.Second); len(alive) > 0 {
		p.t.Errorf("CLIs alive after the agent exited: %v", alive)
	}
}

// waitUserFrames waits until the fakes have received n user messages.
func (p *agentProc) waitUserFrames(n int) {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := 0
		for _, e := range faultcli.Trace(p.dir) {
			if e.What == "frame" && strings.HasPrefix(e.Detail, "user") {
				got++
			}
		}
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the fake CLIs got %d of %d prompts", got, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// syncBuffer is a bytes.Buffer safe for the writer goroutine of exec.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// runOnce runs the binary with args to completion.
func runOnce(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(agentBin, args...)
	cmd.Env = env
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return o.String(), e.String(), cmd.ProcessState.ExitCode()
}

func TestVersionAndHelp(t *testing.T) {
	t.Parallel()
	out, _, code := runOnce(t, os.Environ(), "--version")
	if code != 0 || !strings.HasPrefix(out, "claude-agent-acp ") {
		t.Errorf("--version: %d %q", code, out)
	}
	out, _, code = runOnce(t, os.Environ(), "--help")
	if code != 0 || !strings.Contains(out, "Usage:") || !strings.Contains(out, "doctor") {
		t.Errorf("--help: %d %q", code, out)
	}
	_, errOut, code := runOnce(t, os.Environ(), "--no-such-flag")
	if code != 2 || !strings.Contains(errOut, "unknown argument") {
		t.Errorf("unknown flag: %d %q", code, errOut)
	}
}

func TestDoctor(t *testing.T) {
	t.Parallel()
	const key = "sk-ant-api03-doctor-secret-value"
	home := t.TempDir()
	env := faultcli.Env(t.TempDir(), "HOME="+home, "CLAUDE_CODE_EXECUTABLE="+fakeCLI, "ANTHROPIC_API_KEY="+key)
	out, errOut, code := runOnce(t, env, "doctor")
	if code != 0 || !strings.Contains(out, "✓ Claude Code CLI 9.9.9") || !strings.Contains(out, "ANTHROPIC_API_KEY is set") ||
		!strings.Contains(out, "found in CLAUDE_CODE_EXECUTABLE: "+fakeCLI) || strings.Contains(out, "test install") {
		t.Errorf("doctor with a CLI and a key: %d %q %q", code, out, errOut)
	}
	if strings.Contains(out+errOut, key) {
		t.Error("doctor printed the API key")
	}
	// No credentials: a clear failure.
	env = faultcli.Env(t.TempDir(), "HOME="+home, "CLAUDE_CODE_EXECUTABLE="+fakeCLI)
	out, _, code = runOnce(t, env, "doctor")
	if code != 1 || !strings.Contains(out, "No credentials") {
		t.Errorf("doctor without credentials: %d %q", code, out)
	}
	// A CLI that is not there: a clear failure that says how to fix it.
	env = faultcli.Env(t.TempDir(), "HOME="+home, "PATH="+home, "CLAUDE_CODE_EXECUTABLE="+filepath.Join(home, "nope"))
	out, _, code = runOnce(t, env, "doctor")
	if code != 1 || !strings.Contains(out, "✗ Claude Code CLI") || strings.Count(out, "npm install -g @anthropic-ai/claude-code") != 1 {
		t.Errorf("doctor without a CLI (one hint): %d %q", code, out)
	}
	env = faultcli.Env(t.TempDir(), "HOME="+home, "PATH="+home)
	out, _, code = runOnce(t, env, "doctor")
	if code != 1 || !strings.Contains(out, "✗ Claude Code CLI not found") || strings.Count(out, "npm install -g @anthropic-ai/claude-code") != 1 {
		t.Errorf("doctor without a CLI (one hint): %d %q", code, out)
	}
	// The pinned test install, found through CLAUDE_AGENT_ACP_DEPS: doctor
	// says so, and that it is not meant for real use.
	deps := t.TempDir()
	pinned := filepath.Join(deps, "node_modules", ".bin", "claude")
	if err := os.MkdirAll(filepath.Dir(pinned), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(fakeCLI, pinned); err != nil {
		t.Fatal(err)
	}
	env = faultcli.Env(t.TempDir(), "HOME="+home, "PATH="+home, "CLAUDE_AGENT_ACP_DEPS="+deps, "ANTHROPIC_API_KEY="+key)
	out, _, code = runOnce(t, env, "doctor")
	if code != 0 || !strings.Contains(out, "found through CLAUDE_AGENT_ACP_DEPS (the pinned test install): "+pinned) ||
		!strings.Contains(out, "For real use, install Claude Code") {
		t.Errorf("doctor with the test install: %d %q", code, out)
	}
}

// TestExitOnEOF: the editor closes our stdin while turns run in two
// sessions. Every CLI is stopped and the agent exits 0.
func TestExitOnEOF(t *testing.T) {
	t.Parallel()
	p := startAgent(t)
	p.initialize()
	a, b := p.newSession(1), p.newSession(2)
	p.send(3, "session/prompt", textPrompt(a, "hang"))
	p.send(4, "session/prompt", textPrompt(b, "hang"))
	p.waitUserFrames(2)
	p.in.Close()
	if code := p.exitCode(); code != 0 {
		t.Errorf("exit status %d after stdin EOF", code)
	}
	p.wantCLIsGone()
}

// TestExitOnSIGTERM: the editor terminates us mid-turn.
func TestExitOnSIGTERM(t *testing.T) {
	t.Parallel()
	p := startAgent(t)
	p.initialize()
	a := p.newSession(1)
	p.send(2, "session/prompt", textPrompt(a, "hang"))
	p.waitUserFrames(1)
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.exitCode(); code != 0 {
		t.Errorf("exit status %d after SIGTERM", code)
	}
	p.wantCLIsGone()
}

// TestExitStubbornCLI: a CLI that ignores stdin EOF and SIGTERM is killed;
// the agent still exits 0 and leaves nothing behind.
func TestExitStubbornCLI(t *testing.T) {
	t.Parallel()
	p := startAgent(t, faultcli.EnvStubborn+"=1")
	p.initialize()
	a := p.newSession(1)
	p.send(2, "session/prompt", textPrompt(a, "hang"))
	p.waitUserFrames(1)
	p.in.Close()
	if code := p.exitCode(); code != 0 {
		t.Errorf("exit status %d", code)
	}
	p.wantCLIsGone()
}

// TestBrokenPipe: the editor closes our stdout (it crashed) mid-turn. The
// agent must notice on its next write, stop the CLI and exit, rather than
// die of SIGPIPE and leave the CLI to finish its turn (or, if it ignores
// stdin EOF as in TestExitStubbornCLI, to run forever).
func TestBrokenPipe(t *testing.T) {
	t.Parallel()
	p := startAgent(t)
	p.initialize()
	a := p.newSession(1)
	p.send(2, "session/prompt", textPrompt(a, "hang"))
	p.waitUserFrames(1)
	p.outR.Close()
	p.send(3, "session/prompt", textPrompt("no-such-session", "hi")) // its answer hits the broken pipe
	if !p.waitExit(30 * time.Second) {
		t.Fatal("the agent kept running after its stdout broke")
	}
	if ws := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ws.Signaled() {
		t.Errorf("the agent died of %v", ws.Signal())
	}
	p.wantCLIsGone()
}

// TestRealCLIExit: the same hygiene with the real Claude Code CLI mid-turn:
// on stdin EOF or SIGTERM the agent exits 0 and no claude process is left.
func TestRealCLIExit(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"eof", "sigterm"} {
		t.Run(how, func(t *testing.T) {
			sb := clitest.NewSandbox(t)
			t.Cleanup(func() { clitest.NoOrphans(t) }) // runs after the agent's cleanup
			sb.API.Script(fakeapi.Hang(30))
			p := startBinary(t, sb.WorkDir, sb.With("CLAUDE_CODE_EXECUTABLE="+sb.CLI))
			p.initialize()
			sid := p.newSession(1)
			p.send(2, "session/prompt", textPrompt(sid, "think for a long time"))
			for m := p.next(); !strings.Contains(string(m.Params), "agent_message_chunk"); m = p.next() {
			}
			if how == "eof" {
				p.in.Close()
			} else if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			if code := p.exitCode(); code != 0 {
				t.Errorf("exit status %d", code)
			}
			clitest.NoOrphans(t)
		})
	}
}

// TestPipedRequestsAreAnswered: requests written before stdin closes (as
// with `printf … | claude-agent-acp`) are all answered before the exit.
func TestPipedRequestsAreAnswered(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(agentBin)
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"relative","mcpServers":[]}}` + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("agent: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"id":1,"result"`) || !strings.Contains(lines[1], `"id":2,"error":{"code":-32602`) {
		t.Fatalf("want the initialize result and the -32602 for session/new, got:\n%s", out)
	}
}
