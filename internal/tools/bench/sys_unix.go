//go:build unix

package bench

import (
	"os/exec"
	"syscall"
)

// setGroup makes cmd the leader of a new process group.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup ends the process group the harness created for a child.
func killGroup(pid int) {
	if pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}

// killPID sends SIGKILL to pid.
func killPID(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }
