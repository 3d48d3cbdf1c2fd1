package v2conv

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/acp/acpv2"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/toolview"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/acptest"
)

// The tests write v1 updates as the core puts them on the wire and
// compare the v2 updates as JSON; every v2 update is also checked against
// the v2 schema inside a session/update notification.

const testCwd = "/work/proj"

// testUnix skips tests whose expectations are written with Unix
// paths.
func testUnix(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("expectations use Unix paths")
	}
}

// testConverter is a converter with predictable synthetic ids
// (m1, m2, …).
func testConverter() *Updates {
	c := NewUpdates(testCwd)
	n := 0
	c.newID = func() string { n++; return "m" + strconv.Itoa(n) }
	return c
}

func testV1(t *testing.T, line string) acp.SessionUpdate {
	t.Helper()
	var u acp.SessionUpdate
	if err := json.Unmarshal([]byte(line), &u); err != nil {
		t.Fatalf("v1 update %s: %v", line, err)
	}
	return u
}

// testRun converts v1 updates in order and returns the v2 updates as
// JSON, each validated as a session/update notification.
func testRun(t *testing.T, c *Updates, v1 ...string) []string {
	t.Helper()
	var out []string
	for _, l := range v1 {
		for _, u := range c.convert(testV1(t, l)) {
			out = append(out, testValidate(t, u))
		}
	}
	return out
}

// testValidate checks u against the v2 schema as the agent sends it
// and returns its JSON.
func testValidate(t *testing.T, u acpv2.SessionUpdate) string {
	t.Helper()
	b, err := json.Marshal(u)
	if err != nil {
		t.Fatalf("marshal %s: %v", u.Tag(), err)
	}
	params, err := json.Marshal(acpv2.UpdateSessionNotification{SessionID: "s1", Update: u})
	if err != nil {
		t.Fatal(err)
	}
	line := fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":%s}`, acpv2.MethodSessionUpdate, params)
	acptest.ValidateLine(t, acptest.Line{Version: 2, FromAgent: true}, []byte(line))
	return string(b)
}

// testSame compares JSON documents regardless of member order.
func testSame(t *testing.T, got, want []string) {
	t.Helper()
	norm := func(ss []string) []any {
		out := make([]any, 0, len(ss))
		for _, s := range ss {
			var v any
			if err := json.Unmarshal([]byte(s), &v); err != nil {
				t.Fatalf("bad JSON %s: %v", s, err)
			}
			out = append(out, v)
		}
		return out
	}
	if d := cmp.Diff(norm(want), norm(got)); d != "" {
		t.Errorf("v2 updates differ (-want +got):\n%s\ngot:\n%s", d, strings.Join(got, "\n"))
	}
}

