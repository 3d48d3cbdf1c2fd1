package translate

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/toolview"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// The encoding/json decodings the fast paths of resultjson.go stand for.

func refToolResultText(raw json.RawMessage) string {
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return str
	}
	var blocks []claude.ContentBlock
	if json.Unmarshal(raw, &blocks) == nil {
		return textOf(blocks)
	}
	return ""
}

// checkResultJSON decodes b with every fast path and with encoding/json
// and fails on any difference.
func checkResultJSON(t *testing.T, b []byte) {
	t.Helper()
	var ref struct {
		Todos []todo `json:"todos"`
	}
	refErr := json.Unmarshal(b, &ref)
	if got, ok := todoListFast(b); ok && (refErr != nil || !reflect.DeepEqual(got, ref.Todos)) {
		t.Fatalf("todoListFast(%q) = %#v; encoding/json %#v (%v)", b, got, ref.Todos, refErr)
	}
	if got, want := toolResultText(b), refToolResultText(b); got != want {
		t.Fatalf("toolResultText(%q) = %q; encoding/json %q", b, got, want)
	}
	var gr, wr readStructured
	gr.decode(b)
	_ = json.Unmarshal(b, &wr)
	if !reflect.DeepEqual(gr, wr) {
		t.Fatalf("read result %q = %+v; encoding/json %+v", b, gr, wr)
	}
	var ge, we editStructured
	gok := ge.decode(b)
	wok := json.Unmarshal(b, &we) == nil
	if gok != wok || ge.Type != we.Type || ge.FilePath != we.FilePath || ge.Content != we.Content ||
		!bytes.Equal(ge.StructuredPatch, we.StructuredPatch) || (ge.StructuredPatch == nil) != (we.StructuredPatch == nil) {
		t.Fatalf("edit result %q = %+v, %v; encoding/json %+v, %v", b, ge, gok, we, wok)
	}
	want, _ := json.Marshal(string(b))
	if got := jsonString(string(b)); !bytes.Equal(got, want) {
		t.Fatalf("jsonString(%q) = %s; Marshal %s", b, got, want)
	}
}

var resultJSONCorpus = []string{
	`{"todos":[{"content":"Run tests","status":"in_progress","activeForm":"Running tests"},{"content":"b","status":"pending","activeForm":"B"}]}`,
	`{"todos":[]}`, `{"todos":null}`, `{"Todos":[]}`, `{"todos":[{"content":1}]}`, `{"todos":[{"content":"a","content":"b"}]}`,
	`{"todos":[null]}`, `{"todos":[{"status":"x","priority":"high","id":"3"}],"other":{"a":[1]}}`, `{"todos":"x"}`, `{"todos":[{"content":"\u00e9\n"}]} `,
	`"plain text"`, `"a\nb\t\"c\" <d> & \u00e9 \ud83d\ude00"`, "\"bad \xff utf8\"", `null`, ``, `[]`, `{}`, `3`,
	`[{"type":"text","text":"one"},{"type":"image","source":{"type":"base64","data":"AAA"}},{"type":"text","text":"two"}]`,
	`[{"type":"text","text":""}]`, `[{"type":"text","text":"x","is_error":"no"}]`, `[{"Type":"text","text":"x"}]`,
	`[{"type":"text","text":"x","text":"y"}]`, `[null,{"type":"text","text":"z"}]`, `[{"type":"text","text":"x"}] x`,
	`[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"in"}],"is_error":true}]`,
	`[{"type":"text","text":"x","id":5}]`, `[{"type":"te\u0078t","text":"x"}]`, `[{"t\u0079pe":"text","text":"x"}]`,
	`{"type":"text","file":{"filePath":"/p/a.go","content":"package a\n","numLines":1,"startLine":1,"totalLines":9}}`,
	`{"type":"image","file":{"base64":"iVBO","type":"image/png","originalSize":3}}`,
	`{"type":"text","file":null}`, `{"type":"text","file":"x"}`, `{"type":"text","file":{"numLines":1.5}}`,
	`{"type":"text","file":{"numLines":1e2}}`, `{"type":"text","file":{"numLines":-3}}`, `{"type":"text","file":{"numLines":99999999999999999999}}`,
	`{"type":"text","file":{"content":"a","content":"b"}}`, `{"type":"text","File":{"content":"a"}}`, `{"TYPE":"text"}`,
	`{"type":"create","filePath":"/p/b.go","content":"x\n","structuredPatch":[],"originalFile":null}`,
	`{"filePath":"/p/c.go","oldString":"a","newString":"b","structuredPatch":[{"oldStart":1,"oldLines":1,"newStart":1,"newLines":1,"lines":["-a","+b"]}]}`,
	`{"filePath":"/p/c.go","structuredPatch":null}`, `{"filePath":"/p/c.go","structuredPatch": 7 }`, `{"filePath":5}`,
	`{"stdout":"ok\n","stderr":"","interrupted":false,"isImage":false}`, `{"stdout":"","backgroundTaskId":"b1"}`,
	`{"backgroundTaskId":7}`, `{"backgroundTaskId":null}`, `{"backgroundtaskid":"x"}`, `{"backgroundTaskId":"a","backgroundTaskId":"b"}`,
	`{"stdout":"x"`, `{"stdout":"x"}}`, ` {"stdout" : "x" } `, `{"\u0073tdout":"x"}`, "{\"stdout\":\"x\",\"K\u212a\":1}",
}

