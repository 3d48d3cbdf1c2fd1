package agent

import (
	"sync"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// TestSessionInboxKeepsOrder: posts and dos from many goroutines run on the
// session goroutine in the order each sender put them, and a do waits for
// its own closure. Before, post started a goroutine per message, so two
// posts from one sender could run in either order.
func TestSessionInboxKeepsOrder(t *testing.T) {
	t.Parallel()
	s := newSession(New(Config{}).newConnection(), "s1", sessionTestOptions(), "default")
	defer s.close()
	const senders, each = 8, 500
	var mu sync.Mutex
	seen := map[int][]int{}
	var wg sync.WaitGroup
	for g := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				fn := func() { mu.Lock(); seen[g] = append(seen[g], i); mu.Unlock() }
				if i%3 == 0 {
					if !s.do(fn) {
						t.Error("do on a live session reported it ended")
					}
				} else {
					s.post(fn)
				}
			}
		}()
	}
	wg.Wait()
	s.do(func() {}) // everything posted before has run
	for g := range senders {
		if len(seen[g]) != each {
			t.Fatalf("sender %d: %d of %d ran", g, len(seen[g]), each)
		}
		for i, v := range seen[g] {
			if v != i {
				t.Fatalf("sender %d: message %d ran as %d", g, i, v)
			}
		}
	}
}

// TestSessionInboxAfterClose: after the session ended, do reports false
// and post is dropped; neither blocks.
func TestSessionInboxAfterClose(t *testing.T) {
	t.Parallel()
	s := newSession(New(Config{}).newConnection(), "s1", sessionTestOptions(), "default")
	s.close()
	ran := false
	if s.do(func() { ran = true }) || ran {
		t.Fatal("do ran on an ended session")
	}
	s.post(func() { ran = true })
	if ran {
		t.Fatal("post ran on an ended session")
	}
}

func sessionTestOptions() claude.Options { return claude.Options{} }
