package jsonfast

import (
	"strings"
	"testing"
)

func BenchmarkSkipString(b *testing.B) {
	benchSkip(b, `"`+strings.Repeat("word and more words, ", 100)+`"`)
}

// benchSkip validates and skips the JSON text s.
func benchSkip(b *testing.B, text string) {
	s := []byte(text)
	b.SetBytes(int64(len(s)))
	var d Dec
	for b.Loop() {
		d.Reset(s)
		d.Skip()
		if !d.End() {
			b.Fatal("bad")
		}
	}
}

// BenchmarkStrLike is a Bash result's stdout (13 KB) that repeats the
// tool result's text: taken with one comparison, without a scan.
func BenchmarkStrLike(b *testing.B) {
	text := strings.Repeat(`ok  \tpkg/module\t0.5s\n`, 600) // as JSON writes it
	s := []byte(`"` + text + `"`)
	b.SetBytes(int64(len(s)))
	var d Dec
	for b.Loop() {
		d.Reset(s)
		if got, _ := d.StrLike([]byte(text), "the result's text"); got != "the result's text" || !d.End() {
			b.Fatal("bad")
		}
	}
}

// codeRead is a Read result of Go source as the CLI stores it, without its
// quotes: numbered lines, tabs, quotes and newlines, an escape every eight
// bytes or so (11 KB).
var codeRead = strings.Repeat(`12\t\tif err := s.check(ctx, \"value\"); err != nil {\n13\t\t\treturn nil, fmt.Errorf(\"read %w\", err)\n14\t\t}\n`, 100)

// BenchmarkUnescape decodes codeRead.
func BenchmarkUnescape(b *testing.B) {
	raw := []byte(codeRead)
	b.SetBytes(int64(len(raw)))
	dst := make([]byte, 0, len(raw))
	for b.Loop() {
		dst = Unescape(dst[:0], raw)
	}
}

// BenchmarkSkipCode validates and skips codeRead: a string with an escape
// every eight bytes or so.
func BenchmarkSkipCode(b *testing.B) {
	benchSkip(b, `"`+codeRead+`"`)
}
