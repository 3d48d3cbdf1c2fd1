package claude

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// A Message is one frame the CLI wrote on stdout, other than the control
// protocol frames the [Process] answers itself.
//
// Type and Subtype come from the frame's envelope: Subtype is the `subtype`
// of system and result frames and the event type ("message_start",
// "content_block_delta", …) of stream events. Raw is the line exactly as the
// CLI wrote it, without the trailing newline; it is always set, so frames
// this package does not model can still be read by the caller.
//
// Body holds the frame decoded into its typed struct: one of
// *[AssistantMessage], *[UserFrame], *[StreamEvent], *[ResultMessage],
// *[RateLimitEvent], *[CommandLifecycle], *[ActiveGoal] or, for system frames,
// *[SystemInit], *[SessionStateChanged], *[SystemStatus], *[APIRetry],
// *[CompactBoundary], *[ModelFallback], *[ModelRefusalFallback],
// *[ModelRefusalNoFallback], *[Informational], *[PermissionDenied],
// *[TaskEvent], *[ThinkingTokens]. Body is nil for a type or subtype this
// package does not know.
//
// DecodeErr is set when the frame is valid JSON of a known kind but a field
// had an unexpected JSON type. Body is then filled as far as possible (the
// rules of [encoding/json]), so a new CLI that changes one field does not
// hide the rest of the frame.
type Message struct {
	Type      string
	Subtype   string
	Raw       json.RawMessage
	Body      any
	DecodeErr error

	// storage holds the frame and Raw of a streamed delta the reader
	// decoded (a *frame768 or *frame1024), for Recycle; nil otherwise.
	storage any
}

// Base holds the envelope fields that (almost) every CLI frame carries. The
// typed message structs embed it.
type Base struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype,omitempty"`
	UUID      string `json:"uuid,omitempty"`
	SessionID string `json:"session_id,omitempty"`
}

// errNotJSON reports a stdout line that is not a JSON object. The reader logs
// and skips such lines.
var errNotJSON = errors.New("not a JSON object")

// DecodeMessage decodes one stdout line of the CLI. It returns an error only
// when the line is not a JSON object; frames of unknown kinds decode to a
// Message with a nil Body. The returned Message keeps line as its Raw field,
// so the caller must not modify line afterwards.
func DecodeMessage(line []byte) (Message, error) {
	if ev, ok := decodeStreamEvent(line); ok {
		return streamEventMessage(line, ev), nil
	}
	return decodeMessage(line)
}

// streamEventMessage is the Message of a stream_event frame that
// decodeStreamEvent took.
func streamEventMessage(line []byte, ev *StreamEvent) Message {
	return Message{Type: "stream_event", Subtype: ev.Event.Type, Raw: line, Body: ev}
}

// decodeMessage is DecodeMessage with encoding/json, for every frame.
func decodeMessage(line []byte) (Message, error) {
	typ, sub, ok := peekEnvelope(line)
	if !ok {
		return Message{}, errNotJSON
	}
	m := Message{Type: typ, Subtype: sub, Raw: line}
	body := newBody(typ, sub)
	if body == nil {
		if !json.Valid(line) {
			return Message{}, errNotJSON
		}
		return m, nil
	}
	if err := json.Unmarshal(line, body); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			// encoding/json validates the whole input before decoding, so
			// any other error means the line is not JSON at all.
			return Message{}, errNotJSON
		}
		if u, ok := body.(*UserFrame); ok && te.Field == "message.content" && te.Value == "string" {
			err = fixStringContent(line, u)
		}
		if err != nil {
			m.DecodeErr = fmt.Errorf("claude: decoding %s frame: %w", kindName(typ, sub), err)
		}
	}
	m.Body = body
	if ev, ok := body.(*StreamEvent); ok {
		m.Subtype = ev.Event.Type
	}
	return m, nil
}

