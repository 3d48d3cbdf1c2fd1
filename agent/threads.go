package agent

import (
	"os"
	"runtime"
	"sync"
)

// loadThreads lets a session/load's replay use a second thread while it
// runs. The agent's Go code runs on one thread (cmd/claude-agent-acp:
// relaying a streamed chunk is a few microseconds of work, and a second,
// idle thread woken at every hand-off costs more than it does), but a
// replay is the opposite: thousands of records read, decoded, translated
// and written back to back, with the CLI not yet started
// (replayHeadStart). With two threads the transcript is read and decoded
// ahead of the translation (transcript.Reader.RecordsAhead), and the
// history reaches the editor sooner by about a quarter. When the last load
// ends, the agent goes back to the number of threads it had.
//
// Nothing changes when the environment sets GOMAXPROCS (the user chose),
// when the machine has one CPU, or when the agent already runs on more
// than one thread.
var loadThreads struct {
	sync.Mutex
	loads int // replays running
	saved int // the GOMAXPROCS to go back to, or 0: nothing was changed
}

// widenForLoad gives the running replay a second thread (see loadThreads)
// and returns the function that gives it back; calling it more than once
// is harmless. ahead says whether this replay should read ahead
// (transcript.Reader.RecordsAhead): only one at a time does. Read-ahead
// keeps about 2 MiB of records in flight, and an editor that reopens a
// hundred sessions at once must not multiply that by a hundred; a second
// reader would find no free core anyway.
func widenForLoad() (restore func(), ahead bool) {
	lt := &loadThreads
	lt.Lock()
	defer lt.Unlock()
	ahead = lt.loads == 0
	if ahead && os.Getenv("GOMAXPROCS") == "" && runtime.NumCPU() >= 2 && runtime.GOMAXPROCS(0) == 1 {
		lt.saved = runtime.GOMAXPROCS(2)
	}
	lt.loads++
	return sync.OnceFunc(func() {
		lt.Lock()
		defer lt.Unlock()
		if lt.loads--; lt.loads == 0 && lt.saved > 0 {
			runtime.GOMAXPROCS(lt.saved)
			lt.saved = 0
		}
	}), ahead
}
