package transcript

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// uid returns a deterministic canonical UUID for test message n.
func uid(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012x", n) }

// sid is a fixed session id for tests.
const sid = "dafe46a1-0000-4000-8000-000000000001"

type obj = map[string]any

func enc(t testing.TB, m obj) string {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func parentOf(parent string) any {
	if parent == "" {
		return nil
	}
	return parent
}

// userLine is a prompt line as the CLI writes it.
func userLine(t testing.TB, id, parent, text string, extra ...any) string {
	m := obj{
		"parentUuid": parentOf(parent), "isSidechain": false, "type": "user",
		"message":   obj{"role": "user", "content": []any{obj{"type": "text", "text": text}}},
		"uuid":      id,
		"timestamp": "2026-11-29T12:12:49.155Z", "userType": "external", "cwd": "/home/me/work/p",
		"sessionId": sid, "version": "2.1.332", "gitBranch": "HEAD",
	}
	return enc(t, with(m, extra...))
}

// assistantLine is a model reply with one text block.
func assistantLine(t testing.TB, id, parent, text string, extra ...any) string {
	m := obj{
		"parentUuid": parentOf(parent), "isSidechain": false, "type": "assistant",
		"message": obj{"id": "msg_" + id[len(id)-4:], "type": "message", "role": "assistant",
			"model": "claude-opus-5-5", "content": []any{obj{"type": "text", "text": text}},
			"stop_reason": "end_turn", "usage": obj{"input_tokens": 10, "output_tokens": 1}},
		"requestId": "req_1", "uuid": id, "timestamp": "2026-11-29T12:12:50.155Z",
		"cwd": "/home/me/work/p", "sessionId": sid, "version": "2.1.332",
	}
	return enc(t, with(m, extra...))
}

func with(m obj, kv ...any) obj {
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// writeLines writes a transcript file, one line each, newline-terminated.
func writeLines(t testing.TB, path string, lines ...string) {
	t.Helper()
	writeRaw(t, path, strings.Join(lines, "\n")+"\n")
}

func writeRaw(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// load opens path and returns its records and the reader.
func load(t testing.TB, path string) ([]*Record, *Reader) {
	t.Helper()
	r, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	recs, err := r.Collect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return recs, r
}

// uuids lists the records' uuids.
func uuids(recs []*Record) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.UUID)
	}
	return out
}
