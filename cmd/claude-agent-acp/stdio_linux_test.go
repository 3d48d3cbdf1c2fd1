package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/faultcli"
)

// TestStdoutPipeRawAndRestored: the editor gives the agent a blocking pipe
// as stdout (libuv and Rust's std do). While the agent serves, the pipe is
// non-blocking (the raw writes of internal/rawio are in use); once the
// agent has exited it is blocking again, for whoever shares it.
func TestStdoutPipeRawAndRestored(t *testing.T) {
	t.Parallel()
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	outR, outW := os.NewFile(uintptr(fds[0]), "out-r"), os.NewFile(uintptr(fds[1]), "out-w")
	defer outR.Close()
	defer outW.Close() // the test's own handle on the write end's description
	cmd := exec.Command(agentBin)
	cmd.Env = append(os.Environ(), "CLAUDE_AGENT_ACP_LOG=debug", "HOME="+t.TempDir())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cmd.Stdout, cmd.Stderr = outW, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if nonblocking(t, outW) {
		t.Fatal("the test's pipe should start blocking")
	}
	if _, err := stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil || !strings.Contains(line, `"id":1,"result"`) {
		t.Fatalf("initialize: %q, %v", line, err)
	}
	if !nonblocking(t, outW) {
		t.Error("while serving, the agent's stdout pipe is blocking: the raw writes are not in use")
	}
	stdin.Close()
	waitCleanExit(t, cmd, &stderr)
	if nonblocking(t, outW) {
		t.Error("the agent exited leaving its stdout pipe non-blocking")
	}
	if !strings.Contains(stderr.String(), "threads=1") {
		t.Errorf("the agent should run its Go code on one thread by default; its log:\n%s", stderr.String())
	}
}

// TestThreadsFromTheEnvironment: GOMAXPROCS in the environment wins over
// the one-thread default.
func TestThreadsFromTheEnvironment(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(agentBin)
	cmd.Env = append(os.Environ(), "CLAUDE_AGENT_ACP_LOG=debug", "GOMAXPROCS=2", "HOME="+t.TempDir())
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("agent: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "threads=2") {
		t.Errorf("GOMAXPROCS=2 should give two threads; the log:\n%s", out)
	}
}

func nonblocking(t *testing.T, f *os.File) bool {
	t.Helper()
	flags, _, e := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), syscall.F_GETFL, 0)
	if e != 0 {
		t.Fatal(e)
	}
	return flags&syscall.O_NONBLOCK != 0
}

// TestOneSocketAsStdinAndStdout: an editor or bridge that gives the agent
// one socket as both stdin and stdout (socat's EXEC address, a
// socketpair) shares one non-blocking flag between the two streams. The
// agent serves it like a pair of pipes, and leaves the socket blocking
// when it exits. Before stdin was read through the poller, the agent's
// first read failed with EAGAIN and it exited at once.
func TestOneSocketAsStdinAndStdout(t *testing.T) {
	t.Parallel()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Our end in the poller, so that a read can time out.
	if err := syscall.SetNonblock(fds[0], true); err != nil {
		t.Fatal(err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "editor"), os.NewFile(uintptr(fds[1]), "agent")
	ours.SetReadDeadline(time.Now().Add(10 * time.Second))
	defer ours.Close()
	defer theirs.Close()
	cmd := exec.Command(agentBin)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	var stderr syncBuffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = theirs, theirs, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	in := bufio.NewReader(ours)
	for i, req := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`,
		`{"jsonrpc":"2.0","id":2,"method":"session/list","params":{}}`,
	} {
		if i > 0 {
			time.Sleep(50 * time.Millisecond) // the agent is waiting for input again
		}
		if _, err := ours.Write([]byte(req + "\n")); err != nil {
			t.Fatalf("write: %v\n%s", err, stderr.String())
		}
		line, err := in.ReadString('\n')
		if want := fmt.Sprintf(`"id":%d,"result"`, i+1); err != nil || !strings.Contains(line, want) {
			t.Fatalf("answer %d: %q, %v\nstderr: %s", i+1, line, err, stderr.String())
		}
	}
	if err := syscall.Shutdown(fds[0], syscall.SHUT_WR); err != nil { // EOF on the agent's stdin
		t.Fatal(err)
	}
	waitCleanExit(t, cmd, &stderr)
	if nonblocking(t, theirs) {
		t.Error("the agent exited leaving its socket non-blocking")
	}
}

// TestIdleAgentBlocksNoThread: with a session open and its CLI running,
// the idle agent waits for the editor's next message and for its CLI's
// exit in the runtime's poller, not in a blocking read or waitid. A
// thread blocked in a system call keeps the agent's one P until the
// runtime's monitor, mostly asleep, takes it back: every CLI start and
// every message from the editor stalled the agent by up to 20 ms.
func TestIdleAgentBlocksNoThread(t *testing.T) {
	t.Parallel()
	p := startAgent(t)
	p.initialize()
	p.newSession(1)
	// The session's CLI starts in the background: while the agent forks
	// it, a thread waits in read for the exec (os.StartProcess), which is
	// the start, not the idle agent. The fake CLI's trace shows it running.
	for deadline := time.Now().Add(30 * time.Second); len(faultcli.PIDs(p.dir)) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the session's CLI did not start within 30 s")
		}
	}
	pid := p.cmd.Process.Pid
	blocking := map[int]string{unix.SYS_READ: "read", unix.SYS_WAITID: "waitid"}
	for range 30 {
		time.Sleep(10 * time.Millisecond)
		tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range tasks {
			data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/syscall", pid, task.Name()))
			if err != nil {
				continue // the thread ended
			}
			f := strings.Fields(string(data))
			if len(f) == 0 {
				continue
			}
			if nr, err := strconv.Atoi(f[0]); err == nil && blocking[nr] != "" {
				t.Fatalf("thread %s of the idle agent is blocked in %s (%s)", task.Name(), blocking[nr], strings.TrimSpace(string(data)))
			}
		}
	}
}

// waitCleanExit waits for the agent, given EOF on its stdin, to exit with
// status 0.
func waitCleanExit(t *testing.T, cmd *exec.Cmd, stderr *syncBuffer) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("agent: %v\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the agent did not exit on stdin EOF")
	}
}
