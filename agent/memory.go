package agent

import (
	"os"
	"runtime/debug"
	"sync"
	"time"
)

// Memory after a huge load. A replay holds what it reads only for as long
// as it translates it, but the Go runtime keeps the heap it grew for it
// until its periodic collection and the background scavenger return it,
// which takes minutes; during a load the collector also runs at a raised
// GOGC (threads.go), so the heap grows to several times what lives. After
// loading a transcript that holds one 100 MiB message the agent kept
// ~510 MiB for minutes, session/close or not. So a load of a transcript of
// at least freeAfterLoad bytes ends with a debug.FreeOSMemory a moment
// later (a forced collection that returns the freed pages), as the
// connection does after a huge frame (acp/memory.go): at most once a
// second, coalesced, off the load's path. A GOGC of "off" in the
// environment is the user's choice and is left alone (FreeOSMemory would
// collect anyway).
const (
	freeAfterLoad     = 8 << 20 // as acp.DefaultFreeMemoryAfter
	freeAfterLoadWait = 250 * time.Millisecond
	freeAfterLoadGap  = time.Second
)

var loadMemory struct {
	sync.Mutex
	pending bool
	last    time.Time
}

// freeMemoryAfterLoad schedules the return of a load's memory when the
// transcript at path was large.
func freeMemoryAfterLoad(path string) {
	fi, err := os.Stat(path)
	if err != nil || fi.Size() < freeAfterLoad || os.Getenv("GOGC") == "off" {
		return
	}
	lm := &loadMemory
	lm.Lock()
	defer lm.Unlock()
	if lm.pending {
		return
	}
	lm.pending = true
	d := max(freeAfterLoadWait, time.Until(lm.last.Add(freeAfterLoadGap)))
	time.AfterFunc(d, func() {
		lm.Lock()
		lm.pending, lm.last = false, time.Now()
		lm.Unlock()
		// Twice: what a sync.Pool parked (an encoder's buffer as large as
		// the biggest update) survives one collection in the pool's victim
		// cache.
		debug.FreeOSMemory()
		debug.FreeOSMemory()
	})
}
