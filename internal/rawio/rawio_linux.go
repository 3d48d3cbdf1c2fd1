package rawio

import (
	"io"
	"os"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// NewReader returns a reader of f that reads with raw system calls if f is
// a non-blocking descriptor in the runtime's poller (as os.Pipe's ends
// are), and f itself otherwise. Deadlines set on f still apply.
func NewReader(f *os.File) io.Reader {
	rc, err := f.SyscallConn()
	if err != nil || !nonblocking(rc) {
		return f
	}
	return &reader{f: f, rc: rc}
}

type reader struct {
	f  *os.File
	rc syscall.RawConn
}

func (r *reader) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	var n int
	var errno syscall.Errno
	err := r.rc.Read(func(fd uintptr) bool {
		for {
			m, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
			switch e {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false
			}
			n, errno = int(m), e
			return true
		}
	})
	switch {
	case err != nil:
		return 0, err
	case errno != 0:
		return 0, &os.PathError{Op: "read", Path: r.f.Name(), Err: errno}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// NewStdout returns a writer of the descriptor of f (the process's standard
// output) that writes with raw system calls, if the descriptor is a pipe or
// a socket: the descriptor is made non-blocking, and restore makes it
// blocking again for whoever shares it after us and ends the writer (its
// duplicate descriptor is closed; later writes fail). restore never waits
// for a write: a write waiting for a reader that stopped reading fails. For anything else (a terminal, a file) it returns f
// and a restore that does nothing. Nothing else may write to the
// descriptor meanwhile through a blocking *os.File (os.Stdout): such a
// write would fail with EAGAIN when the pipe is full.
func NewStdout(f *os.File) (w io.Writer, restore func()) {
	fd := -1
	if rc, err := f.SyscallConn(); err == nil {
		// Control, not f.Fd: Fd would make a polled descriptor blocking.
		_ = rc.Control(func(d uintptr) { fd = int(d) })
	}
	var st syscall.Stat_t
	if fd < 0 || syscall.Fstat(fd, &st) != nil {
		return f, func() {}
	}
	if kind := st.Mode & syscall.S_IFMT; kind != syscall.S_IFIFO && kind != syscall.S_IFSOCK {
		return f, func() {}
	}
	// The writer's own duplicate of the descriptor (close-on-exec), so
	// that the poller can take it whoever else holds the original: os.NewFile
	// puts a non-blocking descriptor in the poller.
	dup, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD_CLOEXEC, 0)
	if errno != 0 {
		return f, func() {}
	}
	wasNonblocking := isNonblocking(fd)
	if err := syscall.SetNonblock(fd, true); err != nil { // the flag is the description's: dup's too
		syscall.Close(int(dup))
		return f, func() {}
	}
	if st.Mode&syscall.S_IFMT == syscall.S_IFIFO {
		growPipe(fd)
	}
	nf := os.NewFile(dup, f.Name())
	rc, err := nf.SyscallConn()
	if err != nil || !nonblocking(rc) {
		nf.Close()
		_ = syscall.SetNonblock(fd, wasNonblocking)
		return f, func() {}
	}
	wr := &writer{f: nf, rc: rc}
	return wr, func() {
		if wr.ended.CompareAndSwap(false, true) {
			// Close first: it wakes a write waiting for room (a reader
			// that stopped reading) instead of waiting for it, and only
			// then may the descriptor block again.
			_ = wr.f.Close()
			_ = syscall.SetNonblock(fd, wasNonblocking)
		}
	}
}

// A writer writes to a non-blocking descriptor with raw system calls,
// waiting in the poller while it is full. The caller serializes writes
// (acp.Conn does).
type writer struct {
	f     *os.File
	rc    syscall.RawConn
	ended atomic.Bool
}

func (w *writer) Write(b []byte) (int, error) {
	if w.ended.Load() {
		return 0, &os.PathError{Op: "write", Path: w.f.Name(), Err: os.ErrClosed}
	}
	done := 0
	var errno syscall.Errno
	for done < len(b) {
		err := w.rc.Write(func(fd uintptr) bool {
			for done < len(b) {
				m, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[done])), uintptr(len(b)-done))
				switch e {
				case 0:
					done += int(m)
					continue
				case syscall.EINTR:
					continue
				case syscall.EAGAIN:
					return false
				}
				errno = e
				return true
			}
			return true
		})
		if err != nil {
			return done, err
		}
		if errno != 0 {
			return done, &os.PathError{Op: "write", Path: w.f.Name(), Err: errno}
		}
	}
	return done, nil
}

// pipeSize is the buffer NewStdout asks for on the editor's pipe: the
// most an unprivileged process may set by default
// (/proc/sys/fs/pipe-max-size).
const pipeSize = 1 << 20

// growPipe enlarges a pipe's buffer to pipeSize, if the system lets it.
//
// Why: a replay writes its history in bursts of up to 256 KiB (acp.Conn's
// Hold). Linux gives a pipe 64 KiB, so each burst took four or more
// rounds of write, wait for the editor to read, wake up. The buffer's
// pages are taken only while they hold unread bytes, and a live turn's
// chunks, written one at a time, never fill even the default buffer.
// When the editor reads slower than the agent writes, a full buffer still
// holds the agent back, as before, only later.
func growPipe(fd int) {
	size, _, e := syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(fd), unix.F_GETPIPE_SZ, 0)
	if e != 0 || size >= pipeSize {
		return
	}
	// Refused past the user's pipe quota or the system's maximum: the
	// pipe keeps its size.
	_, _, _ = syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(fd), unix.F_SETPIPE_SZ, pipeSize)
}

// isNonblocking reports whether a descriptor is non-blocking.
func isNonblocking(fd int) bool {
	flags, _, e := syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFL, 0)
	return e == 0 && flags&syscall.O_NONBLOCK != 0
}

// nonblocking reports whether the descriptor behind rc is non-blocking, so
// that a raw read or write of it cannot block the thread.
func nonblocking(rc syscall.RawConn) bool {
	ok := false
	_ = rc.Control(func(fd uintptr) {
		ok = isNonblocking(int(fd))
	})
	return ok
}
