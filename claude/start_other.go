//go:build !windows

package claude

import "os/exec"

// startProcess starts cmd (prepared by setProcessGroup). On Windows it also
// puts the process into its job object (sys_windows.go).
func startProcess(cmd *exec.Cmd) error { return cmd.Start() }

// runProcess is startProcess followed by cmd.Wait.
func runProcess(cmd *exec.Cmd) error { return cmd.Run() }
