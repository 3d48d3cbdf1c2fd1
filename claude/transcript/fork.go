package transcript

import (
	"bufio"
	"errors"
	"io"
)

// Forks. The CLI started with --fork-session writes a new transcript that
// begins with a copy of its source's records (new session id, same
// uuids), then goes on with the fork's own. The copied assistant records
// name the session that made their request, the source, as
// requestSessionId (inherited); the fork's own records do not. The CLI
// also keeps writing the source's last prompt as the fork's (last-prompt),
// so that the fork would be titled by an older prompt of its source. A
// fork is titled by its own first prompt instead (forkTitle), the first
// prompt after the last copied record.
//
// The copy can be megabytes long, and session/list reads only a
// transcript's head and tail. ownFirstPrompt finds the end of the copy by
// bisection: a copied assistant line lies before it, an own one after, so
// each probe halves the range, and a listing reads a few windows of a
// fork, however long its source was.

// maxProbe bounds how far one probe reads forward for an assistant line:
// a turn's attachments can be large, but not this large.
const maxProbe = 4 << 20

// ownFirstPrompt returns the first prompt of the fork in ra (size bytes)
// after the records it copied from its source, or "" when it has none.
func ownFirstPrompt(ra io.ReaderAt, size int64) string {
	lo, hi := int64(0), size // the copy ends in [lo, hi]; lo is a line start
	for hi-lo > liteReadSize && narrow(ra, size, &lo, &hi) {
	}
	own, pending := "", true
	eachLineFrom(ra, lo, size, false, func(start, _ int64, s *scanner, line []byte) bool {
		switch t := &s.vals[fType]; {
		case t.is(TypeAssistant) && inherited(s):
			own, pending = "", true
		case t.is(TypeUser) && pending && line != nil && !s.isTrue(fIsMeta) && !s.isTrue(fIsCompactSummary) && !s.isTrue(fIsSidechain):
			if rec, err := decodeRecord(line); err == nil {
				if p, _ := firstPrompt(rec); p != "" {
					own, pending = p, false
				}
			}
		}
		return pending || start < hi // a copied line may follow until hi
	})
	return own
}

// narrow is one probe of the bisection: the first assistant line from the
// middle of [lo, hi] on says on which side of it the copy ends. It reports
// false when the probe cannot tell (no line starts in the range's second
// half, or none of the first maxProbe bytes is an assistant line).
func narrow(ra io.ReaderAt, size int64, lo, hi *int64) bool {
	mid := *lo + (*hi-*lo)/2
	first, told := int64(-1), false
	complete := true // every line from mid to hi was looked at
	eachLineFrom(ra, mid, size, true, func(start, end int64, s *scanner, _ []byte) bool {
		if start >= *hi {
			return false
		}
		if first < 0 {
			first = start
		}
		if start-mid > maxProbe {
			complete = false
			return false
		}
		if !s.vals[fType].is(TypeAssistant) || s.isTrue(fIsSidechain) {
			return true
		}
		if inherited(s) {
			*lo = end // still the copy
		} else {
			*hi = start // the fork's own: the copy ended before
		}
		told = true
		return false
	})
	switch {
	case told:
		return true
	case complete && first >= 0:
		// No assistant line from first to hi: the last copied one ends
		// at first at the latest.
		*hi = first
		return true
	}
	return false
}

// maxDecodedLine bounds the lines eachLineFrom hands over whole; longer
// ones (a pasted image, a big attachment) are scanned in pieces and given
// as nil.
const maxDecodedLine = 1 << 20

// eachLineFrom calls fn for each valid line of ra that starts at or after
// off, up to size, with its start and end offsets and the scanner that
// read it, until fn returns false. With partial, the bytes up to the
// first newline are a line cut by off and are skipped.
func eachLineFrom(ra io.ReaderAt, off, size int64, partial bool, fn func(start, end int64, s *scanner, line []byte) bool) {
	if partial && off > 0 {
		off-- // a line starting exactly at off still has its newline before it
	}
	br := bufio.NewReaderSize(io.NewSectionReader(ra, off, size-off), 64<<10)
	var s scanner
	var long []byte
	pos := off
	for first := partial; ; first = false {
		s.reset()
		start := pos
		chunk, err := br.ReadSlice('\n')
		pos += int64(len(chunk))
		line := chunk
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], chunk...)
			s.feed(chunk)
			for errors.Is(err, bufio.ErrBufferFull) {
				chunk, err = br.ReadSlice('\n')
				pos += int64(len(chunk))
				s.feed(chunk)
				if len(long) < maxDecodedLine {
					long = append(long, chunk...)
				}
			}
			line = nil
			if len(long) < maxDecodedLine {
				line = long
			}
		} else if !s.scanLine(chunk) {
			s.reset()
			s.feed(chunk)
		}
		if err != nil && err != io.EOF {
			return
		}
		if !first && s.valid() && !fn(start, pos, &s, line) {
			return
		}
		if err == io.EOF {
			return
		}
	}
}
