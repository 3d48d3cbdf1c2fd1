package acp_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
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

// encode marshals v the way the connection writes frames: without HTML
// escaping.
func encode(t testing.TB, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatalf("encode: %v", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// roundTrip decodes in into a new T, encodes it again and requires the
// exact input bytes back. Fixtures are written in the generated member
// order: discriminator first, then schema order, then unknown members by
// name; _meta keys are sorted (a Go map), their values are kept verbatim.
func roundTrip[T any](t *testing.T, in string) *T {
	t.Helper()
	want := compact(t, in)
	v := new(T)
	if err := json.Unmarshal(want, v); err != nil {
		t.Fatalf("decode %s: %v", want, err)
	}
	got := encode(t, v)
	if !bytes.Equal(got, want) {
		t.Fatalf("round trip changed the JSON\n got %s\nwant %s", got, want)
	}
	return v
}

func TestSessionUpdateRoundTrip(t *testing.T) {
	cases := []struct {
		tag, update string
		check       func(acp.SessionUpdate) bool
	}{
		{"user_message_chunk", `{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"hi"},"messageId":"m1"}`,
			func(u acp.SessionUpdate) bool { return u.UserMessageChunk.Content.Text.Text == "hi" }},
		{"agent_message_chunk", `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"<b>&</b>"}}`,
			func(u acp.SessionUpdate) bool { return u.AgentMessageChunk.Content.Text.Text == "<b>&</b>" }},
		{"agent_thought_chunk", `{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"hmm"},"_meta":{"k":1}}`,
			func(u acp.SessionUpdate) bool { return u.AgentThoughtChunk != nil }},
		{"tool_call", `{"sessionUpdate":"tool_call","toolCallId":"t1","title":"Read f","kind":"read","status":"pending",
			"content":[{"type":"content","content":{"type":"text","text":"x"}},{"type":"diff","path":"/a","oldText":null,"newText":"n"},{"type":"terminal","terminalId":"term"}],
			"locations":[{"path":"/a","line":3}],"rawInput":{"file":"/a","n":12345678901234567890}}`,
			func(u acp.SessionUpdate) bool {
				c := u.ToolCall
				return c.Kind == acp.ToolKindRead && len(c.Content) == 3 && c.Content[1].Diff.OldText.IsNull() &&
					c.Content[2].Terminal.TerminalID == "term" && c.Locations[0].Line.Or(0) == 3
			}},
		{"tool_call_update", `{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed","content":[],"rawOutput":null}`,
			func(u acp.SessionUpdate) bool {
				c := u.ToolCallUpdate
				content, ok := c.Content.Get()
				return ok && len(content) == 0 && c.Locations.IsZero() && string(c.RawOutput) == "null"
			}},
		{"plan", `{"sessionUpdate":"plan","entries":[{"content":"step","priority":"high","status":"in_progress"}]}`,
			func(u acp.SessionUpdate) bool { return u.Plan.Entries[0].Priority == acp.PlanEntryPriorityHigh }},
		{"available_commands_update", `{"sessionUpdate":"available_commands_update","availableCommands":[{"name":"web","description":"Search","input":{"hint":"query"}}]}`,
			func(u acp.SessionUpdate) bool {
				return u.AvailableCommandsUpdate.AvailableCommands[0].Input.Unstructured.Hint == "query"
			}},
		{"current_mode_update", `{"sessionUpdate":"current_mode_update","currentModeId":"plan"}`,
			func(u acp.SessionUpdate) bool { return u.CurrentModeUpdate.CurrentModeID == "plan" }},
		{"config_option_update", `{"sessionUpdate":"config_option_update","configOptions":[
			{"type":"select","id":"model","name":"Model","category":"model","currentValue":"opus","options":[{"value":"opus","name":"Opus"}]},
			{"type":"select","id":"effort","name":"Effort","category":"_vendor","currentValue":"hi","options":[{"group":"g","name":"G","options":[{"value":"hi","name":"High"}]}]},
			{"type":"boolean","id":"fast","name":"Fast","currentValue":true}]}`,
			func(u acp.SessionUpdate) bool {
				o := u.ConfigOptionUpdate.ConfigOptions
				return len(o[0].Select.Options.Ungrouped) == 1 && len(o[1].Select.Options.Grouped) == 1 &&
					o[1].Category.Or("") == "_vendor" && o[2].Boolean.CurrentValue
			}},
		{"session_info_update", `{"sessionUpdate":"session_info_update","title":null,"updatedAt":"2026-01-02T03:04:05Z"}`,
			func(u acp.SessionUpdate) bool {
				return u.SessionInfoUpdate.Title.IsNull() && u.SessionInfoUpdate.UpdatedAt.Or("") == "2026-01-02T03:04:05Z"
			}},
		{"usage_update", `{"sessionUpdate":"usage_update","used":18446744073709551615,"size":200000,"cost":{"amount":0.25,"currency":"USD"}}`,
			func(u acp.SessionUpdate) bool {
				return u.UsageUpdate.Used == 1<<64-1 && u.UsageUpdate.Cost.Amount == 0.25
			}},
		{"notice", `{"sessionUpdate":"notice","severity":"warning","title":"Careful","description":null}`,
			func(u acp.SessionUpdate) bool { return u.Notice.Severity == acp.NoticeSeverityWarning }},
		{"compaction_update", `{"sessionUpdate":"compaction_update","compactionId":"c","status":"completed","summary":[{"type":"text","text":"s"}]}`,
			func(u acp.SessionUpdate) bool { return u.CompactionUpdate.Status == acp.CompactionStatusCompleted }},
		{"compaction_summary_chunk", `{"sessionUpdate":"compaction_summary_chunk","compactionId":"c","content":{"type":"text","text":"s"}}`,
			func(u acp.SessionUpdate) bool { return u.CompactionSummaryChunk.Content.Text != nil }},
	}
	seen := map[string]bool{}
	for _, c := range cases {
		t.Run(c.tag, func(t *testing.T) {
			line := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":` + c.update + `}}`
			acptest.ValidateMessage(t, compact(t, line))
			n := roundTrip[acp.SessionNotification](t, `{"sessionId":"s1","update":`+c.update+`}`)
			if got := n.Update.Tag(); got != c.tag {
				t.Errorf("Tag() = %q, want %q", got, c.tag)
			}
			if !c.check(n.Update) {
				t.Errorf("decoded value is wrong: %+v", n.Update)
			}
			seen[c.tag] = true
		})
	}
	// Every variant the generator knows is covered.
	typ := reflect.TypeFor[acp.SessionUpdate]()
	if want := typ.NumField() - 1; len(seen) != want {
		t.Errorf("covered %d session/update variants, the type has %d", len(seen), want)
	}
}

func TestContentBlockRoundTrip(t *testing.T) {
	for name, in := range map[string]string{
		"text":          `{"type":"text","annotations":{"audience":["user","assistant"],"lastModified":"2026-01-01","priority":0.5},"text":"hello"}`,
		"image":         `{"type":"image","data":"aGk=","mimeType":"image/png","uri":"file:///a.png"}`,
		"audio":         `{"type":"audio","data":"aGk=","mimeType":"audio/wav"}`,
		"resource_link": `{"type":"resource_link","description":"d","mimeType":"text/plain","name":"a.txt","size":9007199254740993,"title":"A","uri":"file:///a.txt"}`,
		"resource text": `{"type":"resource","resource":{"mimeType":"text/plain","text":"body","uri":"file:///a"}}`,
		"resource blob": `{"type":"resource","resource":{"blob":"AAE=","uri":"file:///b"}}`,
	} {
		t.Run(name, func(t *testing.T) {
			b := roundTrip[acp.ContentBlock](t, in)
			acptest.Validate(t, "ContentBlock", b)
			switch {
			case b.Text != nil:
				if b.Text.Annotations.Audience.Or(nil)[0] != acp.RoleUser {
					t.Error("annotations lost")
				}
			case b.ResourceLink != nil:
				if b.ResourceLink.Size.Or(0) != 9007199254740993 {
					t.Error("int64 size lost precision")
				}
			case b.Resource != nil:
				r := b.Resource.Resource
				if (r.TextResourceContents == nil) == (r.BlobResourceContents == nil) {
					t.Errorf("embedded resource form: %+v", r)
				}
			case b.Image == nil && b.Audio == nil:
				t.Errorf("no variant: %+v", b)
			}
		})
	}
}

// ExampleSessionUpdate shows how the unions are written and read from Go:
// set exactly one variant field; on input, check which one is non-nil.
func ExampleSessionUpdate() {
	out, _ := json.Marshal(acp.SessionNotification{
		SessionID: "s1",
		Update: acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{
			Content: acp.ContentBlock{Text: &acp.TextContent{Text: "Hello"}},
		}},
	})
	fmt.Println(string(out))

	in := `{"sessionId":"s1","update":{"sessionUpdate":"plan_update","plan":{}}}`
	var n acp.SessionNotification
	_ = json.Unmarshal([]byte(in), &n)
	switch u := n.Update; {
	case u.AgentMessageChunk != nil:
		fmt.Println("chunk")
	case u.Unknown != nil:
		fmt.Printf("unknown %s: %s\n", u.Tag(), u.Unknown)
	}
	// Output:
	// {"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Hello"}}}
	// unknown plan_update: {"sessionUpdate":"plan_update","plan":{}}
}

// ExampleContentBlock reads a prompt's content blocks.
func ExampleContentBlock() {
	in := `{"sessionId":"s","prompt":[{"type":"text","text":"see"},{"type":"resource_link","name":"a.go","uri":"file:///a.go"},{"type":"image","data":"AA==","mimeType":"image/png"}]}`
	var p acp.PromptRequest
	if err := json.Unmarshal([]byte(in), &p); err != nil {
		fmt.Println(err)
		return
	}
	for _, b := range p.Prompt {
		switch {
		case b.Text != nil:
			fmt.Println("text:", b.Text.Text)
		case b.ResourceLink != nil:
			fmt.Println("link:", b.ResourceLink.URI)
		default:
			fmt.Println("other:", b.Tag())
		}
	}
	// Output:
	// text: see
	// link: file:///a.go
	// other: image
}

// ExampleOpt shows the three states of an optional nullable member.
func ExampleOpt() {
	for _, title := range []acp.Opt[string]{{}, acp.Null[string](), acp.Some("Fix the bug")} {
		out, _ := json.Marshal(acp.SessionInfoUpdate{Title: title})
		fmt.Println(string(out))
	}
	// Output:
	// {}
	// {"title":null}
	// {"title":"Fix the bug"}
}

func TestMCPServerVariants(t *testing.T) {
	stdio := roundTrip[acp.MCPServer](t, `{"name":"fs","command":"/bin/mcp","args":["-v"],"env":[{"name":"K","value":"V"}]}`)
	if stdio.Stdio == nil || stdio.Stdio.Env[0].Value != "V" || stdio.Tag() != "" {
		t.Fatalf("stdio without type: %+v", stdio)
	}
	http := roundTrip[acp.MCPServer](t, `{"type":"http","name":"h","url":"https://x","headers":[{"name":"A","value":"b"}]}`)
	if http.HTTP == nil || http.HTTP.Headers[0].Name != "A" {
		t.Fatalf("http: %+v", http)
	}
	sse := roundTrip[acp.MCPServer](t, `{"type":"sse","name":"s","url":"https://y","headers":[]}`)
	if sse.SSE == nil || sse.SSE.Headers == nil {
		t.Fatalf("sse: %+v", sse)
	}
	// A v2-style explicit "stdio" type still fits the stdio form (the schema's
	// anyOf accepts it); the member is kept and written back.
	explicit := roundTrip[acp.MCPServer](t, `{"name":"fs","command":"c","args":[],"env":[],"type":"stdio"}`)
	if explicit.Stdio == nil || string(explicit.Stdio.Extra["type"]) != `"stdio"` {
		t.Fatalf("explicit stdio: %+v", explicit)
	}
	// An unstable transport that fits no known form is Unknown, byte for byte.
	acpServer := roundTrip[acp.MCPServer](t, `{"type":"acp","name":"a","id":"srv-1"}`)
	if acpServer.Unknown == nil || acpServer.Tag() != "acp" {
		t.Fatalf("acp transport: %+v", acpServer)
	}
	// Required arrays are written as [] even when nil, as the schema demands.
	out, err := json.Marshal(acp.MCPServer{Stdio: &acp.MCPServerStdio{Name: "n", Command: "c"}})
	if err != nil || string(out) != `{"name":"n","command":"c","args":[],"env":[]}` {
		t.Fatalf("nil required arrays: %s %v", out, err)
	}
	acptest.Validate(t, "McpServer", json.RawMessage(out))
	// Stdio servers arrive in session/new without a type.
	acptest.ValidateMessage(t, compact(t, `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[`+string(out)+`]}}`))
}

func TestUnknownVariantsPreservedExactly(t *testing.T) {
	big := `"_meta":{"n":12345678901234567890,"f":1.0e400}`
	t.Run("session update", func(t *testing.T) {
		u := roundTrip[acp.SessionUpdate](t, `{"sessionUpdate":"plan_update","plan":{"type":"items","planId":"p","entries":[]},`+big+`,"z":[1,{"a":null}]}`)
		if u.Unknown == nil || u.Tag() != "plan_update" {
			t.Fatalf("not unknown: %+v", u)
		}
	})
	t.Run("content block in a prompt", func(t *testing.T) {
		p := roundTrip[acp.PromptRequest](t, `{"sessionId":"s","prompt":[{"type":"text","text":"a"},{"type":"video","uri":"file:///v.mp4",`+big+`}]}`)
		if p.Prompt[1].Unknown == nil || p.Prompt[1].Tag() != "video" {
			t.Fatalf("not unknown: %+v", p.Prompt[1])
		}
	})
	t.Run("tool call content", func(t *testing.T) {
		c := roundTrip[acp.ToolCallContent](t, `{"type":"hologram","x":1}`)
		if c.Unknown == nil {
			t.Fatal("not unknown")
		}
	})
	t.Run("permission outcome", func(t *testing.T) {
		r := roundTrip[acp.RequestPermissionResponse](t, `{"outcome":{"outcome":"deferred","until":"later"}}`)
		if r.Outcome.Unknown == nil || r.Outcome.Tag() != "deferred" {
			t.Fatalf("not unknown: %+v", r.Outcome)
		}
	})
	t.Run("config option", func(t *testing.T) {
		o := roundTrip[acp.SessionConfigOption](t, `{"type":"slider","id":"x","name":"X","min":0}`)
		if o.Unknown == nil {
			t.Fatal("not unknown")
		}
	})
	t.Run("elicitation action", func(t *testing.T) {
		r := roundTrip[acp.CreateElicitationResponse](t, `{"action":"snooze","minutes":5}`)
		if r.Unknown == nil {
			t.Fatal("not unknown")
		}
	})
}

func TestMetaKeepsLargeIntegers(t *testing.T) {
	in := `{"sessionId":"s","prompt":[{"type":"text","text":"x","_meta":{"id":12345678901234567890}}],"_meta":{"n":12345678901234567890,"nested":{"m":-9223372036854775809},"traceparent":"00-ab"}}`
	p := roundTrip[acp.PromptRequest](t, in)
	if got := string(p.Meta["n"]); got != "12345678901234567890" {
		t.Errorf("_meta n = %s", got)
	}
	if got := string(p.Prompt[0].Text.Meta["id"]); got != "12345678901234567890" {
		t.Errorf("nested _meta id = %s", got)
	}
	acptest.Validate(t, "PromptRequest", p)
}

func TestOptTriState(t *testing.T) {
	for _, c := range []struct {
		in              string
		absent, null    bool
		value           string
		constructedFrom acp.Opt[string]
	}{
		{in: `{}`, absent: true, constructedFrom: acp.Opt[string]{}},
		{in: `{"title":null}`, null: true, constructedFrom: acp.Null[string]()},
		{in: `{"title":"T"}`, value: "T", constructedFrom: acp.Some("T")},
	} {
		u := roundTrip[acp.SessionInfoUpdate](t, c.in)
		if u.Title.IsZero() != c.absent || u.Title.IsNull() != c.null || u.Title.Or("") != c.value {
			t.Errorf("%s: absent=%v null=%v value=%q", c.in, u.Title.IsZero(), u.Title.IsNull(), u.Title.Or(""))
		}
		if v, ok := u.Title.Get(); ok != (c.value != "") || v != c.value {
			t.Errorf("%s: Get() = %q, %v", c.in, v, ok)
		}
		out, err := json.Marshal(acp.SessionInfoUpdate{Title: c.constructedFrom})
		if err != nil || string(out) != c.in {
			t.Errorf("constructed %s, want %s (%v)", out, c.in, err)
		}
	}
	// The Opt API on its own.
	p := acp.OptFromPtr[int](nil)
	if !p.IsZero() || p.Ptr() != nil {
		t.Error("OptFromPtr(nil) is not absent")
	}
	n := 7
	if q := acp.OptFromPtr(&n); *q.Ptr() != 7 || !q.IsSet() {
		t.Error("OptFromPtr(&7)")
	}
	// go-cmp compares structs holding Opt through Opt.Equal.
	a := acp.SessionInfoUpdate{Title: acp.Some("x"), UpdatedAt: acp.Null[string]()}
	if d := cmp.Diff(a, acp.SessionInfoUpdate{Title: acp.Some("x"), UpdatedAt: acp.Null[string]()}); d != "" {
		t.Errorf("equal values differ: %s", d)
	}
	if cmp.Equal(a, acp.SessionInfoUpdate{Title: acp.Some("x")}) {
		t.Error("null and absent compare equal")
	}
	if s := fmt.Sprint(a.Title, a.UpdatedAt, acp.Opt[int]{}); s != "x null absent" {
		t.Errorf("String: %q", s)
	}
	// omitzero works with encoding/json too, outside the generated codec.
	type plain struct {
		A acp.Opt[int] `json:"a,omitzero"`
		B acp.Opt[int] `json:"b,omitzero"`
		C acp.Opt[int] `json:"c,omitzero"`
	}
	out, _ := json.Marshal(plain{B: acp.Null[int](), C: acp.Some(3)})
	if string(out) != `{"b":null,"c":3}` {
		t.Errorf("plain encoding/json: %s", out)
	}
	// Tool call patches: absent leaves content alone, [] clears it.
	upd := roundTrip[acp.ToolCallUpdate](t, `{"toolCallId":"t","content":[]}`)
	if c, ok := upd.Content.Get(); !ok || c == nil || len(c) != 0 {
		t.Errorf("content [] decoded as %+v", upd.Content)
	}
}

// TestLenientDecoding covers x-deserialize-default-on-error (a bad value
// becomes the zero value instead of failing the message) and
// x-deserialize-skip-invalid-items (bad array items are dropped). The
// generator applies both to every annotated member; these are
// representative members. Members without the annotation stay strict.
func TestLenientDecoding(t *testing.T) {
	var tc acp.ToolCall
	mustDecode(t, `{"toolCallId":"t","title":"x","kind":"teleport","status":42,"name":7,"locations":[{"path":"/ok"},{"line":3},"junk"],"_meta":5}`, &tc)
	if tc.Kind != "" || tc.Status != "" || !tc.Name.IsZero() || tc.Meta != nil {
		t.Errorf("bad values not defaulted: %+v", tc)
	}
	if len(tc.Locations) != 1 || tc.Locations[0].Path != "/ok" {
		t.Errorf("invalid locations not skipped: %+v", tc.Locations)
	}

	var upd acp.ToolCallUpdate
	mustDecode(t, `{"toolCallId":"t","content":[{"type":"diff","path":"/a"},{"type":"content","content":{"type":"text","text":"kept"}}]}`, &upd)
	if c, _ := upd.Content.Get(); len(c) != 1 || c[0].Content.Content.Text.Text != "kept" {
		t.Errorf("invalid content item not skipped: %+v", c)
	}

	var init acp.InitializeRequest
	mustDecode(t, `{"protocolVersion":1,"clientCapabilities":"all of them","clientInfo":{"name":1}}`, &init)
	if init.ProtocolVersion != 1 || init.ClientCapabilities.Terminal || init.ClientInfo != nil {
		t.Errorf("capabilities not defaulted: %+v", init)
	}

	var text acp.TextContent
	mustDecode(t, `{"text":"t","annotations":{"priority":"high","audience":["user","robot"]}}`, &text)
	if !text.Annotations.Priority.IsZero() || len(text.Annotations.Audience.Or(nil)) != 1 {
		t.Errorf("annotations not lenient: %+v", text.Annotations)
	}

	// Strict where the schema is strict: the error names the member.
	for in, path := range map[string]string{
		`{"sessionId":"s","prompt":[{"type":"text","text":"a"},{"type":"text"}]}`: "prompt[1].text",
		`{"prompt":[]}`:                            "sessionId",
		`{"sessionId":null,"prompt":[]}`:           "sessionId",
		`{"sessionId":"s","prompt":[{"text":""}]}`: "prompt[0].type",
		`{"sessionId":"s","prompt":{}}`:            "prompt",
	} {
		var p acp.PromptRequest
		var de *acp.DecodeError
		if err := json.Unmarshal([]byte(in), &p); !errors.As(err, &de) || de.Path != path {
			t.Errorf("%s: error %v, want path %s", in, err, path)
		}
	}
	var pr acp.PromptResponse
	if err := json.Unmarshal([]byte(`{"stopReason":"bored"}`), &pr); err == nil {
		t.Error("unknown stop reason accepted")
	}
}

func mustDecode(t *testing.T, in string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(in), v); err != nil {
		t.Fatalf("decode %s: %v", in, err)
	}
}

