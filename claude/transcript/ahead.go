package transcript

import (
	"fmt"
	"iter"
)

// Read-ahead bounds: a batch is handed over when it holds aheadRecords
// records or aheadBytes bytes of lines, whichever comes first, and at most
// aheadBatches batches wait for the consumer. What is in flight is
// therefore at most (aheadBatches+2) batches: a few hundred KiB of
// records, however long the transcript.
const (
	aheadRecords = 64
	aheadBytes   = 512 << 10
	aheadBatches = 2
	// The first batch is small, so that the consumer starts at once.
	aheadFirst = 4
)

// aheadBatch is one hand-over from the reading goroutine.
type aheadBatch struct {
	recs []*Record
	err  error // after recs: the read failed, and the sequence ends
}

// RecordsAhead is Records with the reading and decoding done on a
// goroutine of its own, a few batches ahead of the loop: while the loop
// translates and sends one record, the next ones are read and decoded, so
// that on two cores a replay takes about as long as the slower of the two
// halves instead of their sum. The records, their order, the skipped lines
// and the errors are those of Records.
//
// The Reader belongs to that goroutine until the loop is over (it has
// ended when the range statement returns, however it ended): the loop's
// body must not call the Reader's other methods. A panic while decoding
// (a bug) ends the sequence with an error instead of the process.
func (r *Reader) RecordsAhead() iter.Seq2[*Record, error] {
	return func(yield func(*Record, error) bool) {
		full := make(chan aheadBatch, aheadBatches)
		free := make(chan []*Record, aheadBatches+2)
		stop := make(chan struct{})
		done := make(chan struct{})
		go r.readAhead(full, free, stop, done)
		defer func() {
			close(stop)
			<-done
		}()
		for b := range full {
			for i, rec := range b.recs {
				b.recs[i] = nil // the loop owns the record now
				if !yield(rec, nil) {
					return
				}
			}
			if b.err != nil {
				yield(nil, b.err)
				return
			}
			select {
			case free <- b.recs[:0]:
			default:
			}
		}
	}
}

// readAhead is RecordsAhead's goroutine: it decodes the branch into
// batches until the end, an error, or stop.
func (r *Reader) readAhead(full chan<- aheadBatch, free <-chan []*Record, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	defer close(full)
	send := func(b aheadBatch) bool {
		select {
		case full <- b:
			return true
		case <-stop:
			return false
		}
	}
	defer func() {
		if p := recover(); p != nil {
			send(aheadBatch{err: fmt.Errorf("transcript: decoding a record failed: %v", p)})
		}
	}()
	limit := aheadFirst
	recs := make([]*Record, 0, aheadRecords)
	bytes := 0
	for _, sp := range r.chain {
		rec, err := r.read(sp.off, sp.n, inOrder)
		if err != nil {
			send(aheadBatch{recs: recs, err: err})
			return
		}
		if rec == nil {
			continue
		}
		recs = append(recs, rec)
		if bytes += int(sp.n); len(recs) < limit && bytes < aheadBytes {
			continue
		}
		if !send(aheadBatch{recs: recs}) {
			return
		}
		limit, bytes = aheadRecords, 0
		select {
		case recs = <-free:
		default:
			recs = make([]*Record, 0, aheadRecords)
		}
	}
	if len(recs) > 0 {
		send(aheadBatch{recs: recs})
	}
}
