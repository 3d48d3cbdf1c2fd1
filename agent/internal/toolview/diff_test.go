package toolview

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// applyOps replays an edit script to check it turns a into b.
func applyOps(t *testing.T, ops []editOp, a, b []string) {
	t.Helper()
	var got []string
	ai := 0
	for _, op := range ops {
		switch op.kind {
		case opSame:
			if a[op.a] != b[op.b] || op.a != ai {
				t.Fatalf("bad same op %+v", op)
			}
			got = append(got, a[op.a])
			ai++
		case opDel:
			if op.a != ai {
				t.Fatalf("bad delete op %+v at %d", op, ai)
			}
			ai++
		case opIns:
			got = append(got, b[op.b])
		}
	}
	if ai != len(a) || !cmp.Equal(got, b, cmp.Comparer(func(x, y []string) bool { return strings.Join(x, "\n") == strings.Join(y, "\n") })) {
		t.Fatalf("script gives %q, want %q", got, b)
	}
}

func TestMyersRandom(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := range 300 {
		a := randLines(r, r.Intn(30))
		b := mutate(r, a)
		applyOps(t, myers(a, b), a, b)
		if i%50 == 0 {
			// Hunks of the same pair rebuild b from a too.
			hs := lineHunks(a, b)
			if len(hs) == 0 && strings.Join(a, "\n") != strings.Join(b, "\n") {
				t.Fatalf("no hunks for a change")
			}
		}
	}
}

func randLines(r *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprint(r.Intn(6))
	}
	return out
}

func mutate(r *rand.Rand, a []string) []string {
	b := append([]string(nil), a...)
	for range r.Intn(5) {
		switch i := r.Intn(len(b) + 1); r.Intn(3) {
		case 0:
			b = append(b[:i], append([]string{"x"}, b[i:]...)...)
		case 1:
			if i < len(b) {
				b = append(b[:i], b[i+1:]...)
			}
		default:
			if i < len(b) {
				b[i] = "y"
			}
		}
	}
	return b
}

func TestLineHunksContext(t *testing.T) {
	a := splitLines("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n")
	b := append([]string(nil), a...)
	b[1] = "two"
	b[17] = "eighteen"
	hs := lineHunks(a, b)
	if len(hs) != 2 {
		t.Fatalf("want 2 hunks, got %+v", hs)
	}
	if hs[0].oldStart != 1 || hs[0].newStart != 1 || strings.Join(hs[0].new, ",") != "1,two,3,4,5" {
		t.Fatalf("first Hunk %+v", hs[0])
	}
	if hs[1].newStart != 15 || strings.Join(hs[1].old, ",") != "15,16,17,18,19,20" {
		t.Fatalf("second Hunk %+v", hs[1])
	}
	// Changes closer than twice the context share one hunk.
	b[5] = "six"
	if hs := lineHunks(a, b); len(hs) != 2 || hs[0].newStart != 1 || len(hs[0].new) != 9 {
		t.Fatalf("merged hunks %+v", hs)
	}
}

func TestMyersGivesUpCoarsely(t *testing.T) {
	a := make([]string, 3000)
	b := make([]string, 3000)
	for i := range a {
		a[i], b[i] = fmt.Sprint("a", i), fmt.Sprint("b", i)
	}
	ops := myers(a, b)
	applyOps(t, ops, a, b)
}

func TestPatchHunks(t *testing.T) {
	raw := json.RawMessage(`[{"oldStart":1,"oldLines":5,"newStart":1,"newLines":6,"lines":[" a","-b","+B","+B2"," c","\\ No newline at end of file"]}]`)
	hs, ok := PatchHunks(raw)
	if !ok || len(hs) != 1 {
		t.Fatalf("%v %+v", ok, hs)
	}
	content, locs := HunksContent("/p", hs)
	d := content[0].Diff
	if old, _ := d.OldText.Get(); old != "a\nb\nc" || d.NewText != "a\nB\nB2\nc" {
		t.Fatalf("diff %q → %q", old, d.NewText)
	}
	if l, _ := locs[0].Line.Get(); l != 1 {
		t.Fatalf("line %d", l)
	}
	if _, ok := PatchHunks(json.RawMessage(`[]`)); ok {
		t.Fatal("empty patch accepted")
	}
}

