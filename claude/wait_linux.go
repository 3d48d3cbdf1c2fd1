package claude

import (
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// waitExited blocks until the process pid has exited, without reaping it.
// While an exited child is not reaped its pid, and so its process group id,
// cannot be reused; that makes it safe to kill the rest of the group after
// the leader is gone.
//
// It waits in the runtime's poller on a pidfd, which becomes readable when
// the process exits, and only falls back to a blocking waitid where pidfds
// are missing (Linux before 5.3) or cannot be polled.
//
// Why not a blocking waitid: a goroutine in a blocking system call keeps
// its P until the runtime's monitor takes it back, and the agent runs on
// one P (cmd/claude-agent-acp, oneThread) with the monitor mostly asleep
// (internal/rawio): every CLI start stalled the whole agent for the
// monitor's next two ticks, up to 20 ms, in the middle of a session/load
// replay or a first prompt (issue 16; BENCHMARKS.md, fifth round).
func waitExited(pid int) error {
	if err := waitExitedPolled(pid); err == nil {
		return nil
	}
	return waitExitedBlocking(pid)
}

// waitExitedPolled waits for pid's exit on a pidfd in the poller; an error
// means it could not, not that the process is alive.
func waitExitedPolled(pid int) error {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return err
	}
	// Non-blocking, so that os.NewFile puts the descriptor in the poller.
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return err
	}
	f := os.NewFile(uintptr(fd), "pidfd")
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var werr error
	err = rc.Read(func(fd uintptr) bool {
		exited, err := exitedNow(unix.P_PIDFD, int(fd))
		werr = err
		return exited || err != nil
	})
	if err != nil { // the poller does not take this descriptor
		return err
	}
	return werr
}

// exitedNow asks, without waiting, whether the process named by (idtype,
// id) has exited, leaving it unreaped.
func exitedNow(idtype, id int) (bool, error) { return waitidNoReap(idtype, id, false) }

// waitExitedBlocking is waitExited with a blocking waitid.
func waitExitedBlocking(pid int) error {
	_, err := waitidNoReap(unix.P_PID, pid, true)
	return err
}

// waitidNoReap is waitid(WEXITED|WNOWAIT) of (idtype, id): it reports
// whether the process has exited, leaving it unreaped. With wait it blocks
// until then (a system call the runtime accounts); without, it asks once
// (WNOHANG, a raw call that cannot block).
func waitidNoReap(idtype, id int, wait bool) (bool, error) {
	var info [128]byte // siginfo_t; si_signo stays 0 while nothing has exited
	call, opts := syscall.RawSyscall6, syscall.WEXITED|unix.WNOWAIT|syscall.WNOHANG
	if wait {
		call, opts = syscall.Syscall6, syscall.WEXITED|unix.WNOWAIT
	}
	for {
		_, _, errno := call(syscall.SYS_WAITID, uintptr(idtype), uintptr(id),
			uintptr(unsafe.Pointer(&info[0])), uintptr(opts), 0, 0)
		switch errno {
		case 0:
			return *(*int32)(unsafe.Pointer(&info[0])) == int32(syscall.SIGCHLD), nil
		case syscall.EINTR:
			continue
		default:
			return false, errno
		}
	}
}
