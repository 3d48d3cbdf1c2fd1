package transcriptgen

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
)

// TestReadBack checks that the transcript reader sees what the generator
// says it wrote: every line valid, the active branch as long as counted
// (rewound turns left out), each record following its parent.
func TestReadBack(t *testing.T) {
	for _, o := range []Options{
		{Messages: 2},
		{Messages: 100, Seed: 7},
		{Messages: 600, RewindEvery: 5, Seed: 9, Cwd: "/tmp/some where"},
		{Messages: 300, RewindEvery: 7, Seed: 4, ToolOutput: 5000, Code: true},
	} {
		dir := t.TempDir()
		path, st, err := WriteSession(dir, o)
		if err != nil {
			t.Fatal(err)
		}
		if !transcript.ValidSessionID(st.SessionID) || st.Messages < o.Messages {
			t.Fatalf("%+v: stats %+v", o, st)
		}
		r, err := transcript.Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := r.Collect(context.Background())
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != st.Active || r.Stats().Corrupt != 0 || r.Stats().Messages != st.Messages {
			t.Errorf("%+v: read %d records (stats %+v), generator says %+v", o, len(recs), r.Stats(), st)
		}
		tools, prompts := 0, 0
		for i, rec := range recs {
			if i > 0 && rec.ParentUUID != recs[i-1].UUID {
				t.Fatalf("record %d does not follow its parent", i)
			}
			for _, b := range rec.Message.Content {
				if b.Type == "tool_use" {
					tools++
				}
			}
			if rec.PermissionMode != "" {
				prompts++
			}
		}
		if tools != st.ToolCalls || prompts != st.Turns {
			t.Errorf("%+v: %d tool calls and %d prompts on the branch, generator says %d and %d", o, tools, prompts, st.ToolCalls, st.Turns)
		}
		if o.RewindEvery > 0 && st.Active >= st.Messages {
			t.Errorf("rewinds left no dead branch: %+v", st)
		}
	}
}

// TestCodeIsEscapeDense: with Code, the tool outputs are as dense in JSON
// escapes as real source code (this repository's agent/*.go: 8.7% of
// bytes), Read results are numbered as the CLI numbers them, and <, >
// and & stay as they are, as the CLI writes them.
func TestCodeIsEscapeDense(t *testing.T) {
	var buf bytes.Buffer
	if _, err := Write(&buf, Options{Messages: 120, Seed: 5, ToolOutput: 4000, Code: true}); err != nil {
		t.Fatal(err)
	}
	var raw, escaped int
	sawRead := false
	for _, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		var m struct {
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
			ToolUseResult json.RawMessage `json:"toolUseResult"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatal(err)
		}
		if m.ToolUseResult == nil {
			continue
		}
		var blocks []struct {
			Content string `json:"content"`
		}
		if err := json.Unmarshal(m.Message.Content, &blocks); err != nil || len(blocks) != 1 {
			t.Fatalf("tool result content %s: %v", m.Message.Content, err)
		}
		enc, _ := json.Marshal(blocks[0].Content)
		raw += len(blocks[0].Content)
		escaped += strings.Count(string(enc), `\`)
		if strings.HasPrefix(blocks[0].Content, "1\t") && strings.Contains(blocks[0].Content, "\n2\t") {
			sawRead = true
		}
	}
	share := float64(escaped) / float64(raw)
	t.Logf("%.1f%% of %d bytes of tool output escaped", 100*share, raw)
	if share < 0.06 || share > 0.15 {
		t.Errorf("%.1f%% of the tool outputs' bytes escaped, want about 9%%", 100*share)
	}
	if !sawRead {
		t.Error("no Read result numbered as the CLI numbers it (\"1\\t…\\n2\\t…\")")
	}
	if !bytes.Contains(buf.Bytes(), []byte("&&")) || bytes.Contains(buf.Bytes(), []byte(`\u0026`)) {
		t.Error("& escaped as \\u0026: the CLI leaves it as it is")
	}
}

// TestCachedMatchesFresh: a transcript reused from the cache for another
// directory is byte for byte the one generated for that directory, even
// when the directory needs escaping in JSON.
func TestCachedMatchesFresh(t *testing.T) {
	for _, code := range []bool{false, true} {
		o := Options{Messages: 300, RewindEvery: 7, Seed: 11, Code: code, Cwd: "/tmp/first"}
		if _, err := Write(io.Discard, o); err != nil { // fills the cache
			t.Fatal(err)
		}
		for _, cwd := range []string{"/tmp/second dir", `/tmp/quote"back\slash`, "/tmp/ünï\u2028"} {
			o.Cwd = cwd
			var cached, fresh bytes.Buffer
			st, err := Write(&cached, o)
			if err != nil {
				t.Fatal(err)
			}
			want, err := generate(&fresh, o.withDefaults())
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(cached.Bytes(), fresh.Bytes()) {
				t.Fatalf("code=%v cwd %q: the cached transcript differs from a fresh one", code, cwd)
			}
			if st.Bytes != want.Bytes || st.Lines != want.Lines || st.Active != want.Active || len(st.Tools) != len(want.Tools) {
				t.Fatalf("code=%v cwd %q: stats %+v, want %+v", code, cwd, st, want)
			}
		}
	}
}
