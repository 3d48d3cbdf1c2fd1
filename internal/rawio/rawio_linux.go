package rawio

import (
	"io"
	"os"
	"sync"
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
	return newReader(f, rc)
}

type reader struct {
	f  *os.File
	rc syscall.RawConn
	// The one read in progress: its buffer and what the system call
	// gave. They live here, not in a closure made per Read, so a read
	// allocates nothing (one allocation per relayed chunk saved).
	b     []byte
	n     int
	errno syscall.Errno
	call  func(fd uintptr) bool // r.read, made once
}

func newReader(f *os.File, rc syscall.RawConn) *reader {
	r := &reader{f: f, rc: rc}
	r.call = r.read
	return r
}

// Read is not for concurrent use (nor is an os.File's, in practice: the
// bytes of two concurrent reads interleave).
func (r *reader) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	r.b, r.n, r.errno = b, 0, 0
	err := r.rc.Read(r.call)
	n, errno := r.n, r.errno
	r.b = nil
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

// read is the raw read of r.b; false asks the poller to wait until fd is
// readable.
func (r *reader) read(fd uintptr) bool {
	b := r.b
	for {
		m, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		r.n, r.errno = int(m), e
		return true
	}
}

// NewStdout returns a writer of the descriptor of f (the process's standard
// output) that writes with raw system calls, if the descriptor is a pipe or
// a socket: the descriptor is made non-blocking, and restore makes it
// blocking again for whoever shares it after us and ends the writer (its
// duplicate descriptor is closed; later writes fail). restore never waits
// for a write: a write waiting for a reader that stopped reading fails.
// For anything else (a terminal, a file) it returns f and a restore that
// does nothing. Nothing else may write to the descriptor meanwhile through
// a blocking *os.File (os.Stdout): such a write would fail with EAGAIN
// when the pipe is full.
func NewStdout(f *os.File) (w io.Writer, restore func()) {
	nf, ok := takeOver(f)
	if !ok {
		return f, func() {}
	}
	if nf.kind == syscall.S_IFIFO {
		growPipe(nf.fd)
	}
	rc, _ := nf.SyscallConn()
	wr := newWriter(nf.File, rc)
	end := nf.restore
	return wr, func() {
		if wr.ended.CompareAndSwap(false, true) {
			end()
		}
	}
}

// NewStdin returns a reader of the descriptor of f (the process's standard
// input) that waits for input in the runtime's poller and reads with raw
// system calls, if the descriptor is a pipe or a socket; restore makes the
// descriptor blocking again and ends the reader (a read waiting for input
// returns an error). For anything else it returns f and a restore that
// does nothing. Nothing else may read the descriptor meanwhile through a
// blocking *os.File (os.Stdin).
//
// Why: a blocking read keeps the goroutine's P until the runtime's
// monitor takes it back. The agent runs on one P with the monitor mostly
// asleep, and reads its standard input again the moment a message is
// handed on, so the work that message started waited up to two monitor
// ticks (up to 20 ms) behind the idle read. And an editor that gives us
// one socket as both standard input and output (socat's EXEC, a
// socketpair) shares one non-blocking flag between them: NewStdout's made
// a blocking-style read of standard input fail with EAGAIN at once.
func NewStdin(f *os.File) (r io.Reader, restore func()) {
	nf, ok := takeOver(f)
	if !ok {
		return f, func() {}
	}
	return NewReader(nf.File), nf.restore
}

// A takenFile is a duplicate, in the runtime's poller, of a standard
// stream's descriptor that takeOver made non-blocking.
type takenFile struct {
	*os.File
	once    sync.Once
	fd      int    // the original descriptor
	kind    uint32 // its file type: syscall.S_IFIFO or S_IFSOCK
	wasNonb bool
}

// restore closes the duplicate (which wakes a read or write waiting in
// the poller instead of waiting for it) and only then gives the original
// descriptor its blocking mode back. It runs once.
func (t *takenFile) restore() {
	t.once.Do(func() {
		_ = t.File.Close()
		_ = syscall.SetNonblock(t.fd, t.wasNonb)
	})
}

// takeOver prepares the descriptor of f, if it is a pipe or a socket, for
// raw non-blocking I/O: it makes the descriptor non-blocking (the flag is
// the open file description's, shared with every duplicate) and returns
// its own duplicate (close-on-exec) in the runtime's poller, so that the
// poller can take it whoever else holds the original: os.NewFile puts a
// non-blocking descriptor in the poller.
func takeOver(f *os.File) (*takenFile, bool) {
	fd := -1
	if rc, err := f.SyscallConn(); err == nil {
		// Control, not f.Fd: Fd would make a polled descriptor blocking.
		_ = rc.Control(func(d uintptr) { fd = int(d) })
	}
	kind, ok := fileKind(fd)
	if !ok || (kind != syscall.S_IFIFO && kind != syscall.S_IFSOCK) {
		return nil, false
	}
	dup, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD_CLOEXEC, 0)
	if errno != 0 {
		return nil, false
	}
	wasNonblocking := isNonblocking(fd)
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(int(dup))
		return nil, false
	}
	osf := os.NewFile(dup, f.Name())
	rc, err := osf.SyscallConn()
	if err != nil || !nonblocking(rc) {
		osf.Close()
		_ = syscall.SetNonblock(fd, wasNonblocking)
		return nil, false
	}
	return &takenFile{File: osf, fd: fd, kind: kind, wasNonb: wasNonblocking}, true
}

// fileKind is the file type bits of descriptor fd.
func fileKind(fd int) (uint32, bool) {
	var st syscall.Stat_t
	if fd < 0 || syscall.Fstat(fd, &st) != nil {
		return 0, false
	}
	return st.Mode & syscall.S_IFMT, true
}

// A writer writes to a non-blocking descriptor with raw system calls,
// waiting in the poller while it is full. The caller serializes writes
// (acp.Conn does).
type writer struct {
	f     *os.File
	rc    syscall.RawConn
	ended atomic.Bool
	// The one write in progress, as reader's read: no closure per Write.
	b     []byte
	done  int
	errno syscall.Errno
	call  func(fd uintptr) bool // w.write, made once
}

func newWriter(f *os.File, rc syscall.RawConn) *writer {
	w := &writer{f: f, rc: rc}
	w.call = w.write
	return w
}

func (w *writer) Write(b []byte) (int, error) {
	if w.ended.Load() {
		return 0, &os.PathError{Op: "write", Path: w.f.Name(), Err: os.ErrClosed}
	}
	w.b, w.done, w.errno = b, 0, 0
	defer func() { w.b = nil }()
	for w.done < len(b) {
		if err := w.rc.Write(w.call); err != nil {
			return w.done, err
		}
		if w.errno != 0 {
			return w.done, &os.PathError{Op: "write", Path: w.f.Name(), Err: w.errno}
		}
	}
	return w.done, nil
}

// write writes what is left of w.b; false asks the poller to wait until
// fd is writable.
func (w *writer) write(fd uintptr) bool {
	b := w.b
	for w.done < len(b) {
		m, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[w.done])), uintptr(len(b)-w.done))
		switch e {
		case 0:
			w.done += int(m)
			continue
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		w.errno = e
		return true
	}
	return true
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
