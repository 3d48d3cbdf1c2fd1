package promptconv

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
)

var (
	contextRef = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)^\n<context ref="([^"]*)">\n(.*)\n</context>$`)
	})
	mentionLink = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\[@([^\]]*)\]\(([^)\s]+)\)$`)
	})
	systemReminder = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)<system-reminder>.*?</system-reminder>`)
	})
	commandName = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)<command-name>(.*?)</command-name>`)
	})
	commandArgs = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)<command-args>(.*?)</command-args>`)
	})
)

// FromClaude is ToClaude backwards: it rebuilds the content the
// user sent from the Claude user message stored for it. Text stays text,
// images stay images, an @-mention becomes a resource_link again, and a
// mention whose <context> block follows becomes the embedded resource it
// was. Tool results, local command output and injected reminders are not
// the user's words and are left out.
func FromClaude(c transcript.Content) []acp.ContentBlock {
	// The <context> blocks come last; index them by URI first.
	contexts := map[string]string{}
	var order []string
	for _, b := range c {
		if b.Type == "text" {
			if m := contextRef().FindStringSubmatch(b.Text); m != nil {
				if _, dup := contexts[m[1]]; !dup {
					order = append(order, m[1])
				}
				contexts[m[1]] = m[2]
			}
		}
	}
	var out []acp.ContentBlock
	for i := 0; i < len(c); i++ {
		b := c[i]
		switch b.Type {
		case "text":
			if contextRef().MatchString(b.Text) {
				continue
			}
			text, ok := UserText(b.Text)
			if !ok {
				continue
			}
			if ctx, ok := contexts[text]; ok { // a mention of a non-file URI
				out = append(out, TextResource(text, ctx))
				delete(contexts, text)
				continue
			}
			m := mentionLink().FindStringSubmatch(text)
			if m == nil {
				out = append(out, acp.ContentBlock{Text: &acp.TextContent{Text: text}})
				continue
			}
			name, uri := m[1], m[2]
			if ctx, ok := contexts[uri]; ok {
				out = append(out, TextResource(uri, ctx))
				delete(contexts, uri)
			} else if i+1 < len(c) && c[i+1].Type == "document" {
				if data, mt, ok := mediaSource(c[i+1].Source); ok {
					out = append(out, acp.ContentBlock{Resource: &acp.EmbeddedResource{Resource: acp.EmbeddedResourceResource{
						BlobResourceContents: &acp.BlobResourceContents{URI: uri, Blob: data, MimeType: acp.Some(mt)}}}})
					i++
				}
			} else {
				out = append(out, acp.ContentBlock{ResourceLink: &acp.ResourceLink{Name: name, URI: uri}})
			}
		case "image":
			if data, mt, ok := mediaSource(b.Source); ok {
				out = append(out, acp.ContentBlock{Image: &acp.ImageContent{Data: data, MimeType: mt}})
			} else if url, ok := urlSource(b.Source); ok {
				out = append(out, acp.ContentBlock{Image: &acp.ImageContent{URI: acp.Some(url)}})
			}
		}
	}
	for _, uri := range order { // context without its mention
		if ctx, ok := contexts[uri]; ok {
			out = append(out, TextResource(uri, ctx))
		}
	}
	return out
}

// UserText returns what the user typed in a stored text block, or false
// for text the CLI or the agent added: local command output (replayed as
// agent text), interrupt markers, system reminders. A slash command is
// shown as it was typed.
func UserText(text string) (string, bool) {
	if strings.Contains(text, "<local-command-stdout>") || strings.Contains(text, "<local-command-stderr>") ||
		strings.HasPrefix(text, "[Request interrupted by user") {
		return "", false
	}
	if m := commandName().FindStringSubmatch(text); m != nil {
		cmd := strings.TrimSpace(m[1])
		if a := commandArgs().FindStringSubmatch(text); a != nil && strings.TrimSpace(a[1]) != "" {
			cmd += " " + strings.TrimSpace(a[1])
		}
		return cmd, cmd != ""
	}
	if strings.Contains(text, "<system-reminder>") {
		text = strings.TrimSpace(systemReminder().ReplaceAllString(text, ""))
	}
	return text, strings.TrimSpace(text) != ""
}

// TextResource is an embedded text resource block.
func TextResource(uri, text string) acp.ContentBlock {
	return acp.ContentBlock{Resource: &acp.EmbeddedResource{Resource: acp.EmbeddedResourceResource{
		TextResourceContents: &acp.TextResourceContents{URI: uri, Text: text}}}}
}

type mediaSrc struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
	URL       string `json:"url"`
}

func mediaSource(raw json.RawMessage) (data, mediaType string, ok bool) {
	var s mediaSrc
	if json.Unmarshal(raw, &s) != nil || s.Type != "base64" {
		return "", "", false
	}
	return s.Data, s.MediaType, true
}

func urlSource(raw json.RawMessage) (string, bool) {
	var s mediaSrc
	if json.Unmarshal(raw, &s) != nil || s.Type != "url" || s.URL == "" {
		return "", false
	}
	return s.URL, true
}
