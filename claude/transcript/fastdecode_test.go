package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// slowDecode is the reference: encoding/json, then the tree fields as the
// first pass reads them (Reader.exact).
func slowDecode(line []byte) (*Record, error) {
	rec, err := decodeRecord(line)
	if err != nil {
		return nil, err
	}
	var r Reader
	r.exact(rec, line)
	return rec, nil
}

// checkFast fails when the fast decoder accepts line but decodes it
// differently from encoding/json, or accepts a line that is not JSON.
// It returns whether the fast path applied.
func checkFast(t *testing.T, rd *recordDecoder, line []byte) bool {
	t.Helper()
	// The reader's window is overwritten by the next lines: what a record
	// keeps of a long line (shared values) must be the decoder's own copy.
	buf := bytes.Clone(line)
	fast, ok := rd.decode(buf)
	if !ok {
		return false
	}
	for i := range buf {
		buf[i] = 'x'
	}
	if !json.Valid(line) {
		t.Fatalf("fast path accepted invalid JSON %q", line)
	}
	slow, err := slowDecode(line)
	if err != nil {
		t.Fatalf("fast path accepted a line encoding/json rejects (%v): %q", err, line)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("fast and encoding/json differ on %q:\nfast %+v\nslow %+v", line, fast, slow)
	}
	return true
}

func fileLines(t *testing.T, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		out = append(out, append([]byte(nil), sc.Bytes()...))
	}
	return out
}

// TestFastDecodeMatches: on real CLI transcripts, generated ones and edge
// cases the fast path agrees with encoding/json, and it applies to every
// line the CLI writes.
func TestFastDecodeMatches(t *testing.T) {
	var rd recordDecoder
	var lines [][]byte
	real, _ := filepath.Glob("testdata/*.jsonl")
	sub, _ := filepath.Glob("testdata/*/*.jsonl")
	subsub, _ := filepath.Glob("testdata/*/*/subagents/*.jsonl")
	for _, p := range append(append(real, sub...), subsub...) {
		lines = append(lines, fileLines(t, p)...)
	}
	path := filepath.Join(t.TempDir(), "gen.jsonl")
	genTranscript(t, path, 200)
	lines = append(lines, fileLines(t, path)...)
	fell := 0
	for _, l := range lines {
		if !checkFast(t, &rd, l) {
			fell++
			t.Errorf("fast path did not apply to a CLI line: %.300s", l)
		}
	}
	if len(lines) < 200 {
		t.Fatalf("only %d lines", len(lines))
	}
	edge := []string{
		`{"type":"user","uuid":"a","parentUuid":null,"message":{"role":"user","content":"hi \u00e9\ud83d\ude00 \ud800 x\"y"}}`,
		`{"type":"user","message":{"role":"user","content":null}}`,
		`{"type":"user","message":{"role":"user","content":[]}}`,
		`{"type":"user","message":null,"origin":{"kind":"peer","subkind":null}}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Bash","input":null,"content":{"a":[1,2.5e3,-0,true,false,null]},"is_error":null}]},"usage":{}}`,
		`{"type":"system","content":"compact","apiErrorStatus":429,"error":null,"attachment":null,"toolUseResult":null}`,
		`{"type":"system","content":{"x":1},"apiErrorStatus":"429","error":{"type":"rate"},"logicalParentUuid":"z"}`,
		`{"type":"system","apiErrorStatus":4.29e2}`,
		`{"type":"system","apiErrorStatus":1e999}`,
		"{\"type\":\"user\",\"message\":{\"content\":\"bad \xff utf8 \xe2\x82\"}}",
		` { "type" : "user" , "isMeta" : true , "is_meta" : false } `,
		`{"type":"user","is_meta":true,"isSidechain":null}`,
		`{}`,
		// Long lines: their big values are shared with the decoder's copy.
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"` +
			strings.Repeat(`out \"line\"\n`, 500) + `"}]},"toolUseResult":{"stdout":"` + strings.Repeat("y", 5000) + `"}}`,
		`{"type":"assistant","message":{"content":[{"type":"text","text":"` + strings.Repeat("long text ", 600) + `"}]}}`,
		`{"type":"user","message":{"role":"user","content":"` + strings.Repeat("prompt ", 900) + "\xff" + `"}}`,
		`{"type":"user","message":{"role":"user","content":"` + strings.Repeat("prompt ", 900) + `"}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"text","text":"` + strings.Repeat("z", 6000) + `"}]}]}}`,
	}
	for _, e := range edge {
		if !checkFast(t, &rd, []byte(e)) {
			t.Errorf("fast path gave up on %s", e)
		}
	}
	// Lines the fast path must leave to encoding/json.
	for _, e := range []string{
		`{"type":"user","Type":"assistant"}`,
		`{"type":"user","UUID":"x"}`,
		`{"type":"user","uuid":"a","uuid":"b"}`,
		`{"type":"user","isMeta":"yes"}`,
		`{"type":"user","message":{"Content":"x"}}`,
		`{"type":"user","message":{"content":[{"TYPE":"text"}]}}`,
		`{"type":"user","message":{"content":[null]}}`,
		`{"type":"user","message":{"content":5}}`,
		`{"typ\u0065":"user"}`,
		"{\"type\":\"user\",\"\u212aind\":1}",
		`[1]`,
		`null`,
		`{"type":"user"} x`,
		`{"type":"user",}`,
		`{"type":"user","n":01}`,
		`{"type":"user","s":"\x"}`,
	} {
		if _, ok := rd.decode([]byte(e)); ok {
			t.Errorf("fast path took %s", e)
		}
	}
}

