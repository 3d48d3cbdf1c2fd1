package agent_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
)

// TestSimSmoke: a prompt through the in-memory agent and fake CLI.
func TestSimSmoke(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		w := &clifake.World{Model: func(r clifake.Request) clifake.Reply {
			return clifake.Reply{Delay: time.Second, Chunks: []string{"hello ", "there"}, Every: 10 * time.Millisecond}
		}}
		s := newSim(t, w, nil)
		s.initialize()
		sid := s.newSession()
		start := time.Now()
		r, err := s.prompt(context.Background(), sid, "hi")
		if err != nil || r.StopReason != acp.StopReasonEndTurn {
			t.Fatalf("prompt: %+v %v", r, err)
		}
		if got := s.agentText(sid); !strings.Contains(got, "hello there") {
			t.Errorf("text %q", got)
		}
		t.Logf("the turn took %v of fake time", time.Since(start))
		if err := s.eof(); err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
}
