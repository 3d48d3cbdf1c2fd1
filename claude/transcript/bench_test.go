package transcript

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// genTranscript writes a transcript of about n message lines shaped like a
// real coding session: each turn is a prompt, an assistant reply with
// thinking and a tool call, the tool result with its structured output, and
// a closing reply, followed by a last-prompt line; every 25 turns the user
// rewinds one turn (with the CLI's rewind marker), leaving an abandoned
// branch. Lines are 1–2 KB. It returns
// the number of records on the active branch.
func genTranscript(tb testing.TB, path string, n int) (active int) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	pad := func(i, size int) string { return strings.Repeat(fmt.Sprintf("word%d ", i%97), size/7) }
	put := func(m obj) {
		b, err := json.Marshal(m)
		if err != nil {
			tb.Fatal(err)
		}
		w.Write(b)
		w.WriteByte('\n')
	}
	common := func(m obj, id, parent string) obj {
		m["uuid"], m["parentUuid"], m["sessionId"] = id, parentOf(parent), sid
		m["timestamp"], m["cwd"], m["version"], m["gitBranch"] = "2026-11-29T12:12:49.155Z", "/home/me/work/project", "2.1.332", "main"
		m["isSidechain"], m["userType"] = false, "external"
		return m
	}
	next, parent := 0, ""
	newID := func() string { next++; return uid(next) }
	chain := 0
	for turn := 0; next < n; turn++ {
		start, startChain := parent, chain
		p := newID()
		put(common(obj{"type": "user", "message": obj{"role": "user", "content": []any{
			obj{"type": "text", "text": "Please look at the failing test and fix it. " + pad(turn, 900)}}},
			"permissionMode": "default", "promptId": "p"}, p, parent))
		a1 := newID()
		put(common(obj{"type": "assistant", "requestId": "req_x", "message": obj{"id": "msg_" + a1, "role": "assistant",
			"model": "claude-opus-5-5", "stop_reason": "tool_use", "usage": obj{"input_tokens": 1200, "output_tokens": 300},
			"content": []any{
				obj{"type": "thinking", "thinking": pad(turn+1, 600), "signature": strings.Repeat("s", 200)},
				obj{"type": "text", "text": "Let me run the tests."},
				obj{"type": "tool_use", "id": "toolu_" + a1, "name": "Bash",
					"input": obj{"command": "go test ./...", "description": "Run the tests"}}}}}, a1, p))
		r := newID()
		out := pad(turn+2, 1200)
		put(common(obj{"type": "user", "message": obj{"role": "user", "content": []any{
			obj{"type": "tool_result", "tool_use_id": "toolu_" + a1, "content": out, "is_error": false}}},
			"toolUseResult":           obj{"stdout": out[:400], "stderr": "", "interrupted": false},
			"sourceToolAssistantUUID": a1}, r, a1))
		a2 := newID()
		put(common(obj{"type": "assistant", "message": obj{"id": "msg_" + a2, "role": "assistant", "model": "claude-opus-5-5",
			"stop_reason": "end_turn", "content": []any{obj{"type": "text", "text": "Fixed. " + pad(turn+3, 800)}}}}, a2, r))
		put(obj{"type": "last-prompt", "lastPrompt": "Please look at the failing test", "leafUuid": a2, "sessionId": sid})
		parent, chain = a2, chain+4
		if turn%25 == 24 { // rewind: the next turn branches from before this one
			parent, chain = start, startChain
			put(obj{"type": "last-prompt", "leafUuid": start, "explicit": true, "rewound": true, "sessionId": sid})
		}
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return chain
}

func TestGeneratedTranscript(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gen.jsonl")
	active := genTranscript(t, path, 1000)
	recs, r := load(t, path)
	if len(recs) != active || r.Stats().Messages != 1000 || r.Stats().Corrupt != 0 {
		t.Errorf("records = %d, want %d; stats %+v", len(recs), active, r.Stats())
	}
	for i := 1; i < len(recs); i++ {
		if recs[i].ParentUUID != recs[i-1].UUID {
			t.Fatalf("record %d does not follow its parent", i)
		}
	}
}

// BenchmarkReadActiveChain measures indexing a transcript and decoding every
// record of its active branch. Cost should grow linearly: compare ns/msg of
// the 5k, 20k and 100k cases, and retained-B/msg (the branch index, all a
// Reader keeps) should stay flat.
func BenchmarkReadActiveChain(b *testing.B) {
	for _, n := range []int{5_000, 20_000, 100_000} {
		path := filepath.Join(b.TempDir(), "gen.jsonl")
		genTranscript(b, path, n)
		fi, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("msgs=%d/index", n), func(b *testing.B) {
			kept := retained(b, path)
			b.SetBytes(fi.Size())
			b.ReportAllocs()
			for b.Loop() {
				r, err := Open(path, nil)
				if err != nil {
					b.Fatal(err)
				}
				r.Close()
			}
			b.ReportMetric(float64(kept)/float64(n), "retained-B/msg")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/msg")
		})
		b.Run(fmt.Sprintf("msgs=%d/records", n), func(b *testing.B) {
			b.SetBytes(fi.Size())
			b.ReportAllocs()
			for b.Loop() {
				r, err := Open(path, nil)
				if err != nil {
					b.Fatal(err)
				}
				count := 0
				for _, err := range r.Records() {
					if err != nil {
						b.Fatal(err)
					}
					count++
				}
				r.Close()
				if count == 0 {
					b.Fatal("no records")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/msg")
		})
	}
}

// retained returns the heap a Reader keeps after Open.
func retained(b *testing.B, path string) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, err := Open(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(r)
	r.Close()
	if after.HeapAlloc < before.HeapAlloc {
		return 0
	}
	return after.HeapAlloc - before.HeapAlloc
}