func TestEditPreview(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	var lines []string
	for i := 1; i <= 30; i++ {
		lines = append(lines, fmt.Sprint("line ", i))
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	content, locs, ok := EditPreview("Edit", path, map[string]any{"old_string": "line 20\n", "new_string": "line twenty\n"})
	if !ok || len(content) != 1 {
		t.Fatalf("%v %d", ok, len(content))
	}
	d := content[0].Diff
	if old, _ := d.OldText.Get(); !strings.Contains(old, "line 17\nline 18\nline 19\nline 20\nline 21") || !strings.Contains(d.NewText, "line twenty") {
		t.Fatalf("diff %q → %q", old, d.NewText)
	}
	if l, _ := locs[0].Line.Get(); l != 17 {
		t.Fatalf("location line %d, want 17 (Hunk start)", l)
	}
	// Ambiguous or missing old_string: no preview (the CLI will refuse).
	if _, _, ok := EditPreview("Edit", path, map[string]any{"old_string": "line", "new_string": "x"}); ok {
		t.Fatal("ambiguous edit previewed")
	}
	if _, _, ok := EditPreview("Edit", path, map[string]any{"old_string": "nope", "new_string": "x"}); ok {
		t.Fatal("missing old_string previewed")
	}
	// replace_all and MultiEdit apply in memory.
	if c, _, ok := EditPreview("Edit", path, map[string]any{"old_string": "line", "new_string": "LINE", "replace_all": true}); !ok || len(c) != 1 {
		t.Fatalf("replace_all: %v %d", ok, len(c))
	}
	c, _, ok := EditPreview("MultiEdit", path, map[string]any{"edits": []any{
		map[string]any{"old_string": "line 2\n", "new_string": "two\n"},
		map[string]any{"old_string": "line 29", "new_string": "twenty-nine"},
	}})
	if !ok || len(c) != 2 {
		t.Fatalf("multiedit: %v %d", ok, len(c))
	}
	// Write over an existing file is a real diff; a new file has no old text.
	if c, _, ok := EditPreview("Write", path, map[string]any{"content": "new\n"}); !ok || c[0].Diff.OldText.IsZero() {
		t.Fatalf("overwrite: %v %+v", ok, c)
	}
	np := filepath.Join(dir, "new.txt")
	c, locs, ok = EditPreview("Write", np, map[string]any{"content": "hello\n"})
	if !ok || !c[0].Diff.OldText.IsZero() || c[0].Diff.NewText != "hello\n" {
		t.Fatalf("create: %v %+v", ok, c)
	}
	if l, _ := locs[0].Line.Get(); l != 1 {
		t.Fatalf("create location %d", l)
	}
}

func TestStructuredPatch(t *testing.T) {
	got := StructuredPatch("a\nb\n", "p\nq\n")
	want := []PatchHunk{{OldStart: 1, OldLines: 2, NewStart: 1, NewLines: 2, Lines: []string{"-a", "-b", "+p", "+q"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	old := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
	got = StructuredPatch(old, strings.Replace(old, "5\n", "five\n", 1))
	want = []PatchHunk{{OldStart: 2, OldLines: 7, NewStart: 2, NewLines: 7, Lines: []string{" 2", " 3", " 4", "-5", "+five", " 6", " 7", " 8"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if got := StructuredPatch("same\n", "same\n"); len(got) != 0 {
		t.Errorf("equal texts: %v", got)
	}
	// The hunks read back as the card's diff.
	raw, _ := json.Marshal(StructuredPatch(old, strings.Replace(old, "5\n", "five\n", 1)))
	if hs, ok := PatchHunks(raw); !ok || len(hs) != 1 || hs[0].new[3] != "five" {
		t.Errorf("PatchHunks: %+v %v", hs, ok)
	}
}
