package agent_test

import (
	"os"
	"strings"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/faultcli"
)

// proxied runs the real CLI behind the fault proxy of internal/test/faultcli
// (this test binary), which drops or repeats the frames kv names.
func proxied(t *testing.T, kv ...string) agenttest.Options {
	dir := t.TempDir()
	return agenttest.Options{Config: func(c *agent.Config) {
		c.Env = append(c.Env, faultcli.EnvScenario+"=serve", faultcli.EnvDir+"="+dir,
			faultcli.EnvProxy+"="+c.Executable, "GORACE=atexit_sleep_ms=0")
		c.Env = append(c.Env, kv...)
		c.Executable = os.Args[0]
	}}
}

// TestLostResult: the real CLI finishes a turn but its result frame never
// reaches the agent (the proxy drops it). Once the CLI says it is idle,
// the prompt ends: a legacy client gets a JSON-RPC error that says what
// happened, a client with typed failures a service record it can retry;
// either way the next prompt runs normally instead of waiting behind the
// lost turn for good. The legacy case runs the real CLI, so that the frames
// the agent tells a lost result by (the turn's end without its result, then
// idle) are the real CLI's; the typed case is the agent's own policy on the
// same condition, and runs on the in-process fake CLI, whose turn ends
// the same way without its result frame (clifake.LostResult).
func TestLostResult(t *testing.T) {
	t.Parallel()
	t.Run("legacy", func(t *testing.T) {
		t.Parallel()
		h := agenttest.Start(t, proxied(t, faultcli.EnvDrop+"=result"))
		h.API().Script(fakeapi.Text("first answer"), fakeapi.Text("second answer"))
		sid := h.NewSession(h.Sandbox.WorkDir)
		_, err := h.Prompt(sid, "hello")
		wantRPCError(t, err, acp.CodeInternalError, "without reporting its result", "Send your prompt again")
		if !strings.Contains(h.AgentText(sid), "first answer") {
			t.Errorf("the turn's text was not shown: %q", h.AgentText(sid))
		}
		resp, err := h.Prompt(sid, "again")
		if err != nil || resp.StopReason != acp.StopReasonEndTurn || !strings.HasSuffix(h.AgentText(sid), "second answer") {
			t.Fatalf("the next prompt: %+v %v (text %q)", resp, err, h.AgentText(sid))
		}
	})
	t.Run("typed", func(t *testing.T) {
		t.Parallel()
		w := fakeFailureWorld(map[string]clifake.Reply{
			"hello": {Chunks: []string{"first answer"}, End: clifake.LostResult},
			"again": fakeText("second answer"),
		})
		h, sid := startFailures(t, airOn, onFakeCLI(w))
		resp, err := h.Prompt(sid, "hello")
		if err != nil || resp.StopReason != acp.StopReasonEndTurn {
			t.Fatalf("prompt: %+v %v", resp, err)
		}
		rec, ok := recordOf(t, resp.Meta)
		if !ok || rec.Category != "service" || rec.Severity != "error" || len(rec.Actions) == 0 || rec.Actions[0] != "retry" ||
			!strings.Contains(rec.Title, "without reporting its result") {
			t.Fatalf("record %+v (found %v)", rec, ok)
		}
		resp, err = h.Prompt(sid, "again")
		if err != nil || resp.StopReason != acp.StopReasonEndTurn {
			t.Fatalf("the next prompt: %+v %v", resp, err)
		}
		if _, ok := recordOf(t, resp.Meta); ok {
			t.Errorf("the next prompt carries a failure: %+v", resp.Meta)
		}
		if !strings.Contains(h.AgentText(sid), "first answer") || !strings.HasSuffix(h.AgentText(sid), "second answer") {
			t.Errorf("agent text %q", h.AgentText(sid))
		}
	})
}
