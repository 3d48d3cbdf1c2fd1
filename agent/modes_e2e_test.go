package agent_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

func modeIDs(st *acp.SessionModeState) string {
	var ids []string
	for _, m := range st.AvailableModes {
		ids = append(ids, string(m.ID))
	}
	return strings.Join(ids, ",")
}

// modeUpdates lists the modes of the session's current_mode_update
// notifications, in order, joined by commas.
func modeUpdates(h *agenttest.Harness, sid string) string {
	var modes []string
	for _, u := range h.Updates(sid) {
		if u.CurrentModeUpdate != nil {
			modes = append(modes, string(u.CurrentModeUpdate.CurrentModeID))
		}
	}
	return strings.Join(modes, ",")
}

// TestSetMode: the CLI's permission modes are the session's modes; in
// accept-edits mode a write runs without asking, and the client hears of
// the switch.
func TestSetMode(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.Initialize(acp.ClientCapabilities{})
	var ns acp.NewSessionResponse
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionNew, &acp.NewSessionRequest{Cwd: h.Sandbox.WorkDir, MCPServers: []acp.MCPServer{}}, &ns); err != nil {
		t.Fatal(err)
	}
	sid := string(ns.SessionID)
	if got := modeIDs(ns.Modes); got != "default,acceptEdits,plan,auto,bypassPermissions" || ns.Modes.CurrentModeID != "default" {
		t.Errorf("modes %s (current %s)", got, ns.Modes.CurrentModeID)
	}
	var sm acp.SetSessionModeResponse
	err := h.Client.Call(h.Ctx(), acp.MethodSessionSetMode, &acp.SetSessionModeRequest{SessionID: acp.SessionID(sid), ModeID: "nonsense"}, &sm)
	var ae *acp.Error
	if !errors.As(err, &ae) || ae.Code != acp.CodeInvalidParams {
		t.Errorf("unknown mode: %v", err)
	}
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionSetMode, &acp.SetSessionModeRequest{SessionID: acp.SessionID(sid), ModeID: "acceptEdits"}, &sm); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(h.Sandbox.WorkDir, "free.txt")
	h.API().Script(toolUse("toolu_w", "Write", map[string]any{"file_path": path, "content": "free\n"}), fakeapi.Text("Written."))
	if _, err := h.Prompt(sid, "write free.txt"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil || len(h.Permissions()) != 0 {
		t.Fatalf("accept-edits write: %v, %d permission requests", err, len(h.Permissions()))
	}
	if modes := modeUpdates(h, sid); modes != "acceptEdits" {
		t.Errorf("current_mode_update %v", modes)
	}
	if o := findOption(latestConfig(h, sid, ns.ConfigOptions.Or(nil)), "mode"); o == nil || o.Select.CurrentValue != "acceptEdits" {
		t.Errorf("mode config option %+v", o)
	}
}

// TestPlanApproval: in plan mode, ExitPlanMode asks to approve the plan
// and offers the mode to continue in; approving with auto-accept switches
// the mode (the client hears it), and the following edit is not asked.
func TestPlanApproval(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	sid := h.NewSession(h.Sandbox.WorkDir)
	var resp acp.SetSessionConfigOptionResponse
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionSetConfigOption, map[string]string{
		"sessionId": sid, "configId": "mode", "value": "plan"}, &resp); err != nil {
		t.Fatal(err)
	}
	if o := findOption(resp.ConfigOptions, "mode"); o == nil || o.Select.CurrentValue != "plan" {
		t.Fatalf("set_config_option answered %+v", resp.ConfigOptions)
	}
	h.Permission = choose("plan-acceptEdits")
	path := filepath.Join(h.Sandbox.WorkDir, "impl.txt")
	h.API().Script(
		toolUse("toolu_plan", "ExitPlanMode", map[string]any{"plan": "# Plan\n1. Write impl.txt"}),
		toolUse("toolu_w", "Write", map[string]any{"file_path": path, "content": "done\n"}),
		fakeapi.Text("Implemented."),
	)
	if r, err := h.Prompt(sid, "plan it, then do it"); err != nil || r.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", r, err)
	}
	perms := h.Permissions()
	if len(perms) != 1 {
		t.Fatalf("%d permission requests, want only the plan's", len(perms))
	}
	var opts []string
	for _, o := range perms[0].Options {
		opts = append(opts, string(o.OptionID)+":"+o.Name)
	}
	want := "plan-default:Yes, and manually approve edits|plan-acceptEdits:Yes, and auto-accept edits|plan-auto:Yes, and use auto mode|plan-bypassPermissions:Yes, and bypass permissions|reject:No, keep planning"
	if strings.Join(opts, "|") != want {
		t.Errorf("options\n got %s\nwant %s", strings.Join(opts, "|"), want)
	}
	if kind, _ := perms[0].ToolCall.Kind.Get(); kind != acp.ToolKindSwitchMode || !strings.Contains(contentText(perms[0].ToolCall.Content.Or(nil)), "1. Write impl.txt") {
		t.Errorf("plan request %+v", perms[0].ToolCall)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the edit after approval did not run: %v", err)
	}
	if modes := modeUpdates(h, sid); modes != "plan,acceptEdits" {
		t.Errorf("mode updates %v", modes)
	}
}

