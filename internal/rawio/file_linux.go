package rawio

import (
	"io"
	"os"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// NewFileReaderAt returns a ReaderAt of the regular file f that reads what
// the page cache holds with raw system calls, and only the rest through f.
//
// Why: a read through os.File is a blocking-style system call, and with
// one thread (the agent's default) the runtime's monitor hands the
// thread's work to another thread whenever one lasts over 20 µs, then
// polls every 20 µs for a while. A replay reads a transcript of megabytes
// in windows of 256 KiB, each read longer than that: the hand-offs and the
// polling were a tenth of the replay's CPU in a real agent process. A
// transcript was just written by the CLI, so it is nearly always cached,
// and preadv2 with RWF_NOWAIT copies cached bytes without ever waiting for
// the disk (it fails with EAGAIN instead), so it may be a raw call. What
// is not cached is read through f, as before.
func NewFileReaderAt(f *os.File) io.ReaderAt {
	rc, err := f.SyscallConn()
	if err != nil || noWait.Load() {
		return f
	}
	return &fileReaderAt{f: f, rc: rc}
}

// noWait is set once the kernel or a file system refuses RWF_NOWAIT
// reads (before Linux 4.14, or a file system without them): later files
// are read through os.File alone.
var noWait atomic.Bool

// rawReads counts the bytes read by raw calls, for the tests.
var rawReads atomic.Int64

type fileReaderAt struct {
	f  *os.File
	rc syscall.RawConn
}

func (r *fileReaderAt) ReadAt(b []byte, off int64) (int, error) {
	n := 0
	if len(b) > 0 && off >= 0 && !noWait.Load() {
		// Control holds a reference to the descriptor, so a concurrent
		// Close cannot reuse it under the call.
		_ = r.rc.Control(func(fd uintptr) {
			for n < len(b) {
				iov := syscall.Iovec{Base: &b[n]}
				iov.SetLen(len(b) - n)
				pos := uint64(off) + uint64(n)
				// preadv2 takes the offset as two longs, low and high
				// (the high one is 0 on 64-bit systems).
				lo, hi := uintptr(pos), uintptr(pos>>(8*unsafe.Sizeof(uintptr(0))-1)>>1)
				m, _, e := syscall.RawSyscall6(unix.SYS_PREADV2, fd, uintptr(unsafe.Pointer(&iov)), 1, lo, hi, unix.RWF_NOWAIT)
				switch e {
				case 0:
					if m == 0 {
						return // the end of the file: f says so below
					}
					n += int(m)
					rawReads.Add(int64(m))
					continue
				case syscall.EINTR:
					continue
				case syscall.ENOSYS, syscall.EOPNOTSUPP:
					noWait.Store(true)
				}
				return // EAGAIN (not cached) or an error: f reads the rest
			}
		})
	}
	if n == len(b) {
		return n, nil
	}
	m, err := r.f.ReadAt(b[n:], off+int64(n))
	return n + m, err
}
