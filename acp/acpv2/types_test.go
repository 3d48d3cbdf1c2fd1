package acpv2_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/acp/acpv2"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/acptest"
)

// compact returns s without insignificant whitespace.
func compact(t testing.TB, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(s)); err != nil {
		t.Fatalf("bad fixture %s: %v", s, err)
	}
	return buf.Bytes()
}

// roundTrip decodes in into a new T, encodes it again and requires the
// exact input bytes back. Fixtures are written in the generated member
// order: discriminators first (outermost first), then schema order, then
// unknown members by name.
func roundTrip[T any](t *testing.T, in string) *T {
	t.Helper()
	want := compact(t, in)
	v := new(T)
	if err := json.Unmarshal(want, v); err != nil {
		t.Fatalf("decode %s: %v", want, err)
	}
	got := marshal(t, v)
	if !bytes.Equal(got, want) {
		t.Fatalf("round trip changed the JSON\n got %s\nwant %s", got, want)
	}
	return v
}

// notification wraps a session update in its session/update line.
func notification(update string) []byte {
	return []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":` + update + `}}`)
}

func TestSessionUpdateVariants(t *testing.T) {
	cases := []struct {
		tag, update string
		check       func(acpv2.SessionUpdate) bool
	}{
		{"user_message_chunk", `{"sessionUpdate":"user_message_chunk","messageId":"u1","content":{"type":"text","text":"hi"}}`,
			func(u acpv2.SessionUpdate) bool { return u.UserMessageChunk.MessageID == "u1" }},
		{"user_message", `{"sessionUpdate":"user_message","messageId":"u1","content":[{"type":"text","text":"hi"}]}`,
			func(u acpv2.SessionUpdate) bool { c, _ := u.UserMessage.Content.Get(); return len(c) == 1 }},
		{"agent_message_chunk", `{"sessionUpdate":"agent_message_chunk","messageId":"a1","content":{"type":"text","text":"<b>&</b>"}}`,
			func(u acpv2.SessionUpdate) bool { return u.AgentMessageChunk.Content.Text.Text == "<b>&</b>" }},
		{"agent_message", `{"sessionUpdate":"agent_message","messageId":"a1","content":null}`,
			func(u acpv2.SessionUpdate) bool { return u.AgentMessage.Content.IsNull() }},
		{"agent_thought_chunk", `{"sessionUpdate":"agent_thought_chunk","messageId":"a1","content":{"type":"text","text":"hmm"}}`,
			func(u acpv2.SessionUpdate) bool { return u.AgentThoughtChunk != nil }},
		{"agent_thought", `{"sessionUpdate":"agent_thought","messageId":"a1","content":[]}`,
			func(u acpv2.SessionUpdate) bool { c, ok := u.AgentThought.Content.Get(); return ok && len(c) == 0 }},
		{"state_update", `{"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"}`,
			func(u acpv2.SessionUpdate) bool { return u.StateUpdate.Idle.EndTurn != nil }},
		{"tool_call_content_chunk", `{"sessionUpdate":"tool_call_content_chunk","toolCallId":"t","content":{"type":"terminal","terminalId":"term"}}`,
			func(u acpv2.SessionUpdate) bool { return u.ToolCallContentChunk.Content.Terminal.TerminalID == "term" }},
		{"tool_call_update", `{"sessionUpdate":"tool_call_update","toolCallId":"t","title":"Edit a.go","kind":"edit","status":"pending",
			"content":[{"type":"diff","changes":[{"operation":"move","oldPath":"/w/a.go","path":"/w/b.go"},{"operation":"add","fileType":"text","mimeType":"text/x-go","path":"/w/c.go"}],
			"patch":{"format":"git_patch","text":"diff --git a/c.go b/c.go\n"}}],"locations":[{"path":"/w/a.go","line":3}],"rawInput":{"n":12345678901234567890}}`,
			func(u acpv2.SessionUpdate) bool {
				c, _ := u.ToolCallUpdate.Content.Get()
				d := c[0].Diff
				p, _ := d.Patch.Get()
				return d.Changes[0].Move.OldPath == "/w/a.go" && d.Changes[1].FileType.Or("") == acpv2.DiffFileTypeText &&
					p.Format == acpv2.DiffPatchFormatGitPatch && u.ToolCallUpdate.Kind.Or("") == acpv2.ToolKindEdit
			}},
		{"terminal_update", `{"sessionUpdate":"terminal_update","terminalId":"term","command":"ls -la","cwd":"/w","output":{"data":"aGkK"},"exitStatus":{"exitCode":0,"signal":null}}`,
			func(u acpv2.SessionUpdate) bool {
				e, _ := u.TerminalUpdate.ExitStatus.Get()
				return e.ExitCode.Or(-1) == 0 && e.Signal.IsNull()
			}},
		{"terminal_output_chunk", `{"sessionUpdate":"terminal_output_chunk","terminalId":"term","data":"aGkK"}`,
			func(u acpv2.SessionUpdate) bool { return u.TerminalOutputChunk.Data == "aGkK" }},
		{"plan_update", `{"sessionUpdate":"plan_update","plan":{"type":"items","planId":"p","entries":[{"content":"step","priority":"high","status":"cancelled"}]}}`,
			func(u acpv2.SessionUpdate) bool {
				return u.PlanUpdate.Plan.Items.Entries[0].Status == acpv2.PlanEntryStatusCancelled
			}},
		{"available_commands_update", `{"sessionUpdate":"available_commands_update","availableCommands":[{"type":"command","name":"web","description":"Search","input":{"type":"text","hint":"query"}}]}`,
			func(u acpv2.SessionUpdate) bool {
				in, _ := u.AvailableCommandsUpdate.AvailableCommands[0].Command.Input.Get()
				return in.Text.Hint == "query"
			}},
		{"config_option_update", `{"sessionUpdate":"config_option_update","configOptions":[{"type":"select","configId":"mode","name":"Mode","category":"mode","currentValue":"plan","options":[{"value":"default","name":"Default"},{"value":"plan","name":"Plan"}]}]}`,
			func(u acpv2.SessionUpdate) bool {
				return u.ConfigOptionUpdate.ConfigOptions[0].Select.CurrentValue == "plan"
			}},
		{"session_info_update", `{"sessionUpdate":"session_info_update","title":null,"updatedAt":"2026-01-02T03:04:05Z"}`,
			func(u acpv2.SessionUpdate) bool { return u.SessionInfoUpdate.Title.IsNull() }},
		{"usage_update", `{"sessionUpdate":"usage_update","used":18446744073709551615,"size":200000,"cost":null}`,
			func(u acpv2.SessionUpdate) bool { return u.UsageUpdate.Cost.IsNull() && u.UsageUpdate.Used == 1<<64-1 }},
		{"notice", `{"sessionUpdate":"notice","severity":"warning","title":"Careful"}`,
			func(u acpv2.SessionUpdate) bool { return u.Notice.Severity == acpv2.NoticeSeverityWarning }},
		{"compaction_update", `{"sessionUpdate":"compaction_update","compactionId":"c","status":"completed"}`,
			func(u acpv2.SessionUpdate) bool { return u.CompactionUpdate != nil }},
		{"compaction_summary_chunk", `{"sessionUpdate":"compaction_summary_chunk","compactionId":"c","content":{"type":"text","text":"s"}}`,
			func(u acpv2.SessionUpdate) bool { return u.CompactionSummaryChunk != nil }},
	}
	seen := map[string]bool{}
	for _, c := range cases {
		t.Run(c.tag, func(t *testing.T) {
			acptest.ValidateV2(t, compact(t, string(notification(c.update))))
			n := roundTrip[acpv2.UpdateSessionNotification](t, `{"sessionId":"s","update":`+c.update+`}`)
			if got := n.Update.Tag(); got != c.tag {
				t.Errorf("Tag() = %q, want %q", got, c.tag)
			}
			if !c.check(n.Update) {
				t.Errorf("decoded value is wrong: %+v", n.Update)
			}
			seen[c.tag] = true
		})
	}
	if want := reflect.TypeFor[acpv2.SessionUpdate]().NumField() - 1; len(seen) != want {
		t.Errorf("covered %d session/update variants, the type has %d", len(seen), want)
	}
}

