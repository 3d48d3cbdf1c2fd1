package claude

import (
	"bytes"
	"encoding/json"
	"strings"
)

// A ContentBlock is one block of a Messages API message: text, thinking,
// redacted_thinking, tool_use (also server_tool_use and mcp_tool_use),
// tool_result, image or document. It is one flat struct rather than an
// interface so that a block the CLI invents tomorrow still decodes, and so
// that callers can build blocks with a composite literal. Tool inputs, tool
// result content and media sources stay raw JSON: this package passes them on
// and never needs to look inside.
type ContentBlock struct {
	Type string `json:"type"`

	// Text is set for "text" blocks.
	Text string `json:"text,omitempty"`

	// Thinking and Signature are set for "thinking" blocks; Data holds the
	// opaque payload of "redacted_thinking" blocks.
	Thinking  string `json:"thinking,omitempty"`
	Signature string `json:"signature,omitempty"`
	Data      string `json:"data,omitempty"`

	// ID, Name and Input are set for "tool_use" blocks.
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`

	// ToolUseID, Content and IsError are set for "tool_result" blocks.
	// Content is either a JSON string or an array of blocks; see
	// [ContentBlock.ResultContent].
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
	// ContentText is Content decoded, when Content is a JSON string and
	// the decoder that read the block decoded it as well (ContentIsText):
	// the transcript reader does, so that a replayed tool result (often
	// kilobytes of output) is not scanned a second time.
	ContentText   string `json:"-"`
	ContentIsText bool   `json:"-"`

	// Source is set for "image" and "document" blocks.
	Source json.RawMessage `json:"source,omitempty"`

	// Citations is set on text blocks that cite documents.
	Citations json.RawMessage `json:"citations,omitempty"`
}

// TextBlock returns a text content block.
func TextBlock(text string) ContentBlock {
	return ContentBlock{Type: "text", Text: text}
}

// ImageBlock returns an image block with base64-encoded data, the shape the
// Messages API accepts in user messages.
func ImageBlock(mediaType, base64Data string) ContentBlock {
	src, _ := json.Marshal(struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	}{"base64", mediaType, base64Data})
	return ContentBlock{Type: "image", Source: src}
}

// ResultContent decodes the content of a tool_result block, which the API
// allows to be either a plain string or an array of blocks. A string becomes
// one text block.
func (b ContentBlock) ResultContent() (Content, error) {
	return decodeContent(b.Content)
}

// decodeContent decodes message content that may be a plain string (one text
// block) or an array of blocks.
func decodeContent(raw json.RawMessage) (Content, error) {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return Content{TextBlock(s)}, nil
	}
	var c Content
	err := json.Unmarshal(raw, &c)
	return c, err
}

// Content is a list of content blocks. In user frames the CLI sometimes
// sends a plain string instead; [DecodeMessage] turns that into one text
// block.
//
// Content deliberately has no UnmarshalJSON method: a custom unmarshaler
// makes encoding/json scan the content (often a large tool result) twice
// more.
type Content []ContentBlock

// Text returns the concatenated text of the text blocks.
func (c Content) Text() string {
	var sb strings.Builder
	for _, b := range c {
		if b.Type == "text" {
			sb.WriteString(b.Text)
		}
	}
	return sb.String()
}
