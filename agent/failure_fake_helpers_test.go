package agent_test

import (
	"github.com/claude-agent-acp/claude-agent-acp/agent"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
)

// Helpers for the failure tests that run over the in-process fake CLI
// (clifake) instead of the real one: the tests whose point is the agent's
// own policy (negotiation, the legacy mapping, titles, revisions) get the
// real CLI's frames from a recording (clifake.Recorded), while the kept
// real-CLI tests prove that the real CLI writes them.

// fakeFailureWorld is a fake CLI world whose model answers each prompt with
// the reply given for its text; a prompt with none gets a reply that says
// so, which the test's checks then catch.
func fakeFailureWorld(replies map[string]clifake.Reply) *clifake.World {
	return &clifake.World{Model: func(r clifake.Request) clifake.Reply {
		if rep, ok := replies[r.Prompt]; ok {
			return rep
		}
		return clifake.Reply{Chunks: []string{"no reply scripted for " + r.Prompt}}
	}}
}

// realFrames is a reply that plays the real CLI's frames of the named
// recording.
func realFrames(name string) clifake.Reply { return clifake.Reply{Frames: clifake.Recorded(name)} }

// fakeText is a plain streamed answer.
func fakeText(s string) clifake.Reply { return clifake.Reply{Chunks: []string{s}} }

// onFakeCLI runs the harness's agent over w's fake CLIs.
func onFakeCLI(w *clifake.World) agenttest.Options {
	return agenttest.Options{Config: func(c *agent.Config) { c.Launch = w.Launch }}
}
