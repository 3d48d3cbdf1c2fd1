//go:build !windows

package claude

import "os/exec"

// startProcess starts cmd (prepared by setProcessGroup), on the locked
// thread when it carries a parent-death signal (pdeathsig_linux.go). On
// Windows it also puts the process into its job object (sys_windows.go).
func startProcess(cmd *exec.Cmd) error { return startOnLockedThread(cmd) }

// runProcess is startProcess followed by cmd.Wait.
func runProcess(cmd *exec.Cmd) error { return cmd.Run() }
