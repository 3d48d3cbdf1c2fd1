package transcript

import (
	"bytes"
	"encoding/json"
	"testing"
)

// fuzzSeedConversation is a prompt, its answer and the last-prompt line
// after them: a seed of the fuzz targets over whole files.
var fuzzSeedConversation = []byte(`{"type":"user","uuid":"00000000-0000-4000-8000-000000000001","parentUuid":null,"message":{"role":"user","content":"hi"}}` + "\n" +
	`{"type":"assistant","uuid":"00000000-0000-4000-8000-000000000002","parentUuid":"00000000-0000-4000-8000-000000000001","message":{"role":"assistant","content":[{"type":"text","text":"yo"}]}}` + "\n" +
	`{"type":"last-prompt","lastPrompt":"hi","leafUuid":"00000000-0000-4000-8000-000000000002"}`)

// FuzzReader feeds arbitrary bytes to the reader. It must never fail or
// panic, the active branch must be a chain without repeats, every record it
// promised must either decode or be counted as corrupt, and for every line
// that encoding/json accepts as an object the first pass must agree on
// validity and on the chain fields.
func FuzzReader(f *testing.F) {
	f.Add(fuzzSeedConversation)
	f.Add([]byte("{\"type\":\"user\",\"uuid\":\"a\\\"b\",\"parentUuid\":\"x\"}\n{\"a\":[{\"b\":\"}\\\\\"}]}\n{\"type\":"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			t.Fatalf("NewReader: %v", err)
		}
		promised, before := r.Len(), r.Stats().Corrupt
		seen := map[string]bool{}
		n := 0
		for rec, err := range r.Records() {
			if err != nil {
				t.Fatalf("Records: %v", err)
			}
			if seen[rec.UUID] {
				t.Fatalf("uuid %q twice on the active branch", rec.UUID)
			}
			seen[rec.UUID] = true
			n++
		}
		if got := n + r.Stats().Corrupt - before; got != promised {
			t.Fatalf("Len = %d, but %d records decoded and %d failed", promised, n, r.Stats().Corrupt-before)
		}
		_ = r.Title()

		var s scanner
		for line := range bytes.SplitSeq(data, []byte("\n")) {
			s.reset()
			// Feed in two chunks to exercise state kept across chunks.
			half := len(line) / 2
			s.feed(line[:half])
			s.feed(line[half:])
			// The whole-line scan agrees with the chunked one wherever it
			// applies.
			var w scanner
			w.reset()
			if w.scanLine(line) {
				if !s.valid() {
					t.Fatalf("scanLine accepts what feed rejects: %q", line)
				}
				for f := range w.vals {
					a, b := &w.vals[f], &s.vals[f]
					if a.set != b.set || a.kind != b.kind || a.esc != b.esc || a.trunc != b.trunc || !bytes.Equal(a.raw, b.raw) {
						t.Fatalf("field %d: scanLine %+v, feed %+v in %q", f, *a, *b, line)
					}
				}
			}
			var m map[string]any
			if json.Unmarshal(line, &m) != nil || m == nil {
				continue
			}
			if !w.scanLine(line) {
				t.Fatalf("scanLine rejects a valid object: %q", line)
			}
			if !s.valid() {
				t.Fatalf("scanner rejects a valid object: %q", line)
			}
			if bytes.Contains(line, []byte(`\u`)) {
				continue // a key spelled with \u escapes is not matched by the scanner
			}
			for _, f := range []struct {
				key string
				f   field
			}{{"type", fType}, {"uuid", fUUID}, {"parentUuid", fParentUUID}, {"customTitle", fCustomTitle}} {
				want, _ := m[f.key].(string)
				v := &s.vals[f.f]
				if v.trunc {
					continue
				}
				if got := s.text(f.f); got != want {
					t.Fatalf("%s = %q, encoding/json says %q in %q", f.key, got, want, line)
				}
			}
		}
	})
}