// TestModelAndEffort: the model list is the CLI's own; switching the model
// (config option, then the unstable session/set_model) reaches the API
// requests, and so does the effort.
func TestModelAndEffort(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	sid := h.NewSession(h.Sandbox.WorkDir)
	h.API().Script(fakeapi.Text("warm"))
	if _, err := h.Prompt(sid, "hi"); err != nil {
		t.Fatal(err)
	}
	model := findOption(latestConfig(h, sid, nil), "model")
	if model == nil || model.Select.CurrentValue != "default" || len(model.Select.Options.Ungrouped) < 2 {
		t.Fatalf("model option %+v", model)
	}
	var values []string
	for _, o := range model.Select.Options.Ungrouped {
		values = append(values, string(o.Value))
	}
	if !strings.Contains(strings.Join(values, ","), "sonnet") {
		t.Fatalf("models %v", values)
	}
	var resp acp.SetSessionConfigOptionResponse
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionSetConfigOption, map[string]string{
		"sessionId": sid, "configId": "model", "value": "sonnet"}, &resp); err != nil {
		t.Fatal(err)
	}
	if o := findOption(resp.ConfigOptions, "model"); o.Select.CurrentValue != "sonnet" {
		t.Errorf("after set_config_option: %+v", o.Select)
	}
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionSetConfigOption, map[string]string{
		"sessionId": sid, "configId": "effort", "value": "high"}, &resp); err != nil {
		t.Fatal(err)
	}
	h.API().Script(fakeapi.Text("on sonnet"))
	if _, err := h.Prompt(sid, "which model?"); err != nil {
		t.Fatal(err)
	}
	reqs := h.API().MainRequests()
	last := reqs[len(reqs)-1]
	if !strings.Contains(last.Model, "sonnet") {
		t.Errorf("request model %q", last.Model)
	}
	if !strings.Contains(string(last.Body), `"effort":"high"`) {
		t.Errorf("effort not in the request: %.300s", last.Body)
	}

	var none json.RawMessage
	if err := h.Client.Call(h.Ctx(), "session/set_model", map[string]string{"sessionId": sid, "modelId": "haiku"}, &none); err != nil {
		t.Fatal(err)
	}
	if o := findOption(latestConfig(h, sid, nil), "model"); o.Select.CurrentValue != "haiku" {
		t.Errorf("config_option_update after set_model: %+v", o.Select)
	}
	err := h.Client.Call(h.Ctx(), "session/set_model", map[string]string{"sessionId": sid, "modelId": "gpt-9"}, &none)
	var ae *acp.Error
	if !errors.As(err, &ae) || ae.Code != acp.CodeInvalidParams {
		t.Errorf("unknown model: %v", err)
	}
	h.API().Script(fakeapi.Text("on haiku"))
	if _, err := h.Prompt(sid, "and now?"); err != nil {
		t.Fatal(err)
	}
	reqs = h.API().MainRequests()
	if m := reqs[len(reqs)-1].Model; !strings.Contains(m, "haiku") {
		t.Errorf("request model %q", m)
	}

	// A /model typed as a prompt is followed too.
	if _, err := h.Prompt(sid, "/model opus"); err != nil {
		t.Fatal(err)
	}
	h.WaitFor("the model option to follow /model", 10*time.Second, func() bool {
		return findOption(latestConfig(h, sid, nil), "model").Select.CurrentValue == "opus"
	})
}

