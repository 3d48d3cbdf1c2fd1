package transcript

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	forkID   = "f0f0f0f0-0000-4000-8000-000000000001"
	sourceID = "50505050-0000-4000-8000-000000000002"
)

// forkLines writes a fork's transcript as the CLI started with
// --fork-session does: copied turns (the assistant records name the
// source as requestSessionId) then the fork's own, each turn with an
// attachment of pad bytes (the first one small: the copy leaves out the
// CLI's API request lines, so a fork's first assistant line is in its
// head), and the source's stale last prompt at the end.
func forkLines(t *testing.T, copied int, own []string, pad int, extra ...string) []string {
	var lines []string
	parent := ""
	n := 0
	turn := func(prompt, answer string, inherited bool) {
		n++
		u := uid(n)
		lines = append(lines, userLine(t, u, parent, prompt, "sessionId", forkID))
		n++
		a := uid(n)
		lines = append(lines, enc(t, obj{"type": "attachment", "uuid": a, "parentUuid": u, "sessionId": forkID,
			"attachment": obj{"type": "prompt_snapshot", "text": strings.Repeat("p", firstSmall(n, pad))}}))
		n++
		extra := []any{"sessionId", forkID}
		if inherited {
			extra = append(extra, "requestSessionId", sourceID)
		}
		lines = append(lines, assistantLine(t, uid(n), a, answer, extra...))
		parent = uid(n)
	}
	for i := range copied {
		turn(fmt.Sprintf("source prompt %d", i), "source answer", true)
	}
	for _, p := range own {
		turn(p, "fork answer", false)
	}
	lines = append(lines, enc(t, obj{"type": "last-prompt", "lastPrompt": "source prompt 0", "leafUuid": parent, "sessionId": forkID}))
	return append(lines, extra...)
}

// TestForkTitle: a fork is titled by its own first prompt, whether the
// copy of its source is short or megabytes long, and however long its own
// part is; without a prompt of its own, by the source's title marked as a
// fork; a name wins; List and NamedTitle agree. A session that is not a
// fork keeps its last prompt.
func TestForkTitle(t *testing.T) {
	for _, tc := range []struct {
		name         string
		copied, pad  int
		own          []string
		extra        []string
		want, wantNT string
	}{
		{name: "short", copied: 2, pad: 100, own: []string{"fork one", "fork two"}, want: "fork one"},
		{name: "long copy", copied: 60, pad: 40 << 10, own: []string{"fork one", "fork two"}, want: "fork one"},
		{name: "long own part", copied: 3, pad: 40 << 10, own: []string{"fork one", "fork two", "fork three", "fork four", "fork five"}, want: "fork one"},
		{name: "copy ends in the tail", copied: 40, pad: 20 << 10, own: []string{"fork one"}, want: "fork one"},
		{name: "big lines", copied: 9, pad: 3 << 20, own: []string{"fork one", "fork two"}, want: "fork one"},
		{name: "no prompt of its own", copied: 3, pad: 30 << 10, want: "source prompt 0 (fork)"},
		{name: "named", copied: 30, pad: 10 << 10, own: []string{"fork one"},
			extra: []string{`{"type":"custom-title","customTitle":"My fork","sessionId":"` + forkID + `"}`}, want: "My fork"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), forkID+".jsonl")
			writeLines(t, path, forkLines(t, tc.copied, tc.own, tc.pad, tc.extra...)...)
			row, ok := Describe(path)
			if !ok || row.Title != tc.want {
				t.Errorf("listed as %q (%v), want %q", row.Title, ok, tc.want)
			}
			r, err := Open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if got := r.NamedTitle(); got != tc.want {
				t.Errorf("NamedTitle %q, want %q", got, tc.want)
			}
		})
	}
	t.Run("not a fork", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), sid+".jsonl")
		writeLines(t, path, userLine(t, uid(1), "", "first"), assistantLine(t, uid(2), uid(1), "a"),
			userLine(t, uid(3), uid(2), "second"), assistantLine(t, uid(4), uid(3), "b", "requestSessionId", sid),
			`{"type":"last-prompt","lastPrompt":"second","sessionId":"`+sid+`"}`)
		if row, _ := Describe(path); row.Title != "second" {
			t.Errorf("listed as %q", row.Title)
		}
	})
}

// firstSmall is pad, but 1000 for the first turn's attachment (line n 2).
func firstSmall(n, pad int) int {
	if n == 2 {
		return min(pad, 1000)
	}
	return pad
}

// countingReader counts the bytes read through it.
type countingReader struct {
	ra interface {
		ReadAt([]byte, int64) (int, error)
	}
	n int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.ra.ReadAt(p, off)
	c.n += int64(n)
	return n, err
}

// TestForkTitleReadsLittle: the end of a fork's long copy is found by
// bisection, not by reading the copy.
func TestForkTitleReadsLittle(t *testing.T) {
	path := filepath.Join(t.TempDir(), forkID+".jsonl")
	writeLines(t, path, forkLines(t, 400, []string{"fork one", "fork two"}, 40<<10)...)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	cr := &countingReader{ra: f}
	row, ok := liteRow(cr, fi.Size())
	if !ok || row.title != "fork one" {
		t.Fatalf("title %q", row.title)
	}
	if cr.n > fi.Size()/8 {
		t.Errorf("read %d bytes of a %d-byte fork", cr.n, fi.Size())
	}
	t.Logf("read %d bytes of %d", cr.n, fi.Size())
}
