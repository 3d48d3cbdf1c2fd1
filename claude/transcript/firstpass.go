package transcript

import (
	"bufio"
	"fmt"
	"io"
	"math"
)

// index is the first pass: it reads the first size bytes of ra once, keeps
// the chain links of message lines and the session metadata, and counts
// bad lines. A large file is read in two halves at once when the process
// has a second thread (see indexHalves).
func (r *Reader) index(ra io.ReaderAt, size int64) (*index, error) {
	x := newIndex(size)
	if split := splitPoint(ra, size); split > 0 {
		if err := r.indexHalves(x, ra, split, size); err != nil {
			return nil, err
		}
	} else if err := r.indexSection(x, ra, 0, size); err != nil {
		return nil, err
	}
	r.finishMeta()
	return x, nil
}

// indexSection is the first pass over the lines of ra from off (the start
// of a line) up to end, added to x and to r's metadata and counts.
func (r *Reader) indexSection(x *index, ra io.ReaderAt, off, end int64) error {
	br := bufio.NewReaderSize(io.NewSectionReader(ra, off, end-off), 64<<10)
	var s scanner
	for {
		s.reset()
		start := off
		chunk, err := br.ReadSlice('\n')
		off += int64(len(chunk))
		switch {
		case err == bufio.ErrBufferFull:
			// A line longer than the buffer: scanned in pieces.
			s.feed(chunk)
			for err == bufio.ErrBufferFull {
				chunk, err = br.ReadSlice('\n')
				off += int64(len(chunk))
				s.feed(chunk)
			}
		case !s.scanLine(chunk):
			s.reset()
			s.feed(chunk)
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("transcript: reading: %w", err)
		}
		length := off - start
		if length > 0 && err == nil {
			length-- // the newline
		}
		switch {
		case s.empty():
		case !s.valid():
			r.stats.Lines++
			if err == io.EOF {
				r.stats.TruncatedTail = true
				r.log.Warn("transcript: last line is cut short", "offset", start)
			} else {
				r.skip(start, "not a JSON object")
			}
		case length > math.MaxInt32:
			r.stats.Lines++
			r.skip(start, "line too long")
		default:
			r.stats.Lines++
			r.take(x, &s, start, int32(length))
		}
		if err == io.EOF {
			return nil
		}
	}
}

// take records one valid line.
func (r *Reader) take(x *index, s *scanner, off int64, n int32) {
	m := &r.meta
	if m.SessionID == "" {
		m.SessionID = s.text(fSessionID)
	}
	if m.Cwd == "" {
		m.Cwd = s.text(fCwd)
	}
	if ts := &s.vals[fTimestamp]; ts.kind == kindString && len(ts.raw) > 0 {
		if m.FirstTimestamp == "" {
			m.FirstTimestamp = ts.str()
		}
		keep(&r.latest[fTimestamp], ts)
	}
	t := &s.vals[fType]
	var kind uint8
	switch {
	case t.is(TypeUser):
		kind = nodeUser
	case t.is(TypeAssistant):
		kind = nodeAssistant
	case t.is(TypeSystem):
		kind = nodeSystem
	case t.is(TypeAttachment):
		kind = nodeAttachment
	case t.is("progress"):
		kind = nodeProgress
	default:
		r.takeMeta(s, off)
		return
	}
	u := &s.vals[fUUID]
	if !u.set || u.kind != kindString || len(u.raw) == 0 || u.esc || u.trunc {
		return
	}
	var parent []byte
	if p := &s.vals[fParentUUID]; p.set && p.kind == kindString && !p.esc && !p.trunc {
		parent = p.raw
	}
	var flags uint8
	if s.isTrue(fIsSidechain) {
		flags |= flagSidechain
	}
	if s.isTrue(fIsMeta) || s.isTrue(fIsMetaSnake) {
		flags |= flagMeta
	}
	if tm := &s.vals[fTeamName]; tm.set && tm.kind == kindString && len(tm.raw) > 0 {
		flags |= flagTeam
	}
	if kind == nodeAssistant && inherited(s) {
		r.forked = true
	}
	x.define(u.raw, parent, off, n, kind, flags)
	r.stats.Messages++
	if kind == nodeUser && flags == 0 && !s.isTrue(fIsCompactSummary) && len(r.prompt) < maxPromptCandidates {
		r.prompt = append(r.prompt, off)
		r.plen = append(r.plen, n)
	}
}

// inherited reports a line a fork copied from its source session: the
// CLI started with --fork-session copies the source's records into the
// new transcript, and marks the assistant ones with the session that made
// the request (requestSessionId), the source.
func inherited(s *scanner) bool {
	rs, id := &s.vals[fRequestSessionID], &s.vals[fSessionID]
	return rs.set && rs.kind == kindString && len(rs.raw) > 0 && !(id.kind == kindString && string(rs.raw) == string(id.raw))
}

// maxPromptCandidates bounds how many early user lines Title may decode to
// find the first real prompt.
const maxPromptCandidates = 16

// takeMeta records the session-wide fields of a metadata line.
func (r *Reader) takeMeta(s *scanner, off int64) {
	for _, f := range [...]field{fCustomTitle, fAITitle, fSummary, fLastPrompt, fAgentName} {
		if v := &s.vals[f]; v.kind == kindString && len(v.raw) > 0 {
			keep(&r.latest[f], v)
		}
	}
	if s.vals[fType].is("last-prompt") {
		// The newest last-prompt decides; an explicit null clears the leaf.
		if l := &s.vals[fLeafUUID]; l.set {
			keep(&r.latest[fLeafUUID], l)
			r.leafOff = off
		}
	}
}

// keep copies v into dst, reusing dst's buffer: metadata repeats on every
// turn, and only the newest value is decoded, once, at the end of the pass.
func keep(dst, v *value) {
	raw := append(dst.raw[:0], v.raw...)
	*dst = *v
	dst.raw = raw
}

// finishMeta decodes the newest metadata values.
func (r *Reader) finishMeta() {
	m := &r.meta
	m.CustomTitle = r.latest[fCustomTitle].str()
	m.AITitle = r.latest[fAITitle].str()
	m.Summary = r.latest[fSummary].str()
	m.LastPrompt = r.latest[fLastPrompt].str()
	m.AgentName = r.latest[fAgentName].str()
	m.LeafUUID = r.latest[fLeafUUID].str()
	m.LastTimestamp = r.latest[fTimestamp].str()
	r.latest = [numFields]value{}
}
