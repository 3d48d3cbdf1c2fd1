package agent_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestRelayedDeltasSurviveRecycling: the session gives every delta it
// relays back to the CLI's reader (claude.Recycle), which decodes a later
// delta into the same bytes; under -race (make test) a recycled frame is
// first scribbled over with '#'. A string the session kept from a delta
// (the message id it groups chunks by, the key a burst merges by) would
// then read garbage. The client pauses now and then, so deltas queue up
// and bursts merge them too. Every chunk must carry the CLI's message id,
// and the text must come whole, in order, once.
func TestRelayedDeltasSurviveRecycling(t *testing.T) {
	t.Parallel()
	const chunks, size = 4000, 8
	p := startRaw(t)
	sid := p.newSession(t)
	p.send(3, "session/prompt", map[string]any{"sessionId": sid,
		"prompt": []any{map[string]any{"type": "text", "text": fmt.Sprintf("chunks %d %d", chunks, size)}}})
	var text strings.Builder
	ids := map[string]int{}
	notes := 0
	p.chunksUntilAnswer(3, func(chunk, messageID string) {
		notes++
		if notes%200 == 0 {
			time.Sleep(20 * time.Millisecond) // the CLI streams on: a backlog to merge
		}
		ids[messageID]++
		text.WriteString(chunk)
	})
	var want strings.Builder
	for i := range chunks {
		c := fmt.Sprintf("[%d]", i)
		want.WriteString(c + strings.Repeat("x", max(0, size-len(c))))
	}
	if got := text.String(); got != want.String() {
		i := 0
		for i < len(got) && i < want.Len() && got[i] == want.String()[i] {
			i++
		}
		t.Fatalf("the relayed text differs from the streamed one at byte %d of %d: %.40q", i, want.Len(), got[i:])
	}
	if len(ids) != 1 {
		t.Fatalf("chunks of one message came with message ids %v", ids)
	}
	for id := range ids {
		if !strings.HasPrefix(id, "msg_fake_") {
			t.Fatalf("chunks came with message id %q", id)
		}
	}
	t.Logf("%d deltas in %d chunks", chunks, notes)
}
