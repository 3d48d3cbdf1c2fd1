package main

import (
	"regexp"
	"strings"
	"unicode"
)

// initialisms are the words spelled in capitals in Go names, following the
// usual Go convention (ID, URL, HTTP).
var initialisms = map[string]string{
	"id": "ID", "url": "URL", "uri": "URI", "http": "HTTP", "mcp": "MCP",
	"sse": "SSE", "json": "JSON", "acp": "ACP", "api": "API", "fs": "FS",
	"llm": "LLM",
}

// words splits a schema identifier (camelCase, PascalCase, snake_case,
// kebab-case or a method path) into lower-case words.
func words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r):
			// A capital starts a word unless it continues an acronym
			// ("HTTPHeader" splits as HTTP+Header).
			prevLower := i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]))
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			prevUpper := i > 0 && unicode.IsUpper(rs[i-1])
			if prevLower || (prevUpper && nextLower) {
				flush()
			}
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return out
}

// goName converts a schema identifier to an exported Go identifier.
func goName(s string) string {
	var b strings.Builder
	for _, w := range words(s) {
		if up, ok := initialisms[w]; ok {
			b.WriteString(up)
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

var (
	mdLink    = regexp.MustCompile(`\[([^\]]+)\]\([^)]+\)`)
	mdRefLink = regexp.MustCompile(`(?m)^\[\d+\]: \S+$`)
	mdRefUse  = regexp.MustCompile(`\]\[\d+\]`)
)

// docOptions bound how much of a schema description becomes a comment.
type docOptions struct {
	maxParagraphs int
	maxLines      int
}

var (
	typeDoc  = docOptions{maxParagraphs: 3, maxLines: 10}
	fieldDoc = docOptions{maxParagraphs: 2, maxLines: 5}
)

const unstableNote = "Unstable: not part of the stable ACP v1 schema; it may change or disappear."

// docText turns a schema description into plain comment text: markdown
// links keep their text, "See protocol docs" pointers and the UNSTABLE
// banner are dropped (the banner is replaced by unstableNote), and long
// descriptions are cut to the first paragraphs so the generated file stays
// readable. The full text is always in the schema.
func docText(desc string, unstable bool, opt docOptions) []string {
	desc = strings.ReplaceAll(desc, "\r\n", "\n")
	desc = mdLink.ReplaceAllString(desc, "$1")
	desc = mdRefLink.ReplaceAllString(desc, "")
	desc = mdRefUse.ReplaceAllString(desc, "]")
	var paras [][]string
	for _, p := range strings.Split(desc, "\n\n") {
		p = strings.TrimSpace(p)
		switch {
		case p == "":
			continue
		case strings.HasPrefix(p, "**UNSTABLE**"):
			unstable = true
			continue
		case strings.HasPrefix(p, "This capability is not part of the spec yet"):
			continue
		case strings.HasPrefix(p, "See protocol docs:"):
			continue
		}
		var lines []string
		for _, l := range strings.Split(p, "\n") {
			if strings.HasPrefix(l, "See protocol docs:") {
				continue
			}
			lines = append(lines, strings.TrimRight(l, " "))
		}
		if len(lines) > 0 {
			paras = append(paras, lines)
		}
	}
	var out []string
	n := 0
	for i, p := range paras {
		if i >= opt.maxParagraphs || n+len(p) > opt.maxLines && i > 0 {
			break
		}
		if i > 0 {
			out = append(out, "")
		}
		out = append(out, p...)
		n += len(p)
	}
	if unstable {
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, unstableNote)
	}
	return out
}