// TestStateUpdates covers the prompt lifecycle's nested unions: a
// session/update whose state_update is a StateUpdate, whose idle state is
// an IdleStateUpdate on stopReason. All three discriminators share one
// object.
func TestStateUpdates(t *testing.T) {
	for _, c := range []struct {
		name, update string
		check        func(*acpv2.StateUpdate) bool
	}{
		{"running", `{"sessionUpdate":"state_update","state":"running","background":[]}`,
			func(s *acpv2.StateUpdate) bool { b, ok := s.Running.Background.Get(); return ok && len(b) == 0 }},
		{"requires_action", `{"sessionUpdate":"state_update","state":"requires_action"}`,
			func(s *acpv2.StateUpdate) bool { return s.RequiresAction != nil }},
		{"idle cancelled", `{"sessionUpdate":"state_update","state":"idle","stopReason":"cancelled"}`,
			func(s *acpv2.StateUpdate) bool { return s.Idle.Cancelled != nil && s.Idle.Tag() == "cancelled" }},
		{"idle error", `{"sessionUpdate":"state_update","state":"idle","stopReason":"error","error":{"code":-32603,"message":"boom","data":{"sessionId":"s"}}}`,
			func(s *acpv2.StateUpdate) bool {
				e, _ := s.Idle.Error.Error.Get()
				d, _ := e.Data.Get()
				return e.Code == acpv2.ErrorCodeInternalError && d.SessionNotFound.SessionID == "s"
			}},
		{"idle without reason", `{"sessionUpdate":"state_update","state":"idle"}`,
			func(s *acpv2.StateUpdate) bool { return s.Idle.None != nil && s.Idle.Tag() == "" }},
		{"idle null reason", `{"sessionUpdate":"state_update","state":"idle","stopReason":null}`,
			func(s *acpv2.StateUpdate) bool {
				return s.Idle.None != nil && string(s.Idle.None.Extra["stopReason"]) == "null"
			}},
		{"idle with background and meta", `{"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn","background":[{"type":"terminal","terminalId":"t"}],"_meta":{"n":12345678901234567890}}`,
			func(s *acpv2.StateUpdate) bool {
				b, _ := s.Idle.Background.Get()
				return s.Idle.EndTurn != nil && b[0].Terminal.TerminalID == "t" && string(s.Idle.Meta["n"]) == "12345678901234567890"
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			acptest.ValidateV2(t, compact(t, string(notification(c.update))))
			u := roundTrip[acpv2.SessionUpdate](t, c.update)
			if u.StateUpdate == nil || !c.check(u.StateUpdate) {
				t.Errorf("decoded value is wrong: %+v", u.StateUpdate)
			}
		})
	}
	// A malformed stopReason is treated as none (x-deserialize-default-on-error),
	// and kept.
	u := roundTrip[acpv2.SessionUpdate](t, `{"sessionUpdate":"state_update","state":"idle","stopReason":42}`)
	if u.StateUpdate.Idle.None == nil || string(u.StateUpdate.Idle.None.Extra["stopReason"]) != "42" {
		t.Errorf("malformed stopReason: %+v", u.StateUpdate.Idle)
	}
	// Usage (unstable) rides on the idle update that ends the work.
	u = roundTrip[acpv2.SessionUpdate](t, `{"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn","usage":{"totalTokens":3,"inputTokens":1,"outputTokens":2}}`)
	if us, _ := u.StateUpdate.Idle.Usage.Get(); us.TotalTokens != 3 {
		t.Errorf("usage: %+v", u.StateUpdate.Idle)
	}
}

