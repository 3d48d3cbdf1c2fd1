//go:build unix

package claude

import (
	"os/exec"
	"syscall"
	"testing"
)

// newSession makes cmd leave the fake's process group (and session).
func newSession(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }

// wineFlake is for the Windows tests under Wine (platform_windows_test.go).
func wineFlake(error) bool { return false }

// tempDir is t.TempDir (see platform_windows_test.go for why it exists).
func tempDir(t *testing.T) string { return t.TempDir() }
