//go:build unix

package claude

import (
	"os/exec"
	"syscall"
)

// setProcessGroup makes the CLI the leader of a new process group, so that
// signalling the group reaches every process it started (MCP servers, tool
// shells) and nothing outlives the session.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends sig to the process group led by pid. A group that no
// longer exists is not an error.
func signalGroup(pid int, sig syscall.Signal) {
	_ = syscall.Kill(-pid, sig)
}
