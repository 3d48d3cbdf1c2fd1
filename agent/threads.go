package agent

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
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
//
// The garbage collector runs less often during a load, too (loadGCPercent).
var loadThreads struct {
	sync.Mutex
	loads   int // replays running
	saved   int // the GOMAXPROCS to go back to, or 0: nothing was changed
	savedGC int // the GOGC to go back to, or 0: nothing was changed
}

// loadGCPercent is the collector's GOGC while a replay runs, in place of
// the default 100. A replay allocates about 5 KB per message (records,
// tool output put in fences, encoded updates) that is garbage a moment
// later, on a heap that holds a megabyte or two that lives: at 100 the
// collector ran six times during the load of a 2,800-message transcript,
// each time taking much of one of the two threads, and slowing the other
// with its write barriers and assists. At 400 the heap may grow to 16 MiB
// before the first collection (the runtime's minimum heap grows with
// GOGC) and to five times what lives after it, so a load of a few thousand
// messages runs without one: beside the real CLI, 12.25 µs per message
// instead of 15.6 (medians of 12 alternating pairs; 200 gave 13.6, 800
// 11.8 for twice the heap). More of the heap is touched for the first time, about
// 2,300 more page faults in a fresh agent, which the collector's absence
// more than pays for. When the last load ends the setting goes back and
// the next allocation collects the replay's garbage.
//
// What it costs is bounded: on a heap where more lives (many sessions
// open), the percentage is lowered so that the load's heap may grow at
// most loadGCHeadroom past what GOGC=100 allows (loadGC).
//
// A GOGC set in the environment is the user's choice and is kept.
const (
	loadGCPercent  = 400
	loadGCHeadroom = 24 << 20
)

// loadGC returns the GOGC for a load: loadGCPercent, or less on a heap
// where more than loadGCHeadroom/3 lived after the last collection.
func loadGC() int {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	live := s[0].Value.Uint64() // 0 before the first collection
	if live == 0 {
		return loadGCPercent
	}
	return int(min(loadGCPercent, 100+100*loadGCHeadroom/live))
}

// raiseGCPercent sets GOGC to gc if that raises it and returns the value
// to go back to, or 0 if nothing changed: a collector the program already
// set to run as seldom (or not at all) is left so.
func raiseGCPercent(gc int) (saved int) {
	if gc <= 100 {
		return 0
	}
	old := debug.SetGCPercent(gc)
	if old >= 0 && old < gc {
		return old
	}
	debug.SetGCPercent(old)
	return 0
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
	if ahead && os.Getenv("GOGC") == "" {
		lt.savedGC = raiseGCPercent(loadGC())
	}
	lt.loads++
	return sync.OnceFunc(func() {
		lt.Lock()
		defer lt.Unlock()
		if lt.loads--; lt.loads > 0 {
			return
		}
		if lt.saved > 0 {
			runtime.GOMAXPROCS(lt.saved)
			lt.saved = 0
		}
		if lt.savedGC > 0 {
			debug.SetGCPercent(lt.savedGC)
			lt.savedGC = 0
		}
	}), ahead
}
