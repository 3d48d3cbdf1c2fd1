package fakeapi

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Step kinds. The package documentation describes what each one answers.
const (
	KindText     = "text"
	KindBlocks   = "blocks"
	KindRefusal  = "refusal"
	KindError    = "error"
	KindSSEError = "sse_error"
	KindHang     = "hang"
)

// Step is one scripted answer of the fake API. Its JSON form is the one accepted by
// POST /__script, so scripts can live in files and be shared with the fakeapi command.
type Step struct {
	Kind string `json:"kind"`

	// Text is the answer text (text), the partial text (refusal), the first delta (hang)
	// or the non-stream answer (sse_error with nonstream_status 200).
	Text string `json:"text,omitempty"`
	// Chunks and ChunkSize control how text is split into text_delta events.
	Chunks    int `json:"chunks,omitempty"`
	ChunkSize int `json:"chunk_size,omitempty"`

	Blocks     []Block `json:"blocks,omitempty"`
	StopReason string  `json:"stop_reason,omitempty"`

	// Category and Explanation fill a refusal's stop_details; empty means null.
	Category    string `json:"category,omitempty"`
	Explanation string `json:"explanation,omitempty"`

	// Status, Type and Message describe an HTTP error (error) or an SSE error (sse_error).
	Status          int    `json:"status,omitempty"`
	Type            string `json:"type,omitempty"`
	Message         string `json:"message,omitempty"`
	NonstreamStatus int    `json:"nonstream_status,omitempty"`

	// HangS is how long a hang step keeps the stream open; 0 means until the client leaves.
	HangS float64 `json:"hang_s,omitempty"`

	Repeat       int               `json:"repeat,omitempty"`
	DelayMS      int               `json:"delay_ms,omitempty"`
	ChunkDelayMS int               `json:"chunk_delay_ms,omitempty"`
	Usage        map[string]any    `json:"usage,omitempty"`
	Model        string            `json:"model,omitempty"`
	Headers      map[string]string `json:"headers,omitempty"`
	Match        *Match            `json:"match,omitempty"`
}

// Block is one content block of a blocks step: text, thinking or tool_use.
type Block struct {
	Type      string `json:"type"`
	Text      string `json:"text,omitempty"`
	Thinking  string `json:"thinking,omitempty"`
	Signature string `json:"signature,omitempty"`
	ID        string `json:"id,omitempty"`
	Name      string `json:"name,omitempty"`
	// Input is the tool input: any JSON-marshalable value, or raw JSON as a
	// json.RawMessage, []byte or string.
	Input any `json:"input,omitempty"`
}

// Match restricts which requests may consume a step. Zero fields do not constrain.
type Match struct {
	HasTools         *bool  `json:"has_tools,omitempty"`
	ModelContains    string `json:"model_contains,omitempty"`
	ToolsInclude     Names  `json:"tools_include,omitempty"`
	ToolsExclude     Names  `json:"tools_exclude,omitempty"`
	SystemContains   string `json:"system_contains,omitempty"`
	LastUserContains string `json:"last_user_contains,omitempty"`
	Stream           *bool  `json:"stream,omitempty"`
}

// Names is a list of tool names. In JSON it may also be written as a single string,
// as in {"tools_exclude":"AskUserQuestion"}.
type Names []string

