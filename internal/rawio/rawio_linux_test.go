package rawio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func pipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// blockingPipe is a pipe of blocking descriptors outside the runtime's
// poller, as the agent's stdout is (os.Stdout).
func blockingPipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	r, w = os.NewFile(uintptr(fds[0]), "r"), os.NewFile(uintptr(fds[1]), "stdout")
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// TestReaderReadsWaitsAndEnds: the raw reader returns what was written,
// waits in the poller for more, honours the file's read deadline and
// reports EOF once the writer is gone.
func TestReaderReadsWaitsAndEnds(t *testing.T) {
	r, w := pipe(t)
	rd := NewReader(r)
	if _, ok := rd.(*reader); !ok {
		t.Fatalf("NewReader(pipe) = %T, want the raw reader", rd)
	}
	go func() {
		time.Sleep(20 * time.Millisecond) // the first read waits for this
		w.Write([]byte("hello\n"))
	}()
	buf := make([]byte, 64)
	n, err := rd.Read(buf)
	if err != nil || string(buf[:n]) != "hello\n" {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	r.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
	if _, err := rd.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Read past the deadline: %v, want a deadline error", err)
	}
	r.SetReadDeadline(time.Time{})
	w.Write([]byte("last"))
	w.Close()
	got, err := io.ReadAll(rd)
	if err != nil || string(got) != "last" {
		t.Fatalf("ReadAll = %q, %v; want the rest and EOF", got, err)
	}
}

