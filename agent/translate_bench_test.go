package agent

import (
	"strconv"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// textDeltaFrame is a stream_event line as the CLI 2.1.332 writes one per
// text delta with --include-partial-messages.
func textDeltaFrame(i int) []byte {
	return []byte(`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"word ` +
		strconv.Itoa(i) + ` "}},"session_id":"af4e284c-4a56-4b26-a654-212e9b2deb86","parent_tool_use_id":null,` +
		`"uuid":"782cc1bc-b48e-40eb-99a1-3c1c1d0f6a5e","api_message_id":"msg_fake_de91dc00d120e499"}`)
}

// BenchmarkTranslateTextDelta is the adapter's whole per-chunk path after
// the CLI pipe: decoding a text_delta stream_event frame, translating it on
// the session goroutine, and encoding and writing the agent_message_chunk
// notification (to a client that discards it). One op is one chunk; its
// allocations are what a streamed chunk costs.
//
//	go test -run '^$' -bench Translate -benchmem ./agent
func BenchmarkTranslateTextDelta(b *testing.B) {
	a, written, stop := discardAgent(b)
	defer stop()
	s := newSession(a, "s1", claude.Options{}, claude.PermissionDefault)
	defer s.close()
	const batch = 256
	frames := make([][]byte, batch)
	for i := range frames {
		frames[i] = textDeltaFrame(i)
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		m, err := claude.DecodeMessage(frames[n%batch])
		if err != nil {
			b.Fatal(err)
		}
		s.do(func() { s.handle(m) })
		n++
	}
	b.StopTimer()
	if got := written.n.Load(); got < int64(n) {
		b.Fatalf("%d notifications for %d frames", got, n)
	}
}
