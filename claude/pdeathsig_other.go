//go:build !linux

package claude

import "os/exec"

// setParentDeathSignal: only Linux has a parent-death signal; elsewhere the
// reaper alone ties the CLI's life to the agent's.
func setParentDeathSignal(cmd *exec.Cmd) {}

func startOnLockedThread(cmd *exec.Cmd) error { return cmd.Start() }
