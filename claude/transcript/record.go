package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
	"time"
)

// Record types the reader yields. Other line types (queue operations, cost
// state, file-history snapshots, API request copies, progress, …) are not
// part of the conversation and are skipped.
const (
	TypeUser       = "user"
	TypeAssistant  = "assistant"
	TypeSystem     = "system"
	TypeAttachment = "attachment"
)

// SyntheticModel is the model name on assistant messages the CLI makes up
// itself (API errors, usage-limit banners, "No response requested.").
const SyntheticModel = "<synthetic>"

// Record is one line of the active branch. Fields are filled from the line
// as written; those that do not apply to the record's Type are zero.
type Record struct {
	Type       string // TypeUser, TypeAssistant, TypeSystem or TypeAttachment
	UUID       string
	ParentUUID string // "" for the first record of a chain
	SessionID  string
	Timestamp  string // ISO 8601 as written; see Time
	Cwd        string
	GitBranch  string
	Version    string

	IsSidechain bool // written by a subagent
	IsMeta      bool // hidden from the user (isMeta or is_meta)

	// Message is the Anthropic API message of user and assistant records.
	Message *Message

	// User records.
	IsCompactSummary        bool
	PermissionMode          string
	Origin                  *Origin
	ToolUseResult           json.RawMessage // structured tool output, as written
	SourceToolAssistantUUID string          // the assistant record holding the tool_use

	// Assistant records.
	RequestID          string
	IsAPIErrorMessage  bool
	APIErrorStatus     int
	IsAbortedMidStream bool

	// Error is the "error" field as written: a string such as "rate_limit"
	// on assistant API-error records, an object on system api_error records.
	// ErrorKind returns the string form.
	Error json.RawMessage

	// System records.
	Subtype           string
	Content           string
	Level             string
	LogicalParentUUID string // compact boundaries point back across the cut
	// CompactMetadata is a compact boundary's compactMetadata as written
	// ({trigger, preTokens, postTokens, durationMs, …}).
	CompactMetadata json.RawMessage

	// Attachment records.
	Attachment json.RawMessage
}

// Time parses Timestamp; it returns the zero time if that fails.
func (r *Record) Time() time.Time {
	t, err := time.Parse(time.RFC3339Nano, r.Timestamp)
	if err != nil {
		return time.Time{}
	}
	return t
}

// ErrorKind returns Error when it is a JSON string, else "".
func (r *Record) ErrorKind() string {
	var s string
	if len(r.Error) == 0 || r.Error[0] != '"' || json.Unmarshal(r.Error, &s) != nil {
		return ""
	}
	return s
}

// IsSynthetic reports whether the record is an assistant message the CLI
// made itself rather than one the model sent.
func (r *Record) IsSynthetic() bool {
	return r.Message != nil && r.Message.Model == SyntheticModel
}

// Origin says where a user message came from: a human, a task notification,
// a peer session, … (kinds as the CLI writes them).
type Origin struct {
	Kind    string `json:"kind"`
	Subkind string `json:"subkind,omitempty"`
}

// Message is an Anthropic API message as stored in the transcript.
type Message struct {
	ID         string          `json:"id,omitempty"`
	Role       string          `json:"role"`
	Model      string          `json:"model,omitempty"`
	Content    Content         `json:"content"`
	StopReason string          `json:"stop_reason,omitempty"`
	Usage      json.RawMessage `json:"usage,omitempty"`
}

// Content is the content of a message. A message written with plain string
// content decodes as a single text block.
type Content []Block

// UnmarshalJSON accepts a string or an array of blocks.
func (c *Content) UnmarshalJSON(b []byte) error {
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*c = Content{{Type: "text", Text: s}}
		return nil
	}
	if bytes.Equal(b, []byte("null")) {
		*c = nil
		return nil
	}
	var blocks []Block
	if err := json.Unmarshal(b, &blocks); err != nil {
		return err
	}
	for i := range blocks {
		// As the fast decoder does (recordDecoder.rawString).
		if bl := &blocks[i]; len(bl.Content) > 0 && bl.Content[0] == '"' {
			bl.ContentIsText = json.Unmarshal(bl.Content, &bl.ContentText) == nil
		}
	}
	*c = blocks
	return nil
}

