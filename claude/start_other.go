//go:build !windows

package claude

import (
	"os/exec"

	"github.com/claude-agent-acp/claude-agent-acp/internal/batchsched"
)

// startProcess starts cmd (prepared by setProcessGroup), on the locked
// thread when it carries a parent-death signal (pdeathsig_linux.go). On
// Windows it also puts the process into its job object (sys_windows.go).
func startProcess(cmd *exec.Cmd) error { return startOnLockedThread(cmd) }

// runProcess is cmd.Run, with the child on the default scheduling policy
// (internal/batchsched).
func runProcess(cmd *exec.Cmd) error {
	if err := batchsched.Start(cmd.Start); err != nil {
		return err
	}
	return cmd.Wait()
}
