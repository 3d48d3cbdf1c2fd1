package acp

import (
	"runtime/debug"
	"sync"
	"time"
)

// DefaultFreeMemoryAfter is the frame size from which a connection hands
// freed memory back to the operating system once the frame is handled.
const DefaultFreeMemoryAfter = 8 << 20

// Go's runtime keeps the heap it grew for a huge frame (the line, its
// decoded copies, the handler's work) until its periodic GC and the
// background scavenger return it, which takes minutes: an agent that was
// sent one 60 MiB prompt would hold ~400 MiB for that long. So after a
// frame of at least Options.FreeMemoryAfter bytes is read, and again after
// a request that large has been answered, the connection schedules a
// debug.FreeOSMemory (a forced GC that returns the freed pages) a moment
// later, off the reading and writing paths, at most once per
// freeMemoryGap for the whole process.
const (
	freeMemoryDelay = 250 * time.Millisecond // lets the handler's goroutine drop the frame first
	freeMemoryGap   = time.Second
)

var freeMemory struct {
	mu      sync.Mutex
	pending bool
	last    time.Time
}

// freeMemorySoon schedules a debug.FreeOSMemory, coalescing with one
// already scheduled.
func freeMemorySoon() {
	freeMemory.mu.Lock()
	defer freeMemory.mu.Unlock()
	if freeMemory.pending {
		return
	}
	freeMemory.pending = true
	d := freeMemoryDelay
	if wait := time.Until(freeMemory.last.Add(freeMemoryGap)); wait > d {
		d = wait
	}
	time.AfterFunc(d, func() {
		freeMemory.mu.Lock()
		freeMemory.pending = false // a frame handled from now on schedules another run
		freeMemory.last = time.Now()
		freeMemory.mu.Unlock()
		// Twice: a buffer parked in a sync.Pool (encoding/json keeps its
		// encoder's, however large) survives one GC in the pool's victim
		// cache and is dropped by the second.
		debug.FreeOSMemory()
		debug.FreeOSMemory()
	})
}

// bigFrame reports whether a frame of size bytes should give its memory
// back once handled.
func (c *Conn) bigFrame(size int64) bool {
	limit := c.opts.FreeMemoryAfter
	if limit == 0 {
		limit = DefaultFreeMemoryAfter
	}
	return limit > 0 && size >= int64(limit)
}
