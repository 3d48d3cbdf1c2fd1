package agent_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/acp/acpv2"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
)

// ACP v2 end to end (issue 18, docs/acp-v2.md): the agent driven by a v2
// client (agenttest.HarnessV2). Every line that crosses the connection is
// checked with acptest.ValidateLine at each test's cleanup. The v2
// conversion and prompt lifecycle are the agent's own, so most tests run
// it on the in-process fake CLI (startV2CF, v2sim_helpers_test.go); the real
// CLI and the fake Messages API are behind TestV2PermissionEdits (its Write
// and Edit frames) and the golden scenarios (golden_v2_test.go), which
// prove v2 against the real CLI's frames (the whole run the scenario's v1
// golden taped, played back).

// obj decodes a JSON object (the test fails if it is not one).
func v2Obj(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("not a JSON object: %v\n%s", err, raw)
	}
	return m
}

// at walks a decoded JSON value by object keys and array indexes.
func at(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func atStr(v any, path ...any) string {
	s, _ := at(v, path...).(string)
	return s
}

// v2WireMsg is one wire line's envelope.
type v2WireMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *acp.Error      `json:"error"`
}

func wireAt(t *testing.T, h *agenttest.HarnessV2, i int) v2WireMsg {
	t.Helper()
	var m v2WireMsg
	if err := json.Unmarshal([]byte(h.Wire()[i].Line), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// responseIndex is the index of the line answering the request at line i.
func responseIndex(t *testing.T, h *agenttest.HarnessV2, i int) int {
	t.Helper()
	w := h.Wire()
	req := wireAt(t, h, i)
	for j := i + 1; j < len(w); j++ {
		if w[j].FromAgent == w[i].FromAgent {
			continue
		}
		m := wireAt(t, h, j)
		if m.Method == "" && string(m.ID) == string(req.ID) {
			return j
		}
	}
	return -1
}

// kinds lists the updates' kinds, state updates with their state (and
// stop reason), for failure messages.
func v2Kinds(us []agenttest.UpdateV2) string {
	var out []string
	for _, u := range us {
		k := u.Kind
		if s := agenttest.StateOf(u); s != "" {
			k += ":" + s
			if r := agenttest.StopReasonOf(u); r != "" {
				k += ":" + r
			}
		}
		out = append(out, k)
	}
	return strings.Join(out, " ")
}

// first is the index in us of the first update of kind (and state, if
// given) at or after from, or -1.
func firstOf(us []agenttest.UpdateV2, from int, kind string, state ...string) int {
	for i := max(from, 0); i < len(us); i++ {
		if us[i].Kind == kind && (len(state) == 0 || agenttest.StateOf(us[i]) == state[0]) {
			return i
		}
	}
	return -1
}

func countOf(us []agenttest.UpdateV2, kind string, state ...string) int {
	n := 0
	for i := range us {
		if us[i].Kind == kind && (len(state) == 0 || agenttest.StateOf(us[i]) == state[0]) {
			n++
		}
	}
	return n
}

func codeOf(err error) int {
	var e *acp.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// promptTurn sends a text prompt and waits for the turn's end, the n-th
// idle state update of sid; it returns that update's stop reason.
func promptTurn(t *testing.T, h *agenttest.HarnessV2, sid, text string, n int) string {
	t.Helper()
	if _, err := h.Prompt(sid, text); err != nil {
		t.Fatal(err)
	}
	return agenttest.StopReasonOf(h.WaitIdle(sid, n))
}

// TestV2Initialize: negotiation (docs/acp-v2.md "Choosing the version").
func TestV2Initialize(t *testing.T) {
	t.Parallel()
	t.Run("v2", func(t *testing.T) {
		h := agenttest.StartV2(t)
		var r json.RawMessage
		err := h.Call(acp.MethodInitialize, json.RawMessage(`{"protocolVersion":2,"info":{"name":"t","version":"1"},"capabilities":{"auth":{"terminal":{}}}}`), &r)
		if err != nil {
			t.Fatal(err)
		}
		m := v2Obj(t, r)
		if at(m, "protocolVersion") != 2.0 || atStr(m, "info", "name") != "claude-agent-acp" || atStr(m, "info", "version") != "test" {
			t.Errorf("answer %s", r)
		}
		session, ok := at(m, "capabilities", "session").(map[string]any)
		if !ok || at(session, "prompt", "image") == nil || at(session, "mcp", "http") == nil || at(session, "delete") == nil {
			t.Errorf("capabilities.session %v", at(m, "capabilities"))
		}
		for _, v1 := range []string{"agentCapabilities", "agentInfo"} {
			if _, ok := m[v1]; ok {
				t.Errorf("v1 member %s in the v2 answer: %s", v1, r)
			}
		}
		if ms, _ := m["authMethods"].([]any); len(ms) == 0 || atStr(ms, 0, "type") != "terminal" || atStr(ms, 0, "methodId") == "" {
			t.Errorf("authMethods for a client with auth.terminal: %v", m["authMethods"])
		}
		// A session's answer has config options, and no v1 modes.
		ns, err := h.NewSessionResponse(h.Sandbox.WorkDir)
		if err != nil {
			t.Fatal(err)
		}
		if ns.SessionID == "" || len(ns.ConfigOptions) == 0 {
			t.Errorf("session/new %+v", ns)
		}
		line := h.Wire()[responseIndex(t, h, h.WireIndex(false, 0, `"session/new"`))].Line
		if strings.Contains(line, `"modes"`) || !strings.Contains(line, `"configId":"mode"`) {
			t.Errorf("session/new answer %s", line)
		}
	})
	t.Run("asks 3", func(t *testing.T) {
		h := agenttest.StartV2(t)
		r, err := h.Initialize(3, acpv2.ClientCapabilities{})
		if err != nil || r.ProtocolVersion != 2 || r.Info.Name != "claude-agent-acp" {
			t.Fatalf("%+v %v", r, err)
		}
		h.NewSession(h.Sandbox.WorkDir) // the connection speaks v2
	})
	t.Run("asks 0", func(t *testing.T) {
		// Below 2 the client speaks v1, whose rule is to answer with the
		// version the agent supports: 1, in v1's shape, and the connection
		// is v1 (-32022 is v2's error; issue 37, item 9).
		h := agenttest.StartV2(t)
		h.SetVersion(1)
		var r acp.InitializeResponse
		if err := h.Call(acp.MethodInitialize, &acp.InitializeRequest{ProtocolVersion: 0}, &r); err != nil || r.ProtocolVersion != 1 || r.AgentInfo == nil {
			t.Fatalf("initialize 0: %+v %v", r, err)
		}
		var sm json.RawMessage
		err := h.Call(acp.MethodSessionSetMode, &acp.SetSessionModeRequest{SessionID: "nope", ModeID: "plan"}, &sm)
		if codeOf(err) != acp.CodeResourceNotFound {
			t.Errorf("session/set_mode on the v1 connection: %v", err)
		}
	})
	t.Run("asks 1", func(t *testing.T) {
		// Today's v1 answer, byte for byte.
		v1 := agenttest.Start(t)
		v1.Initialize(acp.ClientCapabilities{})
		h := agenttest.StartV2(t)
		h.SetVersion(1)
		var r acp.InitializeResponse
		if err := h.Call(acp.MethodInitialize, &acp.InitializeRequest{ProtocolVersion: 1}, &r); err != nil {
			t.Fatal(err)
		}
		want, got := v1.Wire()[1].Line, h.Wire()[1].Line
		if got != want {
			t.Errorf("v1 answer on the v2-capable agent\n got %s\nwant %s", got, want)
		}
		// And the connection is v1: its methods are served.
		var sm json.RawMessage
		err := h.Call(acp.MethodSessionSetMode, &acp.SetSessionModeRequest{SessionID: "nope", ModeID: "plan"}, &sm)
		if codeOf(err) != acp.CodeResourceNotFound {
			t.Errorf("session/set_mode on v1: %v", err)
		}
		// v2's methods are not.
		for _, m := range []string{acpv2.MethodAuthLogin, acpv2.MethodToolCallCancel} {
			if err := h.CallOffSchema(m, json.RawMessage(`{"methodId":"x","sessionId":"nope","toolCallId":"x"}`), &sm); codeOf(err) != acp.CodeMethodNotFound {
				t.Errorf("%s on v1: %v", m, err)
			}
		}
	})
	t.Run("repeated", func(t *testing.T) {
		h := agenttest.StartV2(t)
		for range 2 {
			if r, err := h.Initialize(2, acpv2.ClientCapabilities{}); err != nil || r.ProtocolVersion != 2 {
				t.Fatalf("initialize: %+v %v", r, err)
			}
		}
		h.NewSession(h.Sandbox.WorkDir)
		if _, err := h.Initialize(2, acpv2.ClientCapabilities{}); codeOf(err) != acp.CodeInvalidRequest {
			t.Errorf("initialize after session/new: %v", err)
		}
	})
}

// TestV2V1MethodsRefused: a v2 connection serves v2 methods only.
func TestV2V1MethodsRefused(t *testing.T) {
	t.Parallel()
	h := agenttest.StartV2(t)
	sid := h.NewSession(h.Sandbox.WorkDir)
	for _, c := range []struct{ method, params string }{
		{acp.MethodSessionSetMode, `{"sessionId":"` + sid + `","modeId":"plan"}`},
		{acp.MethodSessionLoad, `{"sessionId":"` + sid + `","cwd":"` + h.Sandbox.WorkDir + `","mcpServers":[]}`},
		{acp.MethodAuthenticate, `{"methodId":"claude-ai-login"}`},
		{"session/set_model", `{"sessionId":"` + sid + `","modelId":"default"}`},
	} {
		var r json.RawMessage
		err := h.CallOffSchema(c.method, json.RawMessage(c.params), &r)
		if codeOf(err) != acp.CodeMethodNotFound {
			t.Errorf("%s on v2: %v %s", c.method, err, r)
		}
	}
	// The session is untouched.
	var r acpv2.SetSessionConfigOptionResponse
	if err := h.Call(acpv2.MethodSessionSetConfigOption, json.RawMessage(`{"sessionId":"`+sid+`","configId":"mode","type":"id","value":"default"}`), &r); err != nil {
		t.Fatal(err)
	}
}

// TestV2PromptText: a prompt is answered {messageId} at insertion; the
// client sees its user_message, running, the agent's chunks with the API
// message id, and idle end_turn. The v2 lifecycle is the agent's: it runs
// on the fake CLI; the golden "plain_turn" scenario (golden_v2_test.go)
// has the same turn on the real CLI's frames.
func TestV2PromptText(t *testing.T) {
	t.Parallel()
	w, model := cfScripted(cfText("Hello from Claude."))
	h := startV2CF(t, w)
	sid := h.NewSession(h.Sandbox.WorkDir)
	id, err := h.Prompt(sid, "say hi")
	if err != nil || id == "" {
		t.Fatalf("prompt: %q %v", id, err)
	}
	idle := h.WaitIdle(sid, 1)
	if r := agenttest.StopReasonOf(idle); r != "end_turn" {
		t.Fatalf("stop reason %q: %s", r, idle.Raw)
	}
	us := h.Updates(sid)
	um := firstOf(us, 0, "user_message")
	if um < 0 || atStr(v2Obj(t, us[um].Raw), "messageId") != id || atStr(v2Obj(t, us[um].Raw), "content", 0, "text") != "say hi" {
		t.Fatalf("user_message (id %s): %s", id, v2Kinds(us))
	}
	running := firstOf(us, um, "state_update", "running")
	chunk := firstOf(us, 0, "agent_message_chunk")
	end := firstOf(us, 0, "state_update", "idle")
	if running < 0 || chunk < running || end < chunk {
		t.Errorf("order user_message %d, running %d, first chunk %d, idle %d: %s", um, running, chunk, end, v2Kinds(us))
	}
	if n := countOf(us, "state_update", "running"); n != 1 {
		t.Errorf("%d running updates: %s", n, v2Kinds(us))
	}
	for _, u := range us {
		if c := u.Update.AgentMessageChunk; c != nil && !strings.HasPrefix(string(c.MessageID), "msg_") {
			t.Errorf("chunk messageId %q", c.MessageID)
		}
	}
	if got := h.AgentText(sid); got != "Hello from Claude." {
		t.Errorf("text %q", got)
	}
	// The answer: {messageId} only, for the same id.
	pi := h.WireIndex(false, 0, `"session/prompt"`)
	ri := responseIndex(t, h, pi)
	if ri < 0 || string(wireAt(t, h, ri).Result) != `{"messageId":"`+id+`"}` {
		t.Errorf("prompt answer at %d: %s", ri, h.Wire()[max(ri, 0)].Line)
	}
	if reqs := model.requests(); len(reqs) != 1 || reqs[0].Prompt != "say hi" {
		t.Errorf("the model saw %+v", reqs)
	}
}

// toolState folds a session's tool_call_update upserts (absent leaves a
// member, a value replaces it, _meta patches by key) per tool call id.
func toolState(t *testing.T, us []agenttest.UpdateV2) (map[string]map[string]any, map[string][]int) {
	t.Helper()
	calls := map[string]map[string]any{}
	at := map[string][]int{} // the indexes of each call's upserts
	for i, u := range us {
		if u.Kind != "tool_call_update" {
			continue
		}
		m := v2Obj(t, u.Raw)
		id := atStr(m, "toolCallId")
		c := calls[id]
		if c == nil {
			c = map[string]any{}
			calls[id] = c
		}
		for k, v := range m {
			c[k] = v
		}
		at[id] = append(at[id], i)
	}
	return calls, at
}

// TestV2PermissionBash: a command that needs approval. The client sees the
// call upserted, requires_action before the request (a command subject),
// running once answered, the command as an agent-owned terminal (its
// output as base64 chunks, its exit status), and idle end_turn. The v2
// shapes are the agent's: it runs on the fake CLI. The real CLI's Bash
// frames, its permission request and its running the allowed command are
// TestPermissionAllowOnce's and TestBashOutput's (v1, the same frames).
func TestV2PermissionBash(t *testing.T) {
	t.Parallel()
	const cmd = "touch made.txt && echo made-it"
	// The model answers at once, and the prompt goes to the CLI while it
	// starts: the request reaches the agent right behind the frames of its
	// turn (TestPermissionAfterWhatTheCLIWroteFirst repeats it).
	w, _ := cfScripted(
		clifake.Reply{Tool: cmd, ToolID: "toolu_v2bash", ToolOutput: "made-it"},
		cfText("Created."),
	)
	h := startV2CF(t, w)
	sid := h.NewSession(h.Sandbox.WorkDir)
	if r := promptTurn(t, h, sid, "create made.txt", 1); r != "end_turn" {
		t.Fatalf("stop reason %q", r)
	}
	ran := false
	for _, e := range w.Events() {
		ran = ran || e.Kind == "tool" && e.Detail == "toolu_v2bash"
	}
	if !ran {
		t.Errorf("the allowed command did not run")
	}
	perms := h.Permissions()
	if len(perms) != 1 {
		t.Fatalf("%d permission requests", len(perms))
	}
	p := v2Obj(t, perms[0].Raw)
	if atStr(p, "title") == "" || atStr(p, "subject", "type") != "command" || atStr(p, "subject", "command") != cmd ||
		atStr(p, "subject", "cwd") != h.Sandbox.WorkDir || atStr(p, "subject", "toolCallId") != "toolu_v2bash" {
		t.Errorf("permission request %s", perms[0].Raw)
	}
	us := h.Updates(sid)
	// requires_action goes out before the request; running after the answer.
	ra := firstOf(us, 0, "state_update", "requires_action")
	if ra < 0 || us[ra].Wire > perms[0].Wire {
		t.Errorf("requires_action at wire %d, request at %d: %s", us[max(ra, 0)].Wire, perms[0].Wire, v2Kinds(us))
	}
	answer := responseIndex(t, h, perms[0].Wire)
	back := -1
	for i := max(ra, 0); i < len(us); i++ {
		if agenttest.StateOf(us[i]) == "running" && us[i].Wire > answer {
			back = i
			break
		}
	}
	if answer < 0 || back < 0 {
		t.Errorf("no running after the answer (wire %d): %s", answer, v2Kinds(us))
	}
	calls, upserts := toolState(t, us)
	c := calls["toolu_v2bash"]
	if c == nil {
		t.Fatalf("no tool_call_update for the call: %s", v2Kinds(us))
	}
	if f := v2Obj(t, us[upserts["toolu_v2bash"][0]].Raw); atStr(f, "title") == "" || atStr(f, "kind") != "execute" || atStr(f, "status") == "" {
		t.Errorf("first upsert should create the call whole: %s", us[upserts["toolu_v2bash"][0]].Raw)
	}
	if atStr(c, "status") != "completed" {
		t.Errorf("final call %v", c)
	}
	if us[upserts["toolu_v2bash"][0]].Wire > perms[0].Wire {
		t.Errorf("the call was not shown before its permission request")
	}
	var term string
	for _, item := range at(c, "content").([]any) {
		if atStr(item, "type") == "terminal" {
			term = atStr(item, "terminalId")
		}
	}
	if term == "" {
		t.Fatalf("no terminal in the call's content: %v", c["content"])
	}
	// The terminal: command first, then output, then the exit status.
	started, exited := -1, -1
	var out strings.Builder
	outAt := -1
	for i, u := range us {
		m := v2Obj(t, u.Raw)
		if atStr(m, "terminalId") != term {
			continue
		}
		switch u.Kind {
		case "terminal_update":
			if atStr(m, "command") != "" && started < 0 {
				started = i
				if atStr(m, "command") != cmd {
					t.Errorf("terminal command %q", atStr(m, "command"))
				}
			}
			if es, ok := m["exitStatus"].(map[string]any); ok {
				exited = i
				if at(es, "exitCode") != 0.0 {
					t.Errorf("exit status %v", es)
				}
			}
		case "terminal_output_chunk":
			b, err := base64.StdEncoding.DecodeString(atStr(m, "data"))
			if err != nil {
				t.Errorf("output chunk not base64: %v", err)
			}
			out.Write(b)
			if outAt < 0 {
				outAt = i
			}
		}
	}
	if started < 0 || outAt < started || exited < outAt || !strings.Contains(out.String(), "made-it") {
		t.Errorf("terminal started %d, output %d (%q), exited %d: %s", started, outAt, out.String(), exited, v2Kinds(us))
	}
	// No console block: the output is not repeated as text content.
	if b, _ := json.Marshal(c["content"]); strings.Contains(string(b), "made-it") {
		t.Errorf("output repeated in the call's content: %s", b)
	}
}

// TestV2PermissionEdits: Write (a new file) and Edit ask permission with a
// tool_call subject, and show v2 diffs: changes (add, modify) and a git
// patch. On the real CLI: its Write and Edit frames are what the diffs are
// made of. It also checks what the v2 tests on the fake CLI take from the
// real one (TestV2Resume): the CLI stores the prompt under the uuid the
// agent sent it with, the prompt's v2 messageId.
func TestV2PermissionEdits(t *testing.T) {
	t.Parallel()
	h := agenttest.StartV2(t)
	path, _, edited := scriptWriteThenEdit(h.API(), h.Sandbox.WorkDir)
	sid := h.NewSession(h.Sandbox.WorkDir)
	const prompt = "write notes.txt, then fix line 8"
	id, err := h.Prompt(sid, prompt)
	if err != nil {
		t.Fatal(err)
	}
	if r := agenttest.StopReasonOf(h.WaitIdle(sid, 1)); r != "end_turn" {
		t.Fatalf("stop reason %q", r)
	}
	if stored := storedPromptUUID(t, h.Sandbox.ConfigDir, sid, prompt); stored != id {
		t.Errorf("the CLI stored the prompt as %q, its messageId is %q", stored, id)
	}
	if got, _ := os.ReadFile(path); string(got) != edited {
		t.Fatalf("file %q", got)
	}
	perms := h.Permissions()
	if len(perms) != 2 {
		t.Fatalf("%d permission requests", len(perms))
	}
	// diffOf finds the diff in a content list.
	diffOf := func(content any) any {
		items, _ := content.([]any)
		for _, it := range items {
			if atStr(it, "type") == "diff" {
				return it
			}
		}
		return nil
	}
	checkDiff := func(what string, d any, op string, patchHas ...string) {
		t.Helper()
		if d == nil {
			t.Errorf("%s: no diff", what)
			return
		}
		ch := at(d, "changes", 0)
		if atStr(ch, "operation") != op || !strings.HasSuffix(atStr(ch, "path"), "notes.txt") {
			t.Errorf("%s: changes %v", what, at(d, "changes"))
		}
		patch := atStr(d, "patch", "text")
		if atStr(d, "patch", "format") != "git_patch" || !strings.Contains(patch, "notes.txt") {
			t.Errorf("%s: patch %v", what, at(d, "patch"))
		}
		for _, s := range patchHas {
			if !strings.Contains(patch, s) {
				t.Errorf("%s: patch lacks %q:\n%s", what, s, patch)
			}
		}
	}
	for i, want := range []struct{ id, op string }{{"toolu_write", "add"}, {"toolu_edit", "modify"}} {
		p := v2Obj(t, perms[i].Raw)
		if atStr(p, "title") == "" || atStr(p, "subject", "type") != "tool_call" || atStr(p, "subject", "toolCall", "toolCallId") != want.id {
			t.Errorf("permission %d: %s", i, perms[i].Raw)
			continue
		}
		patch := []string{"+line eight", "-line 8"}
		if want.op == "add" {
			patch = []string{"+line 1\n", "+line 12"}
		}
		checkDiff(fmt.Sprintf("permission %s", want.id), diffOf(at(p, "subject", "toolCall", "content")), want.op, patch...)
	}
	calls, _ := toolState(t, h.Updates(sid))
	checkDiff("write call", diffOf(at(calls["toolu_write"], "content")), "add", "+line 1\n")
	checkDiff("edit call", diffOf(at(calls["toolu_edit"], "content")), "modify", "+line eight", "-line 8")
	for _, id := range []string{"toolu_write", "toolu_edit"} {
		if c := calls[id]; atStr(c, "status") != "completed" || atStr(c, "kind") != "edit" {
			t.Errorf("%s: %v", id, c)
		}
	}
}

// TestV2Cancel: session/cancel ends a running turn with idle cancelled,
// and the session goes on. The agent's cancel, on the fake CLI; the real
// CLI's interrupt is the golden "cancel" scenario's (golden_test.go, whose
// tape golden_v2_test.go plays on v2).
func TestV2Cancel(t *testing.T) {
	t.Parallel()
	w, _ := cfScripted(cfHang(), cfText("after cancel"))
	h := startV2CF(t, w)
	sid := h.NewSession(h.Sandbox.WorkDir)
	if _, err := h.Prompt(sid, "think forever"); err != nil {
		t.Fatal(err)
	}
	h.WaitFor("streamed text", 30*time.Second, func() bool { return h.AgentText(sid) != "" })
	h.Cancel(sid)
	if r := agenttest.StopReasonOf(h.WaitIdle(sid, 1)); r != "cancelled" {
		t.Fatalf("stop reason %q", r)
	}
	n := len(h.Updates(sid))
	if r := promptTurn(t, h, sid, "again", 2); r != "end_turn" {
		t.Fatalf("next turn: stop reason %q", r)
	}
	for _, u := range h.Updates(sid)[n:] {
		if c := u.Update.AgentMessageChunk; c != nil && c.Content.Text != nil && !strings.Contains("after cancel", c.Content.Text.Text) {
			t.Errorf("output of the cancelled turn after its idle: %q", c.Content.Text.Text)
		}
	}
}

// TestV2CancelHeldPrompt: a prompt held while the CLI starts (the mode
// changed since the CLI was spawned, and the change must reach the CLI
// first) is withdrawn by session/cancel, and by $/cancel_request: its
// request is answered -32800, and it never reaches the conversation (no
// user_message, no state update, nothing sent to Claude). The holding is
// the agent's: the fake CLI, gated, is the CLI still starting.
func TestV2CancelHeldPrompt(t *testing.T) {
	t.Parallel()
	// The CLI reads nothing until the gate opens: until then the agent
	// is starting it, and prompts are held.
	gate := make(chan struct{})
	w, model := cfScripted(cfText("Only the last prompt."))
	w.StartGate = gate
	h := startV2CF(t, w)
	sid := h.NewSession(h.Sandbox.WorkDir)
	var r json.RawMessage
	if err := h.Call(acpv2.MethodSessionSetConfigOption, json.RawMessage(`{"sessionId":"`+sid+`","configId":"mode","type":"id","value":"acceptEdits"}`), &r); err != nil {
		t.Fatal(err)
	}

	// session/cancel.
	done := make(chan error, 1)
	go func() {
		_, err := h.Prompt(sid, "withdrawn by cancel")
		done <- err
	}()
	h.WaitFor("the prompt on the wire", 10*time.Second, func() bool { return h.WireIndex(false, 0, "withdrawn by cancel") >= 0 })
	h.Cancel(sid)
	if err := <-done; codeOf(err) != acp.CodeRequestCancelled {
		t.Fatalf("held prompt after session/cancel: %v", err)
	}

	// $/cancel_request.
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_, err := h.PromptCtx(ctx, sid, "withdrawn by request")
		done <- err
	}()
	h.WaitFor("the second prompt on the wire", 10*time.Second, func() bool { return h.WireIndex(false, 0, "withdrawn by request") >= 0 })
	cancel()
	<-done
	pi := h.WireIndex(false, 0, "withdrawn by request")
	h.WaitFor("the answer to the withdrawn prompt", 30*time.Second, func() bool { return responseIndex(t, h, pi) >= 0 })
	if m := wireAt(t, h, responseIndex(t, h, pi)); m.Error == nil || m.Error.Code != acp.CodeRequestCancelled {
		t.Errorf("held prompt after $/cancel_request: %s", h.Wire()[responseIndex(t, h, pi)].Line)
	}
	if us := h.Updates(sid); countOf(us, "user_message") != 0 || countOf(us, "state_update") != 0 {
		t.Errorf("a withdrawn prompt reached the conversation: %s", v2Kinds(us))
	}

	// Once the CLI is up, a prompt runs as usual.
	close(gate)
	id, err := h.Prompt(sid, "the last prompt")
	if err != nil {
		t.Fatal(err)
	}
	if r := agenttest.StopReasonOf(h.WaitIdle(sid, 1)); r != "end_turn" {
		t.Fatalf("stop reason %q", r)
	}
	us := h.Updates(sid)
	if countOf(us, "user_message") != 1 || atStr(v2Obj(t, us[firstOf(us, 0, "user_message")].Raw), "messageId") != id {
		t.Errorf("updates %s", v2Kinds(us))
	}
	if reqs := model.requests(); len(reqs) != 1 || reqs[0].Prompt != "the last prompt" {
		for _, r := range reqs {
			t.Logf("model request: %q", r.Prompt)
		}
		t.Errorf("Claude saw %d requests", len(reqs))
	}
}

// TestV2Resume: session/resume with replayFrom start replays the history
// as v2 updates, then the current state, then answers; without replayFrom
// only the state; the conversation goes on. The replay's v2 shapes are
// the agent's: it runs on the fake CLI, whose transcript keeps what the
// real CLI's does of the turn (RichTranscript). That the real CLI stores a
// prompt under the uuid it was sent with (the live message id) is
// TestV2PermissionEdits'; that its transcript replays, tool calls and all,
// TestLoadEqualsLive's; that a resumed CLI sends the history,
// TestResumeContinuesWithoutReplay's.
func TestV2Resume(t *testing.T) {
	t.Parallel()
	w, model := cfScripted(
		clifake.Reply{Tool: "touch resumed.txt && echo listed", ToolID: "toolu_v2ls", ToolOutput: "listed"},
		cfText("First answer."),
	)
	w.RichTranscript = true
	// The CLIs take a moment to start, as the real one (about a second)
	// does: a resumed session's CLI, started with the resume, sends its
	// own updates (config options, commands) once up, after the answer.
	w.StartDelay = 300 * time.Millisecond
	h1 := startV2CF(t, w)
	sid := h1.NewSession(h1.Sandbox.WorkDir)
	id, err := h1.Prompt(sid, "first question")
	if err != nil {
		t.Fatal(err)
	}
	h1.WaitIdle(sid, 1)
	h1.Close()

	t.Run("replay", func(t *testing.T) {
		h := startV2CF(t, w, agenttest.Options{Sandbox: h1.Sandbox})
		if _, err := h.Initialize(2, acpv2.ClientCapabilities{}); err != nil {
			t.Fatal(err)
		}
		var r acpv2.ResumeSessionResponse
		if err := h.Call(acpv2.MethodSessionResume, json.RawMessage(`{"sessionId":"`+sid+`","cwd":"`+h.Sandbox.WorkDir+`","replayFrom":{"type":"start"}}`), &r); err != nil {
			t.Fatal(err)
		}
		if len(r.ConfigOptions) == 0 {
			t.Errorf("resume answer without config options")
		}
		us := h.Updates(sid)
		// The replayed user message carries the live message id.
		um := firstOf(us, 0, "user_message")
		if um < 0 {
			um = firstOf(us, 0, "user_message_chunk")
		}
		if um < 0 {
			t.Errorf("no replayed user message: %s", v2Kinds(us))
		} else {
			m := v2Obj(t, us[um].Raw)
			text := atStr(m, "content", "text") // a chunk
			if text == "" {
				text = atStr(m, "content", 0, "text") // a message
			}
			if atStr(m, "messageId") != id || text != "first question" {
				t.Errorf("replayed user message (live id %s): %s", id, us[um].Raw)
			}
		}
		// docs/acp-v2.md, "Decisions": a replay sends the user message as
		// user_message_chunk with the record's uuid, not the whole-message
		// upsert (the plan's mapping table still says user_message).
		if n := countOf(us, "user_message_chunk"); n == 0 || countOf(us, "user_message") != 0 {
			t.Errorf("replay sends %d user_message_chunk and %d user_message: %s", n, countOf(us, "user_message"), v2Kinds(us))
		}
		var text strings.Builder
		for _, u := range us {
			switch {
			case u.Update.AgentMessage != nil:
				for _, c := range u.Update.AgentMessage.Content.Or(nil) {
					if c.Text != nil {
						text.WriteString(c.Text.Text)
					}
				}
			case u.Update.AgentMessageChunk != nil && u.Update.AgentMessageChunk.Content.Text != nil:
				text.WriteString(u.Update.AgentMessageChunk.Content.Text.Text)
			}
		}
		if !strings.Contains(text.String(), "First answer.") {
			t.Errorf("replayed agent text %q", text.String())
		}
		calls, _ := toolState(t, us)
		if c := calls["toolu_v2ls"]; atStr(c, "status") != "completed" {
			t.Errorf("replayed tool call %v", c)
		}
		// The state snapshot is the last update before the answer.
		answer := responseIndex(t, h, h.WireIndex(false, 0, `"session/resume"`))
		last := -1
		for i, u := range us {
			if u.Wire < answer {
				last = i
			}
		}
		if last < 0 || agenttest.StateOf(us[last]) != "idle" {
			t.Errorf("last update before the answer: %s", v2Kinds(us))
		}
		if n := countOf(us, "state_update"); n != 1 {
			t.Errorf("%d state updates in a replay: %s", n, v2Kinds(us))
		}
	})
	t.Run("no replay", func(t *testing.T) {
		h := startV2CF(t, w, agenttest.Options{Sandbox: h1.Sandbox})
		if _, err := h.Initialize(2, acpv2.ClientCapabilities{}); err != nil {
			t.Fatal(err)
		}
		var r acpv2.ResumeSessionResponse
		if err := h.Call(acpv2.MethodSessionResume, json.RawMessage(`{"sessionId":"`+sid+`","cwd":"`+h.Sandbox.WorkDir+`"}`), &r); err != nil {
			t.Fatal(err)
		}
		us := h.Updates(sid)
		if si := firstOf(us, 0, "state_update"); si < 0 || agenttest.StateOf(us[si]) != "idle" || countOf(us, "user_message")+countOf(us, "agent_message")+countOf(us, "agent_message_chunk")+countOf(us, "tool_call_update") != 0 {
			t.Errorf("resume without replay: %s", v2Kinds(us))
		}
		// The title and last update the client may not hold come first.
		if ii := firstOf(us, 0, "session_info_update"); ii < 0 || ii > firstOf(us, 0, "state_update") ||
			atStr(v2Obj(t, us[ii].Raw), "title") != "first question" || atStr(v2Obj(t, us[ii].Raw), "updatedAt") == "" {
			t.Errorf("resume without replay sends no session info first: %s", v2Kinds(us))
		}
		model.Script(cfText("Second answer."))
		if r := promptTurn(t, h, sid, "second question", 2); r != "end_turn" {
			t.Fatalf("stop reason %q", r)
		}
		// The CLI was resumed (--resume, so its history went to Claude).
		reqs := model.requests()
		if last := reqs[len(reqs)-1]; last.Prompt != "second question" || !slices.Contains(last.History, "first question") {
			t.Errorf("the resumed conversation lost its history: %+v", last)
		}
	})
	t.Run("errors", func(t *testing.T) {
		h := startV2CF(t, w, agenttest.Options{Sandbox: h1.Sandbox})
		if _, err := h.Initialize(2, acpv2.ClientCapabilities{}); err != nil {
			t.Fatal(err)
		}
		var r json.RawMessage
		err := h.Call(acpv2.MethodSessionResume, json.RawMessage(`{"sessionId":"00000000-0000-4000-8000-000000000000","cwd":"`+h.Sandbox.WorkDir+`"}`), &r)
		var e *acp.Error
		if !errors.As(err, &e) || e.Code != acp.CodeResourceNotFound || !strings.Contains(string(e.Data), `"sessionId"`) {
			t.Errorf("unknown session: %v", err)
		}
		err = h.Call(acpv2.MethodSessionResume, json.RawMessage(`{"sessionId":"`+sid+`","cwd":"`+h.Sandbox.WorkDir+`","replayFrom":{"type":"_from_message","messageId":"x"}}`), &r)
		if codeOf(err) != acp.CodeInvalidParams {
			t.Errorf("unsupported replayFrom: %v", err)
		}
	})
}

// TestV2Close: closing a session with a running turn ends it with idle
// cancelled before the answer, and nothing of it follows; closing an idle
// session sends no state; closing an unknown session is {}. Agent logic,
// on the fake CLI.
func TestV2Close(t *testing.T) {
	t.Parallel()
	w, _ := cfScripted(cfHang())
	h := startV2CF(t, w)
	sid := h.NewSession(h.Sandbox.WorkDir)
	if _, err := h.Prompt(sid, "think forever"); err != nil {
		t.Fatal(err)
	}
	h.WaitFor("streamed text", 30*time.Second, func() bool { return h.AgentText(sid) != "" })
	var r json.RawMessage
	if err := h.Call(acpv2.MethodSessionClose, json.RawMessage(`{"sessionId":"`+sid+`"}`), &r); err != nil || string(r) != "{}" {
		t.Fatalf("close: %s %v", r, err)
	}
	us := h.Updates(sid)
	answer := responseIndex(t, h, h.WireIndex(false, 0, `"session/close"`))
	idle := firstOf(us, 0, "state_update", "idle")
	if idle < 0 || agenttest.StopReasonOf(us[idle]) != "cancelled" || us[idle].Wire > answer {
		t.Errorf("idle cancelled before the close answer (wire %d): %s", answer, v2Kinds(us))
	}
	n := len(us)
	// Nothing more for that session.
	idle2 := h.NewSession(h.Sandbox.WorkDir)
	if err := h.Call(acpv2.MethodSessionClose, json.RawMessage(`{"sessionId":"`+idle2+`"}`), &r); err != nil || string(r) != "{}" {
		t.Fatalf("close of an idle session: %s %v", r, err)
	}
	if us := h.Updates(idle2); countOf(us, "state_update") != 0 {
		t.Errorf("closing an idle session: %s", v2Kinds(us))
	}
	if err := h.Call(acpv2.MethodSessionClose, json.RawMessage(`{"sessionId":"no-such-session"}`), &r); err != nil || string(r) != "{}" {
		t.Errorf("close of an unknown session: %s %v", r, err)
	}
	if us := h.Updates(sid); len(us) != n {
		t.Errorf("updates after close: %s", v2Kinds(us[n:]))
	}
	// The closed session is gone.
	if _, err := h.Prompt(sid, "hello?"); codeOf(err) != acp.CodeResourceNotFound {
		t.Errorf("prompt after close: %v", err)
	}
}

// TestV2SetConfigOption: the permission mode is the config option "mode",
// set with {type:"id"}; an unknown configId is -32602 and changes nothing;
// the mode set reaches the CLI. Agent logic, on the fake CLI; that the
// real CLI writes without asking in acceptEdits is TestSetMode's (v1, the
// same mode on the CLI).
func TestV2SetConfigOption(t *testing.T) {
	t.Parallel()
	w, model := cfScripted(cfText("Written."))
	// The CLI is still starting while the mode is set, as the real one,
	// slow to start, is: the agent sets the mode once it is up.
	up := make(chan struct{})
	w.StartGate = up
	h := startV2CF(t, w)
	sid := h.NewSession(h.Sandbox.WorkDir)
	current := func(opts []acpv2.SessionConfigOption, id string) string {
		b, _ := json.Marshal(opts)
		var raw []map[string]any
		_ = json.Unmarshal(b, &raw)
		for _, o := range raw {
			if o["configId"] == id {
				s, _ := o["currentValue"].(string)
				return s
			}
		}
		return ""
	}
	var r acpv2.SetSessionConfigOptionResponse
	if err := h.Call(acpv2.MethodSessionSetConfigOption, json.RawMessage(`{"sessionId":"`+sid+`","configId":"mode","type":"id","value":"acceptEdits"}`), &r); err != nil {
		t.Fatal(err)
	}
	if got := current(r.ConfigOptions, "mode"); got != "acceptEdits" {
		t.Errorf("mode %q after setting acceptEdits: %+v", got, r.ConfigOptions)
	}
	// Every change is also a config_option_update, before the answer.
	answer := responseIndex(t, h, h.WireIndex(false, 0, `"session/set_config_option"`))
	if u := h.WireIndex(true, 0, `"config_option_update"`, `"currentValue":"acceptEdits"`); u < 0 || u > answer {
		t.Errorf("config_option_update at %d, answer at %d", u, answer)
	}
	err := h.Call(acpv2.MethodSessionSetConfigOption, json.RawMessage(`{"sessionId":"`+sid+`","configId":"no_such_option","type":"id","value":"x"}`), &r)
	if codeOf(err) != acp.CodeInvalidParams {
		t.Errorf("unknown configId: %v", err)
	}
	err = h.Call(acpv2.MethodSessionSetConfigOption, json.RawMessage(`{"sessionId":"`+sid+`","configId":"mode","type":"id","value":"no_such_mode"}`), &r)
	if codeOf(err) != acp.CodeInvalidParams {
		t.Errorf("unknown mode value: %v", err)
	}
	// The mode is in effect: the CLI runs the turn in it, and nothing was
	// asked.
	close(up)
	if _, err := h.Prompt(sid, "write free.txt"); err != nil {
		t.Fatal(err)
	}
	h.WaitIdle(sid, 1)
	if reqs := model.requests(); len(reqs) != 1 || reqs[0].Mode != "acceptEdits" || len(h.Permissions()) != 0 {
		t.Errorf("accept-edits turn: %+v, %d permission requests", reqs, len(h.Permissions()))
	}
}

// TestV2TurnError: a turn that fails after its prompt was inserted ends
// with idle stopReason "error" carrying the error a v1 prompt response
// would (here the API's 429), and the session goes on. On the fake CLI,
// which ends the turn with the real CLI's frames for a 429; the real CLI's
// are the golden "rate_limit" scenario's (golden_v2_test.go).
func TestV2TurnError(t *testing.T) {
	t.Parallel()
	w, model := cfScripted(clifake.Reply{APIError: clifake.RateLimited("slow down please")})
	h := startV2CF(t, w)
	sid := h.NewSession(h.Sandbox.WorkDir)
	id, err := h.Prompt(sid, "hi")
	if err != nil || id == "" {
		t.Fatalf("prompt: %q %v", id, err)
	}
	idle := h.WaitIdle(sid, 1)
	m := v2Obj(t, idle.Raw)
	if atStr(m, "stopReason") != "error" || at(m, "error", "code") != float64(acp.CodeInternalError) ||
		!strings.Contains(atStr(m, "error", "message"), "slow down please") {
		t.Fatalf("idle %s", idle.Raw)
	}
	model.Script(cfText("ok now"))
	if r := promptTurn(t, h, sid, "again", 2); r != "end_turn" {
		t.Errorf("after the error: %q", r)
	}
}

// TestV2PromptWhileATurnRuns: a second session/prompt sent while the first
// turn streams is held, not inserted in the middle of that turn, and not
// taken for the first prompt being withdrawn (its request was answered at
// insertion, which ends its context): the first turn ends end_turn with all
// its text, then the second is inserted (user_message, then its answer)
// and runs. A session/cancel while a prompt is held cancels the running
// turn and answers the held one -32800. Agent logic, on the fake CLI.
func TestV2PromptWhileATurnRuns(t *testing.T) {
	t.Parallel()
	t.Run("held until the turn ends", func(t *testing.T) {
		t.Parallel()
		long := clifake.Reply{Chunks: strings.SplitAfter(strings.Repeat("word ", 60), " ")[:60], Every: 30 * time.Millisecond}
		w, _ := cfScripted(long, cfText("second answer"))
		h := startV2CF(t, w)
		sid := h.NewSession(h.Sandbox.WorkDir)
		if _, err := h.Prompt(sid, "first"); err != nil {
			t.Fatal(err)
		}
		h.WaitFor("streaming", 30*time.Second, func() bool { return strings.Contains(h.AgentText(sid), "word") })
		second := h.WireIndex(false, 0, `"session/prompt"`, `"second"`)
		if second >= 0 {
			t.Fatal("sent too early")
		}
		if _, err := h.Prompt(sid, "second"); err != nil {
			t.Fatal(err)
		}
		idles := h.WaitIdle(sid, 2)
		us := h.Updates(sid)
		firstIdle := firstOf(us, 0, "state_update", "idle")
		if got := agenttest.StopReasonOf(us[firstIdle]); got != "end_turn" {
			t.Fatalf("the first turn ended %q: %s", got, v2Kinds(us))
		}
		if agenttest.StopReasonOf(idles) != "end_turn" || !strings.HasSuffix(h.AgentText(sid), "second answer") {
			t.Fatalf("the second turn: %s, text %q", v2Kinds(us), h.AgentText(sid))
		}
		if strings.Count(h.AgentText(sid), "word") != 60 {
			t.Errorf("the first turn lost text: %q", h.AgentText(sid))
		}
		secondMsg := -1
		for i, u := range us {
			if u.Kind == "user_message" && strings.Contains(string(u.Raw), `"second"`) {
				secondMsg = i
			}
		}
		if secondMsg < firstIdle {
			t.Errorf("the second prompt was inserted at %d, before the first turn's end at %d: %s", secondMsg, firstIdle, v2Kinds(us))
		}
		req := h.WireIndex(false, 0, `"session/prompt"`, `"second"`)
		if answer := responseIndex(t, h, req); answer < us[firstIdle].Wire {
			t.Errorf("the second prompt was answered (wire %d) before the first turn ended (wire %d)", answer, us[firstIdle].Wire)
		}
	})
	t.Run("cancel with a prompt held", func(t *testing.T) {
		t.Parallel()
		w, _ := cfScripted(cfHang(), cfText("after"))
		h := startV2CF(t, w)
		sid := h.NewSession(h.Sandbox.WorkDir)
		if _, err := h.Prompt(sid, "first"); err != nil {
			t.Fatal(err)
		}
		h.WaitFor("streaming", 30*time.Second, func() bool { return h.AgentText(sid) != "" })
		held := make(chan error, 1)
		go func() { _, err := h.Prompt(sid, "second"); held <- err }()
		h.WaitFor("the second prompt on the wire", 30*time.Second, func() bool {
			return h.WireIndex(false, 0, `"session/prompt"`, `"second"`) >= 0
		})
		h.Cancel(sid)
		if err := <-held; codeOf(err) != -32800 {
			t.Errorf("the held prompt: %v, want -32800", err)
		}
		if got := agenttest.StopReasonOf(h.WaitIdle(sid, 1)); got != "cancelled" {
			t.Errorf("the running turn ended %q", got)
		}
		if got := promptTurn(t, h, sid, "third", 2); got != "end_turn" {
			t.Errorf("the next prompt ended %q", got)
		}
	})
}