// Block is one content block: the CLI driver's own type, so a stored
// block is exactly the block the CLI printed live (Citations included).
// Which fields are set depends on Type: text (Text, Citations), thinking
// (Thinking, Signature), redacted_thinking (Data), tool_use (ID, Name,
// Input), tool_result (ToolUseID, Content, IsError), image and document
// (Source). Inputs and results stay raw JSON for the caller to decode per
// tool.
type Block = claude.ContentBlock

// wireRecord is the line as the CLI writes it.
type wireRecord struct {
	Type                    string          `json:"type"`
	UUID                    string          `json:"uuid"`
	ParentUUID              *string         `json:"parentUuid"`
	LogicalParentUUID       *string         `json:"logicalParentUuid"`
	SessionID               string          `json:"sessionId"`
	Timestamp               string          `json:"timestamp"`
	Cwd                     string          `json:"cwd"`
	GitBranch               string          `json:"gitBranch"`
	Version                 string          `json:"version"`
	IsSidechain             bool            `json:"isSidechain"`
	IsMeta                  bool            `json:"isMeta"`
	IsMetaSnake             bool            `json:"is_meta"`
	Message                 *Message        `json:"message"`
	IsCompactSummary        bool            `json:"isCompactSummary"`
	PermissionMode          string          `json:"permissionMode"`
	Origin                  *Origin         `json:"origin"`
	ToolUseResult           json.RawMessage `json:"toolUseResult"`
	SourceToolAssistantUUID string          `json:"sourceToolAssistantUUID"`
	RequestID               string          `json:"requestId"`
	IsAPIErrorMessage       bool            `json:"isApiErrorMessage"`
	APIErrorStatus          json.RawMessage `json:"apiErrorStatus"`
	IsAbortedMidStream      bool            `json:"isAbortedMidStream"`
	Error                   json.RawMessage `json:"error"`
	Subtype                 string          `json:"subtype"`
	Content                 json.RawMessage `json:"content"`
	Level                   string          `json:"level"`
	Attachment              json.RawMessage `json:"attachment"`
	CompactMetadata         json.RawMessage `json:"compactMetadata"`
}

// decodeRecord decodes one line. A field of an unexpected JSON type is left
// zero rather than failing the record (encoding/json decodes the rest);
// only a line that is not JSON fails.
func decodeRecord(line []byte) (*Record, error) {
	var w wireRecord
	if err := json.Unmarshal(line, &w); err != nil {
		var typeErr *json.UnmarshalTypeError
		if !errors.As(err, &typeErr) {
			return nil, err
		}
	}
	r := &Record{
		Type:                    w.Type,
		UUID:                    w.UUID,
		SessionID:               w.SessionID,
		Timestamp:               w.Timestamp,
		Cwd:                     w.Cwd,
		GitBranch:               w.GitBranch,
		Version:                 w.Version,
		IsSidechain:             w.IsSidechain,
		IsMeta:                  w.IsMeta || w.IsMetaSnake,
		Message:                 w.Message,
		IsCompactSummary:        w.IsCompactSummary,
		PermissionMode:          w.PermissionMode,
		Origin:                  w.Origin,
		ToolUseResult:           nullToNil(w.ToolUseResult),
		SourceToolAssistantUUID: w.SourceToolAssistantUUID,
		RequestID:               w.RequestID,
		IsAPIErrorMessage:       w.IsAPIErrorMessage,
		IsAbortedMidStream:      w.IsAbortedMidStream,
		Error:                   nullToNil(w.Error),
		Subtype:                 w.Subtype,
		Level:                   w.Level,
		Attachment:              nullToNil(w.Attachment),
		CompactMetadata:         nullToNil(w.CompactMetadata),
	}
	if w.ParentUUID != nil {
		r.ParentUUID = *w.ParentUUID
	}
	if w.LogicalParentUUID != nil {
		r.LogicalParentUUID = *w.LogicalParentUUID
	}
	if len(w.APIErrorStatus) > 0 {
		var n float64
		if json.Unmarshal(w.APIErrorStatus, &n) == nil {
			r.APIErrorStatus = int(n)
		}
	}
	if len(w.Content) > 0 && w.Content[0] == '"' {
		_ = json.Unmarshal(w.Content, &r.Content) // a string is all Content holds
	}
	return r, nil
}

func nullToNil(m json.RawMessage) json.RawMessage {
	if len(m) == 0 || string(m) == "null" {
		return nil
	}
	return m
}
