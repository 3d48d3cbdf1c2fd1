package claude

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// threadsInWaitid counts this process's threads blocked in waitid.
func threadsInWaitid(t *testing.T) int {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Skip("no /proc:", err)
	}
	n := 0
	for _, task := range tasks {
		data, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%s/syscall", task.Name()))
		if err != nil {
			continue // the thread ended, or /proc hides it
		}
		f := strings.Fields(string(data))
		if len(f) > 0 {
			if nr, err := strconv.Atoi(f[0]); err == nil && nr == unix.SYS_WAITID {
				n++
			}
		}
	}
	return n
}

// TestRunCommandWaitsInThePoller: while a command of RunCommand's runs, no
// thread of the agent sits in a blocking waitid (exec.Cmd's own wait would
// hold one, and with it the agent's one thread, for the whole run); its
// output and exit status come back.
func TestRunCommandWaitsInThePoller(t *testing.T) {
	type result struct {
		out []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := RunCommand(context.Background(), "sh", []string{"-c", "sleep 0.4; echo out; echo err >&2; exit 3"}, os.Environ())
		done <- result{out, err}
	}()
	time.Sleep(100 * time.Millisecond) // started and sleeping
	for deadline := time.Now().Add(200 * time.Millisecond); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if n := threadsInWaitid(t); n > 0 {
			t.Fatalf("%d threads in a blocking waitid while the command runs", n)
		}
	}
	r := <-done
	var exit interface{ ExitCode() int }
	if !errors.As(r.err, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("err = %v, want exit status 3", r.err)
	}
	if got := string(r.out); got != "out\nerr\n" {
		t.Fatalf("output %q, want stdout and stderr", got)
	}
}

// TestRunCommandEndsWithItsContext: the end of ctx kills the command and
// its group: here a child of the shell, which would outlive a kill of the
// shell alone, is gone too.
func TestRunCommandEndsWithItsContext(t *testing.T) {
	// The context ends once the shell has started its child (it writes
	// the pid to a file first), not after a fixed time: a loaded machine
	// may not have run the shell that soon.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := filepath.Join(t.TempDir(), "started")
	go func() {
		for ctx.Err() == nil {
			if b, err := os.ReadFile(started); err == nil && len(b) > 0 && b[len(b)-1] == '\n' {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	out, err := RunCommand(ctx, "sh", []string{"-c", "sleep 30 & echo $!; echo $! > " + started + "; wait"}, os.Environ())
	if err == nil || !strings.Contains(err.Error(), "`claude -c sleep 30") {
		t.Fatalf("err = %v, want the command named as a claude command that did not finish", err)
	}
	pid, perr := strconv.Atoi(strings.TrimSpace(string(out)))
	if perr != nil {
		t.Fatalf("output %q: want the child's pid", out)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || strings.Contains(string(stat), ") Z ") {
			return // gone, or dead and not yet reaped
		}
		if time.Now().After(deadline) {
			t.Fatalf("the shell's child %d outlived the command: %s", pid, stat)
		}
	}
}
