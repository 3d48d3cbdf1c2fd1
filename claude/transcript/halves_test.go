package transcript

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// firstPass is what the first pass leaves: the index and the reader's
// metadata and counts.
type firstPass struct {
	Nodes   []node
	IDs     map[[16]byte]int32
	Other   map[string]int32
	Seq     int32
	Meta    Meta
	Stats   Stats
	Prompt  []int64
	PLen    []int32
	LeafOff int64
}

// passOver runs the first pass over data in one piece (split 0) or in two
// halves at split.
func passOver(t testing.TB, data []byte, split int64) firstPass {
	t.Helper()
	ra, size := bytes.NewReader(data), int64(len(data))
	r := &Reader{log: slog.New(slog.DiscardHandler)}
	x := newIndex(size)
	var err error
	if split > 0 {
		err = r.indexHalves(x, ra, split, size)
	} else {
		err = r.indexSection(x, ra, 0, size)
	}
	if err != nil {
		t.Fatal(err)
	}
	r.finishMeta()
	return firstPass{x.nodes, x.ids, x.other, x.seq, r.meta, r.stats, r.prompt, r.plen, r.leafOff}
}

// sameAtEverySplit checks that the two-halves pass leaves exactly what one
// pass does, wherever the file is split between two lines.
func sameAtEverySplit(t testing.TB, data []byte) {
	t.Helper()
	want := passOver(t, data, 0)
	for i, c := range data {
		if c != '\n' || i+1 >= len(data) {
			continue
		}
		got := passOver(t, data, int64(i+1))
		if reflect.DeepEqual(want, got) {
			// Equal: cmp.Diff would say so too, after sorting the keys of
			// every map (most of this test's CPU, at every split).
			continue
		}
		if d := cmp.Diff(want, got, cmp.AllowUnexported(node{}), cmp.Comparer(func(a, b map[string]int32) bool {
			return len(a) == len(b) && fmt.Sprint(a) == fmt.Sprint(b) // nil and empty alike
		})); d != "" {
			t.Fatalf("split at %d of %d differs from one pass (-one +two):\n%s", i+1, len(data), d)
		}
	}
}

// TestHalvesMatchOnePass: the first pass in two halves leaves the same
// index, metadata and counts as one pass, at every split point, on the
// CLI's own transcripts, on generated ones with rewinds, and on a file
// with everything the first pass treats specially: corrupt and blank
// lines, metadata lines in both halves (a null leaf among them), a uuid
// written twice, a parent named before it is written, uuids that are not
// canonical, a line longer than the read buffer, a cut-short last line.
func TestHalvesMatchOnePass(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.jsonl")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			sameAtEverySplit(t, data)
		})
	}
	t.Run("generated", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "gen.jsonl")
		genTranscript(t, path, 120)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sameAtEverySplit(t, data)
	})
	t.Run("odd lines", func(t *testing.T) {
		lines := []string{
			enc(t, obj{"type": "custom-title", "customTitle": "first title", "sessionId": sid}),
			userLine(t, uid(1), "", "hello", "cwd", "/work/a", "timestamp", "2026-01-01T00:00:00Z"),
			"",
			"{not json",
			assistantLine(t, uid(2), uid(1), "hi"),
			userLine(t, "not-a-canonical-uuid", uid(2), "odd id"),
			assistantLine(t, uid(3), "not-a-canonical-uuid", strings.Repeat("long ", 30<<10)),
			enc(t, obj{"type": "last-prompt", "lastPrompt": "hello", "leafUuid": uid(3), "sessionId": sid}),
			assistantLine(t, uid(5), uid(4), "a parent written later"),
			userLine(t, uid(4), uid(3), "the parent", "isMeta", true),
			"   ",
			assistantLine(t, uid(2), uid(1), "uuid 2 written again"),
			enc(t, obj{"type": "summary", "summary": "a summary", "leafUuid": uid(2)}),
			enc(t, obj{"type": "last-prompt", "leafUuid": nil, "sessionId": sid}),
			userLine(t, uid(6), uid(5), "again", "cwd", "/work/b", "timestamp", "2026-01-02T00:00:00Z"),
			enc(t, obj{"type": "custom-title", "customTitle": "second title", "sessionId": sid}),
			"[1,2]",
			`{"type":"user","uuid":"` + uid(7) + `","parentUuid":"` + uid(6) + `","message":{"role":"user","content":"cut`,
		}
		sameAtEverySplit(t, []byte(strings.Join(lines, "\n")))
	})
}