// UnmarshalJSON accepts a string or a list of strings.
func (n *Names) UnmarshalJSON(data []byte) error {
	var one string
	if err := json.Unmarshal(data, &one); err == nil {
		*n = Names{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(data, &many); err != nil {
		return fmt.Errorf("fakeapi: tool names must be a string or a list of strings: %w", err)
	}
	*n = many
	return nil
}

// Bool returns a pointer to v, for the optional fields of [Match].
func Bool(v bool) *bool { return &v }

// matches reports whether req satisfies every condition of m. A nil Match accepts all.
func (m *Match) matches(req *Request) bool {
	if m == nil {
		return true
	}
	if m.HasTools != nil && *m.HasTools != (len(req.Tools) > 0) {
		return false
	}
	if m.Stream != nil && *m.Stream != req.Stream {
		return false
	}
	if m.ModelContains != "" && !strings.Contains(req.Model, m.ModelContains) {
		return false
	}
	for _, name := range m.ToolsInclude {
		if !slices.Contains(req.Tools, name) {
			return false
		}
	}
	for _, name := range m.ToolsExclude {
		if slices.Contains(req.Tools, name) {
			return false
		}
	}
	if m.SystemContains != "" && !strings.Contains(req.System, m.SystemContains) {
		return false
	}
	if m.LastUserContains != "" && !strings.Contains(req.LastUserText, m.LastUserContains) {
		return false
	}
	return true
}

// Validate reports a step the server could not answer, so that scripts posted over HTTP
// or loaded from files fail loudly instead of at request time. Script and Append accept
// invalid steps anyway; such a step answers HTTP 500 when used.
func (s *Step) Validate() error {
	switch s.Kind {
	case "", KindText, KindRefusal, KindSSEError, KindHang:
	case KindBlocks:
		for i, b := range s.Blocks {
			switch b.Type {
			case "text", "thinking", "tool_use":
			default:
				return fmt.Errorf("fakeapi: block %d: unknown type %q", i, b.Type)
			}
		}
	case KindError:
		if s.Status < 400 || s.Status > 599 {
			return fmt.Errorf("fakeapi: error step needs a 4xx/5xx status, got %d", s.Status)
		}
	default:
		return fmt.Errorf("fakeapi: unknown step kind %q", s.Kind)
	}
	if s.Chunks < 0 || s.ChunkSize < 0 {
		return fmt.Errorf("fakeapi: chunks and chunk_size must not be negative")
	}
	return nil
}

// Text answers with a plain text message that ends the turn.
func Text(s string) Step { return Step{Kind: KindText, Text: s} }

// ToolUse answers with a single tool_use block, so the CLI runs the tool and calls again.
func ToolUse(id, name string, input any) Step {
	return Step{Kind: KindBlocks, Blocks: []Block{{Type: "tool_use", ID: id, Name: name, Input: input}}}
}

// Thinking answers with a thinking block followed by a text block.
func Thinking(thought, text string) Step {
	return Step{Kind: KindBlocks, Blocks: []Block{
		{Type: "thinking", Thinking: thought, Signature: "sig_fake"},
		{Type: "text", Text: text},
	}}
}

// Refusal answers with the partial text and stop_reason "refusal". Empty category or
// explanation are sent as null.
func Refusal(partial, category, explanation string) Step {
	return Step{Kind: KindRefusal, Text: partial, Category: category, Explanation: explanation}
}

// HTTPError answers with an HTTP error status and an Anthropic error body. Empty errType
// and message get defaults derived from the status.
func HTTPError(status int, errType, message string) Step {
	return Step{Kind: KindError, Status: status, Type: errType, Message: message}
}

// SSEError answers a stream with HTTP 200 and an overloaded SSE error event, and a
// non-stream request with nonstreamStatus (0 means 529). It repeats forever, because the
// CLI retries the stream and then falls back to a non-stream request.
func SSEError(nonstreamStatus int) Step {
	return Step{Kind: KindSSEError, NonstreamStatus: nonstreamStatus, Repeat: -1}
}

// Hang starts a text message and keeps the stream open for seconds (0: until the client
// disconnects), for interrupt tests.
func Hang(seconds float64) Step { return Step{Kind: KindHang, HangS: seconds} }

// Times returns s set to answer n requests (-1: forever).
func (s Step) Times(n int) Step {
	s.Repeat = n
	return s
}

// When returns s restricted to the requests that satisfy m.
func (s Step) When(m Match) Step {
	s.Match = &m
	return s
}