func TestResultJSONFastPaths(t *testing.T) {
	for _, s := range resultJSONCorpus {
		checkResultJSON(t, []byte(s))
	}
	big := `{"stdout":"` + strings.Repeat(`line <1> & "two"\n`, 800) + `","stderr":"","interrupted":false}`
	checkResultJSON(t, []byte(big))
}

// FuzzResultJSON: the fast decodings of tool results never differ from
// encoding/json's.
func FuzzResultJSON(f *testing.F) {
	for _, s := range resultJSONCorpus {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkResultJSON(t, b) })
}

// TestContentKey: two contents get the same key exactly when their JSON is
// the same, whether their items are hashed field by field or as JSON.
func TestContentKey(t *testing.T) {
	text := func(s string) acp.ToolCallContent { return toolview.TextContent(s) }
	meta := text("x")
	meta.Content.Meta = map[string]json.RawMessage{"k": json.RawMessage(`1`)}
	ann := text("x")
	ann.Content.Content.Text.Annotations = &acp.Annotations{Priority: acp.Some(1.0)}
	diff := func(path string, old acp.Opt[string], nw string) acp.ToolCallContent {
		return acp.ToolCallContent{Diff: &acp.Diff{Path: path, OldText: old, NewText: nw}}
	}
	term := acp.ToolCallContent{Terminal: &acp.Terminal{TerminalID: "t1"}}
	img := acp.ToolCallContent{Content: &acp.Content{Content: acp.ContentBlock{Image: &acp.ImageContent{Data: "AA", MimeType: "image/png"}}}}
	contents := [][]acp.ToolCallContent{
		nil, {}, {text("")}, {text("x")}, {text("x"), text("")}, {text(""), text("x")}, {text("xy")}, {meta}, {ann},
		{diff("/a", acp.Opt[string]{}, "n")}, {diff("/a", acp.Some(""), "n")}, {diff("/a", acp.Some("o"), "n")},
		{diff("/a", acp.Null[string](), "n")}, {diff("/an", acp.Opt[string]{}, "")}, {term}, {img}, {img, term},
		{text("t1")}, {{Unknown: json.RawMessage(`{"type":"new"}`)}},
	}
	tr := &Translator{}
	for i, a := range contents {
		for j, b := range contents {
			ja, _ := acp.AppendJSON(nil, &a)
			jb, _ := acp.AppendJSON(nil, &b)
			if same := tr.contentKey(a) == tr.contentKey(b); same != (string(ja) == string(jb)) {
				t.Errorf("contents %d and %d: same key %v, JSON %s and %s", i, j, same, ja, jb)
			}
		}
	}
	// Equal content built twice (as each report builds its view) keeps its key.
	if tr.contentKey([]acp.ToolCallContent{text("x"), meta}) != tr.contentKey([]acp.ToolCallContent{text("x"), meta}) {
		t.Error("equal content, different keys")
	}
}

// TestClaudeCodeMeta: the tool reports' claudeCode meta is what
// encoding/json wrote for the map it stands for.
func TestClaudeCodeMeta(t *testing.T) {
	for _, name := range []string{"Bash", "Agent", "Task", "mcp__x__<y>&z", "", "é\u2028"} {
		for _, parent := range []string{"", "toolu_01", "<p>"} {
			cc := map[string]any{"toolName": name}
			if parent != "" {
				cc["parentToolUseId"] = parent
			}
			sub := name == "Agent" || name == "Task"
			if sub {
				cc["subagent"] = true
			}
			if got, want := claudeCodeMeta(name, parent, sub), mustJSON(cc); !bytes.Equal(got, want) {
				t.Errorf("claudeCodeMeta(%q, %q, %v) = %s, want %s", name, parent, sub, got, want)
			}
		}
	}
}
