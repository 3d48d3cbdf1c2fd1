//go:build unix

package clitest

import (
	"errors"
	"os/exec"
	"syscall"
)

// SetGroup makes cmd the leader of a new process group.
func SetGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// KillGroup sends SIGKILL to the command's process group.
func KillGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// SignalGroup sends sig to the command's process group, ignoring a group already gone.
func SignalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, sig)
	}
}

// KillPID sends SIGKILL to pid, for tests that inject a crash.
func KillPID(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }
