package toolview

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"
)

// How some tools' results look once they ran: what a subagent reported
// (Agent, Task) and what a Read returned when Claude Code gives no
// structured copy of the file.

var (
	// handBackStart opens the frame Claude Code wraps a subagent's report
	// in for the model (CLI 2.1.332): a paragraph addressed to the model,
	// then the report with every line indented by two spaces.
	handBackStart = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)\A\[Subagent hand-back\].*?The report follows:\n`)
	})
	// The trailers Claude Code appends to a report for the model: how to
	// continue the agent, and its usage.
	agentIDTrailer = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^agentId: \S+ \(use SendMessage[^\n]*\)\s*$`)
	})
	usageTrailer = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)<usage>.*?</usage>\s*\z`)
	})
)

// AgentReport is the subagent's own report in the result of an Agent or
// Task call: the text blocks of Claude Code's structured result when it
// has them, else the result text without the hand-back frame, the
// agentId line and the usage block the CLI adds for the model. Other
// results (an asynchronous launch's notice) come back unchanged.
func AgentReport(text string, structured json.RawMessage) string {
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(structured, &r) == nil {
		var parts []string
		for _, c := range r.Content {
			if c.Type == "text" && strings.TrimSpace(c.Text) != "" {
				parts = append(parts, c.Text)
			}
		}
		if len(parts) > 0 {
			return strings.Join(parts, "\n\n")
		}
	}
	out := text
	if loc := handBackStart().FindStringIndex(out); loc != nil {
		out = out[loc[1]:]
		// The harness indents every line of the report by two spaces;
		// the trailers after it are not indented.
		lines := strings.Split(out, "\n")
		for i, l := range lines {
			if rest, ok := strings.CutPrefix(l, "  "); ok {
				lines[i] = rest
			}
		}
		out = strings.Join(lines, "\n")
	} else if !strings.Contains(out, "agentId: ") && !strings.Contains(out, "<usage>") {
		return text
	}
	out = usageTrailer().ReplaceAllString(out, "")
	out = agentIDTrailer().ReplaceAllString(out, "")
	out = strings.TrimSpace(out)
	if out == "" {
		return text
	}
	return out
}

// numberedLine is a line of Read's text result: a line number, then a tab
// (CLI 2.1.332) or an arrow (older CLIs), then the line.
var numberedLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*\d+(?:\t|→)`)
})

// NumberedText returns the file text in Read's result text, whose every
// line is numbered, without the numbers; ok is false when the text is not
// such a listing (a notice such as "File unchanged since last read").
func NumberedText(text string) (string, bool) {
	if text == "" {
		return "", false
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, l := range lines {
		loc := numberedLine().FindStringIndex(l)
		if loc == nil {
			return "", false
		}
		lines[i] = l[loc[1]:]
	}
	// The CLI numbers the empty line after a file's last newline too.
	if len(lines) > 1 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n") + "\n", true
}
