package main

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStdoutPipeRawAndRestored: the editor gives the agent a blocking pipe
// as stdout (libuv and Rust's std do). While the agent serves, the pipe is
// non-blocking (the raw writes of internal/rawio are in use); once the
// agent has exited it is blocking again, for whoever shares it.
func TestStdoutPipeRawAndRestored(t *testing.T) {
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