// FuzzFastDecode: whatever the line, the fast path never accepts what
// encoding/json rejects and never decodes differently.
func FuzzFastDecode(f *testing.F) {
	f.Add([]byte(`{"type":"assistant","uuid":"a","parentUuid":"b","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"x\ny"},{"type":"tool_use","id":"t","name":"Read","input":{"file_path":"/a"}}],"usage":{"n":1}},"requestId":"r"}`))
	f.Add([]byte(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"ok"}],"is_error":false}]},"toolUseResult":{"stdout":"ok"},"sourceToolAssistantUUID":"a"}`))
	f.Add([]byte(`{"type":"system","subtype":"api_error","level":"error","content":"x","error":{"status":529},"apiErrorStatus":529,"origin":{"kind":"human"}}`))
	f.Add([]byte("{\"type\":\"user\",\"message\":{\"content\":\"\\ud83d\\ude00\xff\"}}"))
	f.Fuzz(func(t *testing.T, line []byte) {
		var rd recordDecoder
		checkFast(t, &rd, line)
		// A second decoder state (interned strings) must not change results.
		checkFast(t, &rd, line)
	})
}

// CheckFast is checkFast for the external tests (generated transcripts).
func CheckFast(t *testing.T, line []byte) bool {
	var rd recordDecoder
	return checkFast(t, &rd, line)
}

// BenchmarkDecodeRecord decodes every line of a generated transcript: one
// op is one line; /json is encoding/json (the fallback) for comparison.
func BenchmarkDecodeRecord(b *testing.B) {
	path := filepath.Join(b.TempDir(), "gen.jsonl")
	genTranscript(b, path, 600)
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var lines [][]byte
	for l := range bytes.SplitSeq(bytes.TrimSpace(data), []byte("\n")) {
		lines = append(lines, l)
	}
	b.Run("fast", func(b *testing.B) {
		var rd recordDecoder
		b.SetBytes(int64(len(data) / len(lines)))
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, ok := rd.decode(lines[i%len(lines)]); !ok {
				b.Fatal("fell back")
			}
			i++
		}
	})
	b.Run("json", func(b *testing.B) {
		b.SetBytes(int64(len(data) / len(lines)))
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, err := slowDecode(lines[i%len(lines)]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// TestToolResultTextDecoded: a tool_result whose content is a string comes
// with its text decoded, by both decoders, short or long (shared), with
// escapes or without; content of blocks keeps its JSON.
func TestToolResultTextDecoded(t *testing.T) {
	long := strings.Repeat("output line ", 600)
	for _, content := range []string{`"ok"`, `""`, `"a\nb \"q\" \u00e9"`, `"` + long + `"`, `"` + long + `\t"`, `[{"type":"text","text":"x"}]`} {
		line := []byte(`{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":[` +
			`{"type":"tool_result","tool_use_id":"t1","content":` + content + `}]}}`)
		var want string
		wantText := json.Unmarshal([]byte(content), &want) == nil
		var rd recordDecoder
		fast, ok := rd.decode(bytes.Clone(line))
		if !ok {
			t.Fatalf("fast path refused %s", content)
		}
		slow, err := slowDecode(line)
		if err != nil {
			t.Fatal(err)
		}
		for name, rec := range map[string]*Record{"fast": fast, "encoding/json": slow} {
			b := rec.Message.Content[0]
			if b.ContentIsText != wantText || b.ContentText != want || string(b.Content) != content {
				t.Errorf("%s, content %.40s: ContentIsText %v, ContentText %.40q, Content %.40s", name, content, b.ContentIsText, b.ContentText, b.Content)
			}
		}
	}
}
