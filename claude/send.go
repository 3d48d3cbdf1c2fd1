package claude

import (
	"context"
	"encoding/json"
	"errors"
)

// Priorities of a [UserMessage].
const (
	PriorityNow   = "now"
	PriorityNext  = "next"
	PriorityLater = "later"
)

// A UserMessage is a prompt for the CLI.
type UserMessage struct {
	// Content is the prompt as content blocks (text, image, document).
	Content []ContentBlock
	// UUID, when set, identifies the message: the CLI then writes
	// command_lifecycle frames for it, stamps user_message_uuid(s) on its
	// replies, and uses it as the transcript uuid (needed by RewindFiles).
	UUID string
	// Priority is "now", "next" or "later" (empty: the CLI's default).
	Priority string
	// NoQuery appends the message to the conversation without a model
	// call (shouldQuery:false); the CLI answers with an empty result.
	NoQuery bool
	// ParentToolUseID is set for messages aimed at a subagent.
	ParentToolUseID string
}

// Text returns a UserMessage with one text block.
func Text(text string) UserMessage {
	return UserMessage{Content: []ContentBlock{TextBlock(text)}}
}

// wireUser is the stdin shape of a user message.
type wireUser struct {
	Type            string          `json:"type"`
	SessionID       string          `json:"session_id"`
	Message         UserMessageBody `json:"message"`
	ParentToolUseID *string         `json:"parent_tool_use_id"`
	UUID            string          `json:"uuid,omitempty"`
	Priority        string          `json:"priority,omitempty"`
	ShouldQuery     *bool           `json:"shouldQuery,omitempty"`
}

// Send writes a user message. It returns once the whole line is written,
// not when the turn ends: the turn's frames arrive on Messages and end with
// a result. Messages sent while a turn runs are queued by the CLI (and may
// be coalesced into one turn). ctx bounds only the wait for other writers.
func (p *Process) Send(ctx context.Context, m UserMessage) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(m.Content) == 0 {
		return errors.New("claude: user message has no content")
	}
	w := wireUser{
		Type:      "user",
		Message:   UserMessageBody{Role: "user", Content: m.Content},
		UUID:      m.UUID,
		Priority:  m.Priority,
		SessionID: "",
	}
	if m.ParentToolUseID != "" {
		w.ParentToolUseID = &m.ParentToolUseID
	}
	if m.NoQuery {
		f := false
		w.ShouldQuery = &f
	}
	return p.writeValue(ctx, w)
}

// SendRaw writes one arbitrary JSON object as a stdin line, for message
// kinds this package does not model. raw must be a JSON object; it is
// compacted onto one line.
func (p *Process) SendRaw(ctx context.Context, raw json.RawMessage) error {
	if _, _, ok := peekEnvelope(raw); !ok || !json.Valid(raw) {
		return errors.New("claude: SendRaw needs a JSON object")
	}
	return p.writeValue(ctx, raw)
}

// writeValue marshals v onto one stdin line and writes it. A write that
// ctx ended before it began returns ctx's error.
func (p *Process) writeValue(ctx context.Context, v any) error {
	line, err := marshalLine(v)
	if err != nil {
		return err
	}
	if err := p.writeLine(ctx.Done(), line); err != nil {
		if errors.Is(err, errCanceledWrite) {
			return ctx.Err()
		}
		return err
	}
	return nil
}
