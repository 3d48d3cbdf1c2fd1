package agent

import (
	"testing"
	"time"
)

// TestPollLoopNeverRunsAfterStop: a poll function that closes its own stop
// (the foreground-command watcher does, once it has found the command's
// file) is not called again, though the next tick is already waiting when
// it returns. select picks at random between a tick and a closed stop, so
// without the check on the session goroutine about half of these loops
// called it once more (in make test: close of a closed channel).
func TestPollLoopNeverRunsAfterStop(t *testing.T) {
	t.Parallel()
	do := func(fn func()) bool { fn(); return true }
	for i := range 200 {
		stop, quit := make(chan struct{}), make(chan struct{})
		tick := make(chan time.Time, 1)
		calls := 0
		tick <- time.Time{}
		pollLoop(stop, quit, tick, do, func() {
			calls++
			close(stop)
			tick <- time.Time{} // the next tick came while fn ran
		})
		if calls != 1 {
			t.Fatalf("loop %d: fn ran %d times, want 1", i, calls)
		}
	}
}
