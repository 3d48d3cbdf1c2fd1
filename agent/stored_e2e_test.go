package agent_test

import (
	"strings"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/fakeapi"
)

// Issue 35: what is stored is what the agent says is stored.

// TestListsSessionWithHugeFirstPrompt: a session whose first prompt is
// over 64 KiB (the head session/list reads of each transcript) is listed
// with and without a cwd filter, real CLI.
func TestListsSessionWithHugeFirstPrompt(t *testing.T) {
	h := agenttest.Start(t)
	sid := h.NewSession(h.Sandbox.WorkDir)
	h.API().Script(fakeapi.Text("Summarised."))
	huge := "Summarise this: " + strings.Repeat("lorem ipsum ", 100<<10/12)
	if resp, err := h.Prompt(sid, huge); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	for _, req := range []*acp.ListSessionsRequest{{}, {Cwd: acp.Some(h.Sandbox.WorkDir)}} {
		var resp acp.ListSessionsResponse
		if err := h.Client.Call(h.Ctx(), acp.MethodSessionList, req, &resp); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, s := range resp.Sessions {
			if string(s.SessionID) == sid {
				found = true
				if title, _ := s.Title.Get(); s.Cwd != h.Sandbox.WorkDir || !strings.HasPrefix(title, "Summarise this: lorem") {
					t.Errorf("row %+v (title %q)", s, title)
				}
			}
		}
		if !found {
			t.Errorf("session/list %+v: the session is missing (%d listed)", req, len(resp.Sessions))
		}
	}
}