func TestV2ConvertUpdates(t *testing.T) {
	testUnix(t)
	tests := []struct {
		name string
		v1   []string
		want []string
	}{{
		name: "plan",
		v1:   []string{`{"sessionUpdate":"plan","entries":[{"content":"Write tests","priority":"medium","status":"in_progress"},{"content":"Ship","priority":"low","status":"pending"}]}`},
		want: []string{`{"sessionUpdate":"plan_update","plan":{"type":"items","planId":"todos","entries":[{"content":"Write tests","priority":"medium","status":"in_progress"},{"content":"Ship","priority":"low","status":"pending"}]}}`},
	}, {
		name: "empty plan",
		v1:   []string{`{"sessionUpdate":"plan","entries":[]}`},
		want: []string{`{"sessionUpdate":"plan_update","plan":{"type":"items","planId":"todos","entries":[]}}`},
	}, {
		name: "mode update dropped",
		v1:   []string{`{"sessionUpdate":"current_mode_update","currentModeId":"plan"}`},
	}, {
		name: "unknown update dropped",
		v1:   []string{`{"sessionUpdate":"subagent_update","subagentId":"x"}`},
	}, {
		name: "config options",
		v1: []string{`{"sessionUpdate":"config_option_update","configOptions":[` +
			`{"id":"mode","name":"Mode","category":"mode","type":"select","currentValue":"default","options":[{"value":"default","name":"Default","description":"Ask"},{"value":"plan","name":"Plan"}]},` +
			`{"id":"model","name":"Model","category":"model","type":"select","currentValue":"a","options":[{"group":"g1","name":"Group","options":[{"value":"a","name":"A"}]}]},` +
			`{"id":"thinking","name":"Thinking","description":"Think first","category":"model_config","type":"boolean","currentValue":true}]}`},
		want: []string{`{"sessionUpdate":"config_option_update","configOptions":[` +
			`{"configId":"mode","name":"Mode","category":"mode","type":"select","currentValue":"default","options":[{"value":"default","name":"Default","description":"Ask"},{"value":"plan","name":"Plan"}]},` +
			`{"configId":"model","name":"Model","category":"model","type":"select","currentValue":"a","options":[{"groupId":"g1","name":"Group","options":[{"value":"a","name":"A"}]}]},` +
			`{"configId":"thinking","name":"Thinking","description":"Think first","category":"model_config","type":"boolean","currentValue":true}]}`},
	}, {
		name: "commands",
		v1:   []string{`{"sessionUpdate":"available_commands_update","availableCommands":[{"name":"review","description":"Review a PR","input":{"hint":"PR number"}},{"name":"compact","description":"Compact"}]}`},
		want: []string{`{"sessionUpdate":"available_commands_update","availableCommands":[{"type":"command","name":"review","description":"Review a PR","input":{"type":"text","hint":"PR number"}},{"type":"command","name":"compact","description":"Compact"}]}`},
	}, {
		name: "session info",
		v1:   []string{`{"sessionUpdate":"session_info_update","title":"Fix the bug","updatedAt":null,"_meta":{"goal":null}}`},
		want: []string{`{"sessionUpdate":"session_info_update","title":"Fix the bug","updatedAt":null,"_meta":{"goal":null}}`},
	}, {
		name: "usage",
		v1:   []string{`{"sessionUpdate":"usage_update","used":1200,"size":200000,"cost":{"amount":0.25,"currency":"USD"}}`, `{"sessionUpdate":"usage_update","used":1300,"size":200000}`},
		want: []string{`{"sessionUpdate":"usage_update","used":1200,"size":200000,"cost":{"amount":0.25,"currency":"USD"}}`, `{"sessionUpdate":"usage_update","used":1300,"size":200000}`},
	}, {
		name: "notice",
		v1:   []string{`{"sessionUpdate":"notice","severity":"warning","title":"Model fallback","description":"Using Sonnet"}`},
		want: []string{`{"sessionUpdate":"notice","severity":"warning","title":"Model fallback","description":"Using Sonnet"}`},
	}, {
		name: "compaction",
		v1: []string{
			`{"sessionUpdate":"compaction_update","compactionId":"c1","status":"in_progress"}`,
			`{"sessionUpdate":"compaction_summary_chunk","compactionId":"c1","content":{"type":"text","text":"Summary"}}`,
			`{"sessionUpdate":"compaction_update","compactionId":"c1","status":"completed","summary":[{"type":"text","text":"Summary"}]}`,
		},
		want: []string{
			`{"sessionUpdate":"compaction_update","compactionId":"c1","status":"in_progress"}`,
			`{"sessionUpdate":"compaction_summary_chunk","compactionId":"c1","content":{"type":"text","text":"Summary"}}`,
			`{"sessionUpdate":"compaction_update","compactionId":"c1","status":"completed","summary":[{"type":"text","text":"Summary"}]}`,
		},
	}, {
		name: "tool call and patch",
		v1: []string{
			`{"sessionUpdate":"tool_call","toolCallId":"t1","title":"Read a.go","name":"Read","kind":"read","status":"pending","locations":[{"path":"/work/proj/a.go","line":1}],"rawInput":{"file_path":"/work/proj/a.go"},"_meta":{"claudeCode":{"toolName":"Read"}}}`,
			`{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed","content":[{"type":"content","content":{"type":"text","text":"package a"}}],"rawOutput":"package a","_meta":{"claudeCode":{"toolName":"Read"}}}`,
		},
		want: []string{
			`{"sessionUpdate":"tool_call_update","toolCallId":"t1","title":"Read a.go","name":"Read","kind":"read","status":"pending","locations":[{"path":"/work/proj/a.go","line":1}],"rawInput":{"file_path":"/work/proj/a.go"},"_meta":{"claudeCode":{"toolName":"Read"}}}`,
			`{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed","content":[{"type":"content","content":{"type":"text","text":"package a"}}],"rawOutput":"package a","_meta":{"claudeCode":{"toolName":"Read"}}}`,
		},
	}, {
		name: "tool call without name or status",
		v1:   []string{`{"sessionUpdate":"tool_call","toolCallId":"compact-1","title":"Compact conversation","kind":"think","_meta":{"claudeCode":{"toolName":"Grep"}}}`},
		want: []string{`{"sessionUpdate":"tool_call_update","toolCallId":"compact-1","title":"Compact conversation","name":"Grep","kind":"think","status":"pending","_meta":{"claudeCode":{"toolName":"Grep"}}}`},
	}, {
		name: "cleared content and locations",
		v1:   []string{`{"sessionUpdate":"tool_call_update","toolCallId":"t2","content":null,"locations":null,"title":"x"}`},
		want: []string{`{"sessionUpdate":"tool_call_update","toolCallId":"t2","content":null,"locations":null,"title":"x"}`},
	}, {
		name: "bash without terminal keeps the console block",
		v1: []string{
			`{"sessionUpdate":"tool_call","toolCallId":"b1","title":"ls","name":"Bash","kind":"execute","status":"pending","rawInput":{"command":"ls"},"_meta":{"claudeCode":{"toolName":"Bash"}}}`,
			"{\"sessionUpdate\":\"tool_call_update\",\"toolCallId\":\"b1\",\"status\":\"completed\",\"content\":[{\"type\":\"content\",\"content\":{\"type\":\"text\",\"text\":\"```console\\na.go\\n```\"}}],\"rawOutput\":\"a.go\",\"_meta\":{\"claudeCode\":{\"toolName\":\"Bash\"}}}",
		},
		want: []string{
			`{"sessionUpdate":"tool_call_update","toolCallId":"b1","title":"ls","name":"Bash","kind":"execute","status":"pending","rawInput":{"command":"ls"},"_meta":{"claudeCode":{"toolName":"Bash"}}}`,
			"{\"sessionUpdate\":\"tool_call_update\",\"toolCallId\":\"b1\",\"status\":\"completed\",\"content\":[{\"type\":\"content\",\"content\":{\"type\":\"text\",\"text\":\"```console\\na.go\\n```\"}}],\"rawOutput\":\"a.go\",\"_meta\":{\"claudeCode\":{\"toolName\":\"Bash\"}}}",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			testSame(t, testRun(t, testConverter(), tt.v1...), tt.want)
		})
	}
}

