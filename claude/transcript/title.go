package transcript

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// Title limits, as in the SDK's session listing and the adapter.
const (
	maxPromptRunes = 200
	maxTitleRunes  = 256
)

var (
	commandNameRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`<command-name>(.*?)</command-name>`)
	})
	bashInputRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^<bash-input>([\s\S]*?)</bash-input>$`)
	})
	// skipPromptRE matches texts the CLI or IDE injects rather than the user
	// typing them; they never make a title.
	skipPromptRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:<local-command-stdout>|<session-start-hook>|<tick>|<goal>|` +
			`\[Request interrupted by user[^\]]*\]|` +
			`\s*<ide_opened_file>[\s\S]*</ide_opened_file>\s*$|` +
			`\s*<ide_selection>[\s\S]*</ide_selection>\s*$)`)
	})
)

// pickTitle applies the precedence of the SDK's listing: a title the user
// set, then the generated one, the last prompt, an old-style summary, and
// the first real prompt. It returns the sanitized title, or "".
func pickTitle(custom, ai, lastPrompt, summary, first string) string {
	for _, t := range []string{custom, ai, lastPrompt, summary, first} {
		if t = SanitizeTitle(t); t != "" {
			return t
		}
	}
	return ""
}

// NamedTitle returns the session's title the way an open session shows
// it: the name the user gave it, the generated one, an old-style summary,
// the first real prompt, else the last prompt (sanitized). Unlike List,
// the first prompt comes before the last: a session keeps the title its
// first prompt gave it while it runs.
//
// A fork (a transcript that starts with a copy of its source) is titled as
// session/list titles it: its name, else its own first prompt, else the
// source's title marked as a fork (forkTitle).
func (r *Reader) NamedTitle() string {
	if r.forked {
		if row, ok := liteRow(r.ra, r.size); ok {
			return row.title
		}
	}
	m := r.meta
	if t := pickTitle(m.CustomTitle, m.AITitle, m.Summary, "", ""); t != "" {
		return t
	}
	return pickTitle(r.FirstPrompt(), m.LastPrompt, "", "", "")
}

// PromptTitle returns what a user message with these blocks titles a
// session as (the rule of the first prompt in [Reader.Title]): its first
// text that the CLI or an IDE did not inject, on one line and cut to 200
// characters, or "Image"/"Document" for a prompt of only media. It is ""
// for tool results, meta and compact-summary messages, and slash commands.
func PromptTitle(rec *Record) string {
	p, _ := firstPrompt(rec)
	return SanitizeTitle(p)
}

// SanitizeTitle collapses white space and cuts a title to 256 characters
// plus an ellipsis, so that a pasted prompt cannot flood a session picker.
func SanitizeTitle(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= maxTitleRunes {
		return s
	}
	return truncateRunes(s, maxTitleRunes) + "…"
}

func truncateRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// firstPrompt returns the text of a user record that can title a session:
// the first text that is not injected by the CLI, with newlines flattened
// and cut to 200 characters; bash input shows as "! cmd". A slash command
// is returned as cmd instead, to be used only if no real prompt follows.
// Tool results and meta records never count.
func firstPrompt(rec *Record) (prompt, cmd string) {
	if rec.Type != TypeUser || rec.IsMeta || rec.IsCompactSummary || rec.Message == nil {
		return "", ""
	}
	var texts []string
	var media string
	for _, b := range rec.Message.Content {
		switch b.Type {
		case "tool_result":
			return "", ""
		case "text":
			texts = append(texts, b.Text)
		case "image":
			if media == "" {
				media = "Image"
			}
		case "document":
			if media == "" {
				media = "Document"
			}
		}
	}
	for _, t := range texts {
		t = strings.TrimSpace(strings.ReplaceAll(t, "\n", " "))
		if t == "" {
			continue
		}
		if m := commandNameRE().FindStringSubmatch(t); m != nil {
			if cmd == "" {
				cmd = m[1]
			}
			continue
		}
		if skipPromptRE().MatchString(t) {
			continue
		}
		if m := bashInputRE().FindStringSubmatch(t); m != nil {
			t = "! " + strings.TrimSpace(m[1])
		}
		if utf8.RuneCountInString(t) > maxPromptRunes {
			t = strings.TrimRight(truncateRunes(t, maxPromptRunes), " ") + "…"
		}
		return t, cmd
	}
	return media, cmd
}