// TestUnknownValuesKept: open enums keep unknown and "_" extension values;
// unknown union variants are kept, byte for byte at the top and as their
// members when nested.
func TestUnknownValuesKept(t *testing.T) {
	upd := roundTrip[acpv2.ToolCallUpdate](t, `{"toolCallId":"t","kind":"_teleport","status":"queued_future"}`)
	if upd.Kind.Or("") != "_teleport" || upd.Status.Or("") != "queued_future" {
		t.Errorf("open enums: %+v", upd)
	}
	acptest.ValidateV2(t, notification(`{"sessionUpdate":"tool_call_update","toolCallId":"t","kind":"_teleport"}`))

	big := `"_meta":{"n":12345678901234567890,"f":1.0e400}`
	top := roundTrip[acpv2.SessionUpdate](t, `{"sessionUpdate":"_goal_update","z":[1,{"a":null}], `+big+`}`)
	if top.Unknown == nil || top.Tag() != "_goal_update" {
		t.Fatalf("not unknown: %+v", top)
	}
	// Nested: the state and the stop reason are unknown; the outer
	// discriminators stay typed, and the rest is kept, members in key order.
	st := roundTrip[acpv2.SessionUpdate](t, `{"sessionUpdate":"state_update","_meta":{"k":1},"state":"_paused","until":"later"}`)
	if st.StateUpdate == nil || st.StateUpdate.Unknown == nil || st.StateUpdate.Tag() != "_paused" {
		t.Fatalf("nested unknown state: %+v", st.StateUpdate)
	}
	idle := roundTrip[acpv2.SessionUpdate](t, `{"sessionUpdate":"state_update","state":"idle","_meta":{"k":1},"background":[],"stopReason":"_budget_exhausted"}`)
	if idle.StateUpdate.Idle.Unknown == nil || idle.StateUpdate.Idle.Tag() != "_budget_exhausted" {
		t.Fatalf("nested unknown stop reason: %+v", idle.StateUpdate.Idle)
	}
	// A nested unknown decoded on its own keeps its bytes exactly.
	alone := roundTrip[acpv2.StateUpdate](t, `{"state":"_paused","z":1,"a":2}`)
	if alone.Unknown == nil {
		t.Fatal("not unknown")
	}
	for name, in := range map[string]string{
		"content block": `{"type":"_video","uri":"file:///v.mp4"}`,
		"tool content":  `{"type":"_hologram","x":1}`,
		"diff change":   `{"operation":"_chmod","path":"/a","mode":"0755"}`,
		"mcp server":    `{"type":"acp","name":"a","id":"srv-1"}`,
		"auth method":   `{"type":"_oauth","methodId":"o","name":"OAuth"}`,
		"subject":       `{"type":"_network","host":"x"}`,
		"outcome":       `{"outcome":"_deferred"}`,
		"plan content":  `{"type":"markdown","planId":"p","markdown":"# x"}`,
		"replay from":   `{"type":"_message","messageId":"m"}`,
		"config option": `{"type":"_slider","configId":"x","name":"X"}`,
	} {
		t.Run(name, func(t *testing.T) {
			var v any
			switch name {
			case "content block":
				v = roundTrip[acpv2.ContentBlock](t, in).Unknown
			case "tool content":
				v = roundTrip[acpv2.ToolCallContent](t, in).Unknown
			case "diff change":
				v = roundTrip[acpv2.DiffChange](t, in).Unknown
			case "mcp server":
				v = roundTrip[acpv2.MCPServer](t, in).Unknown
			case "auth method":
				v = roundTrip[acpv2.AuthMethod](t, in).Unknown
			case "subject":
				v = roundTrip[acpv2.RequestPermissionSubject](t, in).Unknown
			case "outcome":
				v = roundTrip[acpv2.RequestPermissionOutcome](t, in).Unknown
			case "plan content":
				v = roundTrip[acpv2.PlanUpdateContent](t, in).Unknown
			case "replay from":
				v = roundTrip[acpv2.ReplayFrom](t, in).Unknown
			case "config option":
				v = roundTrip[acpv2.SessionConfigOption](t, in).Unknown
			}
			if v.(json.RawMessage) == nil {
				t.Error("not kept as Unknown")
			}
		})
	}
	// An unknown error code is kept; so is data of any shape.
	e := roundTrip[acpv2.Error](t, `{"code":-31999,"message":"m","data":[1,"x"]}`)
	if d, _ := e.Data.Get(); e.Code != -31999 || d.Other == nil {
		t.Errorf("error: %+v", e)
	}
}

