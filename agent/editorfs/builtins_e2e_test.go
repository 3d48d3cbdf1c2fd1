package editorfs_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/claude"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// TestToolsMatchBuiltins runs the same calls through Claude Code's
// built-in file tools and through ours (on an editor whose buffers are the
// disk) and checks that Claude reads the same text, the same errors, and
// that our structured result agrees with the built-in's wherever it says
// something.
func TestToolsMatchBuiltins(t *testing.T) {
	setup := func(t *testing.T, e env) {
		var long strings.Builder
		for i := 1; i <= 2100; i++ {
			fmt.Fprintf(&long, "line %d\n", i)
		}
		files := map[string]string{
			"long.txt":   long.String(),
			"empty.txt":  "",
			"crlf.txt":   "a\r\nb\r\n",
			"tabs.txt":   "one two one\nthree\n",
			"unread.txt": "u\n",
			"m.txt":      "m\n",
			"big.txt":    strings.Repeat("abcdefghij", 30000),
			"bin.dat":    "\x00\x01\x02\xff\x00",
			"nb.ipynb":   `{"cells":[{"cell_type":"code","execution_count":null,"id":"c1","metadata":{},"outputs":[],"source":["print(1)\n","x=2"]},{"cell_type":"markdown","id":"m1","metadata":{},"source":["# Title"]}],"metadata":{"kernelspec":{"name":"python3"}},"nbformat":4,"nbformat_minor":5}`,
			"dot.png":    "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\xdac\xfc\xcf\xc0P\x0f\x00\x04\x85\x01\x80\x84\xa9\x8c!\x00\x00\x00\x00IEND\xaeB`\x82",
		}
		for name, text := range files {
			if err := os.WriteFile(filepath.Join(e.Work, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Mkdir(filepath.Join(e.Work, "dir"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := func(e env) []fakeapi.Step {
		w := func(name string) string { return filepath.Join(e.Work, name) }
		return []fakeapi.Step{
			use("r_long", "Read", map[string]any{"file_path": w("long.txt")}),
			use("r_off", "Read", map[string]any{"file_path": w("long.txt"), "offset": 2098, "limit": 5}),
			use("r_past", "Read", map[string]any{"file_path": w("long.txt"), "offset": 5000}),
			use("r_empty", "Read", map[string]any{"file_path": w("empty.txt")}),
			use("r_crlf", "Read", map[string]any{"file_path": w("crlf.txt")}),
			use("r_missing", "Read", map[string]any{"file_path": w("nope.txt")}),
			use("r_dir", "Read", map[string]any{"file_path": w("dir")}),
			use("r_bin", "Read", map[string]any{"file_path": w("bin.dat")}),
			use("r_big", "Read", map[string]any{"file_path": w("big.txt")}),
			use("r_rel", "Read", map[string]any{"file_path": "tabs.txt"}),
			use("r_png", "Read", map[string]any{"file_path": w("dot.png")}),
			use("r_nb", "Read", map[string]any{"file_path": w("nb.ipynb")}),
			use("e_unread", "Edit", map[string]any{"file_path": w("unread.txt"), "old_string": "u", "new_string": "v"}),
			use("e_notfound", "Edit", map[string]any{"file_path": w("tabs.txt"), "old_string": "zzz", "new_string": "v"}),
			use("e_multi", "Edit", map[string]any{"file_path": w("tabs.txt"), "old_string": "one", "new_string": "v"}),
			use("e_same", "Edit", map[string]any{"file_path": w("tabs.txt"), "old_string": "one", "new_string": "one"}),
			use("e_all", "Edit", map[string]any{"file_path": w("tabs.txt"), "old_string": "one", "new_string": "1", "replace_all": true}),
			use("e_crlf", "Edit", map[string]any{"file_path": w("crlf.txt"), "old_string": "a\nb", "new_string": "c\nd"}),
			use("e_create", "Edit", map[string]any{"file_path": w("created.txt"), "old_string": "", "new_string": "fresh\n"}),
			use("e_exists", "Edit", map[string]any{"file_path": w("tabs.txt"), "old_string": "", "new_string": "fresh\n"}),
			use("e_missing", "Edit", map[string]any{"file_path": w("nope2.txt"), "old_string": "a", "new_string": "b"}),
			use("r_m", "Read", map[string]any{"file_path": w("m.txt")}),
			use("e_stale", "Edit", map[string]any{"file_path": w("m.txt"), "old_string": "m", "new_string": "v"}),
			use("w_stale", "Write", map[string]any{"file_path": w("m.txt"), "content": "w\n"}),
			use("w_new", "Write", map[string]any{"file_path": w("sub/new.txt"), "content": "n\n"}),
			use("w_over", "Write", map[string]any{"file_path": w("tabs.txt"), "content": "over\n"}),
			use("w_crlf", "Write", map[string]any{"file_path": w("crlf.txt"), "content": "p\nq\n"}),
			use("e_rel", "Edit", map[string]any{"file_path": "tabs.txt", "old_string": "over", "new_string": "o"}),
			use("n_rep", "NotebookEdit", map[string]any{"notebook_path": w("nb.ipynb"), "cell_id": "c1", "new_source": "print(3)"}),
			use("n_ins", "NotebookEdit", map[string]any{"notebook_path": w("nb.ipynb"), "cell_id": "c1", "new_source": "## new", "cell_type": "markdown", "edit_mode": "insert"}),
			use("n_del", "NotebookEdit", map[string]any{"notebook_path": w("nb.ipynb"), "cell_id": "m1", "new_source": "", "edit_mode": "delete"}),
			use("n_bad", "NotebookEdit", map[string]any{"notebook_path": w("nb.ipynb"), "cell_id": "zz", "new_source": "x"}),
		}
	}
	// The file m.txt changes (a formatter, the user) after Claude read it,
	// when the CLI asks about the edit.
	asked := func(e env, req claude.CanUseToolRequest) {
		if strings.Contains(string(req.Input), "m.txt") && !strings.Contains(req.ToolName, "Read") {
			_ = os.WriteFile(filepath.Join(e.Work, "m.txt"), []byte("changed\n"), 0o644)
		}
	}
	var builtin, ours runResult
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		builtin = runTurn(t, runSpec{mode: "default", setup: setup, script: script, asked: asked})
	}()
	go func() {
		defer wg.Done()
		ours = runTurn(t, runSpec{mode: "default", ours: true, setup: setup, script: script, asked: asked})
	}()
	wg.Wait()
	if t.Failed() {
		return
	}
	// Where they differ on purpose.
	skipText := map[string]string{
		"r_png": "the built-in may resize an image; both give Claude an image",
	}
	newCell := regexp.MustCompile(`Inserted cell [0-9a-f]+ with`)
	norm := func(r runResult, s string) string {
		s = strings.ReplaceAll(s, r.env.Work, "W")
		return newCell.ReplaceAllString(s, "Inserted cell ID with")
	}
	for _, step := range script(builtin.env) {
		id := step.Blocks[0].ID
		b, o := builtin.calls[id], ours.calls[id]
		if b == nil || o == nil {
			t.Errorf("%s: no result (built-in %v, ours %v)", id, b != nil, o != nil)
			continue
		}
		if b.IsError != o.IsError {
			t.Errorf("%s: is_error built-in %v, ours %v (%q vs %q)", id, b.IsError, o.IsError, b.Text, o.Text)
		}
		if why, ok := skipText[id]; ok {
			t.Logf("%s: text not compared: %s", id, why)
		} else if bt, ot := norm(builtin, b.Text), norm(ours, o.Text); bt != ot {
			t.Errorf("%s: Claude reads\n built-in: %q\n ours:     %q", id, trim(bt), trim(ot))
		}
		if !b.IsError {
			compareStructured(t, id, norm(builtin, string(b.Structured)), norm(ours, string(o.Structured)))
		}
	}
	// And the files end the same.
	for _, name := range []string{"tabs.txt", "crlf.txt", "created.txt", "sub/new.txt", "unread.txt", "m.txt"} {
		bf, _ := os.ReadFile(filepath.Join(builtin.env.Work, name))
		of, _ := os.ReadFile(filepath.Join(ours.env.Work, name))
		if string(bf) != string(of) {
			t.Errorf("%s after the turn: built-in %q, ours %q", name, bf, of)
		}
	}
	bn, _ := os.ReadFile(filepath.Join(builtin.env.Work, "nb.ipynb"))
	on, _ := os.ReadFile(filepath.Join(ours.env.Work, "nb.ipynb"))
	if cellID := regexp.MustCompile(`"id": "[0-9a-f]{8}"`); cellID.ReplaceAllString(string(bn), `"id": "X"`) != cellID.ReplaceAllString(string(on), `"id": "X"`) {
		t.Errorf("the notebook after the turn:\n built-in %s\n ours     %s", bn, on)
	}
}

func trim(s string) string {
	if len(s) > 400 {
		return s[:200] + " … " + s[len(s)-200:]
	}
	return s
}

// compareStructured checks that every member of ours is the built-in's.
func compareStructured(t *testing.T, id, builtin, ours string) {
	t.Helper()
	var b, o any
	if json.Unmarshal([]byte(builtin), &b) != nil || json.Unmarshal([]byte(ours), &o) != nil {
		t.Errorf("%s: structured results built-in %s, ours %s", id, trim(builtin), trim(ours))
		return
	}
	subset(t, id, b, o)
}

func subset(t *testing.T, path string, b, o any) {
	t.Helper()
	om, ok := o.(map[string]any)
	if !ok {
		if !reflect.DeepEqual(b, o) {
			t.Errorf("%s: built-in %v, ours %v", path, short(b), short(o))
		}
		return
	}
	bm, ok := b.(map[string]any)
	if !ok {
		t.Errorf("%s: built-in %v, ours an object", path, short(b))
		return
	}
	for k, ov := range om {
		bv, ok := bm[k]
		switch {
		case !ok:
			t.Errorf("%s.%s: the built-in has none, ours %v", path, k, short(ov))
		case k == "cell_id" || k == "updated_file" || k == "original_file":
			// a new cell's id is random; the files are compared above
		default:
			subset(t, path+"."+k, bv, ov)
		}
	}
}

func short(v any) string { return trim(fmt.Sprint(v)) }
