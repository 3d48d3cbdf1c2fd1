package transcript

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// session writes a transcript for id in cwd's project directory with the
// given modification time, and returns its path.
func session(t *testing.T, cfg, cwd, id string, mtime time.Time, lines ...string) string {
	t.Helper()
	path := filepath.Join(ProjectDir(cfg, cwd), id+".jsonl")
	writeLines(t, path, lines...)
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	return path
}

func promptIn(t *testing.T, cwd, text string) string {
	return userLine(t, uid(1), "", text, "cwd", cwd)
}

func ids(p Page) []string {
	var out []string
	for _, s := range p.Sessions {
		out = append(out, s.SessionID)
	}
	return out
}

func TestListPagingAndCwdFilter(t *testing.T) {
	cfg := t.TempDir()
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	const cwd, other = "/home/me/work/p", "/home/me/work/q"
	var want []string
	for i := range 5 {
		id := fmt.Sprintf("aaaaaaaa-0000-4000-8000-%012d", i)
		session(t, cfg, cwd, id, t0.Add(time.Duration(i)*time.Minute), promptIn(t, cwd, fmt.Sprintf("prompt %d", i)))
		want = append([]string{id}, want...) // newest first
	}
	otherID := "bbbbbbbb-0000-4000-8000-000000000000"
	session(t, cfg, other, otherID, t0.Add(time.Hour), promptIn(t, other, "elsewhere"))
	// Not sessions: a subagent transcript, a file with nothing to title it,
	// one without a cwd, a file that is not named by a UUID.
	session(t, cfg, cwd, "cccccccc-0000-4000-8000-000000000000", t0.Add(2*time.Hour),
		userLine(t, uid(1), "", "sub", "isSidechain", true))
	session(t, cfg, cwd, "dddddddd-0000-4000-8000-000000000000", t0.Add(2*time.Hour), `{"type":"queue-operation"}`)
	session(t, cfg, other, "eeeeeeee-0000-4000-8000-000000000000", t0.Add(2*time.Hour), `{"type":"custom-title","customTitle":"no cwd"}`)
	writeLines(t, filepath.Join(ProjectDir(cfg, cwd), "notes.jsonl"), promptIn(t, cwd, "x"))

	var got []string
	cursor := ""
	for pages := 0; ; pages++ {
		p, err := List(cfg, Filter{Cwd: cwd, Cursor: cursor, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Sessions) > 2 || pages > 3 {
			t.Fatalf("page %d has %d rows", pages, len(p.Sessions))
		}
		for _, s := range p.Sessions {
			if s.Cwd != cwd || !strings.HasPrefix(s.Title, "prompt ") || s.UpdatedAt.IsZero() || s.Path == "" {
				t.Errorf("row = %+v", s)
			}
		}
		got = append(got, ids(p)...)
		if p.NextCursor == "" {
			break
		}
		cursor = p.NextCursor
	}
	if !slices.Equal(got, want) {
		t.Errorf("paged ids = %v, want %v", got, want)
	}

	all, err := List(cfg, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(all), append([]string{otherID}, want...); !slices.Equal(got, want) {
		t.Errorf("all projects = %v, want %v", got, want)
	}
	if all.NextCursor != "" {
		t.Errorf("NextCursor = %q on the last page", all.NextCursor)
	}
	if all.Sessions[1].Title != "prompt 4" || !all.Sessions[1].UpdatedAt.Equal(t0.Add(4*time.Minute)) {
		t.Errorf("row = %+v", all.Sessions[1])
	}

	if p, err := List(cfg, Filter{Cwd: "/no/such/dir"}); err != nil || len(p.Sessions) != 0 {
		t.Errorf("unknown cwd: %v, %v", p, err)
	}
	if p, err := List(t.TempDir(), Filter{}); err != nil || len(p.Sessions) != 0 {
		t.Errorf("empty config dir: %v, %v", p, err)
	}
	for _, bad := range []string{"x", "offset:", "offset:-1", "offset:01", "offset:1x"} {
		if _, err := List(cfg, Filter{Cursor: bad}); !errors.Is(err, ErrInvalidCursor) {
			t.Errorf("cursor %q: error = %v, want ErrInvalidCursor", bad, err)
		}
	}
}

// TestListReadsOnlyHeadAndTail checks the title sources of a large file: the
// custom title in the tail wins, and the first prompt comes from the head.
func TestListReadsOnlyHeadAndTail(t *testing.T) {
	cfg := t.TempDir()
	const cwd = "/w"
	t0 := time.Now()
	filler := assistantLine(t, uid(2), uid(1), strings.Repeat("z", 100_000))
	id1 := "aaaaaaaa-0000-4000-8000-000000000001"
	session(t, cfg, cwd, id1, t0, promptIn(t, cwd, "the first prompt"), filler,
		`{"type":"ai-title","aiTitle":"In the middle"}`, filler, filler,
		`{"type":"custom-title","customTitle":"Tail title"}`)
	id2 := "aaaaaaaa-0000-4000-8000-000000000002"
	session(t, cfg, cwd, id2, t0.Add(-time.Minute), `{"type":"custom-title","customTitle":"Head title"}`,
		promptIn(t, cwd, "p"), filler, filler)
	id3 := "aaaaaaaa-0000-4000-8000-000000000003"
	// Only the middle of the file names a title: it is not read, the first
	// prompt of the head is used.
	session(t, cfg, cwd, id3, t0.Add(-2*time.Minute), promptIn(t, cwd, "head prompt"), filler,
		`{"type":"ai-title","aiTitle":"Middle"}`, filler, filler)
	p, err := List(cfg, Filter{Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, s := range p.Sessions {
		titles = append(titles, s.Title)
	}
	if want := []string{"Tail title", "Head title", "head prompt"}; !slices.Equal(titles, want) {
		t.Errorf("titles = %q, want %q", titles, want)
	}
}

func TestSubagents(t *testing.T) {
	cfg := t.TempDir()
	main := session(t, cfg, "/w", uid(100), time.Now(), promptIn(t, "/w", "go"))
	dir := SubagentsDir(main)
	if want := filepath.Join(ProjectDir(cfg, "/w"), uid(100), "subagents"); dir != want {
		t.Errorf("SubagentsDir = %q, want %q", dir, want)
	}
	if subs, err := Subagents(main); err != nil || subs != nil {
		t.Errorf("no subagents: %v, %v", subs, err)
	}
	writeLines(t, filepath.Join(dir, "agent-ae339ffe62c48763f.jsonl"),
		userLine(t, uid(10), "", "Sub task", "isSidechain", true),
		assistantLine(t, uid(11), uid(10), "sub hello", "isSidechain", true))
	writeRaw(t, filepath.Join(dir, "agent-ae339ffe62c48763f.meta.json"),
		`{"toolUseId":"toolu_ag1","agentType":"general-purpose","description":"Sub task"}`)
	writeLines(t, filepath.Join(dir, "workflows", "run1", "agent-b2.jsonl"), `{}`)
	writeRaw(t, filepath.Join(dir, "agent-b3.meta.json"), `not json`)
	writeLines(t, filepath.Join(dir, "agent-b3.jsonl"), `{}`)
	writeLines(t, filepath.Join(dir, "other.jsonl"), `{}`)

	subs, err := Subagents(main)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range subs {
		got = append(got, s.AgentID)
	}
	if want := []string{"ae339ffe62c48763f", "b3", "b2"}; !slices.Equal(got, want) {
		t.Fatalf("agent ids = %v, want %v", got, want)
	}
	if m := subs[0].Meta; m == nil || m.ToolUseID != "toolu_ag1" || m.AgentType != "general-purpose" {
		t.Errorf("meta = %+v", m)
	}
	if subs[1].Meta != nil || subs[2].Meta != nil {
		t.Errorf("missing or bad sidecars should give nil meta: %+v %+v", subs[1].Meta, subs[2].Meta)
	}
	recs, _ := load(t, subs[0].Path)
	if len(recs) != 2 || !recs[1].IsSidechain || recs[1].Message.Content[0].Text != "sub hello" {
		t.Errorf("subagent records = %v", uuids(recs))
	}
}

// Describe gives one file the row List would give it.
func TestDescribe(t *testing.T) {
	cfg := t.TempDir()
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	const cwd = "/home/me/work/p"
	id := "aaaaaaaa-0000-4000-8000-000000000001"
	path := session(t, cfg, cwd, id, t0, promptIn(t, cwd, "describe me"))
	got, ok := Describe(path)
	page, err := List(cfg, Filter{})
	if !ok || err != nil || len(page.Sessions) != 1 || got != page.Sessions[0] {
		t.Fatalf("Describe = %+v, %v; List = %+v, %v", got, ok, page.Sessions, err)
	}
	if got.Title != "describe me" {
		t.Errorf("title %q", got.Title)
	}
	if _, ok := Describe(filepath.Join(cfg, "missing.jsonl")); ok {
		t.Error("a missing file is described")
	}
}