func TestNullForEmptyResults(t *testing.T) {
	for _, v := range []any{&acp.WriteTextFileResponse{}, &acp.LoadSessionResponse{}, &acp.AuthenticateResponse{}, &acp.KillTerminalResponse{}} {
		if err := json.Unmarshal([]byte("null"), v); err != nil {
			t.Errorf("%T rejects null: %v", v, err)
		}
	}
	if err := json.Unmarshal([]byte("null"), &acp.PromptResponse{}); err == nil {
		t.Error("PromptResponse accepts null although stopReason is required")
	}
	if err := json.Unmarshal([]byte("null"), &acp.ContentBlock{}); err == nil {
		t.Error("a union accepts null")
	}
}

func TestIntegerFormats(t *testing.T) {
	var init acp.InitializeRequest
	if err := json.Unmarshal([]byte(`{"protocolVersion":70000}`), &init); err == nil {
		t.Error("uint16 protocolVersion accepted 70000")
	}
	if err := json.Unmarshal([]byte(`{"sessionId":"s","path":"/a","line":-1}`), &acp.ReadTextFileRequest{}); err == nil {
		t.Error("uint32 line accepted -1")
	}
	req := roundTrip[acp.CreateTerminalRequest](t, `{"sessionId":"s","command":"ls","outputByteLimit":18446744073709551615}`)
	if req.OutputByteLimit.Or(0) != 1<<64-1 {
		t.Errorf("uint64 limit = %d", req.OutputByteLimit.Or(0))
	}
	var cancel acp.CancelRequestNotification
	for _, id := range []string{`7`, `"abc"`, `null`, `-12345678901234`} {
		mustDecode(t, `{"requestId":`+id+`}`, &cancel)
		if string(cancel.RequestID) != id {
			t.Errorf("requestId %s decoded as %s", id, cancel.RequestID)
		}
	}
	if err := json.Unmarshal([]byte(`{"requestId":1.5}`), &cancel); err == nil {
		t.Error("fractional requestId accepted")
	}
}

