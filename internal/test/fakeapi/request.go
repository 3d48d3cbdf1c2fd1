package fakeapi

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Request is the record of one HTTP request the fake received. Messages requests carry
// the summarised body; other paths only the method, path and headers.
type Request struct {
	Time   time.Time `json:"time"`
	Method string    `json:"method"`
	Path   string    `json:"path"`
	Query  string    `json:"query,omitempty"`

	Model     string   `json:"model,omitempty"`
	Stream    bool     `json:"stream"`
	MaxTokens int      `json:"max_tokens,omitempty"`
	Tools     []string `json:"tools,omitempty"`
	// System is the system prompt text (blocks joined by newlines); only its length is
	// written to the JSON log because it is large.
	System    string           `json:"-"`
	SystemLen int              `json:"system_len"`
	Messages  []MessageSummary `json:"messages,omitempty"`
	// LastUserText is what the user last typed: the text of the last user message that
	// has any, with <system-reminder> sections removed and blocks joined by newlines.
	LastUserText string `json:"last_user_text"`

	APIKey     string `json:"x_api_key,omitempty"`
	Beta       string `json:"anthropic_beta,omitempty"`
	UserAgent  string `json:"user_agent,omitempty"`
	SessionID  string `json:"session_id,omitempty"`
	RetryCount string `json:"retry_count,omitempty"`

	// Answer names what the fake replied: a step kind, "default", or "bad_request".
	Answer string `json:"answer"`
	// Body is the raw request body of messages requests, for assertions the summary
	// does not cover.
	Body json.RawMessage `json:"-"`
}

// MessageSummary is one message of a request, reduced to what tests assert on.
type MessageSummary struct {
	Role string `json:"role"`
	// Text joins the text blocks (or the string content) of the message.
	Text   string         `json:"text,omitempty"`
	Blocks []BlockSummary `json:"blocks,omitempty"`
}

// BlockSummary is one content block of a request message.
type BlockSummary struct {
	Type string `json:"type"`
	// Text holds a text block's text, a thinking block's thought, or a tool_result's
	// content text.
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

// IsMain reports whether the request is a Messages call with tools, which is how the
// CLI's main loop and subagents call (the set_model probe and side queries have none).
func (r *Request) IsMain() bool {
	return r.Path == "/v1/messages" && len(r.Tools) > 0
}

// HasTool reports whether the request offered the named tool to the model.
func (r *Request) HasTool(name string) bool { return slices.Contains(r.Tools, name) }

// ToolResults returns the tool_result blocks of the request's last message, i.e. the
// results the CLI is reporting back in this call.
func (r *Request) ToolResults() []BlockSummary {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role != "user" {
			continue
		}
		var out []BlockSummary
		for _, b := range r.Messages[i].Blocks {
			if b.Type == "tool_result" {
				out = append(out, b)
			}
		}
		return out
	}
	return nil
}

// apiRequest is the part of a Messages request body the fake reads.
type apiRequest struct {
	Model     string          `json:"model"`
	Stream    bool            `json:"stream"`
	MaxTokens int             `json:"max_tokens"`
	System    json.RawMessage `json:"system"`
	Messages  []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

// apiBlock is a request content block of any type.
type apiBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
}

// newRequest records the metadata every request has.
func newRequest(r *http.Request, now time.Time) Request {
	return Request{
		Time:       now,
		Method:     r.Method,
		Path:       r.URL.Path,
		Query:      r.URL.RawQuery,
		APIKey:     r.Header.Get("X-Api-Key"),
		Beta:       r.Header.Get("Anthropic-Beta"),
		UserAgent:  r.Header.Get("User-Agent"),
		SessionID:  r.Header.Get("X-Claude-Code-Session-Id"),
		RetryCount: r.Header.Get("X-Stainless-Retry-Count"),
	}
}

// summarize fills rec from a Messages request body. It never fails on odd content:
// unknown block types are kept by type only, and role "system" messages are accepted.
func summarize(rec *Request, body []byte) error {
	var req apiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return err
	}
	rec.Body = json.RawMessage(body)
	rec.Model, rec.Stream, rec.MaxTokens = req.Model, req.Stream, req.MaxTokens
	for _, t := range req.Tools {
		rec.Tools = append(rec.Tools, t.Name)
	}
	rec.System = joinText(req.System)
	rec.SystemLen = len(rec.System)
	for _, m := range req.Messages {
		sum := MessageSummary{Role: m.Role, Blocks: summarizeContent(m.Content)}
		var texts []string
		for _, b := range sum.Blocks {
			if b.Type == "text" {
				texts = append(texts, b.Text)
			}
		}
		sum.Text = strings.Join(texts, "\n")
		rec.Messages = append(rec.Messages, sum)
	}
	rec.LastUserText = lastUserText(rec.Messages)
	return nil
}

// summarizeContent turns message content (a string or a list of blocks) into summaries.
func summarizeContent(raw json.RawMessage) []BlockSummary {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []BlockSummary{{Type: "text", Text: s}}
	}
	var blocks []apiBlock
	if json.Unmarshal(raw, &blocks) != nil {
		return nil
	}
	out := make([]BlockSummary, 0, len(blocks))
	for _, b := range blocks {
		sum := BlockSummary{Type: b.Type}
		switch b.Type {
		case "text":
			sum.Text = b.Text
		case "thinking":
			sum.Text = b.Thinking
		case "tool_use":
			sum.ID, sum.Name, sum.Input = b.ID, b.Name, b.Input
		case "tool_result":
			sum.ToolUseID, sum.IsError, sum.Text = b.ToolUseID, b.IsError, joinText(b.Content)
		}
		out = append(out, sum)
	}
	return out
}

// joinText returns the text of a string or of a list of blocks with text fields.
func joinText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []apiBlock
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var texts []string
	for _, b := range blocks {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// lastUserText finds the last user message with typed text. The CLI prefixes prompts with
// <system-reminder> blocks and sends tool results as user messages; both are skipped so
// that the result is what the user (or the test) wrote.
func lastUserText(msgs []MessageSummary) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != "user" {
			continue
		}
		var texts []string
		for _, b := range msgs[i].Blocks {
			if b.Type != "text" {
				continue
			}
			if t := stripReminders(b.Text); t != "" {
				texts = append(texts, t)
			}
		}
		if len(texts) > 0 {
			return strings.Join(texts, "\n")
		}
	}
	return ""
}

// stripReminders removes <system-reminder>…</system-reminder> sections and trims space.
func stripReminders(s string) string {
	const open, closing = "<system-reminder>", "</system-reminder>"
	for {
		i := strings.Index(s, open)
		if i < 0 {
			break
		}
		j := strings.Index(s[i:], closing)
		if j < 0 {
			s = s[:i]
			break
		}
		s = s[:i] + s[i+j+len(closing):]
	}
	return strings.TrimSpace(s)
}
