package agent_test

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
)

// Tests whose point is the agent's own logic (session bookkeeping, list,
// delete, reopen, the live cap) run the end-to-end harness (agenttest)
// against the in-process fake CLI (internal/test/clifake) instead of the
// real one: the same client, wire and checks, without a Node process of
// about 1.6 s of CPU per CLI start. What only the real CLI can prove (its
// frames, its transcripts, its resume and fork) stays proven by the
// real-CLI tests each converted test names.

// fakeHarness starts the harness with the world's fake CLIs behind the
// agent (agent.Config.Launch); opts are agenttest's (a Sandbox to share
// with an earlier agent, more Config).
func fakeHarness(t *testing.T, w *clifake.World, opts ...agenttest.Options) *agenttest.Harness {
	t.Helper()
	return startCF(t, w, opts...) // v2sim_helpers_test.go
}

// fakeModel is a World's model that answers with scripted texts, in order
// (as fakeapi.Server.Script does for the real CLI), and remembers every
// request it was asked.
type fakeModel struct {
	mu       sync.Mutex
	answers  []string
	requests []clifake.Request
}

// newFakeWorld returns a world whose model is a new fakeModel.
func newFakeWorld() (*clifake.World, *fakeModel) {
	m := &fakeModel{}
	return &clifake.World{Model: m.reply}, m
}

// script queues answers, one per model request.
func (m *fakeModel) script(answers ...string) {
	m.mu.Lock()
	m.answers = append(m.answers, answers...)
	m.mu.Unlock()
}

func (m *fakeModel) reply(r clifake.Request) clifake.Reply {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests = append(m.requests, r)
	text := "(nothing scripted)"
	if len(m.answers) > 0 {
		text, m.answers = m.answers[0], m.answers[1:]
	}
	return clifake.Reply{Chunks: []string{text}}
}

// asked returns the requests the model was asked, in order.
func (m *fakeModel) asked() []clifake.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.requests)
}

// last is the latest request; it fails the test when there is none.
func (m *fakeModel) last(t *testing.T) clifake.Request {
	t.Helper()
	reqs := m.asked()
	if len(reqs) == 0 {
		t.Fatal("no model request")
	}
	return reqs[len(reqs)-1]
}

// inHistory reports whether an earlier prompt of the request's
// conversation (what its CLI resumed, forked or ran before) contains text.
func inHistory(r clifake.Request, text string) bool {
	return slices.ContainsFunc(r.History, func(p string) bool { return strings.Contains(p, text) })
}

// liveFor is how many of the world's CLIs that have not exited run
// session sid.
func liveFor(w *clifake.World, sid string) int {
	n := 0
	for _, c := range w.Live() {
		if c.Session() == sid {
			n++
		}
	}
	return n
}
