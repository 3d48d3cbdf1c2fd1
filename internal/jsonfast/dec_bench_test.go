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
