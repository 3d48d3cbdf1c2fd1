package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// Helpers shared by the end-to-end tests (tools, permissions, modes, commands,
// MCP, reliability).

// toolUse is a fake API answer that calls one tool.
func toolUse(id, name string, input any) fakeapi.Step {
	return fakeapi.Step{Kind: fakeapi.KindBlocks, Blocks: []fakeapi.Block{{Type: "tool_use", ID: id, Name: name, Input: input}}}
}

// callState is a tool call as the client sees it after all its reports.
type callState struct {
	id        string
	title     string
	kind      acp.ToolKind
	status    acp.ToolCallStatus
	content   []acp.ToolCallContent
	locations []acp.ToolCallLocation
	rawInput  json.RawMessage
	rawOutput json.RawMessage
	meta      map[string]json.RawMessage // merged
	reports   int
	terminal  strings.Builder // _meta.terminal_output data, in order
	exit      json.RawMessage // _meta.terminal_exit
}

// toolCalls folds the session's tool_call and tool_call_update
// notifications into the state of each call, in first-report order. It
// fails the test if an update names a call that was never reported.
func toolCalls(t *testing.T, h *agenttest.Harness, sid string) (map[string]*callState, []string) {
	t.Helper()
	calls := map[string]*callState{}
	var order []string
	for _, u := range h.Updates(sid) {
		switch {
		case u.ToolCall != nil:
			tc := u.ToolCall
			c := &callState{id: string(tc.ToolCallID), title: tc.Title, kind: tc.Kind, status: tc.Status,
				content: tc.Content, locations: tc.Locations, rawInput: tc.RawInput, rawOutput: tc.RawOutput, meta: map[string]json.RawMessage{}, reports: 1}
			mergeMeta(c, tc.Meta)
			calls[c.id] = c
			order = append(order, c.id)
		case u.ToolCallUpdate != nil:
			tu := u.ToolCallUpdate
			c := calls[string(tu.ToolCallID)]
			if c == nil {
				t.Fatalf("tool_call_update for %s before its tool_call", tu.ToolCallID)
			}
			c.reports++
			if v, ok := tu.Title.Get(); ok {
				c.title = v
			}
			if v, ok := tu.Kind.Get(); ok {
				c.kind = v
			}
			if v, ok := tu.Status.Get(); ok {
				c.status = v
			}
			if v, ok := tu.Content.Get(); ok {
				c.content = v
			}
			if v, ok := tu.Locations.Get(); ok {
				c.locations = v
			}
			if tu.RawInput != nil {
				c.rawInput = tu.RawInput
			}
			if tu.RawOutput != nil {
				c.rawOutput = tu.RawOutput
			}
			mergeMeta(c, tu.Meta)
		}
	}
	return calls, order
}

func mergeMeta(c *callState, meta map[string]json.RawMessage) {
	for k, v := range meta {
		switch k {
		case "terminal_output":
			var o struct {
				Data string `json:"data"`
			}
			_ = json.Unmarshal(v, &o)
			c.terminal.WriteString(o.Data)
		case "terminal_exit":
			c.exit = v
		}
		c.meta[k] = v
	}
}

// diffs returns the diff contents of a call.
func diffs(content []acp.ToolCallContent) []*acp.Diff {
	var out []*acp.Diff
	for _, c := range content {
		if c.Diff != nil {
			out = append(out, c.Diff)
		}
	}
	return out
}

// contentText joins the text contents of a call.
func contentText(content []acp.ToolCallContent) string {
	var sb strings.Builder
	for _, c := range content {
		if c.Content != nil && c.Content.Content.Text != nil {
			sb.WriteString(c.Content.Content.Text.Text)
		}
	}
	return sb.String()
}

// choose answers permission requests with the option of the given id
// (or kind, when no option has that id).
func choose(optionID string) func(context.Context, *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	return func(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		for _, o := range req.Options {
			if string(o.OptionID) == optionID || string(o.Kind) == optionID {
				return &acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{
					Selected: &acp.SelectedPermissionOutcome{OptionID: o.OptionID}}}, nil
			}
		}
		return &acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Cancelled: &acp.RequestPermissionOutcomeCancelled{}}}, nil
	}
}

// wireIndex is the position of the first agent line containing all of
// the given substrings, or -1.
func wireIndex(h *agenttest.Harness, subs ...string) int {
	for i, l := range h.Wire() {
		if !l.FromAgent {
			continue
		}
		all := true
		for _, s := range subs {
			all = all && strings.Contains(l.Line, s)
		}
		if all {
			return i
		}
	}
	return -1
}

// newSessionWith opens a session with raw session/new params.
func newSessionWith(t *testing.T, h *agenttest.Harness, params any) (string, error) {
	t.Helper()
	var resp acp.NewSessionResponse
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionNew, params, &resp); err != nil {
		return "", err
	}
	return string(resp.SessionID), nil
}

// configOption finds a config option by id in the latest list the client
// has (session/new response or config_option_update).
func latestConfig(h *agenttest.Harness, sid string, initial []acp.SessionConfigOption) []acp.SessionConfigOption {
	opts := initial
	for _, u := range h.Updates(sid) {
		if u.ConfigOptionUpdate != nil {
			opts = u.ConfigOptionUpdate.ConfigOptions
		}
	}
	return opts
}

func findOption(opts []acp.SessionConfigOption, id string) *acp.SessionConfigOption {
	for i := range opts {
		if string(opts[i].ID) == id {
			return &opts[i]
		}
	}
	return nil
}

// promptAsync sends a prompt and returns where its outcome arrives.
func promptAsync(h *agenttest.Harness, sid, text string) <-chan promptResult {
	ch := make(chan promptResult, 1)
	go func() {
		r, err := h.Prompt(sid, text)
		ch <- promptResult{r, err}
	}()
	return ch
}

type promptResult struct {
	resp *acp.PromptResponse
	err  error
}

// holdPermissions makes the client answer no permission request until the
// agent withdraws it; the returned channel closes at that withdrawal.
func holdPermissions(h *agenttest.Harness) <-chan struct{} {
	withdrawn := make(chan struct{})
	h.Permission = func(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		<-ctx.Done()
		close(withdrawn)
		return nil, ctx.Err()
	}
	return withdrawn
}

// wantWithdrawn fails unless the request held by [holdPermissions] is
// withdrawn within 30 s.
func wantWithdrawn(t *testing.T, withdrawn <-chan struct{}) {
	t.Helper()
	select {
	case <-withdrawn:
	case <-time.After(30 * time.Second):
		t.Fatal("the client's permission request was not withdrawn")
	}
}

// killTheCLI kills the one real CLI the test runs, failing unless there is
// exactly one.
func killTheCLI(t *testing.T) {
	t.Helper()
	pids := clitest.LivePIDs(t)
	if len(pids) != 1 {
		t.Fatalf("want one CLI, found %v", pids)
	}
	if err := clitest.KillPID(pids[0]); err != nil {
		t.Fatal(err)
	}
}

// wantRPCError fails unless err is a JSON-RPC error with code whose message
// contains every one of parts.
func wantRPCError(t *testing.T, err error, code int, parts ...string) *acp.Error {
	t.Helper()
	var ae *acp.Error
	if !errors.As(err, &ae) || ae.Code != code {
		t.Fatalf("got %v, want a %d error", err, code)
	}
	for _, p := range parts {
		if !strings.Contains(ae.Message, p) {
			t.Fatalf("error message %q lacks %q", ae.Message, p)
		}
	}
	return ae
}