func TestV2ConvertMessageIDs(t *testing.T) {
	c := testConverter()
	chunk := func(kind, id string) string {
		s := `{"sessionUpdate":"` + kind + `","content":{"type":"text","text":"x"}`
		if id != "" {
			s += `,"messageId":"` + id + `"`
		}
		return s + "}"
	}
	const usage = `{"sessionUpdate":"usage_update","used":1,"size":2}`
	steps := []struct {
		v1     string
		wantID string // "" = not a chunk
	}{
		{chunk("user_message_chunk", ""), "m1"},
		{chunk("user_message_chunk", ""), "m1"}, // same message
		{chunk("agent_thought_chunk", ""), "m2"},
		{chunk("agent_thought_chunk", ""), "m2"},
		{chunk("agent_message_chunk", ""), "m3"}, // the kind changed
		{chunk("agent_message_chunk", ""), "m3"},
		{usage, ""},
		{chunk("agent_message_chunk", ""), "m4"}, // another update intervened
		{chunk("agent_message_chunk", "msg_01"), "msg_01"},
		{chunk("agent_thought_chunk", "msg_01"), "msg_01"}, // ids are per kind in v2
		{chunk("agent_message_chunk", ""), "m5"},           // after a message with its own id
		{chunk("user_message_chunk", "u-1"), "u-1"},
		{chunk("user_message_chunk", ""), "m6"},
		{`{"sessionUpdate":"current_mode_update","currentModeId":"plan"}`, ""}, // dropped, still a boundary
		{chunk("user_message_chunk", ""), "m7"},
	}
	for i, s := range steps {
		out := c.convert(testV1(t, s.v1))
		for _, u := range out {
			testValidate(t, u)
		}
		if s.wantID == "" {
			continue
		}
		if len(out) != 1 {
			t.Fatalf("step %d: %d updates", i, len(out))
		}
		var ch *acpv2.ContentChunk
		switch {
		case out[0].UserMessageChunk != nil:
			ch = out[0].UserMessageChunk
		case out[0].AgentMessageChunk != nil:
			ch = out[0].AgentMessageChunk
		case out[0].AgentThoughtChunk != nil:
			ch = out[0].AgentThoughtChunk
		}
		if ch == nil || string(ch.MessageID) != s.wantID {
			t.Errorf("step %d (%s): got %+v, want messageId %s", i, s.v1, out[0], s.wantID)
		}
	}
	// Without a test id source the ids are uuids.
	u := NewUpdates("/").convert(testV1(t, chunk("agent_message_chunk", "")))
	if id := u[0].AgentMessageChunk.MessageID; len(id) != 36 {
		t.Errorf("synthetic id %q is not a uuid", id)
	}
}

func TestV2ConvertBashSequence(t *testing.T) {
	testUnix(t)
	c := testConverter()
	got := testRun(t, c,
		`{"sessionUpdate":"tool_call","toolCallId":"toolu_1","title":"ls -la","name":"Bash","kind":"execute","status":"pending",`+
			`"content":[{"type":"terminal","terminalId":"toolu_1"}],"rawInput":{"command":"ls -la","description":"List files"},`+
			`"_meta":{"claudeCode":{"toolName":"Bash"},"terminal_info":{"terminal_id":"toolu_1","cwd":"/work/proj"}}}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"toolu_1","_meta":{"claudeCode":{"toolName":"Bash"},"terminal_output":{"terminal_id":"toolu_1","data":"a.go\n"}}}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"toolu_1","_meta":{"claudeCode":{"toolName":"Bash"},"terminal_output":{"terminal_id":"toolu_1","data":"b.go ✓\n"}}}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"toolu_1","status":"completed","_meta":{"claudeCode":{"toolName":"Bash"},"terminal_exit":{"terminal_id":"toolu_1","exit_code":0,"signal":null}}}`,
	)
	testSame(t, got, []string{
		`{"sessionUpdate":"terminal_update","terminalId":"toolu_1","command":"ls -la","cwd":"/work/proj"}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"toolu_1","title":"ls -la","name":"Bash","kind":"execute","status":"pending",` +
			`"content":[{"type":"terminal","terminalId":"toolu_1"}],"rawInput":{"command":"ls -la","description":"List files"},"_meta":{"claudeCode":{"toolName":"Bash"}}}`,
		`{"sessionUpdate":"terminal_output_chunk","terminalId":"toolu_1","data":"YS5nbwo="}`,
		`{"sessionUpdate":"terminal_output_chunk","terminalId":"toolu_1","data":"Yi5nbyDinJMK"}`,
		`{"sessionUpdate":"terminal_update","terminalId":"toolu_1","exitStatus":{"exitCode":0}}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"toolu_1","status":"completed","_meta":{"claudeCode":{"toolName":"Bash"}}}`,
	})
	if len(c.tools) != 0 || len(c.terms) != 0 {
		t.Errorf("a finished call is remembered: %v %v", c.tools, c.terms)
	}
}

