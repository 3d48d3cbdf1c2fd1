package transcript

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestNamedTitle: an open session's title prefers the first prompt to the
// last one; names and summaries win over both.
func TestNamedTitle(t *testing.T) {
	dir := t.TempDir()
	first := userLine(t, uid(1), "", "  fix\nthe   bug  ")
	second := userLine(t, uid(2), uid(1), "and the other one")
	last := `{"type":"last-prompt","lastPrompt":"and the other one","leafUuid":"` + uid(2) + `"}`
	for _, tc := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"first prompt over last", []string{first, second, last}, "fix the bug"},
		{"summary over prompts", []string{first, second, `{"type":"summary","summary":"Old summary"}`, last}, "Old summary"},
		{"ai title", []string{`{"type":"ai-title","aiTitle":"AI"}`, first, last}, "AI"},
		{"custom title wins, newest", []string{`{"type":"custom-title","customTitle":"Mine"}`, first,
			`{"type":"ai-title","aiTitle":"AI"}`, `{"type":"custom-title","customTitle":"Mine too"}`}, "Mine too"},
		{"last prompt when no first", []string{`{"type":"last-prompt","lastPrompt":"latest"}`}, "latest"},
		{"command only", []string{userLine(t, uid(1), "", "<command-name>/compact</command-name>")}, "/compact"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".jsonl")
			writeLines(t, path, tc.lines...)
			_, r := load(t, path)
			if got := r.NamedTitle(); got != tc.want {
				t.Errorf("NamedTitle = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestPromptTitle(t *testing.T) {
	for _, tc := range []struct {
		content Content
		want    string
	}{
		{Content{{Type: "text", Text: "  fix\nthe   bug "}}, "fix the bug"},
		{Content{{Type: "text", Text: "<ide_opened_file>a.go</ide_opened_file>"}, {Type: "text", Text: "explain this"}}, "explain this"},
		{Content{{Type: "image"}}, "Image"},
		{Content{{Type: "tool_result"}}, ""},
		{Content{{Type: "text", Text: strings.Repeat("ab ", 100)}}, strings.TrimSpace(strings.Repeat("ab ", 67)[:200]) + "…"},
	} {
		rec := &Record{Type: TypeUser, Message: &Message{Role: "user", Content: tc.content}}
		if got := PromptTitle(rec); got != tc.want {
			t.Errorf("PromptTitle(%+v) = %q, want %q", tc.content, got, tc.want)
		}
	}
}
