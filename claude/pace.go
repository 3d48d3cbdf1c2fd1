package claude

import (
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/internal/rawio"
)

// DefaultDeltaPace is Options.DeltaPace's default: while a block streams,
// the reader takes the CLI's output at most about once a millisecond.
const DefaultDeltaPace = time.Millisecond

// unpacedDeltas is how many deltas in a row are read as they come before
// the reader paces them: a short answer, and the start of every block,
// never waits.
const unpacedDeltas = 8

// A deltaPacer paces the reading of a streamed block (issue 38).
//
// Why: the CLI writes each delta of a streamed answer with a write of its
// own, 10 to 20 a millisecond, and each write woke the agent, which then
// relayed that one delta: a wake-up, a read, a write to the editor and,
// when the editor was waiting for input, the editor's own wake-up, which
// on a busy machine preempts the agent and costs it another. How many
// deltas a wake-up carried depended on who else wanted the CPUs: 2.5 µs
// of the agent's CPU per delta beside the bench's fast client, 8 to 14
// beside a client that parses each line in Python. Once a block has
// streamed unpacedDeltas deltas, the reader waits DeltaPace before each
// read that finds nothing buffered, out of the pipe's poller
// (rawio.PipeReader.Pause), and then takes everything the CLI wrote
// meanwhile in one read: a wake-up per millisecond instead of one per
// delta, whatever the client does. A delta waits a millisecond at most;
// the first ones of a block, and whatever follows a pause that has ended,
// do not wait.
type deltaPacer struct {
	p     *Process
	pipe  pauser // nil: never pauses
	pause time.Duration
	run   int  // deltas read in a row
	on    bool // what p.pacing says
}

// A pauser is a pipe whose next read can wait first without listening
// (rawio.PipeReader).
type pauser interface{ Pause(time.Duration) }

var _ pauser = (*rawio.PipeReader)(nil)

func (p *Process) deltaPacer() deltaPacer {
	d := p.opts.DeltaPace
	if d == 0 {
		d = DefaultDeltaPace
	}
	if d < 0 || p.outPipe == nil {
		return deltaPacer{p: p}
	}
	return deltaPacer{p: p, pipe: p.outPipe, pause: d}
}

// saw notes a line the reader handled, whether it was a delta, and how
// many bytes its buffer holds after it; it asks for a pause before the
// next read of the pipe once the block streams and nothing is buffered.
func (dp *deltaPacer) saw(delta bool, buffered int) {
	if !delta {
		dp.run = 0
		dp.set(false)
		return
	}
	dp.run++
	if dp.pipe == nil || dp.run < unpacedDeltas {
		return
	}
	dp.set(true)
	if buffered == 0 {
		dp.pipe.Pause(dp.pause)
	}
}

// set tells p.Pacing whether the reader paces a block now.
func (dp *deltaPacer) set(on bool) {
	if dp.on != on {
		dp.on = on
		dp.p.pacing.Store(on)
	}
}

// Pacing reports whether the reader paces the deltas of a streamed block
// now: the frames queued meanwhile waited on purpose, and a consumer may
// join them (a text's deltas into one chunk) without holding anything
// back that would have gone out alone.
func (p *Process) Pacing() bool { return p.pacing.Load() }
