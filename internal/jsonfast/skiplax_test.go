package jsonfast

import (
	"fmt"
	"strings"
	"testing"
)

// skipLaxAgrees checks that a lax Skip takes and refuses what the general
// path does, and ends in the same place.
func skipLaxAgrees(t *testing.T, b []byte) {
	t.Helper()
	var fast, slow Dec
	fast.ResetLax(b)
	slow.ResetLax(b)
	slow.slow = true
	fast.Skip()
	slow.Skip()
	if fast.Bad() != slow.Bad() || !slow.Bad() && (fast.Pos() != slow.Pos() || fast.depth != slow.depth) {
		t.Fatalf("Skip(%q): fast bad=%v at %d (depth %d), general bad=%v at %d (depth %d)",
			b, fast.Bad(), fast.Pos(), fast.depth, slow.Bad(), slow.Pos(), slow.depth)
	}
	if fast.End() != slow.End() {
		t.Fatalf("End after Skip(%q) differs", b)
	}
}

func TestSkipLaxAgrees(t *testing.T) {
	deep := strings.Repeat(`{"a":[`, 70) + `1` + strings.Repeat(`]}`, 70)
	for _, s := range []string{
		`{}`, `[]`, `{ }`, `[ ]`, `{"a":1}`, `{"a":1,"b":[true,false,null,-0.5e+3,"x\"y"]}`,
		`{"a":{"b":{"c":[[],{}]}}}`, ` [1 , 2 ] `, `{"k\"":"v\\"}`, deep, deep[:len(deep)-1],
		strings.Repeat(`[`, 64) + strings.Repeat(`]`, 64), strings.Repeat(`[`, 65) + strings.Repeat(`]`, 65),
		// refused
		`{`, `[`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1,]`, `[1 2]`, `{"a":1 "b":2}`, `{1:2}`, `[tru]`, `[nul]`,
		`[01]`, `[1.]`, `[-]`, `{"a":1]`, `[1}`, `["x]`, `{"a":"b`, `[1e]`, `{"a" 1}`, `[,1]`, `{,}`,
		`[` + strings.Repeat(`{"a":`, 66) + `1` + strings.Repeat(`}`, 65) + `]`,
	} {
		skipLaxAgrees(t, []byte(s))
	}
}

func FuzzSkipLax(f *testing.F) {
	for _, s := range []string{`{"a":["x\\",{"b":"\""}]}`, `[1,-2.5e3,true,null,{}]`, `{"a":{"b":[[]]}}`, `[{"a":1},`} {
		f.Add([]byte(s))
	}
	f.Fuzz(skipLaxAgrees)
}

// BenchmarkSkipLax is the first pass's skip of a transcript line's
// message (an assistant turn with thinking, text and a tool call), by
// skipContainerLax and by the general path.
func BenchmarkSkipLax(b *testing.B) {
	words := strings.Repeat("word and more words, ", 8)
	line := []byte(`{"message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[` +
		`{"type":"thinking","thinking":"` + words + `","signature":"c2lnbmF0dXJl"},{"type":"text","text":"` + words + `"},` +
		`{"type":"tool_use","id":"toolu_01","name":"Bash","input":{"command":"go test ./...","description":"Run the tests","timeout":120000}}],` +
		`"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":12,"cache_creation_input_tokens":0,"cache_read_input_tokens":4096,"output_tokens":230}}}`)
	for _, slow := range []bool{false, true} {
		b.Run(fmt.Sprint("general=", slow), func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				var d Dec
				d.ResetLax(line)
				d.slow = slow
				d.Skip()
				if !d.End() {
					b.Fatal("bad")
				}
			}
		})
	}
}
