package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// writes records the agent's writes to its client, each a batch of lines.
type writes struct {
	mu sync.Mutex
	w  [][]byte
}

func (w *writes) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.w = append(w.w, bytes.Clone(p))
	return len(p), nil
}

// updates returns, per write, the session/update kinds and texts it held
// ("agent: text", "thought: text").
func (w *writes) updates(t *testing.T) [][]string {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	var out [][]string
	for _, b := range w.w {
		var batch []string
		for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
			var n struct {
				Params struct {
					Update struct {
						SessionUpdate string `json:"sessionUpdate"`
						Content       struct {
							Text string `json:"text"`
						} `json:"content"`
					} `json:"update"`
				} `json:"params"`
			}
			if err := json.Unmarshal(l, &n); err != nil {
				t.Fatalf("%q: %v", l, err)
			}
			u := n.Params.Update
			batch = append(batch, strings.TrimSuffix(u.SessionUpdate, "_chunk")+": "+u.Content.Text)
		}
		out = append(out, batch)
	}
	return out
}

// burstSession is a session of an agent whose client's writes are recorded.
func burstSession(t *testing.T) (*session, *writes) {
	t.Helper()
	a := New(Config{Env: []string{"HOME=" + t.TempDir()}}).newConnection()
	in, inW := io.Pipe()
	w := &writes{}
	served := make(chan error, 1)
	go func() { served <- a.serve(context.Background(), in, w) }()
	<-a.connReady
	s := newSession(a, "s1", claude.Options{}, claude.PermissionDefault)
	t.Cleanup(func() {
		s.close()
		inW.Close()
		<-served
	})
	return s, w
}

