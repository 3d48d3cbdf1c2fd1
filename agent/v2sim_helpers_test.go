package agent_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/agent"
	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
)

// The end-to-end tests whose point is the agent's own logic (v2's
// conversion and prompt lifecycle, queueing, cancellation, request
// checks) run the agent through the same harness as the real-CLI tests,
// with the in-process fake CLI (internal/test/clifake) behind it: no Node
// process starts. What the real CLI itself does (its frames, its
// transcript, its tools) stays proven on the real CLI by the golden
// scenarios (golden_test.go, golden_v2_test.go) and the tests that keep it.

// cfOptions returns opts (at most one) with the agent's CLIs launched in w.
func cfOptions(w *clifake.World, opts ...agenttest.Options) agenttest.Options {
	var o agenttest.Options
	if len(opts) > 0 {
		o = opts[0]
	}
	cfg := o.Config
	o.Config = func(c *agent.Config) {
		c.Launch = w.Launch
		if cfg != nil {
			cfg(c)
		}
	}
	return o
}

// startCF is agenttest.Start with the fake CLIs of w.
func startCF(t *testing.T, w *clifake.World, opts ...agenttest.Options) *agenttest.Harness {
	t.Helper()
	return agenttest.Start(t, cfOptions(w, opts...))
}

// startV2CF is agenttest.StartV2 with the fake CLIs of w.
func startV2CF(t *testing.T, w *clifake.World, opts ...agenttest.Options) *agenttest.HarnessV2 {
	t.Helper()
	return agenttest.StartV2(t, cfOptions(w, opts...))
}

// A cfScript is the fake model's script, as fakeapi's Script is the fake
// API's: each model request takes the next reply (a tool's follow-up
// request too); once they are used up, the model says "ok". It keeps every
// request it was asked, in full (History, Mode, tool results).
type cfScript struct {
	mu   sync.Mutex
	next []clifake.Reply
	seen []clifake.Request
}

// cfScripted returns a World whose model answers from a script, and the
// script, to which a test may add later.
func cfScripted(rs ...clifake.Reply) (*clifake.World, *cfScript) {
	s := &cfScript{next: rs}
	return &clifake.World{Model: s.model}, s
}

// Script adds replies.
func (s *cfScript) Script(rs ...clifake.Reply) {
	s.mu.Lock()
	s.next = append(s.next, rs...)
	s.mu.Unlock()
}

func (s *cfScript) model(r clifake.Request) clifake.Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, r)
	if len(s.next) == 0 {
		return clifake.Reply{Chunks: []string{"ok"}}
	}
	reply := s.next[0]
	s.next = s.next[1:]
	return reply
}

// requests are the model requests so far, in order (what fakeapi's
// MainRequests are on the real CLI).
func (s *cfScript) requests() []clifake.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.seen)
}

// cfText is a reply of text, streamed as one chunk (fakeapi.Text).
func cfText(s string) clifake.Reply { return clifake.Reply{Chunks: []string{s}} }

// cfHang is a reply that streams a first word, then thinks for longer
// than any test (fakeapi.Hang): the turn runs until it is interrupted.
func cfHang() clifake.Reply {
	return clifake.Reply{Chunks: []string{"…", "never said"}, Every: time.Hour}
}

// storedPromptUUID is the uuid under which the session's transcript (in
// configDir) has the prompt text: with the real CLI, the live turn's id.
func storedPromptUUID(t *testing.T, configDir, sid, text string) string {
	t.Helper()
	path, err := transcript.Find(configDir, sid)
	if err != nil {
		t.Fatal(err)
	}
	r, err := transcript.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	recs, err := r.Collect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		if rec.Type == transcript.TypeUser && rec.Message != nil {
			for _, b := range rec.Message.Content {
				if b.Type == "text" && b.Text == text {
					return rec.UUID
				}
			}
		}
	}
	t.Fatalf("no stored prompt %q", text)
	return ""
}
