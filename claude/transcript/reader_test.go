package transcript

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRecordsDecodeEveryKind(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	toolUse := enc(t, obj{
		"parentUuid": uid(1), "isSidechain": false, "type": "assistant", "uuid": uid(2),
		"timestamp": "2026-11-29T12:12:50.000Z", "sessionId": sid,
		"message": obj{"id": "msg_1", "role": "assistant", "model": "claude-opus-5-5", "stop_reason": "tool_use",
			"content": []any{
				obj{"type": "thinking", "thinking": "hmm", "signature": "sig"},
				obj{"type": "text", "text": "running"},
				obj{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": obj{"command": "ls", "description": "list"}},
			}},
	})
	toolResult := enc(t, obj{
		"parentUuid": uid(2), "type": "user", "uuid": uid(3), "sessionId": sid,
		"message": obj{"role": "user", "content": []any{
			obj{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a\nb", "is_error": false}}},
		"toolUseResult": obj{"stdout": "a\nb", "stderr": ""}, "sourceToolAssistantUUID": uid(2),
		"permissionMode": "default", "origin": obj{"kind": "human"},
	})
	apiErr := enc(t, obj{
		"parentUuid": uid(3), "type": "system", "subtype": "api_error", "level": "error", "uuid": uid(4),
		"error": obj{"message": "429", "status": 429}, "retryInMs": 1049,
	})
	synthetic := enc(t, obj{
		"parentUuid": uid(4), "type": "assistant", "uuid": uid(5), "isApiErrorMessage": true,
		"apiErrorStatus": 429, "error": "rate_limit",
		"message": obj{"id": "x", "role": "assistant", "model": "<synthetic>",
			"content": []any{obj{"type": "text", "text": "API Error: Request rejected (429)"}}},
	})
	attach := enc(t, obj{"parentUuid": uid(5), "type": "attachment", "uuid": uid(6),
		"attachment": obj{"type": "plan_mode_exit"}})
	progress := enc(t, obj{"parentUuid": uid(6), "type": "progress", "uuid": uid(7)})
	meta := userLine(t, uid(8), uid(7), "<system-reminder>x</system-reminder>", "isMeta", true)
	plain := enc(t, obj{"parentUuid": uid(8), "type": "user", "uuid": uid(9),
		"message": obj{"role": "user", "content": "plain string"}, "is_meta": false})
	writeLines(t, path,
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-11-29T12:12:49.000Z","sessionId":"`+sid+`"}`,
		userLine(t, uid(1), "", "say hi"),
		toolUse, toolResult, apiErr, synthetic, attach, progress, meta, plain,
		`{"type":"last-prompt","lastPrompt":"say hi","leafUuid":"`+uid(9)+`","sessionId":"`+sid+`"}`,
		`{"type":"cost-state","totalCostUSD":0.1}`,
	)
	recs, r := load(t, path)
	if got, want := uuids(recs), []string{uid(1), uid(2), uid(3), uid(4), uid(5), uid(6), uid(8), uid(9)}; !slices.Equal(got, want) {
		t.Fatalf("chain = %v, want %v (progress skipped)", got, want)
	}
	if s := r.Stats(); s.Corrupt != 0 || s.TruncatedTail || s.BrokenChain || s.Lines != 12 || s.Messages != 9 {
		t.Errorf("stats = %+v", s)
	}

	u := recs[0]
	if u.Type != TypeUser || u.ParentUUID != "" || u.Message.Content[0].Text != "say hi" || u.Cwd != "/home/me/work/p" ||
		u.Time().IsZero() || u.SessionID != sid {
		t.Errorf("user record = %+v", u)
	}
	a := recs[1]
	wantBlocks := Content{
		{Type: "thinking", Thinking: "hmm", Signature: "sig"},
		{Type: "text", Text: "running"},
		{Type: "tool_use", ID: "toolu_1", Name: "Bash", Input: json.RawMessage(`{"command":"ls","description":"list"}`)},
	}
	if diff := cmp.Diff(wantBlocks, a.Message.Content); diff != "" {
		t.Errorf("assistant content (-want +got):\n%s", diff)
	}
	if a.Message.StopReason != "tool_use" || a.Message.ID != "msg_1" || a.IsSynthetic() {
		t.Errorf("assistant record = %+v", a.Message)
	}
	tr := recs[2]
	if b := tr.Message.Content[0]; b.Type != "tool_result" || b.ToolUseID != "toolu_1" || string(b.Content) != `"a\nb"` {
		t.Errorf("tool_result block = %+v", b)
	}
	if string(tr.ToolUseResult) != `{"stderr":"","stdout":"a\nb"}` || tr.SourceToolAssistantUUID != uid(2) ||
		tr.PermissionMode != "default" || tr.Origin == nil || tr.Origin.Kind != "human" {
		t.Errorf("tool result record = %+v", tr)
	}
	if s := recs[3]; s.Type != TypeSystem || s.Subtype != "api_error" || s.Level != "error" || s.ErrorKind() != "" ||
		!strings.Contains(string(s.Error), `"status":429`) {
		t.Errorf("system record = %+v", s)
	}
	if s := recs[4]; !s.IsSynthetic() || !s.IsAPIErrorMessage || s.APIErrorStatus != 429 || s.ErrorKind() != "rate_limit" {
		t.Errorf("synthetic record = %+v", s)
	}
	if s := recs[5]; s.Type != TypeAttachment || string(s.Attachment) != `{"type":"plan_mode_exit"}` {
		t.Errorf("attachment record = %+v", s)
	}
	if !recs[6].IsMeta || recs[7].IsMeta {
		t.Errorf("isMeta = %v, %v; want true, false", recs[6].IsMeta, recs[7].IsMeta)
	}
	if c := recs[7].Message.Content; !cmp.Equal(c, Content{{Type: "text", Text: "plain string"}}) {
		t.Errorf("string content = %+v", c)
	}
	m := r.Meta()
	if m.SessionID != sid || m.LastPrompt != "say hi" || m.LeafUUID != uid(9) || m.Cwd != "/home/me/work/p" ||
		m.FirstTimestamp != "2026-11-29T12:12:49.000Z" {
		t.Errorf("meta = %+v", m)
	}
	if got := r.LeafUUID(); got != uid(9) {
		t.Errorf("LeafUUID = %q", got)
	}
}

func TestCorruptLinesAreSkipped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	var logBuf bytes.Buffer
	writeLines(t, path,
		userLine(t, uid(1), "", "one"),
		`{"type":"user","uuid":"`+uid(50)+`", garbage`, // off the chain
		assistantLine(t, uid(2), uid(1), "two"),
		`not json at all`,
		`{"type":"custom-title","customTitle":"x"}{"type":"user"}`, // two objects glued
		"\x00\x01\x02",
		`[1,2,3]`,
		"   ",
		userLine(t, uid(3), uid(2), "three"),
	)
	r, err := Open(path, &Options{Logger: slog.New(slog.NewTextHandler(&logBuf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	recs, err := r.Collect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := uuids(recs), []string{uid(1), uid(2), uid(3)}; !slices.Equal(got, want) {
		t.Errorf("chain = %v, want %v", got, want)
	}
	if s := r.Stats(); s.Corrupt != 5 || s.TruncatedTail || s.BrokenChain {
		t.Errorf("stats = %+v, want 5 corrupt lines", s)
	}
	if !strings.Contains(logBuf.String(), "skipping line") {
		t.Errorf("corrupt lines were not logged: %s", logBuf.String())
	}
	if r.Meta().CustomTitle != "" {
		t.Errorf("a title from a corrupt line was kept: %q", r.Meta().CustomTitle)
	}
}

func TestCorruptLineOnChainBreaksIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	bad := assistantLine(t, uid(2), uid(1), "two")
	writeLines(t, path,
		userLine(t, uid(1), "", "one"),
		bad[:len(bad)/2],
		userLine(t, uid(3), uid(2), "three"),
		assistantLine(t, uid(4), uid(3), "four"),
	)
	recs, r := load(t, path)
	// The CLI loses the history above a missing parent too.
	if got, want := uuids(recs), []string{uid(3), uid(4)}; !slices.Equal(got, want) {
		t.Errorf("chain = %v, want %v", got, want)
	}
	if s := r.Stats(); s.Corrupt != 1 || !s.BrokenChain {
		t.Errorf("stats = %+v, want one corrupt line and a broken chain", s)
	}
}

func TestTruncatedLastLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	last := assistantLine(t, uid(3), uid(2), "cut short")
	writeRaw(t, path, userLine(t, uid(1), "", "one")+"\n"+
		assistantLine(t, uid(2), uid(1), "two")+"\n"+last[:len(last)-7])
	recs, r := load(t, path)
	if got, want := uuids(recs), []string{uid(1), uid(2)}; !slices.Equal(got, want) {
		t.Errorf("chain = %v, want %v", got, want)
	}
	if s := r.Stats(); !s.TruncatedTail || s.Corrupt != 0 {
		t.Errorf("stats = %+v, want a truncated tail only", s)
	}

	// A complete last line without a newline is fine.
	writeRaw(t, path, userLine(t, uid(1), "", "one")+"\n"+assistantLine(t, uid(2), uid(1), "two"))
	recs, r = load(t, path)
	if len(recs) != 2 || r.Stats().TruncatedTail {
		t.Errorf("complete unterminated last line: %d records, stats %+v", len(recs), r.Stats())
	}
}

func TestRewindReturnsActiveBranch(t *testing.T) {
	dir := t.TempDir()
	// 1 → 2 → 3 → 4, then the user rewinds to 2 and continues: 2 → 5 → 6.
	base := []string{
		userLine(t, uid(1), "", "first"),
		assistantLine(t, uid(2), uid(1), "a1"),
		userLine(t, uid(3), uid(2), "old prompt"),
		assistantLine(t, uid(4), uid(3), "old answer"),
	}
	t.Run("continued after rewind", func(t *testing.T) {
		// The last-prompt line names the old leaf, but newer messages follow it.
		path := filepath.Join(dir, "a.jsonl")
		writeLines(t, path, append(slices.Clone(base),
			`{"type":"last-prompt","lastPrompt":"old prompt","leafUuid":"`+uid(4)+`"}`,
			userLine(t, uid(5), uid(2), "new prompt"),
			assistantLine(t, uid(6), uid(5), "new answer"),
			// A trailing system line hangs below the leaf; it is not a message.
			enc(t, obj{"type": "system", "subtype": "informational", "uuid": uid(7), "parentUuid": uid(6)}),
		)...)
		recs, _ := load(t, path)
		if got, want := uuids(recs), []string{uid(1), uid(2), uid(5), uid(6)}; !slices.Equal(got, want) {
			t.Errorf("chain = %v, want %v", got, want)
		}
	})
	t.Run("rewound with nothing new yet", func(t *testing.T) {
		// The CLI records the rewind point as the leaf of the last prompt.
		path := filepath.Join(dir, "b.jsonl")
		writeLines(t, path, append(slices.Clone(base),
			`{"type":"last-prompt","leafUuid":"`+uid(2)+`","explicit":true,"rewound":true,"cutUuid":"`+uid(3)+`"}`,
		)...)
		recs, _ := load(t, path)
		if got, want := uuids(recs), []string{uid(1), uid(2)}; !slices.Equal(got, want) {
			t.Errorf("chain = %v, want %v", got, want)
		}
	})
	t.Run("leaf behind the newest message", func(t *testing.T) {
		// A turn was cut before its last-prompt line: the newer leaf wins.
		path := filepath.Join(dir, "c.jsonl")
		writeLines(t, path, append(slices.Clone(base[:2]),
			`{"type":"last-prompt","leafUuid":"`+uid(2)+`"}`,
			base[2], base[3])...)
		recs, _ := load(t, path)
		if got, want := uuids(recs), []string{uid(1), uid(2), uid(3), uid(4)}; !slices.Equal(got, want) {
			t.Errorf("chain = %v, want %v", got, want)
		}
	})
	t.Run("unknown leaf is ignored", func(t *testing.T) {
		path := filepath.Join(dir, "d.jsonl")
		writeLines(t, path, append(slices.Clone(base), `{"type":"last-prompt","leafUuid":"`+uid(77)+`"}`)...)
		recs, _ := load(t, path)
		if len(recs) != 4 {
			t.Errorf("chain = %v, want all four", uuids(recs))
		}
	})
}

func TestSidechainAndMetaAreNotLeaves(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	writeLines(t, path,
		userLine(t, uid(1), "", "main"),
		assistantLine(t, uid(2), uid(1), "main answer"),
		// An old-style subagent chain inside the main file, written last.
		userLine(t, uid(10), "", "sub prompt", "isSidechain", true),
		assistantLine(t, uid(11), uid(10), "sub answer", "isSidechain", true),
		userLine(t, uid(12), "", "meta only", "isMeta", true),
	)
	recs, _ := load(t, path)
	if got, want := uuids(recs), []string{uid(1), uid(2)}; !slices.Equal(got, want) {
		t.Errorf("chain = %v, want %v", got, want)
	}

	// A subagent transcript has only sidechain records: they are its chain.
	sub := filepath.Join(t.TempDir(), "agent-a.jsonl")
	writeLines(t, sub,
		userLine(t, uid(10), "", "sub prompt", "isSidechain", true),
		assistantLine(t, uid(11), uid(10), "sub answer", "isSidechain", true))
	recs, _ = load(t, sub)
	if got, want := uuids(recs), []string{uid(10), uid(11)}; !slices.Equal(got, want) {
		t.Errorf("subagent chain = %v, want %v", got, want)
	}
}

func TestParentCycleTerminates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	writeLines(t, path,
		userLine(t, uid(1), uid(3), "a"),
		assistantLine(t, uid(2), uid(1), "b"),
		userLine(t, uid(3), uid(2), "c"),
		// A terminal whose ancestors loop.
		enc(t, obj{"type": "system", "uuid": uid(4), "parentUuid": uid(5)}),
		enc(t, obj{"type": "system", "uuid": uid(5), "parentUuid": uid(4)}),
		assistantLine(t, uid(9), "", "alone"),
	)
	recs, _ := load(t, path)
	if got, want := uuids(recs), []string{uid(9)}; !slices.Equal(got, want) {
		t.Errorf("chain = %v, want %v", got, want)
	}
}

func TestLongLinesAndEscapes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	huge := strings.Repeat(`x"\{[`, 300_000) // 1.5 MB of quotes, backslashes and brackets
	writeLines(t, path,
		userLine(t, uid(1), "", huge),
		// Keys may come in any order and with white space.
		` { "parentUuid" : "`+uid(1)+`" , "message" : {"role":"assistant","content":[{"type":"text","text":"}\"{"}]}, "uuid":"`+uid(2)+`", "type" : "assistant" } `,
		`{"type":"custom-title","customTitle":"caf\u00e9 \"quoted\" \\ title"}`,
	)
	recs, r := load(t, path)
	if len(recs) != 2 || recs[0].Message.Content[0].Text != huge || recs[1].Message.Content[0].Text != `}"{` {
		t.Fatalf("got %d records", len(recs))
	}
	if got := r.Meta().CustomTitle; got != `café "quoted" \ title` {
		t.Errorf("custom title = %q", got)
	}
}

func TestTitles(t *testing.T) {
	dir := t.TempDir()
	prompt := userLine(t, uid(1), "", "  fix\nthe   bug  ")
	for _, tc := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"first prompt", []string{prompt}, "fix the bug"},
		{"summary over prompt", []string{prompt, `{"type":"summary","summary":"Old summary","leafUuid":"` + uid(1) + `"}`}, "Old summary"},
		{"last prompt over summary", []string{prompt, `{"type":"summary","summary":"S"}`, `{"type":"last-prompt","lastPrompt":"latest"}`}, "latest"},
		{"ai title over last prompt", []string{`{"type":"ai-title","aiTitle":"AI"}`, prompt, `{"type":"last-prompt","lastPrompt":"latest"}`}, "AI"},
		{"custom title wins, newest", []string{`{"type":"custom-title","customTitle":"Mine"}`, prompt,
			`{"type":"ai-title","aiTitle":"AI"}`, `{"type":"custom-title","customTitle":"Mine too"}`}, "Mine too"},
		{"skips meta, commands and injected text", []string{
			userLine(t, uid(1), "", "<system-reminder>x</system-reminder>", "isMeta", true),
			userLine(t, uid(2), uid(1), "<command-name>/clear</command-name>"),
			userLine(t, uid(3), uid(2), "<local-command-stdout>ok</local-command-stdout>"),
			userLine(t, uid(4), uid(3), "<bash-input>ls -la</bash-input>"),
		}, "! ls -la"},
		{"command fallback", []string{userLine(t, uid(2), "", "<command-name>/compact</command-name>")}, "/compact"},
		{"long prompt cut", []string{userLine(t, uid(1), "", strings.Repeat("é", 300))}, strings.Repeat("é", 200) + "…"},
		{"long title cut", []string{`{"type":"custom-title","customTitle":"` + strings.Repeat("t", 300) + `"}`}, strings.Repeat("t", 256) + "…"},
		{"image only", []string{enc(t, obj{"type": "user", "uuid": uid(1), "message": obj{"role": "user",
			"content": []any{obj{"type": "image", "source": obj{"type": "base64"}}}}})}, "Image"},
		{"nothing", []string{`{"type":"queue-operation"}`}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".jsonl")
			writeLines(t, path, tc.lines...)
			_, r := load(t, path)
			if got := r.Title(); got != tc.want {
				t.Errorf("Title = %q, want %q", got, tc.want)
			}
		})
	}
}
