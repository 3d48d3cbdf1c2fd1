package agent_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// TestThousandQueuedPromptsDoNotBlockControl is issue 13's second promise
// with the real CLI: 1,000 prompts queued on a model that hangs. Other
// requests (list, set_mode, new) are answered within 1 s, and one
// session/cancel answers all 1,000 prompts "cancelled" within 3 s. Before,
// the connection stopped dispatching at 64 requests in flight and nothing
// was answered until the prompts ended.
func TestThousandQueuedPromptsDoNotBlockControl(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.API().Script(fakeapi.Hang(0))
	sid := h.NewSession(h.Sandbox.WorkDir)
	const n = 1000
	var wg sync.WaitGroup
	results := make(chan *acp.PromptResponse, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := h.Prompt(sid, "queued prompt "+string(rune('a'+i%26)))
			if err != nil {
				t.Errorf("prompt: %v", err)
				return
			}
			results <- r
		}()
	}
	h.WaitFor("all prompts on the wire and the model request", 60*time.Second, func() bool {
		sent := 0
		for _, l := range h.Wire() {
			if !l.FromAgent && strings.Contains(l.Line, `"session/prompt"`) {
				sent++
			}
		}
		return sent == n && len(h.API().MainRequests()) > 0
	})

	timed := func(what string, limit time.Duration, call func() error) {
		t.Helper()
		start := time.Now()
		if err := call(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		took := time.Since(start)
		t.Logf("%s with %d prompts queued: %v", what, n, took)
		if took > limit {
			t.Errorf("%s took %v with %d prompts queued (limit %v)", what, took, n, limit)
		}
	}
	timed("session/list", time.Second, func() error {
		var r acp.ListSessionsResponse
		return h.Client.Call(h.Ctx(), acp.MethodSessionList, &acp.ListSessionsRequest{}, &r)
	})
	timed("session/set_mode", time.Second, func() error {
		var r acp.SetSessionModeResponse
		return h.Client.Call(h.Ctx(), acp.MethodSessionSetMode, &acp.SetSessionModeRequest{SessionID: acp.SessionID(sid), ModeID: "acceptEdits"}, &r)
	})
	timed("session/new", time.Second, func() error {
		var r acp.NewSessionResponse
		return h.Client.Call(h.Ctx(), acp.MethodSessionNew, &acp.NewSessionRequest{Cwd: t.TempDir(), MCPServers: []acp.MCPServer{}}, &r)
	})
	timed("session/cancel answering every prompt", 3*time.Second, func() error {
		h.Cancel(sid)
		wg.Wait()
		return nil
	})
	close(results)
	got := 0
	for r := range results {
		if r.StopReason != acp.StopReasonCancelled {
			t.Fatalf("a queued prompt ended %q, want cancelled", r.StopReason)
		}
		got++
	}
	if got != n {
		t.Fatalf("%d of %d prompts answered", got, n)
	}
}
