package claude

import (
	"syscall"
	"unsafe"
)

// waitExited blocks until the process pid has exited, without reaping it.
// While an exited child is not reaped its pid, and so its process group id,
// cannot be reused; that makes it safe to kill the rest of the group after
// the leader is gone.
func waitExited(pid int) error {
	const (
		pPID    = 1          // P_PID
		wNoWait = 0x01000000 // WNOWAIT
	)
	var info [128]byte // siginfo_t
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid),
			uintptr(unsafe.Pointer(&info[0])), syscall.WEXITED|wNoWait, 0, 0)
		switch errno {
		case 0:
			return nil
		case syscall.EINTR:
			continue
		default:
			return errno
		}
	}
}
