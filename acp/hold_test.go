package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"testing"
)

// writeLog records every Write the connection makes.
type writeLog struct {
	mu     sync.Mutex
	writes [][]byte
}

func (w *writeLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes = append(w.writes, bytes.Clone(p))
	return len(p), nil
}

func (w *writeLog) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.writes)
}

func (w *writeLog) lines() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, b := range w.writes {
		for _, l := range bytes.SplitAfter(b, []byte("\n")) {
			if len(l) > 0 {
				out = append(out, string(l))
			}
		}
	}
	return out
}

func holdConn(t *testing.T) (*Conn, *writeLog) {
	t.Helper()
	pr, pw := io.Pipe()
	w := &writeLog{}
	c := NewConn(pr, w, Options{})
	t.Cleanup(func() {
		pw.Close()
		c.Close()
		c.Wait()
	})
	return c, w
}

func notifyN(t *testing.T, c *Conn, from, n int) {
	t.Helper()
	for i := from; i < from+n; i++ {
		if err := c.Notify(context.Background(), "n", map[string]int{"i": i}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestHoldBatchesInOrder: frames sent while held go out in one Write, in
// the order they were sent, after the frames written before the hold;
// with no hold every frame is written at once, on its own.
func TestHoldBatchesInOrder(t *testing.T) {
	c, w := holdConn(t)
	notifyN(t, c, 0, 1)
	if w.count() != 1 {
		t.Fatalf("a frame sent with no hold: %d writes, want 1 at once", w.count())
	}
	release := c.Hold()
	notifyN(t, c, 1, 10)
	if w.count() != 1 {
		t.Fatalf("held frames written early: %d writes", w.count())
	}
	release()
	release() // a second call is a no-op
	if w.count() != 2 {
		t.Fatalf("%d writes after release, want 2", w.count())
	}
	notifyN(t, c, 11, 1)
	if w.count() != 3 {
		t.Fatalf("a frame after the hold: %d writes, want 3", w.count())
	}
	for i, l := range w.lines() {
		if want := fmt.Sprintf(`{"jsonrpc":"2.0","method":"n","params":{"i":%d}}`+"\n", i); l != want {
			t.Errorf("line %d = %s, want %s", i, l, want)
		}
	}
}

// TestHoldNested: frames stay held until the last of nested holds ends.
func TestHoldNested(t *testing.T) {
	c, w := holdConn(t)
	outer := c.Hold()
	inner := c.Hold()
	notifyN(t, c, 0, 3)
	inner()
	if w.count() != 0 {
		t.Fatalf("written before the outer hold ended: %d writes", w.count())
	}
	outer()
	if w.count() != 1 || len(w.lines()) != 3 {
		t.Fatalf("%d writes, %d lines; want 1, 3", w.count(), len(w.lines()))
	}
}

// TestHoldConcurrentWritersKeepOrder: writers on several goroutines while
// holds come and go; every frame arrives once, and each writer's frames in
// its order.
func TestHoldConcurrentWritersKeepOrder(t *testing.T) {
	c, w := holdConn(t)
	const writers, each = 4, 500
	var wg sync.WaitGroup
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if i%7 == 0 {
					release := c.Hold()
					defer release()
				}
				if err := c.Notify(context.Background(), "n", map[string]int{"g": g, "i": i}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	next := make([]int, writers)
	lines := w.lines()
	if len(lines) != writers*each {
		t.Fatalf("%d lines, want %d", len(lines), writers*each)
	}
	for _, l := range lines {
		var f struct {
			Params struct{ G, I int } `json:"params"`
		}
		if err := json.Unmarshal([]byte(l), &f); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		if f.Params.I != next[f.Params.G] {
			t.Fatalf("writer %d: frame %d after %d", f.Params.G, f.Params.I, next[f.Params.G]-1)
		}
		next[f.Params.G]++
	}
}

// TestHoldLetsRequestsOut: a request is written at once while held, after
// the frames held before it, so its answer can come; and a call made
// while held gets its answer.
func TestHoldLetsRequestsOut(t *testing.T) {
	a, _ := pipePair(t, Options{}, Options{Handler: HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		return map[string]string{"ok": req.Method}, nil
	})})
	release := a.Hold()
	defer release()
	if err := a.Notify(context.Background(), "note", nil); err != nil {
		t.Fatal(err)
	}
	var got map[string]string
	if err := a.Call(context.Background(), "ask", nil, &got); err != nil || got["ok"] != "ask" {
		t.Fatalf("Call while held = %v, %v", got, err)
	}
}

// BenchmarkNotifyHeld is the cost of a notification sent while held (one
// Write per 64), beside BenchmarkEncodeNotification's.
func BenchmarkNotifyHeld(b *testing.B) {
	pr, pw := io.Pipe()
	defer pw.Close()
	c := NewConn(pr, io.Discard, Options{})
	defer c.Close()
	params := map[string]string{"text": "word "}
	b.ReportAllocs()
	n := 0
	release := c.Hold()
	for b.Loop() {
		if n++; n%64 == 0 {
			release()
			release = c.Hold()
		}
		_ = c.Notify(context.Background(), "session/update", params)
	}
	release()
}
