package claude

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// pacedBlocks, pacedHold: the "paced_blocks" scenario streams pacedBlocks
// text blocks of pacedDeltas deltas each, every delta in a write of its
// own as the CLI writes them. It stops until the host sends another user
// message twice: in the first block after pacedHold deltas, and after the
// second block's start.
const (
	pacedBlocks = 3
	pacedDeltas = 300
	pacedHold   = 20
)

func init() {
	scenarios["paced_blocks"] = func(f *fake) int {
		if !f.handshake() {
			return 1
		}
		return f.serve(func(fr frame) {
			for b := range pacedBlocks {
				f.send(fmt.Sprintf(`{"type":"stream_event","event":{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}},"session_id":"s"}`, b))
				if b == 1 {
					if _, ok := f.next(time.Minute); !ok {
						return
					}
				}
				for d := range pacedDeltas {
					if b == 0 && d == pacedHold {
						if _, ok := f.next(time.Minute); !ok {
							return
						}
					}
					f.send(fmt.Sprintf(`{"type":"stream_event","event":{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":"%s"}},"session_id":"s"}`, b, pacedText(b, d)))
				}
				f.send(fmt.Sprintf(`{"type":"stream_event","event":{"type":"content_block_stop","index":%d},"session_id":"s"}`, b))
			}
			f.result("paced", false)
		})
	}
}

func pacedText(block, delta int) string { return fmt.Sprintf("b%dd%d;", block, delta) }

// TestPacedStreamArrivesWholeAndInOrder: while the reader paces a block
// (its reads wait out of the poller), every delta arrives, once, in the
// order written; Pacing says so once a block has streamed unpacedDeltas
// deltas and no longer once the block is over.
func TestPacedStreamArrivesWholeAndInOrder(t *testing.T) {
	t.Parallel()
	for _, pace := range []time.Duration{0, 5 * time.Millisecond} {
		t.Run(fmt.Sprint("pace=", pace), func(t *testing.T) {
			p := startFake(t, "paced_blocks", Options{DeltaPace: pace})
			sendText(t, p, "go")
			var got, want strings.Builder
			for b := range pacedBlocks {
				for d := range pacedDeltas {
					want.WriteString(pacedText(b, d))
				}
			}
			deltas := 0
			for {
				m := next(t, p)
				if m.Type == "result" {
					break
				}
				ev, ok := m.Body.(*StreamEvent)
				if !ok {
					continue
				}
				switch ev.Event.Type {
				case "content_block_start":
					if ev.Event.Index == 1 {
						// The CLI waits: the reader has handled block
						// 0's stop.
						if p.Pacing() {
							t.Error("Pacing after a block stopped")
						}
						sendText(t, p, "more")
					}
				case "content_block_delta":
					got.WriteString(ev.Event.Delta.Text)
					if deltas++; ev.Event.Index == 0 && deltas == pacedHold {
						// The CLI waits: the reader has handled all but
						// the last of these deltas.
						if !p.Pacing() {
							t.Errorf("not Pacing after %d deltas of a block", pacedHold)
						}
						sendText(t, p, "more")
					}
				}
			}
			if got.String() != want.String() {
				t.Errorf("deltas: got %d bytes, want %d; first difference at byte %d",
					got.Len(), want.Len(), firstDiff(got.String(), want.String()))
			}
		})
	}
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// pauses records a deltaPacer's requests for a pause.
type pauses struct{ n int }

func (p *pauses) Pause(time.Duration) { p.n++ }

// TestPacerNeverHoldsABlocksFirstDeltas: the first unpacedDeltas deltas of
// a block, and so the first chunk of every answer, are read as they come;
// after them a read that finds nothing buffered waits, and one that finds
// more does not; any other frame ends the pacing.
func TestPacerNeverHoldsABlocksFirstDeltas(t *testing.T) {
	pp := &pauses{}
	p := &Process{}
	dp := deltaPacer{p: p, pipe: pp, pause: time.Millisecond}
	for block := range 2 {
		dp.saw(false, 0) // content_block_start
		for i := 1; i < unpacedDeltas; i++ {
			dp.saw(true, 0)
		}
		if pp.n != 0 || p.Pacing() {
			t.Fatalf("block %d: %d pauses, Pacing %v within its first %d deltas", block, pp.n, p.Pacing(), unpacedDeltas-1)
		}
		dp.saw(true, 100) // more buffered: read on
		if pp.n != 0 || !p.Pacing() {
			t.Fatalf("block %d: %d pauses, Pacing %v with more buffered", block, pp.n, p.Pacing())
		}
		dp.saw(true, 0)
		if pp.n != 1 {
			t.Fatalf("block %d: %d pauses after a streamed delta with nothing buffered, want 1", block, pp.n)
		}
		dp.saw(false, 0) // content_block_stop
		if p.Pacing() {
			t.Fatalf("block %d: Pacing after its stop", block)
		}
		pp.n = 0
	}
	// Without a pipe to pause (a Child's stream), nothing paces.
	p = &Process{}
	dp = deltaPacer{p: p}
	for range 2 * unpacedDeltas {
		dp.saw(true, 0)
	}
	if p.Pacing() {
		t.Error("Pacing without a pipe")
	}
}
