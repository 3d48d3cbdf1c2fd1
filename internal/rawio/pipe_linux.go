package rawio

import (
	"io"
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Pipe returns a pipe for a child's output: w is the child's end, a
// blocking descriptor as a child expects its stdout to be; r reads ours
// with raw system calls and can stop listening for a while ([PipeReader.Pause]).
//
// Why: the CLI writes every streamed delta with a write of its own, and
// once a pipe has been polled the kernel wakes its poller at every write,
// whether or not the reader waits for input: a wait in the runtime's
// poller was a wake-up of the agent's thread per delta (a Go timer in
// place of the wait changes nothing, the poller is woken all the same).
// So r's descriptor is not in the runtime's poller: an epoll instance of
// r's own watches it, and that instance is in the runtime's poller
// (nested epoll). Pause takes the descriptor out of its interest for the
// pause: what the CLI writes meanwhile wakes nobody, and the next read
// takes all of it. Outside a pause the nesting costs no system call:
// the pipe's wake-up passes through r's instance to the runtime's poller.
func Pipe() (r *PipeReader, w *os.File, err error) {
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	w = os.NewFile(uintptr(fds[1]), "|1")
	if r, ok := newPipeReader(fds[0]); ok {
		return r, w, nil
	}
	// No epoll of our own: the read end as os.Pipe's is, in the poller.
	if err := unix.SetNonblock(fds[0], true); err != nil {
		unix.Close(fds[0])
		w.Close()
		return nil, nil, os.NewSyscallError("fcntl", err)
	}
	f := os.NewFile(uintptr(fds[0]), "|0")
	return &PipeReader{file: f, plain: NewReader(f)}, w, nil
}

// A PipeReader is the read end of a [Pipe].
type PipeReader struct {
	// Without an epoll of its own, file is the read end and plain reads
	// it (NewReader); the rest is unused.
	file  *os.File
	plain io.Reader

	fd   int             // the read end: non-blocking, outside the runtime's poller
	ep   *os.File        // the epoll instance watching fd, in the runtime's poller
	epfd int             // ep's descriptor
	rc   syscall.RawConn // ep's

	// mu keeps Close from closing fd or ep under a raw call; behind it,
	// whether fd is in ep's interest (listening) and whether it is closed.
	mu        sync.Mutex
	listening bool
	closed    bool

	pause time.Duration // the next Read waits this long first (Pause)

	// The one read in progress, as reader's: no closure per Read.
	b     []byte
	n     int
	errno syscall.Errno
	call  func(fd uintptr) bool // r.read, made once
}

// newPipeReader watches fd with an epoll instance of its own, which goes
// into the runtime's poller; false if any of it fails.
func newPipeReader(fd int) (*PipeReader, bool) {
	if unix.SetNonblock(fd, true) != nil {
		return nil, false
	}
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, false
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP}
	if unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, fd, &ev) != nil || unix.SetNonblock(epfd, true) != nil {
		unix.Close(epfd)
		return nil, false
	}
	// A non-blocking descriptor goes into the runtime's poller, where
	// deadlines work: they fail for a file outside it.
	ep := os.NewFile(uintptr(epfd), "epoll")
	rc, err := ep.SyscallConn()
	if err != nil || ep.SetReadDeadline(time.Time{}) != nil {
		ep.Close()
		return nil, false
	}
	r := &PipeReader{fd: fd, ep: ep, epfd: epfd, rc: rc, listening: true}
	r.call = r.read
	return r, true
}

// Pause makes the next Read wait d before it reads, without listening for
// input meanwhile: whatever is written during the pause wakes nobody and
// is read at once after it. A Pause made before an earlier one was used
// replaces it. Read and Pause are not for concurrent use.
func (r *PipeReader) Pause(d time.Duration) {
	if r.ep != nil {
		r.pause = d
	}
}

// Read reads what the pipe holds, waiting in the runtime's poller for
// input when it holds nothing (after the pause, if one was asked for).
// It is not for concurrent use.
func (r *PipeReader) Read(b []byte) (int, error) {
	if r.ep == nil {
		return r.plain.Read(b)
	}
	if len(b) == 0 {
		return 0, nil
	}
	if d := r.pause; d > 0 {
		r.pause = 0
		r.mu.Lock()
		r.listen(false)
		r.mu.Unlock()
		time.Sleep(d)
	}
	r.b, r.n, r.errno = b, 0, 0
	err := r.rc.Read(r.call)
	n, errno := r.n, r.errno
	r.b = nil
	switch {
	case err != nil:
		return 0, err
	case errno != 0:
		return 0, &os.PathError{Op: "read", Path: "|0", Err: errno}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// read is the raw read of r.b; false asks the poller to wait until r's
// epoll instance reports input, which it does only while listening. So a
// read that finds nothing while not listening (after a pause) puts the
// pipe back into the instance's interest and reads once more before it
// waits: input written between the empty read and the change woke
// nobody, and the change itself may not either (the kernel wakes the
// instance's pollers on that change only when the pipe is not already on
// its ready list, where it stays from an earlier wake-up, since nobody
// calls epoll_wait on the instance). Without the second read, a CLI that
// filled the pipe in that moment waited on its write and the agent on
// the poller, for good (seen once in a few runs of the suite's stuck-client
// test, on a loaded machine).
func (r *PipeReader) read(uintptr) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		r.errno = syscall.EBADF
		return true
	}
	b := r.b
	for {
		m, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(r.fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			if r.listening {
				return false // any input from now on wakes the poller
			}
			if hookNotListening != nil {
				hookNotListening()
			}
			if r.listen(true) {
				continue
			}
			return false
		}
		r.n, r.errno = int(m), e
		return true
	}
}

// hookNotListening, when set (by tests), runs when a read found nothing
// while the pipe was out of its instance's interest, before it goes back in.
var hookNotListening func()

// listen puts the pipe into its epoll instance's interest or takes it
// out; r.mu is held. Out of it, the pipe reports a hang-up only (epoll
// always does): a write wakes nobody.
// It reports whether it changed anything.
func (r *PipeReader) listen(on bool) bool {
	if r.closed || r.listening == on {
		return false
	}
	var ev unix.EpollEvent
	if on {
		ev.Events = unix.EPOLLIN | unix.EPOLLRDHUP
	}
	if unix.EpollCtl(r.epfd, unix.EPOLL_CTL_MOD, r.fd, &ev) != nil {
		return false
	}
	r.listening = on
	return true
}

// SetReadDeadline sets the deadline of Read's wait for input.
func (r *PipeReader) SetReadDeadline(t time.Time) error {
	if r.ep == nil {
		return r.file.SetReadDeadline(t)
	}
	return r.ep.SetReadDeadline(t)
}

// Close closes the read end; a Read waiting for input returns an error.
func (r *PipeReader) Close() error {
	if r.ep == nil {
		return r.file.Close()
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return os.ErrClosed
	}
	r.closed = true
	r.mu.Unlock()
	err := r.ep.Close() // wakes a Read waiting in the poller
	if e := unix.Close(r.fd); err == nil && e != nil {
		err = os.NewSyscallError("close", e)
	}
	return err
}
