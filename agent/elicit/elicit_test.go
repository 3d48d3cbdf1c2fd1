package elicit

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/acptest"
)

// twoQuestions is an AskUserQuestion input as the model writes it: a
// single select and a multi-select whose last option holds the separator.
const twoQuestions = `{"questions":[
 {"question":"Which color?","header":"Color","multiSelect":false,"options":[{"label":"Red","description":"warm"},{"label":"Blue","description":"cool","preview":"#00f"}]},
 {"question":"Which sizes?","header":"Sizes","multiSelect":true,"options":[{"label":"S","description":"small"},{"label":"M","description":"medium"},{"label":"L, XL","description":"large"}]}
]}`

func TestQuestions(t *testing.T) {
	qs, err := Questions(json.RawMessage(twoQuestions))
	if err != nil || len(qs) != 2 || !qs[1].MultiSelect || qs[0].Options[1].Preview != "#00f" {
		t.Fatalf("%+v %v", qs, err)
	}
	// Malformed entries are left out; nothing left is an error.
	qs, err = Questions(json.RawMessage(`{"questions":[{"question":"","options":[{"label":"a"}]},{"question":"ok?","options":[{"label":""},{"label":"yes"}]},{"question":"none?","options":[]},7]}`))
	if err != nil || len(qs) != 1 || qs[0].Question != "ok?" || len(qs[0].Options) != 1 {
		t.Fatalf("%+v %v", qs, err)
	}
	for _, in := range []string{`{}`, `{"questions":[]}`, `{"questions":"x"}`, `null`, `[`} {
		if _, err := Questions(json.RawMessage(in)); !errors.Is(err, ErrNoQuestions) {
			t.Errorf("%s: %v", in, err)
		}
	}
}

