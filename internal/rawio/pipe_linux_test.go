package rawio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func newPipe(t *testing.T) (*PipeReader, *os.File) {
	t.Helper()
	r, w, err := Pipe()
	if err != nil {
		t.Fatal(err)
	}
	if r.ep == nil {
		t.Fatal("Pipe fell back to os.Pipe: no epoll of its own")
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// TestPipeReadsWaitsAndEnds: the pipe's reader returns what was written,
// waits in the poller for more, honours its read deadline and reports EOF
// once the writer is gone; the writer's end is blocking, as a child's
// stdout must be.
func TestPipeReadsWaitsAndEnds(t *testing.T) {
	r, w := newPipe(t)
	if flags, err := unix.FcntlInt(w.Fd(), unix.F_GETFL, 0); err != nil || flags&unix.O_NONBLOCK != 0 {
		t.Errorf("the child's end: flags %#x, %v; want blocking", flags, err)
	}
	go func() {
		time.Sleep(20 * time.Millisecond) // the first read waits for this
		w.Write([]byte("hello\n"))
	}()
	buf := make([]byte, 64)
	n, err := r.Read(buf)
	if err != nil || string(buf[:n]) != "hello\n" {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	r.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
	if _, err := r.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Read past the deadline: %v, want a deadline error", err)
	}
	r.SetReadDeadline(time.Time{})
	w.Write([]byte("bye\n"))
	w.Close()
	if n, err := r.Read(buf); err != nil || string(buf[:n]) != "bye\n" {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	if _, err := r.Read(buf); err != io.EOF {
		t.Fatalf("Read after the writer closed: %v, want EOF", err)
	}
}

// TestPipePauseStopsListening: during a pause the pipe is out of its
// epoll instance's interest (so a write wakes nobody: /proc's fdinfo of
// the instance shows the pipe without EPOLLIN), what was written
// meanwhile is read once the pause is over, and the next wait for input
// listens again.
func TestPipePauseStopsListening(t *testing.T) {
	r, w := newPipe(t)
	const pause = 50 * time.Millisecond
	type result struct {
		s   string
		err error
		at  time.Time
	}
	got := make(chan result, 1)
	r.Pause(pause)
	start := time.Now()
	go func() {
		buf := make([]byte, 64)
		n, err := r.Read(buf)
		got <- result{string(buf[:n]), err, time.Now()}
	}()
	waitFor(t, "the pipe out of the epoll's interest", func() bool { return !epollListens(t, r) })
	if _, err := w.Write([]byte("during\n")); err != nil {
		t.Fatal(err)
	}
	res := <-got
	if res.err != nil || res.s != "during\n" {
		t.Fatalf("Read = %q, %v", res.s, res.err)
	}
	if d := res.at.Sub(start); d < pause {
		t.Errorf("the read returned %v after the pause began, before its end (%v)", d, pause)
	}
	go func() {
		buf := make([]byte, 64)
		n, err := r.Read(buf)
		got <- result{string(buf[:n]), err, time.Now()}
	}()
	waitFor(t, "the pipe back in the epoll's interest", func() bool { return epollListens(t, r) })
	w.Write([]byte("after\n"))
	if res := <-got; res.err != nil || res.s != "after\n" {
		t.Fatalf("Read = %q, %v", res.s, res.err)
	}
}

// TestPipeCloseEndsAWaitingRead: Close wakes a Read that waits for input.
func TestPipeCloseEndsAWaitingRead(t *testing.T) {
	r, _ := newPipe(t)
	done := make(chan error, 1)
	go func() {
		_, err := r.Read(make([]byte, 8))
		done <- err
	}()
	waitFor(t, "the read waiting", func() bool { return epollListens(t, r) })
	r.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("Read after Close succeeded")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not end the waiting Read")
	}
	if err := r.Close(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("a second Close: %v, want ErrClosed", err)
	}
}

// TestPipeReadAllocatesNothing: a read of the pipe, a pause included,
// allocates nothing (a relayed chunk's budget is one allocation).
func TestPipeReadAllocatesNothing(t *testing.T) {
	r, w := newPipe(t)
	line, buf := []byte("a chunk\n"), make([]byte, 64)
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := w.Write(line); err != nil {
			t.Fatal(err)
		}
		r.Pause(time.Microsecond)
		if n, err := r.Read(buf); err != nil || n != len(line) {
			t.Fatalf("Read = %d, %v", n, err)
		}
	})
	if allocs != 0 {
		t.Errorf("a paused read allocates %v times, want 0", allocs)
	}
}

// epollListens reports whether r's epoll instance watches the pipe for
// input, from /proc/self/fdinfo.
func epollListens(t *testing.T, r *PipeReader) bool {
	t.Helper()
	info, err := os.ReadFile(fmt.Sprintf("/proc/self/fdinfo/%d", r.epfd))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(info)) {
		f := strings.Fields(line)
		if len(f) >= 4 && f[0] == "tfd:" && f[1] == strconv.Itoa(r.fd) && f[2] == "events:" {
			ev, err := strconv.ParseUint(f[3], 16, 32)
			if err != nil {
				t.Fatalf("fdinfo: %q", line)
			}
			return ev&unix.EPOLLIN != 0
		}
	}
	t.Fatalf("fdinfo of the epoll lacks the pipe:\n%s", info)
	return false
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// TestPipeReadsWhatCameWhileItWasNotListening: after a pause, a read that
// finds the pipe empty goes back to listening; what was written between
// that empty read and the change is read, not waited for. The kernel does
// not wake the poller for it when the pipe is still on the epoll
// instance's ready list from an earlier write, which the first steps
// arrange: a write while listening, the runtime's poller given time to
// take its wake-up, then a read of it. Before the fix the Read waited
// until its deadline, with the input in the pipe.
func TestPipeReadsWhatCameWhileItWasNotListening(t *testing.T) {
	r, w := newPipe(t)
	buf := make([]byte, 64)
	if _, err := w.Write([]byte("first\n")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // the poller takes the wake-up, the pipe still full
	if n, err := r.Read(buf); err != nil || string(buf[:n]) != "first\n" {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	hookNotListening = func() {
		if _, err := w.Write([]byte("second\n")); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(func() { hookNotListening = nil })
	r.Pause(time.Millisecond)
	r.SetReadDeadline(time.Now().Add(2 * time.Second))
	n, err := r.Read(buf)
	if err != nil || string(buf[:n]) != "second\n" {
		t.Fatalf("Read = %q, %v: what came while the pipe was out of the epoll's interest was not read", buf[:n], err)
	}
}