// frame decodes a stream_event line of the CLI: a delta ("text" or
// "thinking") of block index, or a content_block_stop when kind is "stop".
func frame(t *testing.T, kind string, index int, text string) claude.Message {
	t.Helper()
	ev := fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, index)
	if kind != "stop" {
		q, _ := json.Marshal(text)
		ev = fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"%s_delta","%s":%s}}`, index, kind, kind, q)
	}
	m, err := claude.DecodeMessage([]byte(`{"type":"stream_event","event":` + ev +
		`,"session_id":"af4e284c-4a56-4b26-a654-212e9b2deb86","parent_tool_use_id":null,"uuid":"782cc1bc-b48e-40eb-99a1-3c1c1d0f6a5e"}`))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// source gives ms one at a time, as Process.TryMessage gives what is queued.
func source(ms []claude.Message) (next func() (claude.Message, bool), left func() int) {
	return func() (claude.Message, bool) {
			if len(ms) == 0 {
				return claude.Message{}, false
			}
			m := ms[0]
			ms = ms[1:]
			return m, true
		}, func() int {
			return len(ms)
		}
}

// TestBurstCoalescesDeltasInOrder: the frame the session received goes
// out on its own, at once; what queued behind it goes out in one write,
// in order, with consecutive deltas of one kind and block as one chunk.
func TestBurstCoalescesDeltasInOrder(t *testing.T) {
	t.Parallel()
	s, w := burstSession(t)
	queued := []claude.Message{
		frame(t, "text", 0, "b"), frame(t, "text", 0, "c"), frame(t, "thinking", 0, "t1"), frame(t, "thinking", 0, "t2"),
		frame(t, "text", 0, "d"), frame(t, "stop", 0, ""), frame(t, "text", 1, "e"), frame(t, "text", 1, "f"),
		frame(t, "text", 2, "g"),
	}
	next, left := source(queued)
	s.do(func() {
		s.handle(frame(t, "text", 0, "a"))
		if got := len(w.updates(t)); got != 1 {
			t.Errorf("the first frame: %d writes before the burst, want 1", got)
		}
		s.burst(next, true, func() bool { return true })
	})
	want := [][]string{{"agent_message: a"},
		{"agent_message: bc", "agent_thought: t1t2", "agent_message: d", "agent_message: ef", "agent_message: g"}}
	if got := w.updates(t); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("writes:\n got %q\nwant %q", got, want)
	}
	if left() != 0 {
		t.Errorf("%d frames left behind", left())
	}
}

// TestBurstNothingQueued: with nothing queued (the session keeps up) a
// burst writes nothing and holds nothing back.
func TestBurstNothingQueued(t *testing.T) {
	t.Parallel()
	s, w := burstSession(t)
	next, _ := source(nil)
	s.do(func() {
		s.handle(frame(t, "text", 0, "a"))
		s.burst(next, true, func() bool { return true })
		s.handle(frame(t, "text", 0, "b"))
	})
	want := [][]string{{"agent_message: a"}, {"agent_message: b"}}
	if got := w.updates(t); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("writes:\n got %q\nwant %q", got, want)
	}
}

// TestBurstBounded: a burst stops after maxBurst frames (and the one it
// looked ahead at), so the inbox is not starved; nothing is lost.
func TestBurstBounded(t *testing.T) {
	t.Parallel()
	s, w := burstSession(t)
	var queued []claude.Message
	for i := range 3 * maxBurst {
		kind := "text"
		if i%2 == 1 {
			kind = "thinking" // never merged with its neighbours
		}
		queued = append(queued, frame(t, kind, 0, fmt.Sprint(i)))
	}
	next, left := source(queued)
	s.do(func() { s.burst(next, true, func() bool { return true }) })
	got := w.updates(t)
	if len(got) != 1 || len(got[0]) != maxBurst+1 {
		t.Fatalf("writes %v, want one of %d chunks", got, maxBurst+1)
	}
	for i, u := range got[0] {
		if !strings.HasSuffix(u, ": "+fmt.Sprint(i)) {
			t.Fatalf("chunk %d is %q", i, u)
		}
	}
	if left() != len(queued)-maxBurst-1 {
		t.Errorf("%d frames left, want %d", left(), len(queued)-maxBurst-1)
	}
}

// BenchmarkBurstTextDeltas is the per-chunk cost when chunks queued up
// (the client or the machine is slow): decoded frames taken 64 at a time,
// merged and written at once.
func BenchmarkBurstTextDeltas(b *testing.B) {
	a, written, stop := discardAgent(b)
	defer stop()
	s := newSession(a, "s1", claude.Options{}, claude.PermissionDefault)
	defer s.close()
	frames := make([][]byte, 64)
	for i := range frames {
		frames[i] = textDeltaFrame(i)
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n++
		if n%64 != 0 {
			continue
		}
		i := 0
		next := func() (claude.Message, bool) {
			if i == len(frames) {
				return claude.Message{}, false
			}
			m, err := claude.DecodeMessage(frames[i])
			if err != nil {
				b.Fatal(err)
			}
			i++
			return m, true
		}
		s.do(func() { s.burst(next, true, func() bool { return true }) })
	}
	b.StopTimer()
	if written.n.Load() == 0 {
		b.Fatal("nothing written")
	}
}

// TestBurstShortBacklogKeepsChunks: without merging (a short backlog),
// queued deltas keep one chunk each, still in one write.
func TestBurstShortBacklogKeepsChunks(t *testing.T) {
	t.Parallel()
	s, w := burstSession(t)
	next, _ := source([]claude.Message{frame(t, "text", 0, "a"), frame(t, "text", 0, "b"), frame(t, "text", 0, "c")})
	s.do(func() { s.burst(next, false, func() bool { return true }) })
	want := [][]string{{"agent_message: a", "agent_message: b", "agent_message: c"}}
	if got := w.updates(t); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("writes:\n got %q\nwant %q", got, want)
	}
}

// fakeQueue is a frameQueue over a list (what a CLI's reader queued).
type fakeQueue struct {
	ms     []claude.Message
	pacing bool // what the reader's Pacing says
}

func (q *fakeQueue) Backlog() int { return len(q.ms) }
func (q *fakeQueue) Pacing() bool { return q.pacing }
func (q *fakeQueue) TryMessage() (claude.Message, bool) {
	if len(q.ms) == 0 {
		return claude.Message{}, false
	}
	m := q.ms[0]
	q.ms = q.ms[1:]
	return m, true
}

// TestFrameJoinsBurstOnlyWhenItContinues: a frame that continues the text
// the session handled last goes out in one write with the frames queued
// behind it; the first delta of a block, or a frame with nothing behind
// it, goes out on its own first.
func TestFrameJoinsBurstOnlyWhenItContinues(t *testing.T) {
	t.Parallel()
	s, w := burstSession(t)
	same := func() bool { return true }
	s.do(func() {
		// The first delta of block 0, with two frames behind it: alone first.
		q := &fakeQueue{ms: []claude.Message{frame(t, "text", 0, "b"), frame(t, "text", 0, "c")}}
		s.handleFrameFrom(frame(t, "text", 0, "a"), q, same)
		// It continues block 0 and one frame waits: one write for both.
		q = &fakeQueue{ms: []claude.Message{frame(t, "text", 0, "e")}}
		s.handleFrameFrom(frame(t, "text", 0, "d"), q, same)
		// It continues block 0 but nothing waits: at once.
		s.handleFrameFrom(frame(t, "text", 0, "f"), &fakeQueue{}, same)
		// Another kind of delta (thinking) starts anew: alone first.
		q = &fakeQueue{ms: []claude.Message{frame(t, "thinking", 0, "u")}}
		s.handleFrameFrom(frame(t, "thinking", 0, "t"), q, same)
		// After a block's stop, block 1's first delta: alone first.
		s.handleFrameFrom(frame(t, "stop", 0, ""), &fakeQueue{}, same)
		q = &fakeQueue{ms: []claude.Message{frame(t, "text", 1, "h")}}
		s.handleFrameFrom(frame(t, "text", 1, "g"), q, same)
	})
	var got [][]string
	for _, batch := range w.updates(t) {
		var keep []string
		for _, u := range batch {
			if !strings.HasPrefix(u, "agent_") {
				continue // the stop's own updates, if any
			}
			keep = append(keep, u)
		}
		if keep != nil {
			got = append(got, keep)
		}
	}
	want := [][]string{{"agent_message: a"}, {"agent_message: b", "agent_message: c"},
		{"agent_message: d", "agent_message: e"}, {"agent_message: f"},
		{"agent_thought: t"}, {"agent_thought: u"},
		{"agent_message: g"}, {"agent_message: h"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("writes:\n got %q\nwant %q", got, want)
	}
}

// TestFrameThatEndsTheCLILeavesItsQueue: when handling a frame ends the
// session's use of its CLI, the frames queued behind it are not taken.
func TestFrameThatEndsTheCLILeavesItsQueue(t *testing.T) {
	t.Parallel()
	s, w := burstSession(t)
	q := &fakeQueue{ms: []claude.Message{frame(t, "text", 0, "b")}}
	s.do(func() { s.handleFrameFrom(frame(t, "text", 0, "a"), q, func() bool { return false }) })
	if got := w.updates(t); fmt.Sprint(got) != fmt.Sprint([][]string{{"agent_message: a"}}) {
		t.Errorf("writes: %q", got)
	}
	if q.Backlog() != 1 {
		t.Errorf("%d frames left in the queue, want 1", q.Backlog())
	}
}

// TestPacedBacklogMerges: while the reader paces a block (claude's
// DeltaPace), what queued up merges however short the backlog, in order
// and whole; a block's first delta still goes out alone and at once.
func TestPacedBacklogMerges(t *testing.T) {
	t.Parallel()
	s, w := burstSession(t)
	same := func() bool { return true }
	s.do(func() {
		q := &fakeQueue{ms: []claude.Message{frame(t, "text", 0, "b"), frame(t, "text", 0, "c")}, pacing: true}
		s.handleFrameFrom(frame(t, "text", 0, "a"), q, same)
		q = &fakeQueue{ms: []claude.Message{frame(t, "text", 0, "e"), frame(t, "text", 0, "f")}, pacing: true}
		s.handleFrameFrom(frame(t, "text", 0, "d"), q, same)
		// Not paced, a short backlog keeps its chunks.
		q = &fakeQueue{ms: []claude.Message{frame(t, "text", 0, "h"), frame(t, "text", 0, "i")}}
		s.handleFrameFrom(frame(t, "text", 0, "g"), q, same)
	})
	want := [][]string{{"agent_message: a"}, {"agent_message: bc"}, {"agent_message: def"},
		{"agent_message: g", "agent_message: h", "agent_message: i"}}
	if got := w.updates(t); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("writes:\n got %q\nwant %q", got, want)
	}
}