func TestUntaggedUnions(t *testing.T) {
	resp := roundTrip[acp.CreateElicitationResponse](t, `{"action":"accept","content":{"a":"s","b":3,"c":2.5,"d":true,"e":["x"]}}`)
	c := resp.Accept.Content.Or(nil)
	if *c["a"].String != "s" || *c["b"].Integer != 3 || *c["c"].Number != 2.5 || !*c["d"].Boolean || c["e"].StringArray[0] != "x" {
		t.Errorf("elicitation values: %+v", c)
	}
	for _, in := range []string{`{"action":"decline"}`, `{"action":"cancel","_meta":{}}`} {
		r := roundTrip[acp.CreateElicitationResponse](t, in)
		if r.Decline == nil && r.Cancel == nil {
			t.Errorf("%s: %+v", in, r)
		}
	}
	// Default variant with shared members: set_config_option's value id form.
	vid := roundTrip[acp.SetSessionConfigOptionRequest](t, `{"sessionId":"s","configId":"model","value":"opus"}`)
	boolean := roundTrip[acp.SetSessionConfigOptionRequest](t, `{"type":"boolean","sessionId":"s","configId":"fast","value":true}`)
	if vid.ValueID.Value != "opus" || !boolean.Boolean.Value || boolean.SessionID != "s" {
		t.Errorf("set_config_option: %+v %+v", vid, boolean)
	}
}

