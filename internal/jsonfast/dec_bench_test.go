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
