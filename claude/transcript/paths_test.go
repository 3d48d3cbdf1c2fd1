package transcript

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The expected names were computed by the CLI's own munging function,
// extracted from the 2.1.332 bundle and run under Node.
func TestMungePath(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/home/me/work/s1_init", "-home-me-work-s1-init"},
		{"/home/u/my.app", "-home-u-my-app"},
		// Non-ASCII letters are not kept; a non-BMP rune is two UTF-16 units.
		{"/tmp/ünïcode/日本/😀x", "-tmp--n-code------x"},
		{"/" + strings.Repeat("a", 199), "-" + strings.Repeat("a", 199)},
		{"/" + strings.Repeat("a", 200), "-" + strings.Repeat("a", 199) + "-b6ymvl"},
		{"/very/" + strings.Repeat("long-segment_", 20) + "end",
			"-very-" + strings.Repeat("long-segment-", 14) + "long-segment-" + "ror6up"},
		{"/x/" + strings.Repeat("é", 210), "-x-" + strings.Repeat("-", 197) + "-9r1e0q"},
		{"/p/" + strings.Repeat("😀", 120), "-p-" + strings.Repeat("-", 197) + "-a7sqs6"},
	} {
		if got := MungePath(tc.in); got != tc.want {
			t.Errorf("MungePath(%.40q…) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestConfigDirAndProjectDir(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", "/cfg")
	if got := ConfigDir(); got != "/cfg" {
		t.Errorf("ConfigDir with CLAUDE_CONFIG_DIR = %q", got)
	}
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("HOME", "/home/me")
	if got := ConfigDir(); got != "/home/me/.claude" {
		t.Errorf("ConfigDir from HOME = %q", got)
	}
	if got, want := ProjectDir("/cfg", "/home/me/work/s1_init"), "/cfg/projects/-home-me-work-s1-init"; got != want {
		t.Errorf("ProjectDir = %q, want %q", got, want)
	}
}

func TestFindProjectDirLongPrefix(t *testing.T) {
	cfg := t.TempDir()
	long := "/" + strings.Repeat("a", 250)
	// A CLI build that hashed the suffix differently.
	other := filepath.Join(ProjectsDir(cfg), MungePath(long)[:200]+"-zzzz")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := FindProjectDir(cfg, long); got != other {
		t.Errorf("FindProjectDir = %q, want %q", got, other)
	}
	if got := FindProjectDir(cfg, "/nowhere"); got != "" {
		t.Errorf("FindProjectDir for a missing project = %q", got)
	}
}

func TestFind(t *testing.T) {
	cfg := t.TempDir()
	id := "0A1b2c3d-0000-4000-8000-00000000abcd"
	old := filepath.Join(ProjectDir(cfg, "/a"), id+".jsonl")
	newer := filepath.Join(ProjectDir(cfg, "/b/c"), id+".jsonl")
	writeRaw(t, old, "{}\n")
	writeRaw(t, newer, "{}\n")
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	got, err := Find(cfg, id)
	if err != nil || got != newer {
		t.Errorf("Find = %q, %v; want the newest copy %q", got, err, newer)
	}

	if _, err := Find(cfg, uid(99)); !errors.Is(err, ErrNotFound) {
		t.Errorf("Find(unknown) error = %v, want ErrNotFound", err)
	}
	if _, err := Find(t.TempDir(), uid(99)); !errors.Is(err, ErrNotFound) {
		t.Errorf("Find without a projects dir: error = %v, want ErrNotFound", err)
	}
	// Ids that could escape the directory, or are simply not UUIDs.
	writeRaw(t, filepath.Join(cfg, "projects", "x.jsonl"), "{}\n")
	for _, bad := range []string{"", "../x", "../../etc/passwd", "x", uid(1) + "/..", strings.Repeat("-", 36),
		"0a1b2c3d-0000-4000-8000-00000000abc/", "0a1b2c3d_0000-4000-8000-00000000abcd"} {
		if _, err := Find(cfg, bad); !errors.Is(err, ErrInvalidID) {
			t.Errorf("Find(%q) error = %v, want ErrInvalidID", bad, err)
		}
	}
}

func TestDelete(t *testing.T) {
	cfg := t.TempDir()
	id := uid(7)
	a := filepath.Join(ProjectDir(cfg, "/a"), id+".jsonl")
	b := filepath.Join(ProjectDir(cfg, "/b"), id+".jsonl")
	keep := filepath.Join(ProjectDir(cfg, "/a"), uid(8)+".jsonl")
	sub := filepath.Join(SubagentsDir(a), "agent-x.jsonl")
	for _, p := range []string{a, b, keep, sub} {
		writeRaw(t, p, "{}\n")
	}
	if err := Delete(cfg, id); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{a, b, filepath.Dir(SubagentsDir(a))} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still exists (err %v)", p, err)
		}
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("another session was removed: %v", err)
	}
	if err := Delete(cfg, id); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Delete error = %v, want ErrNotFound", err)
	}
	if err := Delete(cfg, "../"+id); !errors.Is(err, ErrInvalidID) {
		t.Errorf("Delete(bad id) error = %v, want ErrInvalidID", err)
	}
}