func TestElicitationRequestFromGo(t *testing.T) {
	req := acp.CreateElicitationRequest{
		Message: "Pick one",
		Form: &acp.ElicitationFormMode{
			RequestedSchema: acp.ElicitationSchema{
				Type: acp.ElicitationSchemaTypeObject,
				Properties: map[string]acp.ElicitationPropertySchema{
					"color": {String: &acp.StringPropertySchema{Enum: acp.Some([]string{"red", "blue"})}},
				},
				Required: acp.Some([]string{"color"}),
			},
			Session: &acp.ElicitationSessionScope{SessionID: "s", ToolCallID: acp.Some[acp.ToolCallID]("t")},
		},
	}
	out, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"mode":"form","message":"Pick one","requestedSchema":{"type":"object","properties":{"color":{"type":"string","enum":["red","blue"]}},"required":["color"]},"sessionId":"s","toolCallId":"t"}`
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
	acptest.Validate(t, "CreateElicitationRequest", req)
	back := roundTrip[acp.CreateElicitationRequest](t, want)
	if back.Form == nil || back.Form.Session == nil || back.Form.Request != nil {
		t.Errorf("scope: %+v", back.Form)
	}
	// Request scope instead of session scope.
	r := roundTrip[acp.CreateElicitationRequest](t, `{"mode":"url","message":"m","elicitationId":"e","url":"https://x","requestId":4}`)
	if r.URL == nil || string(r.URL.Request.RequestID) != "4" {
		t.Errorf("url mode: %+v", r.URL)
	}
}

func TestUnknownMembersKept(t *testing.T) {
	// systemPrompt is an unstable member the generator leaves out.
	f := roundTrip[acp.ForkSessionRequest](t, `{"sessionId":"s","cwd":"/w","systemPrompt":{"mode":"append","content":[]},"zeta":1}`)
	if _, ok := f.Extra["systemPrompt"]; !ok {
		t.Errorf("Extra = %v", f.Extra)
	}
}

func TestMarshalRejectsBadUnions(t *testing.T) {
	for name, v := range map[string]any{
		"no variant":    acp.ContentBlock{},
		"two variants":  acp.ContentBlock{Text: &acp.TextContent{}, Image: &acp.ImageContent{}},
		"nested":        acp.SessionNotification{SessionID: "s", Update: acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{}}},
		"bad raw":       acp.ToolCallUpdate{ToolCallID: "t", RawInput: json.RawMessage("{")},
		"flat no scope": acp.ElicitationURLMode{ElicitationID: "e", URL: "u"},
	} {
		if out, err := json.Marshal(v); err == nil {
			t.Errorf("%s: marshalled to %s", name, out)
		}
	}
}

func TestNoHTMLEscaping(t *testing.T) {
	out, err := json.Marshal(acp.TextContent{Text: "a<b>&c\u2028\x01\"\\\xff"})
	if err != nil {
		t.Fatal(err)
	}
	// json.Marshal escapes HTML in the outer call; an encoder with
	// SetEscapeHTML(false), as the connection uses, must not.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(acp.TextContent{Text: "a<b>&c"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"a<b>&c"`) {
		t.Errorf("escaped: %s", buf.String())
	}
	var back acp.TextContent
	mustDecode(t, string(out), &back)
	if back.Text != "a<b>&c\u2028\x01\"\\\uFFFD" {
		t.Errorf("string round trip: %q", back.Text)
	}
}