// TestPatchSemantics: optional nullable members, objects included, are
// Opt: absent leaves the value alone, null clears it, a value sets it.
func TestPatchSemantics(t *testing.T) {
	for _, c := range []struct {
		in           string
		absent, null bool
	}{
		{`{"toolCallId":"t"}`, true, false},
		{`{"toolCallId":"t","title":null,"capabilities":null}`, false, true},
		{`{"toolCallId":"t","title":"T","capabilities":{"cancel":{}}}`, false, false},
	} {
		u := roundTrip[acpv2.ToolCallUpdate](t, c.in)
		if u.Title.IsZero() != c.absent || u.Title.IsNull() != c.null ||
			u.Capabilities.IsZero() != c.absent || u.Capabilities.IsNull() != c.null {
			t.Errorf("%s: title %v, capabilities %v", c.in, u.Title, u.Capabilities)
		}
	}
	// Built from Go: the three states.
	for want, cost := range map[string]acpv2.Opt[acpv2.Cost]{
		`{"used":1,"size":2}`:                                        {},
		`{"used":1,"size":2,"cost":null}`:                            acpv2.Null[acpv2.Cost](),
		`{"used":1,"size":2,"cost":{"amount":0.5,"currency":"USD"}}`: acpv2.Some(acpv2.Cost{Amount: 0.5, Currency: "USD"}),
	} {
		if got := marshal(t, acpv2.UsageUpdate{Used: 1, Size: 2, Cost: cost}); string(got) != want {
			t.Errorf("got %s, want %s", got, want)
		}
	}
	// Opt is acp.Opt: values move between v1 and v2 types unchanged.
	var v1 acp.SessionInfoUpdate
	mustDecode(t, `{"title":null}`, &v1)
	v2 := acpv2.SessionInfoUpdate{Title: v1.Title, UpdatedAt: acp.Some("2026-01-01T00:00:00Z")}
	if got := marshal(t, v2); string(got) != `{"title":null,"updatedAt":"2026-01-01T00:00:00Z"}` {
		t.Errorf("shared Opt: %s", got)
	}
}

func mustDecode(t *testing.T, in string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(in), v); err != nil {
		t.Fatalf("decode %s: %v", in, err)
	}
}

