package agent_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// Issue 15, item 10: what the editor sees of usage, the context window,
// WebSearch results, model names and the fast mode option.

// TestPromptUsageAndContextWindowE2E: PromptResponse.usage is the turn's
// token usage, and every usage_update, the first one included, has the
// context window the CLI reports for its model (1M here), not a 200k guess
// corrected at the end of the turn. The first prompt goes with
// session/new, so the CLI is asked for the window only once it answers
// (config.go); until then usage waits.
func TestPromptUsageAndContextWindowE2E(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	step := fakeapi.Text("Hello.")
	step.Usage = map[string]any{"input_tokens": 120, "output_tokens": 7, "cache_read_input_tokens": 30, "cache_creation_input_tokens": 4}
	step.Repeat = 2
	h.API().Script(step)
	sid := h.NewSession(h.Sandbox.WorkDir)
	for turn := 1; turn <= 2; turn++ {
		resp, err := h.Prompt(sid, "hi")
		if err != nil || resp.StopReason != acp.StopReasonEndTurn {
			t.Fatalf("turn %d: %+v %v", turn, resp, err)
		}
		u := resp.Usage
		if u == nil || u.InputTokens != 120 || u.OutputTokens != 7 || u.CachedReadTokens.Or(0) != 30 || u.CachedWriteTokens.Or(0) != 4 || u.TotalTokens != 161 {
			t.Fatalf("turn %d: usage %+v", turn, u)
		}
	}
	n, costs := 0, 0
	for _, up := range h.Updates(sid) {
		if uu := up.UsageUpdate; uu != nil {
			n++
			if uu.Size != 1_000_000 {
				t.Errorf("usage_update %d has size %d", n, uu.Size)
			}
			if uu.Cost != nil {
				costs++
			}
		}
	}
	// Each turn ends with its cost; the second, whose window is known,
	// also reports its usage as it streams.
	if costs != 2 || n < 3 {
		t.Errorf("%d usage updates, %d with a cost", n, costs)
	}
	validWire(t, h)
}

// TestContextWindowOfAFailedFirstTurnE2E: a first prompt sent with
// session/new fails before the model answers (an invalid key), so neither
// a streamed answer nor the result tells the window. The turn's usage
// waits for the CLI's answer to the question, asked once the turn ended,
// and still has the right size.
func TestContextWindowOfAFailedFirstTurnE2E(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	e401 := fakeapi.HTTPError(401, "authentication_error", "invalid x-api-key")
	e401.Repeat = -1
	h.API().Script(e401)
	sid := h.NewSession(h.Sandbox.WorkDir)
	if _, err := h.Prompt(sid, "hi"); err == nil {
		t.Fatal("the turn did not fail")
	}
	var final *acp.UsageUpdate
	h.WaitFor("the turn's usage", 10*time.Second, func() bool {
		for _, up := range h.Updates(sid) {
			if uu := up.UsageUpdate; uu != nil && uu.Cost != nil {
				final = uu
				return true
			}
		}
		return false
	})
	if final.Size != 1_000_000 {
		t.Errorf("the failed turn's usage has size %d", final.Size)
	}
	validWire(t, h)
}

// TestWebSearchCardE2E: the WebSearch card shows the search result, not
// the CLI's reminder to the model to cite its sources.
func TestWebSearchCardE2E(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.API().Script(toolUse("toolu_ws", "WebSearch", map[string]any{"query": "golang release"}),
		fakeapi.Text("Go 1.26 was released.").When(fakeapi.Match{ToolsInclude: fakeapi.Names{"web_search"}}),
		fakeapi.Text("done"))
	sid := h.NewSession(h.Sandbox.WorkDir)
	if _, err := h.Prompt(sid, "search"); err != nil {
		t.Fatal(err)
	}
	calls, _ := toolCalls(t, h, sid)
	ws := calls["toolu_ws"]
	text := contentText(ws.content)
	if ws.status != acp.ToolCallStatusCompleted || !strings.Contains(text, "Go 1.26 was released.") ||
		strings.Contains(text, "REMINDER") || strings.Contains(string(ws.rawOutput), "REMINDER") {
		t.Fatalf("web search card %q, raw %s", text, ws.rawOutput)
	}
}