// TestAskForm: one field per question (the header its title, the question
// its description when there are several), the options with their
// descriptions (and a preview in _meta), a multi-select as an array of
// anyOf, each with an "Other" text field; valid against the ACP schema.
func TestAskForm(t *testing.T) {
	qs, _ := Questions(json.RawMessage(twoQuestions))
	req := AskForm(qs, "sess-1", "toolu_q", false)
	raw, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	acptest.Validate(t, "CreateElicitationRequest", json.RawMessage(raw))
	var got struct {
		Mode            string `json:"mode"`
		SessionID       string `json:"sessionId"`
		ToolCallID      string `json:"toolCallId"`
		Message         string `json:"message"`
		RequestedSchema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		} `json:"requestedSchema"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if got.Mode != "form" || got.SessionID != "sess-1" || got.ToolCallID != "toolu_q" || got.Message != "Please answer the following questions." ||
		got.RequestedSchema.Type != "object" || got.RequestedSchema.Required != nil || len(got.RequestedSchema.Properties) != 4 {
		t.Fatalf("%s", raw)
	}
	want := map[string]string{
		"question_0":        `{"type":"string","title":"Color","description":"Which color?","oneOf":[{"const":"Red","title":"Red","description":"warm"},{"const":"Blue","title":"Blue","description":"cool","_meta":{"_claude/askUserQuestionOption":{"preview":"#00f"}}}]}`,
		"question_0_custom": `{"type":"string","title":"Other","description":"Type your own answer, or add a note to the option you chose above (optional)."}`,
		"question_1":        `{"type":"array","title":"Sizes","description":"Which sizes?","items":{"anyOf":[{"const":"S","title":"S","description":"small"},{"const":"M","title":"M","description":"medium"},{"const":"L, XL","title":"L, XL","description":"large"}]}}`,
		"question_1_custom": `{"type":"string","title":"Other","description":"Type your own answer to add to your selection above (optional)."}`,
	}
	for k, w := range want {
		if g := string(got.RequestedSchema.Properties[k]); g != w {
			t.Errorf("%s\n got %s\nwant %s", k, g, w)
		}
	}
	// The fields come in question order, each followed by its "Other".
	if i, j, k := strings.Index(string(raw), `"question_0"`), strings.Index(string(raw), `"question_0_custom"`), strings.Index(string(raw), `"question_1"`); !(i < j && j < k) {
		t.Errorf("field order: %s", raw)
	}

	// One question: its text is the message, not repeated in the field.
	one := AskForm(qs[:1], "s", "", false)
	raw, _ = json.Marshal(one)
	acptest.Validate(t, "CreateElicitationRequest", json.RawMessage(raw))
	if one.Message != "Which color?" || strings.Contains(string(raw), `"description":"Which color?"`) || strings.Contains(string(raw), "toolCallId") {
		t.Errorf("%s", raw)
	}

	// AIR clients get the custom-answer marker on the "Other" field.
	raw, _ = json.Marshal(AskForm(qs[:1], "s", "t", true))
	if !strings.Contains(string(raw), `"_askUserQuestionCustomAnswer":{"isCustomAnswer":true,"questionId":"question_0"}`) ||
		!strings.Contains(string(raw), `"jetbrains":{"air":{"customAnswer":{"isCustomAnswer":true,"questionId":"question_0"},"version":1}}`) {
		t.Errorf("AIR marker missing: %s", raw)
	}
}

func accept(content string) *acp.CreateElicitationResponse {
	var r acp.CreateElicitationResponse
	if err := json.Unmarshal([]byte(`{"action":"accept","content":`+content+`}`), &r); err != nil {
		panic(err)
	}
	return &r
}

// TestAskAnswer: the form's answer in the shape the CLI's own dialog
// writes (answers by question text; a multi-select's picks and "Other"
// joined and quoted as the tool splits them; a single select's "Other" its
// answer or its pick's note), the input's other members kept.
func TestAskAnswer(t *testing.T) {
	qs, _ := Questions(json.RawMessage(twoQuestions))
	input := json.RawMessage(`{"questions":[],"extra":1}`)
	cases := []struct {
		name, content, answers, annotations string
	}{
		{"picks", `{"question_0":"Blue","question_1":["S","L, XL"]}`, `{"Which color?":"Blue","Which sizes?":"S, \"L, XL\""}`, ``},
		{"other joins a multi-select", `{"question_1":["M"],"question_1_custom":"XXL \"tall\""}`, `{"Which sizes?":"M, \"XXL \\\"tall\\\"\""}`, ``},
		{"other answers a single select", `{"question_0":"","question_0_custom":" Green "}`, `{"Which color?":"Green"}`, ``},
		{"other notes a pick", `{"question_0":"Red","question_0_custom":"dark red"}`, `{"Which color?":"Red"}`, `{"Which color?":{"notes":"dark red"}}`},
		{"blank", `{}`, `{}`, ``},
		{"null content", `null`, `{}`, ``},
		{"odd values", `{"question_0":true,"question_1":[""]}`, `{"Which color?":"true"}`, ``},
	}
	for _, c := range cases {
		out, outcome := AskAnswer(accept(c.content), input, qs)
		var got map[string]json.RawMessage
		if err := json.Unmarshal(out, &got); err != nil || outcome != Answered {
			t.Fatalf("%s: %s %v %v", c.name, out, outcome, err)
		}
		if string(got["answers"]) != c.answers || string(got["annotations"]) != c.annotations || string(got["extra"]) != "1" {
			t.Errorf("%s: %s", c.name, out)
		}
	}
	var decline, cancel, other acp.CreateElicitationResponse
	_ = json.Unmarshal([]byte(`{"action":"decline"}`), &decline)
	_ = json.Unmarshal([]byte(`{"action":"cancel"}`), &cancel)
	_ = json.Unmarshal([]byte(`{"action":"_later"}`), &other)
	if out, o := AskAnswer(&decline, input, qs); out != nil || o != Declined {
		t.Errorf("decline: %s %v", out, o)
	}
	if out, o := AskAnswer(&cancel, input, qs); out != nil || o != Dismissed {
		t.Errorf("cancel: %s %v", out, o)
	}
	if out, o := AskAnswer(&other, input, qs); out != nil || o != Dismissed {
		t.Errorf("unknown action: %s %v", out, o)
	}
}

// TestMCPForm: the server's schema goes out in its own field order, made a
// valid ACP form (type object, properties), titled after the server when
// it has no title; what ACP cannot render is refused.
func TestMCPForm(t *testing.T) {
	r := &MCPRequest{ServerName: "asker", Message: "Pick a flavour", Mode: "form",
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{"zeta":{"type":"string","enum":["vanilla","chocolate"]},"alpha":{"type":"integer"}},"required":["zeta"]}`)}
	raw, err := MCPForm(r, "s1", "toolu_m")
	if err != nil {
		t.Fatal(err)
	}
	acptest.Validate(t, "CreateElicitationRequest", raw)
	s := string(raw)
	if strings.Index(s, `"zeta"`) > strings.Index(s, `"alpha"`) || !strings.Contains(s, `"title":"Asked by the MCP server asker"`) ||
		!strings.Contains(s, `"required":["zeta"]`) || !strings.Contains(s, `"toolCallId":"toolu_m"`) || !strings.Contains(s, `"mode":"form"`) {
		t.Errorf("%s", s)
	}
	// No schema at all: an empty form (a confirmation).
	raw, err = MCPForm(&MCPRequest{Message: "Continue?"}, "s1", "")
	if err != nil || !strings.Contains(string(raw), `"requestedSchema":{"type":"object","properties":{}}`) {
		t.Errorf("%s %v", raw, err)
	}
	acptest.Validate(t, "CreateElicitationRequest", raw)
	// A nested object is no ACP form field.
	if _, err := MCPForm(&MCPRequest{RequestedSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"object"}}}`)}, "s", ""); !errors.Is(err, ErrUnrenderable) {
		t.Errorf("nested object: %v", err)
	}
	if _, err := MCPForm(&MCPRequest{RequestedSchema: json.RawMessage(`[1]`)}, "s", ""); !errors.Is(err, ErrUnrenderable) {
		t.Errorf("array schema: %v", err)
	}
}

func TestMCPURLAndResult(t *testing.T) {
	req, err := MCPURL(&MCPRequest{Mode: "url", URL: "https://example.test/auth", Message: "Sign in"}, "s", "", "ours-1")
	if err != nil || req.URL == nil || req.URL.ElicitationID != "ours-1" {
		t.Fatalf("%+v %v", req, err)
	}
	raw, _ := json.Marshal(req)
	acptest.Validate(t, "CreateElicitationRequest", json.RawMessage(raw))
	if _, err := MCPURL(&MCPRequest{Mode: "url", URL: "javascript:alert(1)"}, "s", "", "x"); !errors.Is(err, ErrUnrenderable) {
		t.Errorf("a javascript: URL: %v", err)
	}
	res, _ := json.Marshal(MCPResult(accept(`{"flavour":"chocolate","scoops":2,"ok":true,"tags":["a"]}`)))
	if string(res) != `{"action":"accept","content":{"flavour":"chocolate","ok":true,"scoops":2,"tags":["a"]}}` {
		t.Errorf("%s", res)
	}
	res, _ = json.Marshal(MCPResult(accept(`null`)))
	if string(res) != `{"action":"accept","content":{}}` {
		t.Errorf("%s", res)
	}
	var decline, cancel acp.CreateElicitationResponse
	_ = json.Unmarshal([]byte(`{"action":"decline"}`), &decline)
	_ = json.Unmarshal([]byte(`{"action":"cancel"}`), &cancel)
	if r := MCPResult(&decline); r["action"] != "decline" {
		t.Error(r)
	}
	if r := MCPResult(&cancel); r["action"] != "cancel" {
		t.Error(r)
	}
}

func TestRefusalDialog(t *testing.T) {
	p, ok := ParseRefusal(json.RawMessage(`{"originalModel":"claude-fable","fallbackModel":"claude-opus-5-5","apiRefusalCategory":"cyber","guidanceText":"Edit and retry."}`))
	if !ok || p.Category != "cyber" {
		t.Fatalf("%+v", p)
	}
	if _, ok := ParseRefusal(json.RawMessage(`{"originalModel":"a"}`)); ok {
		t.Error("a payload without the fallback model was accepted")
	}
	req := RefusalForm(p, "s")
	raw, _ := json.Marshal(req)
	acptest.Validate(t, "CreateElicitationRequest", json.RawMessage(raw))
	if req.Message != "claude-fable declined this request (cyber). Retry with claude-opus-5-5?\n\nEdit and retry." {
		t.Errorf("%q", req.Message)
	}
	if r := RefusalResult(accept(`{"choice":"retry_fallback"}`)); r["result"] != RetryFallback {
		t.Error(r)
	}
	for _, c := range []string{`{"choice":"cancelled"}`, `{}`, `{"choice":"edit_prompt"}`} {
		if r := RefusalResult(accept(c)); r["result"] != KeepRefusal {
			t.Errorf("%s: %v", c, r)
		}
	}
}