// TestDecodeErrorIsACPs: a bad v2 member fails with *acp.DecodeError (the
// same type), so the connection answers -32602 naming the member.
func TestDecodeErrorIsACPs(t *testing.T) {
	for in, path := range map[string]string{
		`{"sessionId":"s","prompt":[{"type":"text","text":"a"},{"type":"text"}]}`: "prompt[1].text",
		`{"prompt":[]}`: "sessionId",
		`{"sessionId":"s","prompt":[{"text":""}]}`: "prompt[0].type",
	} {
		var p acpv2.PromptRequest
		var de *acp.DecodeError
		if err := json.Unmarshal([]byte(in), &p); !errors.As(err, &de) || de.Path != path {
			t.Errorf("%s: error %v, want path %s", in, err, path)
		}
	}
	// v2 requires "type" on MCP servers: an untyped stdio server is an error.
	var n acpv2.NewSessionRequest
	var de *acp.DecodeError
	if err := json.Unmarshal([]byte(`{"cwd":"/w","mcpServers":[{"name":"fs","command":"/bin/mcp"}]}`), &n); !errors.As(err, &de) || de.Path != "mcpServers[0].type" {
		t.Errorf("untyped MCP server: %v", err)
	}
	// Closed enums stay closed.
	var es acpv2.ElicitationSchema
	if err := json.Unmarshal([]byte(`{"type":"array"}`), &es); err == nil {
		t.Error("ElicitationSchema type array accepted")
	}
}

func TestMethodTable(t *testing.T) {
	pairs := map[string][2]any{
		acpv2.MethodInitialize:               {&acpv2.InitializeRequest{}, &acpv2.InitializeResponse{}},
		acpv2.MethodAuthLogin:                {&acpv2.LoginAuthRequest{}, &acpv2.LoginAuthResponse{}},
		acpv2.MethodAuthLogout:               {&acpv2.LogoutAuthRequest{}, &acpv2.LogoutAuthResponse{}},
		acpv2.MethodSessionNew:               {&acpv2.NewSessionRequest{}, &acpv2.NewSessionResponse{}},
		acpv2.MethodSessionList:              {&acpv2.ListSessionsRequest{}, &acpv2.ListSessionsResponse{}},
		acpv2.MethodSessionResume:            {&acpv2.ResumeSessionRequest{}, &acpv2.ResumeSessionResponse{}},
		acpv2.MethodSessionClose:             {&acpv2.CloseSessionRequest{}, &acpv2.CloseSessionResponse{}},
		acpv2.MethodSessionDelete:            {&acpv2.DeleteSessionRequest{}, &acpv2.DeleteSessionResponse{}},
		acpv2.MethodSessionFork:              {&acpv2.ForkSessionRequest{}, &acpv2.ForkSessionResponse{}},
		acpv2.MethodSessionPrompt:            {&acpv2.PromptRequest{}, &acpv2.PromptResponse{}},
		acpv2.MethodSessionSetConfigOption:   {&acpv2.SetSessionConfigOptionRequest{}, &acpv2.SetSessionConfigOptionResponse{}},
		acpv2.MethodToolCallCancel:           {&acpv2.CancelToolCallRequest{}, &acpv2.CancelToolCallResponse{}},
		acpv2.MethodTerminalCancel:           {&acpv2.CancelTerminalRequest{}, &acpv2.CancelTerminalResponse{}},
		acpv2.MethodSessionRequestPermission: {&acpv2.RequestPermissionRequest{}, &acpv2.RequestPermissionResponse{}},
		acpv2.MethodElicitationCreate:        {&acpv2.CreateElicitationRequest{}, &acpv2.CreateElicitationResponse{}},
		acpv2.MethodSessionCancel:            {&acpv2.CancelSessionNotification{}, nil},
		acpv2.MethodSessionUpdate:            {&acpv2.UpdateSessionNotification{}, nil},
		acpv2.MethodElicitationComplete:      {&acpv2.CompleteElicitationNotification{}, nil},
		acpv2.MethodCancelRequest:            {&acpv2.CancelRequestNotification{}, nil},
	}
	clientHandles := map[string]bool{acpv2.MethodSessionRequestPermission: true, acpv2.MethodElicitationCreate: true,
		acpv2.MethodSessionUpdate: true, acpv2.MethodElicitationComplete: true}
	all := acpv2.Methods()
	if len(all) != len(pairs) {
		t.Errorf("%d methods, want %d", len(all), len(pairs))
	}
	for _, spec := range all {
		want, ok := pairs[spec.Name]
		if !ok {
			t.Errorf("unexpected method %s", spec.Name)
			continue
		}
		if reflect.TypeOf(spec.NewParams()) != reflect.TypeOf(want[0]) {
			t.Errorf("%s params: %T, want %T", spec.Name, spec.NewParams(), want[0])
		}
		if (want[1] == nil) != spec.Notification || (want[1] != nil && reflect.TypeOf(spec.NewResult()) != reflect.TypeOf(want[1])) {
			t.Errorf("%s result: %T, want %T", spec.Name, spec.NewResult(), want[1])
		}
		recv := acpv2.ReceiverAgent
		switch {
		case spec.Name == acpv2.MethodCancelRequest:
			recv = acpv2.ReceiverProtocol
		case clientHandles[spec.Name]:
			recv = acpv2.ReceiverClient
		}
		if spec.Receiver != recv {
			t.Errorf("%s: receiver %s, want %s", spec.Name, spec.Receiver, recv)
		}
		if spec.Unstable != (spec.Name == acpv2.MethodSessionFork) {
			t.Errorf("%s: unstable %v", spec.Name, spec.Unstable)
		}
	}
	// v1 methods that v2 removes are not in the table.
	for _, gone := range []string{"session/load", "authenticate", "logout", "session/set_mode", "session/set_model", "fs/read_text_file", "terminal/create"} {
		if _, ok := acpv2.LookupMethod(gone); ok {
			t.Errorf("%s is not a v2 method", gone)
		}
	}
}

