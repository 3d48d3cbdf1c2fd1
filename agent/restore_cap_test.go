package agent_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/agent"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
)

// TestLoadsSentTogetherStartNoMoreCLIsThanTheCap: an editor restores
// eight threads at once with a cap of three live CLIs. Each load decides
// whether its CLI resumes in the background before its replay; the room
// it takes counts from that decision, so at most three CLIs start, not
// eight that the cap then hibernates once they are up.
func TestLoadsSentTogetherStartNoMoreCLIsThanTheCap(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		w := &clifake.World{StartDelay: 2 * time.Second}
		s := newSim(t, w, func(c *agent.Config) { c.MaxLiveSessions = 3 })
		s.initialize()
		const n = 8
		ids := make([]string, n)
		for i := range ids {
			ids[i] = s.newSession()
			if _, err := s.prompt(context.Background(), ids[i], fmt.Sprintf("thread %d", i)); err != nil {
				t.Fatalf("prompt %d: %v", i, err)
			}
		}
		for _, id := range ids {
			if err := s.close(id); err != nil {
				t.Fatalf("session/close: %v", err)
			}
		}
		synctest.Wait()
		before := starts(w)
		var wg sync.WaitGroup
		for _, id := range ids {
			wg.Go(func() {
				if err := s.load(id); err != nil {
					t.Errorf("session/load: %v", err)
				}
			})
		}
		wg.Wait()
		time.Sleep(10 * time.Second) // every background start is up
		synctest.Wait()
		if got := starts(w) - before; got > 3 {
			t.Errorf("%d CLIs started for %d loads sent together, cap 3", got, n)
		}
		if live := len(w.Live()); live > 3 {
			t.Errorf("%d CLIs live, cap 3", live)
		}
		if err := s.eof(); err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
}

// starts counts the CLIs the world has started.
func starts(w *clifake.World) int {
	n := 0
	for _, e := range w.Events() {
		if e.Kind == "start" {
			n++
		}
	}
	return n
}
