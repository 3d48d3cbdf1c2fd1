package claude

import "sync"

// Recycle tells the package that the caller is done with m, a frame it
// received from Messages or TryMessage, and keeps nothing of it: not Raw,
// not its Body, not one string of the Body (they share Raw's bytes). The
// storage of m may then hold a later frame. Only the streamed deltas the
// reader decoded on its fast path have such storage; for any other frame
// Recycle does nothing. Recycle a frame at most once, and never a copy of
// it that is still in use.
//
// Why: a long answer is thousands of deltas, each a fresh 768-byte
// allocation that the garbage collector must find and free, and that
// first grows the heap into pages the kernel has to fault in (about 1,300
// faults in a turn of 20,000 deltas, each several microseconds on a VM).
// A consumer that relays a delta and forgets it, as the agent's session
// does, can hand it back, and a streaming turn then runs in the few
// frames that are in flight at once (issue 16: CPU per relayed chunk).
//
// In a build with the race detector, a recycled frame is scribbled over
// first, so that a string kept by mistake shows up as garbage in tests
// instead of as a rare corruption in use.
func Recycle(m Message) {
	switch f := m.storage.(type) {
	case *frame768:
		if scribbleRecycled {
			scribble(f.line[:], &f.decodedStreamEvent)
		}
		frames768.Put(f)
	case *frame1024:
		if scribbleRecycled {
			scribble(f.line[:], &f.decodedStreamEvent)
		}
		frames1024.Put(f)
	}
}

// frames768 and frames1024 hold recycled frames. A pool, not a list of
// our own: the reader takes frames on its goroutine while the consumer
// gives them back on another, and a pool's per-P caches make both a few
// nanoseconds without a lock; what the pool holds when the collector runs
// is freed, so a burst that needed many frames does not keep them.
var frames768, frames1024 sync.Pool

// getFrame768 is a zeroed frame768, recycled if one is at hand.
func getFrame768() *frame768 {
	if f, _ := frames768.Get().(*frame768); f != nil {
		f.decodedStreamEvent = decodedStreamEvent{}
		return f
	}
	return new(frame768)
}

// getFrame1024 is getFrame768's twin for longer lines.
func getFrame1024() *frame1024 {
	if f, _ := frames1024.Get().(*frame1024); f != nil {
		f.decodedStreamEvent = decodedStreamEvent{}
		return f
	}
	return new(frame1024)
}

// scribble overwrites a recycled frame: every byte of its line becomes
// '#', which any string kept from it then reads, and its decoded frame
// gets poison values in place of its fields.
func scribble(line []byte, f *decodedStreamEvent) {
	for i := range line {
		line[i] = '#'
	}
	*f = decodedStreamEvent{}
	f.ev.Type, f.ev.Event.Type = "recycled", "recycled"
	f.dl.Type = "recycled"
}