// TestAgentMessagesMatchSchema builds, from Go values, the v2 messages the
// adapter will send (the mapping in docs/acp-v2.md) and checks them against
// the v2 schema, direction included.
func TestAgentMessagesMatchSchema(t *testing.T) {
	fromAgent := acptest.Line{Version: 2, FromAgent: true}
	call := func(method string, id int, params any) []byte {
		env := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
		if id > 0 {
			env["id"] = id
		}
		return marshal(t, env)
	}
	result := func(method string, v any) {
		t.Helper()
		l := fromAgent
		l.Method = method
		acptest.ValidateLine(t, l, marshal(t, map[string]any{"jsonrpc": "2.0", "id": 1, "result": v}))
	}
	update := func(u acpv2.SessionUpdate) {
		t.Helper()
		acptest.ValidateLine(t, fromAgent, call(acpv2.MethodSessionUpdate, 0, acpv2.UpdateSessionNotification{SessionID: "s", Update: u}))
	}
	result(acpv2.MethodInitialize, acpv2.InitializeResponse{
		ProtocolVersion: 2,
		Info:            acpv2.Implementation{Name: "claude-agent-acp", Title: acpv2.Some("Claude Code"), Version: "0.1.0"},
		Capabilities: acpv2.AgentCapabilities{
			Session: acpv2.Some(acpv2.SessionCapabilities{
				Prompt: acpv2.Some(acpv2.PromptCapabilities{Image: acpv2.Some(acpv2.PromptImageCapabilities{}), EmbeddedContext: acpv2.Some(acpv2.PromptEmbeddedContextCapabilities{})}),
				MCP:    acpv2.Some(acpv2.MCPCapabilities{Stdio: acpv2.Some(acpv2.MCPStdioCapabilities{}), HTTP: acpv2.Some(acpv2.MCPHTTPCapabilities{})}),
				Delete: acpv2.Some(acpv2.SessionDeleteCapabilities{}),
				Fork:   acpv2.Some(acpv2.SessionForkCapabilities{}),
			}),
			Auth: acpv2.Some(acpv2.AgentAuthCapabilities{}),
		},
		AuthMethods: []acpv2.AuthMethod{
			{Agent: &acpv2.AuthMethodAgent{MethodID: "claude-login", Name: "Log in with Claude"}},
			{Terminal: &acpv2.AuthMethodTerminal{MethodID: "claude-terminal", Name: "Log in in a terminal", Args: []string{"--cli", "auth", "login"}}},
		},
	})
	modes := acpv2.SessionConfigOption{
		ConfigID: "mode", Name: "Mode", Category: acpv2.Some(acpv2.SessionConfigOptionCategoryMode),
		Select: &acpv2.SessionConfigSelect{CurrentValue: "default", Options: acpv2.SessionConfigSelectOptions{
			Ungrouped: []acpv2.SessionConfigSelectOption{{Value: "default", Name: "Default"}, {Value: "plan", Name: "Plan"}},
		}},
	}
	result(acpv2.MethodSessionNew, acpv2.NewSessionResponse{SessionID: "s", ConfigOptions: []acpv2.SessionConfigOption{modes}})
	result(acpv2.MethodSessionResume, acpv2.ResumeSessionResponse{ConfigOptions: []acpv2.SessionConfigOption{modes}})
	result(acpv2.MethodSessionList, acpv2.ListSessionsResponse{Sessions: []acpv2.SessionInfo{{SessionID: "s", Cwd: "/w", Title: acpv2.Some("Fix it")}}})
	result(acpv2.MethodSessionClose, acpv2.CloseSessionResponse{})
	result(acpv2.MethodSessionDelete, acpv2.DeleteSessionResponse{})
	result(acpv2.MethodAuthLogin, acpv2.LoginAuthResponse{})
	result(acpv2.MethodAuthLogout, acpv2.LogoutAuthResponse{})
	result(acpv2.MethodSessionPrompt, acpv2.PromptResponse{MessageID: "u-1"})
	result(acpv2.MethodSessionSetConfigOption, acpv2.SetSessionConfigOptionResponse{ConfigOptions: []acpv2.SessionConfigOption{modes}})

	// A prompt turn with a Bash tool call and a permission, as mapped.
	update(acpv2.SessionUpdate{UserMessage: &acpv2.UserMessage{MessageID: "u-1", Content: acpv2.Some([]acpv2.ContentBlock{{Text: &acpv2.TextContent{Text: "list files"}}})}})
	update(acpv2.SessionUpdate{StateUpdate: &acpv2.StateUpdate{Running: &acpv2.RunningStateUpdate{}}})
	update(acpv2.SessionUpdate{AgentMessageChunk: &acpv2.ContentChunk{MessageID: "a-1", Content: acpv2.ContentBlock{Text: &acpv2.TextContent{Text: "Listing."}}}})
	update(acpv2.SessionUpdate{ToolCallUpdate: &acpv2.ToolCallUpdate{
		ToolCallID: "toolu_1", Name: acpv2.Some("Bash"), Title: acpv2.Some("ls"), Kind: acpv2.Some(acpv2.ToolKindExecute),
		Status: acpv2.Some(acpv2.ToolCallStatusPending), RawInput: json.RawMessage(`{"command":"ls"}`),
	}})
	acptest.ValidateLine(t, fromAgent, call(acpv2.MethodSessionRequestPermission, 7, acpv2.RequestPermissionRequest{
		SessionID: "s", Title: "Run ls?",
		Subject: acpv2.Some(acpv2.RequestPermissionSubject{Command: &acpv2.CommandPermissionSubject{Command: "ls", Cwd: "/w", ToolCallID: acpv2.Some[acpv2.ToolCallID]("toolu_1")}}),
		Options: []acpv2.PermissionOption{
			{OptionID: "allow", Name: "Allow", Kind: acpv2.PermissionOptionKindAllowOnce},
			{OptionID: "reject", Name: "Reject", Kind: acpv2.PermissionOptionKindRejectOnce},
		},
	}))
	update(acpv2.SessionUpdate{StateUpdate: &acpv2.StateUpdate{RequiresAction: &acpv2.RequiresActionStateUpdate{}}})
	update(acpv2.SessionUpdate{StateUpdate: &acpv2.StateUpdate{Running: &acpv2.RunningStateUpdate{}}})
	update(acpv2.SessionUpdate{ToolCallUpdate: &acpv2.ToolCallUpdate{ToolCallID: "toolu_1", Status: acpv2.Some(acpv2.ToolCallStatusInProgress),
		Content: acpv2.Some([]acpv2.ToolCallContent{{Terminal: &acpv2.Terminal{TerminalID: "toolu_1"}}})}})
	update(acpv2.SessionUpdate{TerminalUpdate: &acpv2.TerminalUpdate{TerminalID: "toolu_1", Command: acpv2.Some("ls"), Cwd: acpv2.Some[acpv2.AbsolutePath]("/w")}})
	update(acpv2.SessionUpdate{TerminalOutputChunk: &acpv2.TerminalOutputChunk{TerminalID: "toolu_1", Data: "YS5nbwo="}})
	update(acpv2.SessionUpdate{TerminalUpdate: &acpv2.TerminalUpdate{TerminalID: "toolu_1", ExitStatus: acpv2.Some(acpv2.TerminalExitStatus{ExitCode: acpv2.Some[int64](0)})}})
	update(acpv2.SessionUpdate{ToolCallUpdate: &acpv2.ToolCallUpdate{ToolCallID: "toolu_1", Status: acpv2.Some(acpv2.ToolCallStatusCompleted), RawOutput: json.RawMessage(`"a.go\n"`)}})
	// An edit: v2 diff with structured changes and a git patch.
	update(acpv2.SessionUpdate{ToolCallUpdate: &acpv2.ToolCallUpdate{ToolCallID: "toolu_2", Title: acpv2.Some("Edit a.go"), Kind: acpv2.Some(acpv2.ToolKindEdit),
		Content: acpv2.Some([]acpv2.ToolCallContent{{Diff: &acpv2.Diff{
			Changes: []acpv2.DiffChange{{Modify: &acpv2.DiffPathChange{Path: "/w/a.go"}, FileType: acpv2.Some(acpv2.DiffFileTypeText)}},
			Patch:   acpv2.Some(acpv2.DiffPatch{Format: acpv2.DiffPatchFormatGitPatch, Text: "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-package a\n+package b\n"}),
		}}}),
		Locations: acpv2.Some([]acpv2.ToolCallLocation{{Path: "/w/a.go", Line: acpv2.Some[uint32](1)}}),
	}})
	update(acpv2.SessionUpdate{ToolCallContentChunk: &acpv2.ToolCallContentChunk{ToolCallID: "toolu_2", Content: acpv2.ToolCallContent{Content: &acpv2.Content{Content: acpv2.ContentBlock{Text: &acpv2.TextContent{Text: "done"}}}}}})
	update(acpv2.SessionUpdate{PlanUpdate: &acpv2.PlanUpdate{Plan: acpv2.PlanUpdateContent{Items: &acpv2.PlanItems{PlanID: "todo", Entries: []acpv2.PlanEntry{
		{Content: "Edit a.go", Priority: acpv2.PlanEntryPriorityMedium, Status: acpv2.PlanEntryStatusCompleted},
	}}}}})
	update(acpv2.SessionUpdate{ConfigOptionUpdate: &acpv2.ConfigOptionUpdate{ConfigOptions: []acpv2.SessionConfigOption{modes}}})
	update(acpv2.SessionUpdate{StateUpdate: &acpv2.StateUpdate{Idle: &acpv2.IdleStateUpdate{EndTurn: &acpv2.IdleStateUpdateEndTurn{},
		Usage: acpv2.Some(acpv2.Usage{TotalTokens: 3, InputTokens: 1, OutputTokens: 2})}}})
	update(acpv2.SessionUpdate{StateUpdate: &acpv2.StateUpdate{Idle: &acpv2.IdleStateUpdate{Cancelled: &acpv2.IdleStateUpdateCancelled{}}}})
	update(acpv2.SessionUpdate{StateUpdate: &acpv2.StateUpdate{Idle: &acpv2.IdleStateUpdate{Error: &acpv2.ErrorStopReason{
		Error: acpv2.Some(acpv2.Error{Code: acpv2.ErrorCodeAuthenticationRequired, Message: "Please run /login"}),
	}}}})
}

