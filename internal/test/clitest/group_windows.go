//go:build windows

package clitest

import (
	"errors"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// The harness does not run on Windows (it reads /proc to find strays); these
// keep it compiling there. Without process groups, only the CLI itself is
// stopped.

// SetGroup does nothing on Windows.
func SetGroup(cmd *exec.Cmd) {}

// KillGroup terminates the command's process.
func KillGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	if err := cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}

func SignalGroup(cmd *exec.Cmd, sig syscall.Signal) { _ = KillGroup(cmd) }

// KillPID terminates pid, for tests that inject a crash.
func KillPID(pid int) error {
	h, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	return windows.TerminateProcess(h, 137)
}