// TestStdoutWritesAllToASlowReader: a write far larger than the pipe's
// buffer, to a reader that takes its time, arrives whole and in order (the
// writer waits in the poller whenever the pipe is full), and restore makes
// the descriptor blocking again.
func TestStdoutWritesAllToASlowReader(t *testing.T) {
	r, w := blockingPipe(t)
	out, restore := NewStdout(w)
	if _, ok := out.(*writer); !ok {
		t.Fatalf("NewStdout(pipe) = %T, want the raw writer", out)
	}
	if !isNonblock(t, w) {
		t.Fatal("the pipe is still blocking")
	}
	want := bytes.Repeat([]byte("0123456789abcdef"), 1<<18) // 4 MiB: more than the grown pipe holds
	got := make(chan []byte)
	go func() {
		var b bytes.Buffer
		buf := make([]byte, 4096)
		for {
			time.Sleep(50 * time.Microsecond)
			n, err := r.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		got <- b.Bytes()
	}()
	for i := 0; i < len(want); i += 300 << 10 {
		if n, err := out.Write(want[i:min(i+300<<10, len(want))]); err != nil || n != min(300<<10, len(want)-i) {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	restore()
	if isNonblock(t, w) {
		t.Error("restore left the pipe non-blocking")
	}
	w.Close()
	if b := <-got; !bytes.Equal(b, want) {
		t.Fatalf("the reader got %d bytes, want %d, the same", len(b), len(want))
	}
}

// TestStdoutGrowsThePipe: the editor's pipe gets a buffer of pipeSize
// (where the system allows it), so that a replay's bursts of 256 KiB go
// out in one write.
func TestStdoutGrowsThePipe(t *testing.T) {
	_, w := blockingPipe(t)
	_, restore := NewStdout(w)
	defer restore()
	rc, err := w.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var size uintptr
	var e syscall.Errno
	_ = rc.Control(func(fd uintptr) { size, _, e = syscall.RawSyscall(syscall.SYS_FCNTL, fd, unix.F_GETPIPE_SZ, 0) })
	if e != 0 {
		t.Fatal(e)
	}
	max, err := os.ReadFile("/proc/sys/fs/pipe-max-size")
	if err == nil && strings.TrimSpace(string(max)) != "" {
		if m, _ := strconv.Atoi(strings.TrimSpace(string(max))); m < pipeSize {
			t.Skipf("the system allows pipes of %d bytes", m)
		}
	}
	if size < pipeSize {
		t.Errorf("the pipe holds %d bytes, want %d", size, pipeSize)
	}
}

// TestStdoutBrokenPipe: a write to a pipe nobody reads fails with EPIPE
// (the agent ignores SIGPIPE and shuts down on the error).
func TestStdoutBrokenPipe(t *testing.T) {
	r, w := blockingPipe(t)
	out, restore := NewStdout(w)
	defer restore()
	r.Close()
	if _, err := out.Write([]byte("x")); !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("Write to a broken pipe: %v, want EPIPE", err)
	}
}

// TestStdioLeavesFilesAlone: a regular file (output redirected to a
// file, input from one) is written or read as it is, and left blocking.
func TestStdioLeavesFilesAlone(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out, restore := NewStdout(f)
	defer restore()
	if out != io.Writer(f) {
		t.Fatalf("NewStdout(regular file) = %T, want the file itself", out)
	}
	in, restoreIn := NewStdin(f)
	defer restoreIn()
	if in != io.Reader(f) {
		t.Fatalf("NewStdin(regular file) = %T, want the file itself", in)
	}
}

func isNonblock(t *testing.T, f *os.File) bool {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	return nonblocking(rc)
}

// TestRestoreDoesNotWaitForAStuckWrite: the editor stopped reading and the
// pipe is full; the agent's exit path (restore, then exit) must not wait
// for the write, which fails instead.
func TestRestoreDoesNotWaitForAStuckWrite(t *testing.T) {
	_, w := blockingPipe(t) // nobody reads
	out, restore := NewStdout(w)
	failed := make(chan error, 1)
	go func() {
		_, err := out.Write(make([]byte, 4*pipeSize)) // far past the pipe's buffer
		failed <- err
	}()
	time.Sleep(50 * time.Millisecond) // the write is waiting for room now
	restored := make(chan struct{})
	go func() { restore(); close(restored) }()
	select {
	case <-restored:
	case <-time.After(5 * time.Second):
		t.Fatal("restore waited for a write that cannot finish")
	}
	select {
	case err := <-failed:
		if err == nil {
			t.Error("the stuck write reported success")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the stuck write did not end")
	}
}

// TestStdinWaitsInThePollerAndRestores: a blocking pipe given as stdin is
// read through the poller (its reads wait there, not in a blocking read),
// and restore makes it blocking again and ends a read that waits.
func TestStdinWaitsInThePollerAndRestores(t *testing.T) {
	r, w := blockingPipe(t)
	in, restore := NewStdin(r)
	if _, ok := in.(*reader); !ok {
		t.Fatalf("NewStdin(pipe) = %T, want the raw reader", in)
	}
	if !isNonblock(t, r) {
		t.Fatal("while in use, the pipe should be non-blocking")
	}
	go func() {
		time.Sleep(20 * time.Millisecond)
		w.Write([]byte("{}\n"))
	}()
	buf := make([]byte, 64)
	if n, err := in.Read(buf); err != nil || string(buf[:n]) != "{}\n" {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	waiting := make(chan error, 1)
	go func() {
		_, err := in.Read(buf)
		waiting <- err
	}()
	time.Sleep(20 * time.Millisecond) // the read waits in the poller
	restore()
	select {
	case err := <-waiting:
		if err == nil {
			t.Error("a read waiting at restore should fail")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("restore left a read waiting")
	}
	if isNonblock(t, r) {
		t.Error("restore left the pipe non-blocking")
	}
	restore() // a second call does nothing
}

// TestReadWriteAllocateNothing: a raw read or write of a ready descriptor
// allocates nothing. Relaying a streamed chunk is one of each, so a
// closure made per call was two allocations per chunk (issue 16).
func TestReadWriteAllocateNothing(t *testing.T) {
	r, w := pipe(t)
	rd := NewReader(r)
	if _, ok := rd.(*reader); !ok {
		t.Fatalf("NewReader(pipe) = %T, want the raw reader", rd)
	}
	wr := newWriter(w, mustRawConn(t, w))
	line, buf := []byte("a chunk\n"), make([]byte, 64)
	allocs := testing.AllocsPerRun(200, func() {
		if _, err := wr.Write(line); err != nil {
			t.Fatal(err)
		}
		if n, err := rd.Read(buf); err != nil || n != len(line) {
			t.Fatalf("Read = %d, %v", n, err)
		}
	})
	if allocs != 0 {
		t.Errorf("a write and a read allocate %v times, want 0", allocs)
	}
}

func mustRawConn(t *testing.T, f *os.File) syscall.RawConn {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	return rc
}