// ExampleStateUpdate builds the idle update that ends a turn and reads one.
func ExampleStateUpdate() {
	out, _ := json.Marshal(acpv2.UpdateSessionNotification{
		SessionID: "s1",
		Update: acpv2.SessionUpdate{StateUpdate: &acpv2.StateUpdate{
			Idle: &acpv2.IdleStateUpdate{EndTurn: &acpv2.IdleStateUpdateEndTurn{}},
		}},
	})
	fmt.Println(string(out))

	in := `{"sessionId":"s1","update":{"sessionUpdate":"state_update","state":"idle","stopReason":"cancelled"}}`
	var n acpv2.UpdateSessionNotification
	_ = json.Unmarshal([]byte(in), &n)
	if s := n.Update.StateUpdate; s != nil && s.Idle != nil {
		fmt.Println("idle:", s.Idle.Tag())
	}
	// Output:
	// {"sessionId":"s1","update":{"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"}}
	// idle: cancelled
}

// TestConnDecodesV2Params: package acp's params decoding (what acp.On
// handlers get) works on v2 types, and a bad v2 member is -32602 naming it.
func TestConnDecodesV2Params(t *testing.T) {
	var p acpv2.ResumeSessionRequest
	if err := acp.DecodeParams(json.RawMessage(`{"sessionId":"s","cwd":"/w","replayFrom":{"type":"start"}}`), &p); err != nil {
		t.Fatal(err)
	}
	if r, _ := p.ReplayFrom.Get(); r.Start == nil {
		t.Errorf("replayFrom: %+v", p.ReplayFrom)
	}
	err := acp.DecodeParams(json.RawMessage(`{"sessionId":"s","cwd":"/w","mcpServers":[{"type":"stdio","name":"n"}]}`), &p)
	var e *acp.Error
	if !errors.As(err, &e) || e.Code != acp.CodeInvalidParams || !bytes.Contains(e.Data, []byte(`"path":"mcpServers[0].command"`)) {
		t.Errorf("bad server: %v", err)
	}
}
