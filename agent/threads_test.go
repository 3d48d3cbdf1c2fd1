package agent

import (
	"os"
	"runtime"
	"testing"
)

// TestMoreThreads: on one thread by default, replays (however many at
// once) get a second one, and the last to finish gives it back; a
// GOMAXPROCS the environment set is left alone.
func TestMoreThreads(t *testing.T) {
	if runtime.NumCPU() < 2 || os.Getenv("GOMAXPROCS") != "" {
		t.Skip("needs two CPUs and no GOMAXPROCS in the environment")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	a, b := moreThreads(), moreThreads()
	if n := runtime.GOMAXPROCS(0); n != 2 {
		t.Fatalf("during replays GOMAXPROCS = %d, want 2", n)
	}
	a()
	a() // twice is once
	if n := runtime.GOMAXPROCS(0); n != 2 {
		t.Fatalf("one replay still running: GOMAXPROCS = %d, want 2", n)
	}
	b()
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Fatalf("after the replays GOMAXPROCS = %d, want 1", n)
	}
	runtime.GOMAXPROCS(4)
	moreThreads()()
	if n := runtime.GOMAXPROCS(0); n != 4 {
		t.Fatalf("GOMAXPROCS 4 became %d", n)
	}
}
