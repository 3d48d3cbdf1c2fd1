package agent

import (
	"os"
	"runtime"
	"sync"
)

// The agent's binary runs its Go code on one thread (cmd/claude-agent-acp:
// relaying is hand-offs between goroutines, cheapest on one thread). A
// replay is the exception: a long run of work in one goroutine, done
// while the session's CLI starts (node, several busy threads). It gets a
// second thread for its duration, so that the garbage collector works
// beside it rather than in its place, and the replay keeps its share of a
// machine the CLI's start-up keeps busy. Nothing changes where GOMAXPROCS
// was set by the environment, or is above one already.
var threads struct {
	mu     sync.Mutex
	users  int
	raised bool
}

// moreThreads raises GOMAXPROCS to two, if it is one by default, until
// every caller has called the function it returns.
func moreThreads() (restore func()) {
	threads.mu.Lock()
	defer threads.mu.Unlock()
	if threads.users == 0 && runtime.GOMAXPROCS(0) == 1 && runtime.NumCPU() > 1 && os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(2)
		threads.raised = true
	}
	threads.users++
	var once sync.Once
	return func() {
		once.Do(func() {
			threads.mu.Lock()
			defer threads.mu.Unlock()
			if threads.users--; threads.users == 0 && threads.raised {
				runtime.GOMAXPROCS(1)
				threads.raised = false
			}
		})
	}
}
