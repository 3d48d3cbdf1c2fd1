package jsonfast

import (
	"strings"
	"testing"
)

func BenchmarkSkipString(b *testing.B) {
	s := []byte(`"` + strings.Repeat("word and more words, ", 100) + `"`)
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

// BenchmarkUnescape is a Read result of Go source as the CLI stores it:
// numbered lines, tabs, quotes and newlines, an escape every ten bytes or so.
func BenchmarkUnescape(b *testing.B) {
	line := `12\t\tif err := s.check(ctx, \"value\"); err != nil {\n13\t\t\treturn nil, fmt.Errorf(\"read %w\", err)\n14\t\t}\n`
	raw := []byte(strings.Repeat(line, 100))
	b.SetBytes(int64(len(raw)))
	dst := make([]byte, 0, len(raw))
	for b.Loop() {
		dst = Unescape(dst[:0], raw)
	}
}

// BenchmarkSkipCode validates and skips the Read result of
// BenchmarkUnescape: a string with an escape every ten bytes or so.
func BenchmarkSkipCode(b *testing.B) {
	line := `12\t\tif err := s.check(ctx, \"value\"); err != nil {\n13\t\t\treturn nil, fmt.Errorf(\"read %w\", err)\n14\t\t}\n`
	s := []byte(`"` + strings.Repeat(line, 100) + `"`)
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