// TestBypassOnlyWhereAllowed: as root, the CLI refuses bypassPermissions
// outside a sandbox, so the mode is not offered there.
func TestBypassOnlyWhereAllowed(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("the CLI allows bypass for non-root users everywhere")
	}
	h := agenttest.Start(t, agenttest.Options{Env: []string{"IS_SANDBOX"}})
	h.Initialize(acp.ClientCapabilities{})
	var ns acp.NewSessionResponse
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionNew, &acp.NewSessionRequest{Cwd: h.Sandbox.WorkDir, MCPServers: []acp.MCPServer{}}, &ns); err != nil {
		t.Fatal(err)
	}
	if got := modeIDs(ns.Modes); strings.Contains(got, "bypassPermissions") {
		t.Errorf("bypass offered as root outside a sandbox: %s", got)
	}
	var sm acp.SetSessionModeResponse
	err := h.Client.Call(h.Ctx(), acp.MethodSessionSetMode, &acp.SetSessionModeRequest{SessionID: ns.SessionID, ModeID: "bypassPermissions"}, &sm)
	var ae *acp.Error
	if !errors.As(err, &ae) || ae.Code != acp.CodeInvalidParams {
		t.Errorf("set_mode bypass: %v", err)
	}
}

// TestModelSwitchFromThePickerIsNotConversation: a model chosen in the
// editor (set_config_option, session/set_model) changes the model and the
// config option, and the CLI's "Set model to …" for it shows nowhere: no
// agent text live, no "/model …" prompt or its output after session/load.
// A /model the user typed keeps its prompt and its answer.
func TestModelSwitchFromThePickerIsNotConversation(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	h.API().Script(fakeapi.Text("one"), fakeapi.Text("two"), fakeapi.Text("three"))
	h.Initialize(acp.ClientCapabilities{})
	sid := h.NewSession(h.Sandbox.WorkDir)
	if _, err := h.Prompt(sid, "first"); err != nil {
		t.Fatal(err)
	}
	var resp acp.SetSessionConfigOptionResponse
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionSetConfigOption, map[string]string{
		"sessionId": sid, "configId": "model", "value": "sonnet"}, &resp); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Prompt(sid, "second"); err != nil {
		t.Fatal(err)
	}
	if m := lastModel(h); !strings.Contains(m, "sonnet") {
		t.Fatalf("request model %q after the picker chose sonnet", m)
	}
	var none json.RawMessage
	if err := h.Client.Call(h.Ctx(), "session/set_model", map[string]string{"sessionId": sid, "modelId": "haiku"}, &none); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Prompt(sid, "/model opus"); err != nil { // typed: its answer stays
		t.Fatal(err)
	}
	if _, err := h.Prompt(sid, "third"); err != nil {
		t.Fatal(err)
	}
	live := h.AgentText(sid)
	if strings.Contains(live, "sonnet") || strings.Contains(live, "aiku") {
		t.Errorf("the picker's model switches reached the thread: %q", live)
	}
	if !strings.Contains(live, "Set model to `Opus") {
		t.Errorf("the typed /model lost its answer: %q", live)
	}

	h2 := reload(t, h, sid, acp.ClientCapabilities{})
	var prompts []string
	for _, u := range h2.Updates(sid) {
		if c := u.UserMessageChunk; c != nil && c.Content.Text != nil {
			prompts = append(prompts, c.Content.Text.Text)
		}
	}
	if want := []string{"first", "second", "/model opus", "third"}; !slices.Equal(prompts, want) {
		t.Errorf("replayed prompts %q, want %q", prompts, want)
	}
	if replayed := h2.AgentText(sid); strings.Contains(replayed, "Set model to") {
		t.Errorf("replayed agent text %q", replayed)
	}
}

// lastModel is the model of the last main API request.
func lastModel(h *agenttest.Harness) string {
	reqs := h.API().MainRequests()
	return reqs[len(reqs)-1].Model
}
