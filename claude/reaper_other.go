//go:build !unix

package claude

import (
	"os"
	"os/exec"
)

const reaperSupported = false

func runReaper(args []string) int { return 127 }

func cliCommand(exe string, args []string) (*exec.Cmd, *os.File, error) {
	cmd := exec.Command(exe, args...)
	setProcessGroup(cmd)
	return cmd, nil, nil
}
