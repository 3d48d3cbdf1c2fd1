package bench

import (
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// ownThreadCPU is the CPU time the calling thread has used (the goroutine
// must be locked to its thread for the difference of two readings to mean
// anything).
func ownThreadCPU() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return time.Duration(time.Now().UnixNano())
	}
	return time.Duration(ts.Nano())
}

// blockingPipe is a pipe whose read end is read with blocking read(2)
// calls on the calling thread, as CPython's file objects read: the reader
// sleeps in the kernel and the writer's write wakes it directly, where
// an os.File's read waits in the Go runtime's poller. The write end is for
// a child's stdout.
func blockingPipe() (r io.ReadCloser, w *os.File, err error) {
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_CLOEXEC); err != nil {
		return nil, nil, err
	}
	return &blockingReader{fd: fds[0]}, os.NewFile(uintptr(fds[1]), "|1"), nil
}

type blockingReader struct {
	fd   int
	once sync.Once
}

func (b *blockingReader) Read(p []byte) (int, error) {
	for {
		n, err := unix.Read(b.fd, p)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (b *blockingReader) Close() error {
	b.once.Do(func() { _ = unix.Close(b.fd) })
	return nil
}