// A background command (terminal.go: in_progress once it left the
// foreground) can be cancelled until it exits; a signal ends it.
func TestV2ConvertBashBackground(t *testing.T) {
	testUnix(t)
	got := testRun(t, testConverter(),
		// The terminal is first seen in the content (no terminal_info).
		`{"sessionUpdate":"tool_call","toolCallId":"toolu_2","title":"npm run dev","name":"Bash","kind":"execute","status":"pending",`+
			`"content":[{"type":"terminal","terminalId":"toolu_2"}],"rawInput":{"command":"npm run dev","run_in_background":true},"_meta":{"claudeCode":{"toolName":"Bash"}}}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"toolu_2","status":"in_progress","_meta":{"claudeCode":{"toolName":"Bash"}}}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"toolu_2","_meta":{"claudeCode":{"toolName":"Bash"},"terminal_output":{"terminal_id":"toolu_2","data":"ready"}}}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"toolu_2","status":"failed","_meta":{"claudeCode":{"toolName":"Bash"},"terminal_exit":{"terminal_id":"toolu_2","exit_code":null,"signal":"SIGTERM"}}}`,
	)
	testSame(t, got, []string{
		`{"sessionUpdate":"terminal_update","terminalId":"toolu_2","command":"npm run dev","cwd":"/work/proj"}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"toolu_2","title":"npm run dev","name":"Bash","kind":"execute","status":"pending",` +
			`"content":[{"type":"terminal","terminalId":"toolu_2"}],"rawInput":{"command":"npm run dev","run_in_background":true},"_meta":{"claudeCode":{"toolName":"Bash"}}}`,
		`{"sessionUpdate":"terminal_update","terminalId":"toolu_2","capabilities":{"cancel":{}}}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"toolu_2","status":"in_progress","_meta":{"claudeCode":{"toolName":"Bash"}}}`,
		`{"sessionUpdate":"terminal_output_chunk","terminalId":"toolu_2","data":"cmVhZHk="}`,
		`{"sessionUpdate":"terminal_update","terminalId":"toolu_2","exitStatus":{"signal":"SIGTERM"},"capabilities":null}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"toolu_2","status":"failed","_meta":{"claudeCode":{"toolName":"Bash"}}}`,
	})
}

