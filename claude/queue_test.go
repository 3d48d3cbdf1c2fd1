package claude

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestMsgQueueIsFIFO: any mix of pushes and pops gives the frames back in
// the order they were pushed.
func TestMsgQueueIsFIFO(t *testing.T) {
	var q msgQueue
	r := rand.New(rand.NewPCG(1, 2))
	pushed, popped := 0, 0
	for range 100000 {
		if q.len() > 0 && r.IntN(3) == 0 || q.len() > 300 {
			if m := q.pop(); m.Type != strconv.Itoa(popped) {
				t.Fatalf("popped %q, want %d", m.Type, popped)
			}
			popped++
		} else {
			q.push(Message{Type: strconv.Itoa(pushed)})
			pushed++
		}
		if q.len() != pushed-popped {
			t.Fatalf("len %d, want %d", q.len(), pushed-popped)
		}
	}
}

// TestMsgQueueReusesItsStorage: a queue that a consumer keeps short
// allocates nothing once it has grown to its length, whether it empties
// after each frame or holds a few.
func TestMsgQueueReusesItsStorage(t *testing.T) {
	for _, depth := range []int{0, 3, 200} {
		var q msgQueue
		for range depth {
			q.push(Message{})
		}
		allocs := testing.AllocsPerRun(1000, func() {
			q.push(Message{})
			q.pop()
		})
		if allocs != 0 {
			t.Errorf("depth %d: %v allocations per frame, want 0", depth, allocs)
		}
	}
}
