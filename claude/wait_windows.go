//go:build windows

package claude

import "golang.org/x/sys/windows"

// waitExited blocks until the process pid has exited, without reaping it:
// exec.Cmd keeps a handle to the process until Wait, so the pid cannot be
// reused before then.
func waitExited(pid int) error {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	_, err = windows.WaitForSingleObject(h, windows.INFINITE)
	return err
}