// testFile is the text of lines l1…ln, each with its line break.
func testFile(n int, edit map[int][]string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		lines, ok := edit[i]
		if !ok {
			lines = []string{"l" + strconv.Itoa(i)}
		}
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// testPatchOf converts an edit call's v1 content and locations and
// returns the file's diff.
func testPatchOf(t *testing.T, content []acp.ToolCallContent, locs []acp.ToolCallLocation) []*acpv2.Diff {
	t.Helper()
	c := testConverter()
	u := acp.SessionUpdate{ToolCall: &acp.ToolCall{
		ToolCallID: "e1", Title: "Edit a.txt", Name: acp.Some("Edit"), Kind: acp.ToolKindEdit,
		Content: content, Locations: locs, RawInput: json.RawMessage(`{}`),
	}}
	out := c.convert(u)
	var diffs []*acpv2.Diff
	for _, u := range out {
		testValidate(t, u)
		if u.ToolCallUpdate == nil {
			continue
		}
		cs, _ := u.ToolCallUpdate.Content.Get()
		for _, ct := range cs {
			if ct.Diff != nil {
				diffs = append(diffs, ct.Diff)
			}
		}
	}
	return diffs
}

func TestV2ConvertGitPatch(t *testing.T) {
	testUnix(t)
	path := testCwd + "/a.txt"
	old := testFile(20, nil)
	// Line 3 becomes two lines, line 17 another: the second hunk's old
	// start is its new start minus the first hunk's growth.
	new := testFile(20, map[int][]string{3: {"L3a", "L3b"}, 17: {"L17"}})
	content, locs := toolview.FileDiff(path, old, new, false)
	if len(content) != 2 {
		t.Fatalf("%d hunks, want 2", len(content))
	}

	t.Run("two hunks", func(t *testing.T) {
		d := testPatchOf(t, content, locs)
		if len(d) != 1 {
			t.Fatalf("%d diffs, want one for the file", len(d))
		}
		p, ok := d[0].Patch.Get()
		if !ok {
			t.Fatal("no patch")
		}
		want := "diff --git /work/proj/a.txt /work/proj/a.txt\n--- /work/proj/a.txt\n+++ /work/proj/a.txt\n" +
			"@@ -1,6 +1,7 @@\n l1\n l2\n-l3\n+L3a\n+L3b\n l4\n l5\n l6\n" +
			"@@ -14,7 +15,7 @@\n l14\n l15\n l16\n-l17\n+L17\n l18\n l19\n l20\n"
		if p.Text != want {
			t.Errorf("patch:\n%s\nwant:\n%s", p.Text, want)
		}
		if p.Format != acpv2.DiffPatchFormatGitPatch || d[0].Changes[0].Modify == nil || d[0].Changes[0].Modify.Path != acpv2.AbsolutePath(path) {
			t.Errorf("diff %+v", d[0])
		}
		if got := testApply(t, old, p.Text); got != new {
			t.Errorf("applied:\n%s\nwant:\n%s", got, new)
		}
	})

	t.Run("new file", func(t *testing.T) {
		c, l := toolview.FileDiff(path, "", "one\ntwo\n", true)
		d := testPatchOf(t, c, l)
		p, _ := d[0].Patch.Get()
		want := "diff --git /work/proj/a.txt /work/proj/a.txt\nnew file mode 100644\n--- /dev/null\n+++ /work/proj/a.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n"
		if p.Text != want || d[0].Changes[0].Add == nil {
			t.Errorf("patch:\n%s\nwant:\n%s\nchanges %+v", p.Text, want, d[0].Changes)
		}
	})

	t.Run("new file without final line break", func(t *testing.T) {
		c, _ := toolview.FileDiff(path, "", "only", true)
		d := testPatchOf(t, c, nil) // a created file needs no position
		p, _ := d[0].Patch.Get()
		want := "diff --git /work/proj/a.txt /work/proj/a.txt\nnew file mode 100644\n--- /dev/null\n+++ /work/proj/a.txt\n@@ -0,0 +1 @@\n+only\n\\ No newline at end of file\n"
		if p.Text != want {
			t.Errorf("patch:\n%s\nwant:\n%s", p.Text, want)
		}
	})

	t.Run("file outside cwd and quoted paths", func(t *testing.T) {
		for _, tc := range []struct{ path, quoted string }{
			{"/etc/hosts.d/x", "/etc/hosts.d/x"},
			{"/tmp/with space", "/tmp/with space"},
			{"/tmp/q\"é", `"/tmp/q\"\303\251"`},
		} {
			c, l := toolview.FileDiff(tc.path, "a\n", "b\n", false)
			d := testPatchOf(t, c, l)
			p, _ := d[0].Patch.Get()
			want := fmt.Sprintf("diff --git %[1]s %[1]s\n--- %[1]s\n+++ %[1]s\n@@ -1 +1 @@\n-a\n+b\n", tc.quoted)
			if p.Text != want || d[0].Changes[0].Modify.Path != acpv2.AbsolutePath(tc.path) {
				t.Errorf("patch:\n%s\nwant:\n%s", p.Text, want)
			}
		}
	})

	t.Run("missing locations", func(t *testing.T) {
		// The fallback diff from the tool input: the title's location, no
		// line (toolview.Describe).
		c := toolview.InputDiff("MultiEdit", path, map[string]any{"edits": []any{
			map[string]any{"old_string": "l3", "new_string": "L3"},
			map[string]any{"old_string": "l9", "new_string": "L9"},
		}})
		for _, l := range [][]acp.ToolCallLocation{nil, {{Path: path}}, {{Path: path, Line: acp.Some(uint32(3))}}} {
			d := testPatchOf(t, c, l)
			if len(d) != 1 || d[0].Patch.IsSet() || d[0].Changes[0].Modify == nil {
				t.Errorf("locations %v: %+v, want one modify change without a patch", l, d)
			}
		}
	})

	t.Run("overlapping positions", func(t *testing.T) {
		bad := []acp.ToolCallLocation{{Path: path, Line: acp.Some(uint32(5))}, {Path: path, Line: acp.Some(uint32(6))}}
		if d := testPatchOf(t, content, bad); d[0].Patch.IsSet() {
			t.Errorf("patch from inconsistent positions:\n%s", d[0].Patch)
		}
	})

	t.Run("two files in one call", func(t *testing.T) {
		c1, l1 := toolview.FileDiff(path, old, new, false)
		c2, l2 := toolview.FileDiff(testCwd+"/b.txt", "x\n", "y\n", false)
		content := append(append(append([]acp.ToolCallContent{}, c1[0], toolview.TextContent("between")), c2...), c1[1])
		d := testPatchOf(t, content, append(l1, l2...))
		if len(d) != 2 || !d[0].Patch.IsSet() || !d[1].Patch.IsSet() {
			t.Fatalf("diffs %+v", d)
		}
		p, _ := d[0].Patch.Get()
		if got := testApply(t, old, p.Text); got != new {
			t.Errorf("first file applied:\n%s", got)
		}
	})

	// The final diff after the tool ran: the CLI's structuredPatch (jsdiff
	// hunks), reported with its own locations in a later update while the
	// preview's were kept.
	t.Run("structured patch update", func(t *testing.T) {
		hs, ok := toolview.PatchHunks(json.RawMessage(`[{"oldStart":2,"newStart":2,"lines":[" a","-b","+B"," c"]},{"oldStart":10,"newStart":10,"lines":[" x","+y"," z"]}]`))
		if !ok {
			t.Fatal("bad structuredPatch")
		}
		c, l := toolview.HunksContent(path, hs)
		conv := testConverter()
		v1 := []acp.SessionUpdate{
			{ToolCall: &acp.ToolCall{ToolCallID: "e2", Title: "Edit a.txt", Kind: acp.ToolKindEdit, Locations: l}},
			{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: "e2", Status: acp.Some(acp.ToolCallStatusCompleted), Content: acp.Some(c)}},
		}
		var last acpv2.SessionUpdate
		for _, u := range v1 {
			for _, v := range conv.convert(u) {
				testValidate(t, v)
				last = v
			}
		}
		cs, _ := last.ToolCallUpdate.Content.Get()
		p, ok := cs[0].Diff.Patch.Get()
		want := "diff --git /work/proj/a.txt /work/proj/a.txt\n--- /work/proj/a.txt\n+++ /work/proj/a.txt\n" +
			"@@ -2,3 +2,3 @@\n a\n-b\n+B\n c\n@@ -10,2 +10,3 @@\n x\n+y\n z\n"
		if !ok || p.Text != want {
			t.Errorf("patch:\n%s\nwant:\n%s", p.Text, want)
		}
	})
}

