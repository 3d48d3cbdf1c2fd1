package acp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestAppendJSONMatchesEncodingJSON: AppendJSON writes what encoding/json
// writes (HTML escaping off) for the values the agent compares and sends.
func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	content := []ToolCallContent{
		{Content: &Content{Content: ContentBlock{Text: &TextContent{Text: "out <b>\n"}}}},
		{Diff: &Diff{Path: "/a.go", OldText: Some("x"), NewText: "y"}},
		{Terminal: &Terminal{TerminalID: "t1"}},
	}
	locs := []ToolCallLocation{{Path: "/a.go", Line: Some(uint32(3))}}
	var nilLocs []ToolCallLocation
	for _, v := range []any{&content, content, &locs, &nilLocs, nilLocs, nil, chunkNotification(), &content[0], "s<>", map[string]json.RawMessage{"b": json.RawMessage(`{ "x" : 1 }`), "a": json.RawMessage(`2`)},
		Some("opt"), []string{"a", "b"}, 3.5, true} {
		got, err := AppendJSON(nil, v)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		if want := strings.TrimSuffix(b.String(), "\n"); string(got) != want {
			t.Errorf("AppendJSON(%T) = %s, want %s", v, got, want)
		}
	}
}

// BenchmarkToolContentJSON is the encoding of a tool call's content (a 4 KB
// result), which the agent encodes on every tool report to tell whether it
// changed: AppendJSON against encoding/json.
func BenchmarkToolContentJSON(b *testing.B) {
	content := []ToolCallContent{{Content: &Content{Content: ContentBlock{Text: &TextContent{Text: strings.Repeat("line of output\n", 270)}}}}}
	b.Run("AppendJSON", func(b *testing.B) {
		var buf []byte
		b.ReportAllocs()
		for b.Loop() {
			buf, _ = AppendJSON(buf[:0], &content)
		}
	})
	b.Run("json.Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = json.Marshal(content)
		}
	})
}