func TestMethodTable(t *testing.T) {
	spec, ok := acp.LookupMethod(acp.MethodSessionPrompt)
	if !ok || spec.Receiver != acp.ReceiverAgent || spec.Notification {
		t.Fatalf("session/prompt: %+v", spec)
	}
	if _, ok := spec.NewParams().(*acp.PromptRequest); !ok {
		t.Errorf("params type %T", spec.NewParams())
	}
	if _, ok := spec.NewResult().(*acp.PromptResponse); !ok {
		t.Errorf("result type %T", spec.NewResult())
	}
	upd, _ := acp.LookupMethod(acp.MethodSessionUpdate)
	if !upd.Notification || upd.Receiver != acp.ReceiverClient || upd.NewResult() != nil {
		t.Errorf("session/update: %+v", upd)
	}
	cr, _ := acp.LookupMethod(acp.MethodCancelRequest)
	if cr.Receiver != acp.ReceiverProtocol || !cr.Notification {
		t.Errorf("$/cancel_request: %+v", cr)
	}
	fork, _ := acp.LookupMethod(acp.MethodSessionFork)
	if !fork.Unstable {
		t.Error("session/fork is not marked unstable")
	}
	if _, ok := acp.LookupMethod("session/nope"); ok {
		t.Error("unknown method found")
	}
	all := acp.Methods()
	for i := 1; i < len(all); i++ {
		if all[i-1].Name >= all[i].Name {
			t.Errorf("Methods() not sorted at %s", all[i].Name)
		}
	}
	// Every params type decodes an example accepted by the schema for it:
	// the table and the schema agree on which type goes with which method.
	if len(all) != 26 {
		t.Errorf("%d methods", len(all))
	}
}