// Any edit's hunks, as diff.go cuts them, give a patch that turns the old
// file into the new one.
func TestV2ConvertGitPatchApplies(t *testing.T) {
	testUnix(t)
	r := rand.New(rand.NewPCG(1, 2))
	randFile := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = string(rune('a' + r.IntN(4)))
		}
		return out
	}
	join := func(ls []string) string {
		if len(ls) == 0 {
			return ""
		}
		return strings.Join(ls, "\n") + "\n"
	}
	for i := range 400 {
		a := randFile(r.IntN(40))
		b := append([]string(nil), a...)
		for range 1 + r.IntN(4) {
			p := r.IntN(len(b) + 1)
			switch r.IntN(3) {
			case 0: // insert
				b = append(b[:p], append(randFile(1+r.IntN(3)), b[p:]...)...)
			case 1: // delete
				if p < len(b) {
					b = append(b[:p], b[min(len(b), p+1+r.IntN(3)):]...)
				}
			default: // change
				if p < len(b) {
					b[p] = "changed"
				}
			}
		}
		old, new := join(a), join(b)
		if old == new {
			continue
		}
		content, locs := toolview.FileDiff(testCwd+"/f", old, new, false)
		d := testPatchOf(t, content, locs)
		p, ok := d[0].Patch.Get()
		if !ok {
			t.Fatalf("case %d: no patch for\n%q →\n%q", i, old, new)
		}
		if got := testApply(t, old, p.Text); got != new {
			t.Fatalf("case %d: patch\n%s\nturns %q into %q, want %q", i, p.Text, old, got, new)
		}
	}
}

// testApply applies a one-file patch of gitPatch's kind to
// text (whose lines all end with a line break), checking every context
// and removed line and every hunk position.
func testApply(t *testing.T, text, patch string) string {
	t.Helper()
	var old []string
	if text != "" {
		old = strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	}
	var out []string
	pos := 0
	lines := strings.Split(strings.TrimSuffix(patch, "\n"), "\n")
	rng := func(s string) (start, count int) {
		start, count = 0, 1
		if i := strings.IndexByte(s, ','); i >= 0 {
			count, _ = strconv.Atoi(s[i+1:])
			s = s[:i]
		}
		start, _ = strconv.Atoi(s[1:])
		if count > 0 {
			start-- // 0-based first line; an empty range names the line before
		}
		return start, count
	}
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "@@ ") {
			continue
		}
		f := strings.Fields(lines[i])
		os, oc := rng(f[1])
		ns, nc := rng(f[2])
		if os < pos || os > len(old) {
			t.Fatalf("hunk %q out of order in\n%s", lines[i], patch)
		}
		out = append(out, old[pos:os]...)
		if len(out) != ns {
			t.Fatalf("hunk %q: new start %d, but the new file is at line %d\n%s", lines[i], ns+1, len(out)+1, patch)
		}
		k, seenOld, seenNew := os, 0, 0
		for i+1 < len(lines) && lines[i+1] != "" && strings.ContainsRune(" -+", rune(lines[i+1][0])) {
			i++
			l := lines[i]
			switch l[0] {
			case ' ', '-':
				if k >= len(old) || old[k] != l[1:] {
					t.Fatalf("hunk line %q does not match the old file\n%s", l, patch)
				}
				k++
				seenOld++
				if l[0] == ' ' {
					out = append(out, l[1:])
					seenNew++
				}
			case '+':
				out = append(out, l[1:])
				seenNew++
			}
		}
		if seenOld != oc || seenNew != nc {
			t.Fatalf("hunk %q has %d old and %d new lines\n%s", f[1]+" "+f[2], seenOld, seenNew, patch)
		}
		pos = k
	}
	out = append(out, old[pos:]...)
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, "\n") + "\n"
}

func TestV2ConvertHunkBody(t *testing.T) {
	var b strings.Builder
	hunkBody(&b, []string{"a", "b", "c", "d"}, []string{"a", "x", "c", "y", "d"})
	if want := " a\n-b\n+x\n c\n+y\n d\n"; b.String() != want {
		t.Errorf("body:\n%s\nwant:\n%s", b.String(), want)
	}
	// Past the table bound the middle is replaced whole.
	big := make([]string, 1100)
	other := make([]string, 1100)
	for i := range big {
		big[i], other[i] = "o"+strconv.Itoa(i), "n"+strconv.Itoa(i)
	}
	b.Reset()
	hunkBody(&b, big, other)
	if got := strings.Count(b.String(), "\n-"); got != 1099 || !strings.HasPrefix(b.String(), "-o0\n") || !strings.HasSuffix(b.String(), "+n1099\n") {
		t.Errorf("coarse body: %d removals", got)
	}
}