// TestModelNamesAndFastModeE2E: model rows are named with the version the
// CLI gives ("Opus 5.5", not "Opus"); a model that supports fast mode
// offers the fast option, which the client can turn on; the CLI's
// ultracode and the project's own agents are options too.
func TestModelNamesAndFastModeE2E(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	agents := filepath.Join(h.Sandbox.WorkDir, ".claude", "agents")
	if err := os.MkdirAll(agents, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(agents, "reviewer.md"), []byte("---\nname: reviewer\ndescription: Reviews code\n---\nYou review code.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.API().Script(fakeapi.Text("ok"))
	sid := h.NewSession(h.Sandbox.WorkDir)
	if _, err := h.Prompt(sid, "hi"); err != nil {
		t.Fatal(err)
	}
	// (The CLI offers WebFetch by default: TestMetaOptionsReachTheAPI's
	// disallowedTools takes it away.)
	if reqs := h.API().MainRequests(); len(reqs) == 0 || !reqs[len(reqs)-1].HasTool("WebFetch") {
		t.Errorf("the CLI did not offer WebFetch")
	}
	opts := latestConfig(h, sid, nil)
	model := findOption(opts, "model")
	if model == nil || model.Select == nil {
		t.Fatalf("no model option: %s", mustMarshal(t, opts))
	}
	names := map[string]string{}
	for _, o := range model.Select.Options.Ungrouped {
		names[string(o.Value)] = o.Name
	}
	if names["opus"] != "Opus 5.5" || names["default"] == "" {
		t.Errorf("model names %v", names)
	}
	// This client declared no boolean options: on/off switches are selects.
	fast := findOption(opts, "fast")
	if fast == nil || fast.Select == nil || fast.Select.CurrentValue != "off" || fast.Name != "Fast mode" {
		t.Fatalf("fast option %s", mustMarshal(t, fast))
	}
	var resp acp.SetSessionConfigOptionResponse
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionSetConfigOption, map[string]any{
		"sessionId": sid, "configId": "fast", "value": "on"}, &resp); err != nil {
		t.Fatalf("set fast: %v", err)
	}
	if f := findOption(resp.ConfigOptions, "fast"); f == nil || f.Select == nil || f.Select.CurrentValue != "on" {
		t.Errorf("after turning it on: %s", mustMarshal(t, f))
	}
	opts = latestConfig(h, sid, resp.ConfigOptions)
	if u := findOption(opts, "ultracode"); u == nil || u.Select == nil || u.Select.CurrentValue != "off" {
		t.Errorf("ultracode option %s", mustMarshal(t, u))
	}
	agent := findOption(opts, "agent")
	if agent == nil || agent.Select == nil || agent.Select.CurrentValue != "default" || len(agent.Select.Options.Ungrouped) != 2 ||
		agent.Select.Options.Ungrouped[1].Value != "reviewer" {
		t.Fatalf("agent option %s", mustMarshal(t, agent))
	}
	for _, set := range []map[string]any{
		{"sessionId": sid, "configId": "agent", "value": "reviewer"},
		{"sessionId": sid, "configId": "ultracode", "value": "on"},
	} {
		if err := h.Client.Call(h.Ctx(), acp.MethodSessionSetConfigOption, set, &resp); err != nil {
			t.Fatalf("set %v: %v", set["configId"], err)
		}
	}
	if a := findOption(resp.ConfigOptions, "agent"); a == nil || a.Select.CurrentValue != "reviewer" {
		t.Errorf("after choosing the agent: %s", mustMarshal(t, a))
	}
	if u := findOption(resp.ConfigOptions, "ultracode"); u == nil || u.Select.CurrentValue != "on" {
		t.Errorf("after turning ultracode on: %s", mustMarshal(t, u))
	}
	// (The CLI took both: apply_flag_settings answered without error. A
	// running session keeps its system prompt sections, so the API does
	// not show the agent's prompt until a new CLI starts.)
	h.API().Script(fakeapi.Text("as the reviewer"))
	if resp, err := h.Prompt(sid, "review"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt after the changes: %+v %v", resp, err)
	}
	validWire(t, h)
}