// TestAgentMessagesMatchSchema builds the messages an agent sends from Go
// values and checks them against the schema.
func TestAgentMessagesMatchSchema(t *testing.T) {
	line := func(method string, id int, params any) []byte {
		t.Helper()
		env := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
		if id > 0 {
			env["id"] = id
		}
		b, err := json.Marshal(env)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	response := func(result any) []byte {
		b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": result})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	acptest.ValidateResponse(t, acp.MethodInitialize, response(acp.InitializeResponse{
		ProtocolVersion: acp.LatestProtocolVersion,
		AgentCapabilities: acp.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: acp.PromptCapabilities{Image: true, EmbeddedContext: true},
			MCPCapabilities:    acp.MCPCapabilities{HTTP: true, SSE: true},
			SessionCapabilities: acp.SessionCapabilities{
				List: &acp.SessionListCapabilities{}, Resume: &acp.SessionResumeCapabilities{},
				Close: &acp.SessionCloseCapabilities{}, Fork: &acp.SessionForkCapabilities{},
			},
		},
		AuthMethods: []acp.AuthMethod{
			{Agent: &acp.AuthMethodAgent{ID: "claude-login", Name: "Log in"}},
			{Terminal: &acp.AuthMethodTerminal{ID: "term", Name: "Terminal", Args: []string{"--login"}, Env: map[string]string{"A": "b"}}},
		},
		AgentInfo: &acp.Implementation{Name: "claude-agent-acp", Version: "0.1.0"},
	}))
	acptest.ValidateResponse(t, acp.MethodSessionNew, response(acp.NewSessionResponse{
		SessionID: "s",
		Modes: &acp.SessionModeState{CurrentModeID: "default", AvailableModes: []acp.SessionMode{
			{ID: "default", Name: "Default", Description: acp.Some("Ask before edits")},
		}},
		ConfigOptions: acp.Some([]acp.SessionConfigOption{{
			ID: "model", Name: "Model", Category: acp.Some(acp.SessionConfigOptionCategoryModel),
			Select: &acp.SessionConfigSelect{CurrentValue: "opus", Options: acp.SessionConfigSelectOptions{
				Ungrouped: []acp.SessionConfigSelectOption{{Value: "opus", Name: "Opus"}},
			}},
		}}),
	}))
	acptest.ValidateResponse(t, acp.MethodSessionPrompt, response(acp.PromptResponse{
		StopReason: acp.StopReasonEndTurn,
		Usage:      &acp.Usage{TotalTokens: 3, InputTokens: 1, OutputTokens: 2},
	}))
	acptest.ValidateResponse(t, acp.MethodSessionLoad, response(acp.LoadSessionResponse{}))
	acptest.ValidateMessage(t, line(acp.MethodSessionUpdate, 0, acp.SessionNotification{
		SessionID: "s",
		Update: acp.SessionUpdate{ToolCall: &acp.ToolCall{
			ToolCallID: "t", Title: "Edit a.go", Kind: acp.ToolKindEdit, Status: acp.ToolCallStatusPending,
			Content: []acp.ToolCallContent{{Diff: &acp.Diff{Path: "/a.go", OldText: acp.Null[string](), NewText: "package a"}}},
		}},
	}))
	acptest.ValidateMessage(t, line(acp.MethodSessionRequestPermission, 2, acp.RequestPermissionRequest{
		SessionID: "s",
		ToolCall:  acp.ToolCallUpdate{ToolCallID: "t", Status: acp.Some(acp.ToolCallStatusPending)},
		Options:   []acp.PermissionOption{{OptionID: "allow", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce}},
	}))
	acptest.ValidateMessage(t, line(acp.MethodFSReadTextFile, 3, acp.ReadTextFileRequest{SessionID: "s", Path: "/a", Line: acp.Some[uint32](1)}))
	acptest.ValidateMessage(t, line(acp.MethodTerminalCreate, 4, acp.CreateTerminalRequest{SessionID: "s", Command: "ls"}))
	acptest.ValidateResponse(t, acp.MethodSessionRequestPermission, response(acp.RequestPermissionResponse{
		Outcome: acp.RequestPermissionOutcome{Selected: &acp.SelectedPermissionOutcome{OptionID: "allow"}},
	}))
	acptest.ValidateResponse(t, acp.MethodSessionRequestPermission, response(acp.RequestPermissionResponse{
		Outcome: acp.RequestPermissionOutcome{Cancelled: &acp.RequestPermissionOutcomeCancelled{}},
	}))
}