func TestV2ConvertMCPServers(t *testing.T) {
	decode := func(s string) []acpv2.MCPServer {
		var out []acpv2.MCPServer
		if err := json.Unmarshal([]byte(s), &out); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		return out
	}
	got, err := MCPServers(decode(`[{"type":"stdio","name":"fs","command":"/usr/bin/fs","env":[{"name":"A","value":"1"}]},` +
		`{"type":"http","name":"web","url":"https://x.test/mcp","headers":[{"name":"Authorization","value":"Bearer t"}]}]`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	testSame(t, []string{string(b)}, []string{`[{"name":"fs","command":"/usr/bin/fs","args":[],"env":[{"name":"A","value":"1"}]},` +
		`{"type":"http","name":"web","url":"https://x.test/mcp","headers":[{"name":"Authorization","value":"Bearer t"}]}]`})
	for _, s := range got {
		acptest.Validate(t, "McpServer", s)
	}
	if got, err := MCPServers(nil); err != nil || len(got) != 0 {
		t.Errorf("no servers: %v %v", got, err)
	}

	for _, tc := range []struct{ in, data, msg string }{
		{`[{"type":"sse","name":"s","url":"https://x.test","headers":[]}]`, `{"type":"sse"}`, "Unsupported MCP server transport sse"},
		{`[{"type":"_ws","name":"s"}]`, `{"type":"_ws"}`, "Unsupported MCP server transport _ws"},
		{`[{"type":"stdio","name":"a","command":"/a"},{"type":"http","name":"a","url":"https://x.test"}]`, `{"name":"a"}`, "Duplicate MCP server name a"},
		{`[{"type":"stdio","name":"a","command":"/a"},{"type":"sse","name":"a","url":"https://x.test"}]`, `{"name":"a"}`, "Duplicate MCP server name a"},
	} {
		_, err := MCPServers(decode(tc.in))
		var e *acp.Error
		if !errors.As(err, &e) || e.Code != acp.CodeInvalidParams || string(e.Data) != tc.data || e.Message != tc.msg {
			t.Errorf("%s: %v, want -32602 %s %q", tc.in, err, tc.data, tc.msg)
		}
	}
}

func TestV2ConvertPermission(t *testing.T) {
	testUnix(t)
	opts := []acp.PermissionOption{
		{OptionID: "allow", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce},
		{OptionID: "allow_always", Name: "Always allow `npm test`", Kind: acp.PermissionOptionKindAllowAlways},
		{OptionID: "reject", Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
	}
	wantOpts := `[{"optionId":"allow","name":"Allow","kind":"allow_once"},{"optionId":"allow_always","name":"Always allow ` + "`npm test`" + `","kind":"allow_always"},{"optionId":"reject","name":"Reject","kind":"reject_once"}]`
	meta := func(tool string) map[string]json.RawMessage {
		return map[string]json.RawMessage{"claudeCode": json.RawMessage(`{"toolName":"` + tool + `"}`)}
	}
	path := testCwd + "/src/a.go"
	content, locs := toolview.FileDiff(path, "a\n", "b\n", false)
	tests := []struct {
		name string
		tc   acp.ToolCallUpdate
		want string
	}{{
		name: "bash",
		tc: acp.ToolCallUpdate{ToolCallID: "toolu_1", Title: acp.Some("npm test"), Kind: acp.Some(acp.ToolKindExecute),
			Status: acp.Some(acp.ToolCallStatusPending), RawInput: json.RawMessage(`{"command":"npm test","description":"Run the tests"}`),
			Content: acp.Some([]acp.ToolCallContent{{Terminal: &acp.Terminal{TerminalID: "toolu_1"}}}), Meta: meta("Bash")},
		want: `{"sessionId":"s1","title":"Run ` + "`npm test`" + `?","description":"Run the tests","subject":{"type":"command","command":"npm test","cwd":"/work/proj","toolCallId":"toolu_1"},"options":` + wantOpts + `}`,
	}, {
		name: "multi-line command",
		tc:   acp.ToolCallUpdate{ToolCallID: "toolu_2", RawInput: json.RawMessage(`{"command":"cat <<EOF\nhi\nEOF"}`), Meta: meta("Bash")},
		want: `{"sessionId":"s1","title":"Run ` + "`cat <<EOF …`" + `?","subject":{"type":"command","command":"cat <<EOF\nhi\nEOF","cwd":"/work/proj","toolCallId":"toolu_2"},"options":` + wantOpts + `}`,
	}, {
		name: "backticks",
		tc:   acp.ToolCallUpdate{ToolCallID: "toolu_6", RawInput: json.RawMessage(`{"command":"echo ` + "`date`" + `"}`), Meta: meta("Bash")},
		want: `{"sessionId":"s1","title":"Run ` + "`` echo `date` ``" + `?","subject":{"type":"command","command":"echo ` + "`date`" + `","cwd":"/work/proj","toolCallId":"toolu_6"},"options":` + wantOpts + `}`,
	}, {
		name: "edit",
		tc: acp.ToolCallUpdate{ToolCallID: "toolu_3", Title: acp.Some("Edit src/a.go"), Kind: acp.Some(acp.ToolKindEdit),
			Status: acp.Some(acp.ToolCallStatusPending), RawInput: json.RawMessage(`{"file_path":"/work/proj/src/a.go","old_string":"a","new_string":"b"}`),
			Content: acp.Some(content), Locations: acp.Some(locs), Meta: meta("Edit")},
		want: `{"sessionId":"s1","title":"Edit src/a.go?","subject":{"type":"tool_call","toolCall":{"toolCallId":"toolu_3","name":"Edit","title":"Edit src/a.go","kind":"edit","status":"pending",` +
			`"content":[{"type":"diff","changes":[{"operation":"modify","path":"/work/proj/src/a.go","fileType":"text"}],"patch":{"format":"git_patch","text":"diff --git /work/proj/src/a.go /work/proj/src/a.go\n--- /work/proj/src/a.go\n+++ /work/proj/src/a.go\n@@ -1 +1 @@\n-a\n+b\n"}}],` +
			`"locations":[{"path":"/work/proj/src/a.go","line":1}],"rawInput":{"file_path":"/work/proj/src/a.go","old_string":"a","new_string":"b"},"_meta":{"claudeCode":{"toolName":"Edit"}}}},"options":` + wantOpts + `}`,
	}, {
		name: "plan",
		tc:   acp.ToolCallUpdate{ToolCallID: "toolu_4", Title: acp.Some("Ready to code?"), Kind: acp.Some(acp.ToolKindSwitchMode), RawInput: json.RawMessage(`{"plan":"Do it"}`), Meta: meta("ExitPlanMode")},
		want: `{"sessionId":"s1","title":"Approve the plan?","subject":{"type":"tool_call","toolCall":{"toolCallId":"toolu_4","name":"ExitPlanMode","title":"Ready to code?","kind":"switch_mode","rawInput":{"plan":"Do it"},"_meta":{"claudeCode":{"toolName":"ExitPlanMode"}}}},"options":` + wantOpts + `}`,
	}, {
		name: "no title",
		tc:   acp.ToolCallUpdate{ToolCallID: "toolu_5", Meta: meta("mcp__x__y")},
		want: `{"sessionId":"s1","title":"Allow mcp__x__y?","subject":{"type":"tool_call","toolCall":{"toolCallId":"toolu_5","name":"mcp__x__y","_meta":{"claudeCode":{"toolName":"mcp__x__y"}}}},"options":` + wantOpts + `}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := PermissionRequest(&acp.RequestPermissionRequest{SessionID: "s1", ToolCall: tt.tc, Options: opts}, testCwd)
			b, err := json.Marshal(req)
			if err != nil {
				t.Fatal(err)
			}
			testSame(t, []string{string(b)}, []string{tt.want})
			line := fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":%q,"params":%s}`, acpv2.MethodSessionRequestPermission, b)
			acptest.ValidateLine(t, acptest.Line{Version: 2, FromAgent: true}, []byte(line))
		})
	}

	for _, tc := range []struct{ resp, want string }{
		{`{"outcome":{"outcome":"selected","optionId":"allow_always"}}`, `{"outcome":{"outcome":"selected","optionId":"allow_always"}}`},
		{`{"outcome":{"outcome":"cancelled"}}`, `{"outcome":{"outcome":"cancelled"}}`},
		{`{"outcome":{"outcome":"_later"}}`, `{"outcome":{"outcome":"cancelled"}}`},
	} {
		var resp acpv2.RequestPermissionResponse
		if err := json.Unmarshal([]byte(tc.resp), &resp); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(PermissionOutcome(&resp))
		testSame(t, []string{string(b)}, []string{tc.want})
	}
	if b, _ := json.Marshal(PermissionOutcome(nil)); string(b) != `{"outcome":{"outcome":"cancelled"}}` {
		t.Errorf("no answer: %s", b)
	}
}

func TestV2ConvertSessionInfo(t *testing.T) {
	in := acp.SessionInfo{SessionID: "s1", Cwd: "/w", AdditionalDirectories: []string{"/x"}, Title: acp.Some("T"), UpdatedAt: acp.Some("2026-01-02T03:04:05Z")}
	got := SessionInfo(in)
	acptest.ValidateV2Def(t, "SessionInfo", got)
	a, _ := json.Marshal(in)
	b, _ := json.Marshal(got)
	testSame(t, []string{string(b)}, []string{string(a)})
}

// Updates of one session may come from several goroutines.
func TestV2ConvertConcurrent(t *testing.T) {
	c := NewUpdates("/w")
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				id := fmt.Sprintf("t%d-%d", g, i)
				c.convert(acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: acp.ToolCallID(id), Title: "x",
					Content: []acp.ToolCallContent{{Terminal: &acp.Terminal{TerminalID: acp.TerminalID(id)}}}}})
				c.convert(acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{Content: acp.ContentBlock{Text: &acp.TextContent{Text: "x"}}}})
				c.convert(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: acp.ToolCallID(id), Status: acp.Some(acp.ToolCallStatusCompleted)}})
			}
		})
	}
	wg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.tools) != 0 || len(c.terms) != 0 {
		t.Errorf("finished calls remembered: %d tools, %d terminals", len(c.tools), len(c.terms))
	}
}