// FuzzIndexHalves: for any bytes, the two-halves pass at every line
// break leaves what one pass does.
func FuzzIndexHalves(f *testing.F) {
	f.Add(fuzzSeedConversation)
	f.Add([]byte("{\"type\":\"user\",\"uuid\":\"a\\\"b\",\"parentUuid\":\"x\"}\n\n{\"type\":\"user\",\"uuid\":\"x\"}\n{\"type\":"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.Count(data, []byte("\n")) > 64 {
			return // every split is a pass: keep an input quick
		}
		sameAtEverySplit(t, data)
	})
}

// TestLargeFileIsReadInHalves: a transcript of more than halvesMin is
// split just after a line break past its middle when the process has two
// threads, and read in one pass otherwise; the records are the same.
func TestLargeFileIsReadInHalves(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gen.jsonl")
	active := genTranscript(t, path, 1500)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	size := int64(len(data))
	if size < halvesMin {
		t.Fatalf("the transcript is %d bytes, want more than %d", size, halvesMin)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	split := splitPoint(bytes.NewReader(data), size)
	if split <= size/2 || data[split-1] != '\n' || bytes.IndexByte(data[size/2:split-1], '\n') >= 0 {
		t.Fatalf("split at %d of %d: want just past the first line break at or after the middle", split, size)
	}
	two, _ := load(t, path)
	runtime.GOMAXPROCS(1)
	if got := splitPoint(bytes.NewReader(data), size); got != 0 {
		t.Errorf("on one thread the file is split at %d, want one pass", got)
	}
	one, _ := load(t, path)
	if len(two) != active || !slices.Equal(uuids(two), uuids(one)) {
		t.Errorf("records: %d read in halves, %d in one pass, want %d and the same", len(two), len(one), active)
	}
	runtime.GOMAXPROCS(2)
	if got := splitPoint(bytes.NewReader(data[:halvesMin-1]), halvesMin-1); got != 0 {
		t.Errorf("a file under halvesMin is split at %d", got)
	}
	// A line longer than the search around the middle: one pass.
	long := []byte(strings.Repeat("x", 3*maxSplitSearch) + "\n{}\n")
	if got := splitPoint(bytes.NewReader(long), int64(len(long))); got != 0 {
		t.Errorf("a file whose middle line is longer than maxSplitSearch is split at %d", got)
	}
}

// panicsPast is a ReaderAt that panics on reads from its offset on.
type panicsPast struct {
	*bytes.Reader
	from int64
}

func (p panicsPast) ReadAt(b []byte, off int64) (int, error) {
	if off >= p.from {
		panic("a bug in the second half")
	}
	return p.Reader.ReadAt(b, off)
}

// TestSecondHalfPanicReachesTheCaller: a panic while the goroutine reads
// the second half is raised again in the caller's goroutine, where the
// agent's replay recovers it as a failed load, instead of ending the
// process from a goroutine no one can recover.
func TestSecondHalfPanicReachesTheCaller(t *testing.T) {
	data := []byte(fuzzSeedConversation)
	split := int64(bytes.IndexByte(data, '\n') + 1)
	defer func() {
		if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), "a bug in the second half") {
			t.Errorf("recovered %v, want the second half's panic", p)
		}
	}()
	r := &Reader{log: slog.New(slog.DiscardHandler)}
	r.indexHalves(newIndex(int64(len(data))), panicsPast{bytes.NewReader(data), split}, split, int64(len(data)))
	t.Error("indexHalves returned")
}
