package transcript

import (
	"fmt"
	"iter"
)

// Read-ahead bounds: a batch is handed over when it holds aheadRecords
// records or aheadBytes bytes of lines, whichever comes first, and at most
// aheadBatches batches wait for the consumer. What is in flight is
// therefore at most aheadBatches+2 batches (the ones waiting, the one
// being read, the one being replayed): about 2 MiB of lines and their
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
		stop := make(chan struct{})
		done := make(chan struct{})
		go r.readAhead(full, stop, done)
		defer func() {
			close(stop)
			<-done
		}()
		for b := range full {
			for _, rec := range b.recs {
				if !yield(rec, nil) {
					return
				}
			}
			if b.err != nil {
				yield(nil, b.err)
				return
			}
		}
	}
}

// readAhead is RecordsAhead's goroutine: it decodes the branch into
// batches until the end, an error, or stop.
func (r *Reader) readAhead(full chan<- aheadBatch, stop <-chan struct{}, done chan<- struct{}) {
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
	limit, size := aheadFirst, 0
	var recs []*Record
	r.branch(func(rec *Record, n int32, err error) bool {
		if err != nil {
			send(aheadBatch{recs: recs, err: err})
			return false
		}
		recs = append(recs, rec)
		if size += int(n); len(recs) < limit && size < aheadBytes {
			return true
		}
		if !send(aheadBatch{recs: recs}) {
			return false
		}
		recs, limit, size = nil, aheadRecords, 0
		return true
	})
	if len(recs) > 0 {
		send(aheadBatch{recs: recs})
	}
}
