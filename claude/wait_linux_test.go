package claude

import (
	"os/exec"
	"testing"

	"golang.org/x/sys/unix"
)

// TestWaitExitedLeavesTheChildUnreaped: both ways of waitExited (the
// pidfd in the poller, and the blocking waitid it falls back to) return
// once the child has exited and leave it to be reaped by cmd.Wait, which
// then reports its status.
func TestWaitExitedLeavesTheChildUnreaped(t *testing.T) {
	for name, wait := range map[string]func(int) error{"polled": waitExitedPolled, "blocking": waitExitedBlocking} {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command("sh", "-c", "sleep 0.05; exit 3")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if err := wait(cmd.Process.Pid); err != nil {
				t.Fatalf("wait: %v", err)
			}
			if exited, err := exitedNow(unix.P_PID, cmd.Process.Pid); err != nil || !exited {
				t.Fatalf("after the wait, exitedNow = %v, %v; want an exited, unreaped child", exited, err)
			}
			err := cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != 3 {
				t.Fatalf("cmd.Wait = %v, exit code %d; want 3", err, code)
			}
		})
	}
}