// fixStringContent redoes the decode of a user frame whose message content
// is a plain string, which the CLI writes for some synthetic and replayed
// messages. It returns the first remaining decode error, if any.
func fixStringContent(line []byte, u *UserFrame) error {
	var raw struct {
		UserFrame
		// This field shadows UserFrame.Message.
		Message struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	err := json.Unmarshal(line, &raw)
	c, cerr := decodeContent(raw.Message.Content)
	*u = raw.UserFrame
	u.Message = UserMessageBody{Role: raw.Message.Role, Content: c}
	if err != nil {
		return err
	}
	return cerr
}

func kindName(typ, sub string) string {
	if sub == "" {
		return typ
	}
	return typ + "/" + sub
}

// newBody returns a pointer to the typed struct for a frame kind, or nil for
// a kind this package does not model.
func newBody(typ, sub string) any {
	switch typ {
	case "assistant":
		return new(AssistantMessage)
	case "user":
		return new(UserFrame)
	case "stream_event":
		return new(StreamEvent)
	case "result":
		return new(ResultMessage)
	case "rate_limit_event":
		return new(RateLimitEvent)
	case "command_lifecycle":
		return new(CommandLifecycle)
	case "active_goal":
		return new(ActiveGoal)
	case "system":
		return newSystemBody(sub)
	}
	return nil
}

// peekEnvelope scans the top level of a JSON object for its "type" and
// "subtype" string members without decoding anything else. It does not
// assume any field order (the CLI's result frame has "type" in the middle).
// It reports false when line does not look like a JSON object; it does not
// fully validate the JSON, which the later decode does.
func peekEnvelope(line []byte) (typ, sub string, ok bool) {
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return "", "", false
	}
	i++
	for {
		i = skipSpace(line, i)
		if i >= len(line) {
			return "", "", false
		}
		if line[i] == '}' {
			return typ, sub, true
		}
		if line[i] != '"' {
			return "", "", false
		}
		kStart := i
		i = skipString(line, i)
		if i < 0 {
			return "", "", false
		}
		key := line[kStart+1 : i-1]
		i = skipSpace(line, i)
		if i >= len(line) || line[i] != ':' {
			return "", "", false
		}
		i = skipSpace(line, i+1)
		if i >= len(line) {
			return "", "", false
		}
		vStart := i
		i = skipValue(line, i)
		if i < 0 {
			return "", "", false
		}
		if line[vStart] == '"' && (string(key) == "type" || string(key) == "subtype") {
			s, good := unquote(line[vStart:i])
			if !good {
				return "", "", false
			}
			if string(key) == "type" {
				typ = s
			} else {
				sub = s
			}
		}
		i = skipSpace(line, i)
		if i >= len(line) {
			return "", "", false
		}
		switch line[i] {
		case ',':
			i++
		case '}':
			return typ, sub, true
		default:
			return "", "", false
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the JSON string starting at b[i],
// or -1 if it is not terminated.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// skipValue returns the index just past the JSON value starting at b[i], or
// -1 if it is obviously malformed. Nested strings are skipped with their
// escapes, so braces inside strings do not confuse the depth count.
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				if i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	default:
		// A number or a literal: runs until a delimiter.
		start := i
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				if i == start {
					return -1
				}
				return i
			}
			i++
		}
		return i
	}
}

// unquote decodes a JSON string literal. The common case, no escapes, needs
// no allocation beyond the result.
func unquote(q []byte) (string, bool) {
	if len(q) < 2 {
		return "", false
	}
	inner := q[1 : len(q)-1]
	for _, c := range inner {
		if c == '\\' {
			var s string
			if err := json.Unmarshal(q, &s); err != nil {
				// Fall back to Go quoting rules for odd escapes; a frame
				// whose type cannot be decoded is treated as unknown.
				u, err := strconv.Unquote(string(q))
				return u, err == nil
			}
			return s, true
		}
	}
	return string(inner), true
}