// Every v1 update variant is either converted or deliberately dropped.
func TestV2ConvertCoversV1Variants(t *testing.T) {
	dropped := map[string]bool{"CurrentModeUpdate": true, "Unknown": true}
	typ := reflect.TypeFor[acp.SessionUpdate]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		if dropped[f.Name] {
			continue
		}
		u := acp.SessionUpdate{}
		v := reflect.New(f.Type.Elem())
		reflect.ValueOf(&u).Elem().Field(i).Set(v)
		if out := NewUpdates("/w").convert(u); len(out) == 0 && !strings.HasSuffix(f.Name, "Chunk") {
			t.Errorf("%s converts to nothing", f.Name)
		}
	}
}

// v1 resends a call's whole content; v2 gets only the items appended
// (tool_call_content_chunk), nothing for an unchanged list, and the whole
// list when it changed otherwise.
func TestV2ConvertContentChunks(t *testing.T) {
	c := testConverter()
	text := func(s string) string { return `{"type":"content","content":{"type":"text","text":"` + s + `"}}` }
	got := testRun(t, c,
		`{"sessionUpdate":"tool_call","toolCallId":"t1","title":"Task","kind":"think","status":"pending","content":[`+text("a")+`]}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"in_progress","content":[`+text("a")+`,`+text("b")+`]}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"t1","content":[`+text("a")+`,`+text("b")+`,`+text("c")+`]}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"t1","title":"Task done","content":[`+text("a")+`,`+text("b")+`,`+text("c")+`]}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed","content":[`+text("z")+`]}`,
	)
	testSame(t, got, []string{
		`{"sessionUpdate":"tool_call_update","toolCallId":"t1","title":"Task","kind":"think","status":"pending","content":[` + text("a") + `]}`,
		`{"sessionUpdate":"tool_call_content_chunk","toolCallId":"t1","content":` + text("b") + `}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"in_progress"}`,
		`{"sessionUpdate":"tool_call_content_chunk","toolCallId":"t1","content":` + text("c") + `}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"t1","title":"Task done"}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed","content":[` + text("z") + `]}`,
	})
}
