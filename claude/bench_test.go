package claude

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// The decode benchmarks run over all real frames of testdata (one op = all
// 241 frames) and over one 1 MB tool-result frame, comparing
//
//   - DecodeMessage: envelope scan plus eager typed decode (what the
//     reader does),
//   - Envelope: the envelope scan plus json.Valid only (what a lazy design
//     would pay up front),
//   - MapAny: plain encoding/json into map[string]any.

func benchFrames(b *testing.B) ([][]byte, int64) {
	var frames [][]byte
	var n int64
	for _, fx := range loadFixtures(b) {
		frames = append(frames, fx.Frame)
		n += int64(len(fx.Frame))
	}
	return frames, n
}

func bigFrame() []byte {
	body := strings.Repeat("line of tool output with some text\\n", 1<<20/36)
	return []byte(`{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"` +
		body + `","is_error":false}]},"parent_tool_use_id":null,"session_id":"s","uuid":"u","tool_use_result":{"stdout":"x"}}`)
}

func BenchmarkDecodeMessage(b *testing.B) {
	frames, n := benchFrames(b)
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range frames {
			if _, err := DecodeMessage(f); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkDecodeEnvelope(b *testing.B) {
	frames, n := benchFrames(b)
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range frames {
			if _, _, ok := peekEnvelope(f); !ok || !json.Valid(f) {
				b.Fatal("bad frame")
			}
		}
	}
}

func BenchmarkDecodeMapAny(b *testing.B) {
	frames, n := benchFrames(b)
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range frames {
			var m map[string]any
			if err := json.Unmarshal(f, &m); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkDecodeMessageBig(b *testing.B) {
	f := bigFrame()
	b.SetBytes(int64(len(f)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeMessage(f); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeMapAnyBig(b *testing.B) {
	f := bigFrame()
	b.SetBytes(int64(len(f)))
	b.ReportAllocs()
	for b.Loop() {
		var m map[string]any
		if err := json.Unmarshal(f, &m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadPipeline measures the whole read path (pipe, line reader,
// decode, queue, Messages channel) on one turn of the fake CLI's "flood"
// scenario: 5,000 stream_event frames of about 300 bytes and a result.
func BenchmarkReadPipeline(b *testing.B) {
	// kept: the consumer keeps every frame, as one that does not call
	// Recycle; recycled: it gives each back (Recycle), as the agent's
	// session does with the deltas it relays.
	for _, recycle := range []bool{false, true} {
		name := "kept"
		if recycle {
			name = "recycled"
		}
		b.Run(name, func(b *testing.B) {
			p, err := Start(context.Background(), fakeOptions("flood"))
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			var bytes int64
			b.ReportAllocs()
			for b.Loop() {
				bytes = 0
				if err := p.Send(context.Background(), Text("go")); err != nil {
					b.Fatal(err)
				}
				for m := range p.Messages() {
					bytes += int64(len(m.Raw))
					if m.Type == "result" {
						break
					}
					if recycle {
						Recycle(m)
					}
				}
			}
			b.SetBytes(bytes)
		})
	}
}

// BenchmarkDecodeTextDelta decodes the frame a streamed turn is made of:
// one stream_event per text delta (about 300 bytes). One op is one frame,
// so ns/op and allocs/op are the CLI-side decoding cost of one chunk.
func BenchmarkDecodeTextDelta(b *testing.B) {
	f := []byte(`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"word word "}},` +
		`"session_id":"af4e284c-4a56-4b26-a654-212e9b2deb86","parent_tool_use_id":null,` +
		`"uuid":"782cc1bc-b48e-40eb-99a1-3c1c1d0f6a5e","api_message_id":"msg_fake_de91dc00d120e499"}`)
	b.SetBytes(int64(len(f)))
	b.ReportAllocs()
	for b.Loop() {
		m, err := DecodeMessage(f)
		if err != nil || m.Body.(*StreamEvent).Event.Delta.Text != "word word " {
			b.Fatal("bad decode", err)
		}
	}
}