func BenchmarkAgentMessageChunk(b *testing.B) {
	n := acp.SessionNotification{SessionID: "sess-1", Update: acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{
		Content: acp.ContentBlock{Text: &acp.TextContent{Text: strings.Repeat("token ", 20)}},
	}}}
	data, _ := json.Marshal(n)
	b.Run("marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(n); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var v acp.SessionNotification
			if err := json.Unmarshal(data, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// FuzzSessionNotification checks that whatever decodes also encodes, and
// that encoding is stable: decode(encode(v)) encodes to the same bytes.
func FuzzSessionNotification(f *testing.F) {
	for _, s := range []string{
		`{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}`,
		`{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"t","title":"x","content":[{"type":"diff","path":"/a","newText":""}]}}`,
		`{"sessionId":"s","update":{"sessionUpdate":"session_info_update","title":null},"_meta":{"n":1e400}}`,
		`{"sessionId":"s","update":{"sessionUpdate":"mystery","a":[1,2]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v acp.SessionNotification
		if json.Unmarshal(data, &v) != nil {
			return
		}
		once, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("decoded but cannot encode: %v\n%s", err, data)
		}
		var w acp.SessionNotification
		if err := json.Unmarshal(once, &w); err != nil {
			t.Fatalf("own output does not decode: %v\n%s", err, once)
		}
		twice, err := json.Marshal(w)
		if err != nil || !bytes.Equal(once, twice) {
			t.Fatalf("unstable encoding:\n%s\n%s", once, twice)
		}
	})
}
