package transcript_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/transcriptgen"
)

// aheadFixture is a transcript long enough for many read-ahead batches,
// cut both by count (short lines) and by size (13 KB tool results), with
// dead branches, and two lines on its branch that no longer decode.
func aheadFixture(t *testing.T) []byte {
	t.Helper()
	path, _, err := transcriptgen.WriteSession(t.TempDir(), transcriptgen.Options{Messages: 1500, RewindEvery: 25, Seed: 4, ToolOutput: 13000})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// flaky is the transcript as an io.ReaderAt that can be told, once the
// first pass is over, to fail or to panic from some offset on.
type flaky struct {
	b     []byte
	from  atomic.Int64 // 0: never
	panic bool
}

func (f *flaky) ReadAt(p []byte, off int64) (int, error) {
	if from := f.from.Load(); from > 0 && off+int64(len(p)) > from {
		if f.panic {
			panic("the disk caught fire")
		}
		return 0, errors.New("input/output error")
	}
	if off >= int64(len(f.b)) {
		return 0, io.EOF
	}
	n := copy(p, f.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// collect ranges over seq and returns its records and its errors.
func collect(seq func(func(*transcript.Record, error) bool)) (recs []*transcript.Record, errs []error) {
	for rec, err := range seq {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		recs = append(recs, rec)
	}
	return recs, errs
}

func TestRecordsAheadMatchesRecords(t *testing.T) {
	b := aheadFixture(t)
	open := func() *transcript.Reader {
		r, err := transcript.NewReader(bytes.NewReader(b), int64(len(b)), nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	plain, ahead := open(), open()
	want, wantErrs := collect(plain.Records())
	got, gotErrs := collect(ahead.RecordsAhead())
	if len(wantErrs)+len(gotErrs) > 0 {
		t.Fatalf("errors: Records %v, RecordsAhead %v", wantErrs, gotErrs)
	}
	if len(want) < 1000 {
		t.Fatalf("only %d records: the fixture is too short to need batches", len(want))
	}
	if !reflect.DeepEqual(want, got) { // cmp.Diff of it all takes half a minute under -race
		for i := range min(len(want), len(got)) {
			if d := cmp.Diff(want[i], got[i]); d != "" {
				t.Fatalf("record %d differs (-Records +RecordsAhead):\n%s", i, d)
			}
		}
		t.Fatalf("RecordsAhead gave %d records, Records %d", len(got), len(want))
	}
	if plain.Stats() != ahead.Stats() {
		t.Errorf("stats: Records %+v, RecordsAhead %+v", plain.Stats(), ahead.Stats())
	}
}

// TestRecordsAheadSkipsWhatRecordsSkips: lines of the branch that changed
// on disk since the first pass are skipped and counted alike.
func TestRecordsAheadSkipsWhatRecordsSkips(t *testing.T) {
	b := aheadFixture(t)
	open := func() *transcript.Reader {
		c := bytes.Clone(b)
		r, err := transcript.NewReader(bytes.NewReader(c), int64(len(c)), nil)
		if err != nil {
			t.Fatal(err)
		}
		// Garble two lines of the middle after the first pass.
		for _, at := range []int{len(c) / 3, len(c) / 2} {
			i := at + bytes.IndexByte(c[at:], '\n') + 1
			copy(c[i:], "{garbled")
		}
		return r
	}
	plain, ahead := open(), open()
	want, _ := collect(plain.Records())
	got, _ := collect(ahead.RecordsAhead())
	if len(got) != len(want) || ahead.Stats() != plain.Stats() || ahead.Stats().Corrupt == 0 {
		t.Errorf("RecordsAhead: %d records, %+v; Records: %d, %+v", len(got), ahead.Stats(), len(want), plain.Stats())
	}
}

// TestRecordsAheadEndsWithTheLoop: a loop that stops early leaves no
// reading goroutine behind, and the Reader is the caller's again (the race
// detector checks that no goroutine still uses it).
func TestRecordsAheadEndsWithTheLoop(t *testing.T) {
	b := aheadFixture(t)
	before := runtime.NumGoroutine()
	r, err := transcript.NewReader(bytes.NewReader(b), int64(len(b)), nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, err := range r.RecordsAhead() {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 10 {
			break
		}
	}
	_ = r.Title() // reads lines: the Reader's own again
	_ = r.LeafUUID()
	if got := goroutinesAfter(before); got > before {
		t.Errorf("%d goroutines after the loop, %d before", got, before)
	}
}

// goroutinesAfter waits a little for goroutines that are ending.
func goroutinesAfter(want int) int {
	for range 50 {
		if n := runtime.NumGoroutine(); n <= want {
			return n
		}
		time.Sleep(10 * time.Millisecond)
	}
	return runtime.NumGoroutine()
}

// TestRecordsAheadReportsReadErrors: the records before a failed read
// come, then the error, once, then nothing, as from Records.
func TestRecordsAheadReportsReadErrors(t *testing.T) {
	b := aheadFixture(t)
	run := func(ahead bool) ([]*transcript.Record, []error) {
		f := &flaky{b: b}
		r, err := transcript.NewReader(f, int64(len(b)), nil)
		if err != nil {
			t.Fatal(err)
		}
		f.from.Store(int64(len(b) * 2 / 3))
		if ahead {
			return collect(r.RecordsAhead())
		}
		return collect(r.Records())
	}
	want, wantErrs := run(false)
	got, gotErrs := run(true)
	if len(wantErrs) != 1 || len(gotErrs) != 1 || gotErrs[0].Error() != wantErrs[0].Error() {
		t.Fatalf("errors: Records %v, RecordsAhead %v", wantErrs, gotErrs)
	}
	if len(got) != len(want) || len(got) == 0 {
		t.Errorf("RecordsAhead gave %d records before the error, Records %d", len(got), len(want))
	}
}

// TestRecordsAheadSurvivesAPanic: a panic on the reading goroutine ends
// the sequence with an error, not the process.
func TestRecordsAheadSurvivesAPanic(t *testing.T) {
	b := aheadFixture(t)
	f := &flaky{b: b, panic: true}
	r, err := transcript.NewReader(f, int64(len(b)), nil)
	if err != nil {
		t.Fatal(err)
	}
	f.from.Store(int64(len(b) / 2))
	recs, errs := collect(r.RecordsAhead())
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "the disk caught fire") {
		t.Fatalf("errors %v, want the panic as one error", errs)
	}
	if len(recs) == 0 {
		t.Error("no records before the panic")
	}
}

// counting is an io.ReaderAt that counts the bytes read from it.
type counting struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *counting) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// TestOpeningReadsTheFileOnce: the first pass reads the file once, and
// the check of the rewound turns for parallel tool calls (a line and its
// parent each) reads those lines alone, not a 256 KiB window for each.
// Then the branch's records read it about once more.
func TestOpeningReadsTheFileOnce(t *testing.T) {
	b := aheadFixture(t)
	c := &counting{r: bytes.NewReader(b)}
	r, err := transcript.NewReader(c, int64(len(b)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, limit := c.n.Load(), int64(len(b))*101/100; got > limit {
		t.Errorf("opening read %d bytes of a %d-byte transcript, want at most %d", got, len(b), limit)
	}
	c.n.Store(0)
	if _, errs := collect(r.RecordsAhead()); len(errs) > 0 {
		t.Fatal(errs)
	}
	if got, limit := c.n.Load(), int64(len(b))*11/10; got > limit {
		t.Errorf("the records read %d bytes of a %d-byte transcript, want at most %d", got, len(b), limit)
	}
}
