package agent_test

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
)

// Helpers for the reopen, shared-session, steering, lost-result and
// control tests that run the e2e harness over the in-process fake CLI
// (clifake) instead of the real one: their point is the agent's own
// bookkeeping, and what the real CLI does with what the agent hands it
// stays proven by the real-CLI tests each of them names.

// promptModel is a fake model that answers each prompt with the reply set
// for its text (a follow-up after a tool, and a prompt with none, get
// "ok"), and remembers every request it was asked.
type promptModel struct {
	mu      sync.Mutex
	replies map[string]clifake.Reply
	reqs    []clifake.Request
}

// newPromptWorld returns a world whose model is a new promptModel with
// replies.
func newPromptWorld(replies map[string]clifake.Reply) (*clifake.World, *promptModel) {
	m := &promptModel{replies: map[string]clifake.Reply{}}
	for k, v := range replies {
		m.replies[k] = v
	}
	return &clifake.World{Model: m.reply}, m
}

func (m *promptModel) reply(r clifake.Request) clifake.Reply {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs = append(m.reqs, r)
	if rep, ok := m.replies[r.Prompt]; ok && !r.FollowUp {
		return rep
	}
	return clifake.Reply{Chunks: []string{"ok"}}
}

// set makes prompt's turns answer rep from now on.
func (m *promptModel) set(prompt string, rep clifake.Reply) {
	m.mu.Lock()
	m.replies[prompt] = rep
	m.mu.Unlock()
}

// asked returns the requests made so far, in order.
func (m *promptModel) asked() []clifake.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.reqs)
}

// last is the latest request; it fails the test when there is none.
func (m *promptModel) last(t *testing.T) clifake.Request {
	t.Helper()
	reqs := m.asked()
	if len(reqs) == 0 {
		t.Fatal("no model request")
	}
	return reqs[len(reqs)-1]
}

// hang is a reply that streams text, then thinks for an hour: a turn that
// runs until it is interrupted.
func hang(text string) clifake.Reply {
	return clifake.Reply{Chunks: []string{text, " (never sent)"}, Every: time.Hour}
}

// oneLive is the one CLI of w that has not exited (onePID's fake
// counterpart); it fails the test when there are none or several.
func oneLive(t *testing.T, w *clifake.World, what string) *clifake.CLI {
	t.Helper()
	live := w.Live()
	if len(live) != 1 {
		var ns []int
		for _, c := range live {
			ns = append(ns, c.N())
		}
		t.Fatalf("%s: want one live CLI, found %v", what, ns)
	}
	return live[0]
}

// otherLive waits for the one live CLI to be another than before: a load
// is answered once its history is out, while the CLI it restarts may still
// be on its way.
func otherLive(t *testing.T, h *agenttest.Harness, w *clifake.World, before *clifake.CLI, what string) *clifake.CLI {
	t.Helper()
	h.WaitFor(what, 30*time.Second, func() bool {
		live := w.Live()
		return len(live) == 1 && live[0] != before
	})
	return oneLive(t, w, what)
}
