package claude

import "encoding/json"

// SyntheticModel is the model name of assistant messages the CLI makes up
// itself (API errors, refusals, usage limits) instead of receiving them from
// the API.
const SyntheticModel = "<synthetic>"

// An APIMessage is a Messages API message object as the CLI forwards it.
type APIMessage struct {
	ID           string          `json:"id"`
	Type         string          `json:"type"`
	Role         string          `json:"role"`
	Model        string          `json:"model"`
	Content      Content         `json:"content"`
	StopReason   string          `json:"stop_reason"`
	StopSequence string          `json:"stop_sequence"`
	StopDetails  json.RawMessage `json:"stop_details,omitempty"`
	Usage        *Usage          `json:"usage,omitempty"`
}

// Usage is the token usage of an API response or of a turn.
type Usage struct {
	InputTokens              int64  `json:"input_tokens"`
	OutputTokens             int64  `json:"output_tokens"`
	CacheCreationInputTokens int64  `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64  `json:"cache_read_input_tokens"`
	ServiceTier              string `json:"service_tier,omitempty"`
}

// An AssistantMessage is an `assistant` frame. The CLI writes one per
// completed content block, before that block's content_block_stop stream
// event. Frames the CLI makes up itself after API failures have
// IsAPIErrorMessage set, Error naming the failure class and Message.Model
// equal to [SyntheticModel]; see [AssistantMessage.IsSynthetic].
type AssistantMessage struct {
	Base
	Message         APIMessage `json:"message"`
	ParentToolUseID string     `json:"parent_tool_use_id"`
	RequestID       string     `json:"request_id,omitempty"`
	Timestamp       string     `json:"timestamp,omitempty"`

	// Error is the SDK's failure class: authentication_failed, billing_error,
	// rate_limit, overloaded, invalid_request, model_not_found,
	// server_error, unknown, max_output_tokens, …
	Error             string          `json:"error,omitempty"`
	IsAPIErrorMessage bool            `json:"is_api_error_message,omitempty"`
	APIErrorStatus    *int            `json:"api_error_status,omitempty"`
	APIErrorType      string          `json:"api_error_type,omitempty"`
	APIError          string          `json:"api_error,omitempty"`
	APIErrorParams    json.RawMessage `json:"api_error_params,omitempty"`
	RefusedMessageID  string          `json:"refused_message_id,omitempty"`

	// Aborted is set on the partial message of an interrupted stream.
	Aborted bool `json:"aborted,omitempty"`
	// Supersedes lists the uuids of earlier assistant frames this one
	// replaces (after a refusal fallback).
	Supersedes []string `json:"supersedes,omitempty"`

	UserMessageUUID    string          `json:"user_message_uuid,omitempty"`
	UserMessageUUIDs   []string        `json:"user_message_uuids,omitempty"`
	AgentID            string          `json:"agent_id,omitempty"`
	SubagentType       string          `json:"subagent_type,omitempty"`
	TaskDescription    string          `json:"task_description,omitempty"`
	ToolUseMeta        json.RawMessage `json:"tool_use_meta,omitempty"`
	ThinkingDurationMS int64           `json:"thinking_duration_ms,omitempty"`
}

// IsSynthetic reports whether the CLI made this message up (an API error,
// refusal or usage-limit text) rather than receiving it from the model.
func (a *AssistantMessage) IsSynthetic() bool {
	return a.IsAPIErrorMessage || a.Message.Model == SyntheticModel
}

// A UserMessageBody is the `message` of a user frame.
type UserMessageBody struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// A UserFrame is a `user` frame the CLI writes: tool results, prompts it
// injects itself (interrupt markers, refusal retries, max-tokens notes),
// replays of local commands and, with --replay-user-messages, echoes of the
// host's own messages.
type UserFrame struct {
	Base
	Message         UserMessageBody `json:"message"`
	ParentToolUseID string          `json:"parent_tool_use_id"`
	Timestamp       string          `json:"timestamp,omitempty"`

	// ToolUseResult is the tool's structured output (its shape depends on
	// the tool, and it can be a plain string).
	ToolUseResult  json.RawMessage  `json:"tool_use_result,omitempty"`
	ToolResultMeta []ToolResultMeta `json:"tool_result_meta,omitempty"`

	IsSynthetic      bool   `json:"isSynthetic,omitempty"`
	IsReplay         bool   `json:"isReplay,omitempty"`
	RefusalRetry     bool   `json:"refusal_retry,omitempty"`
	RefusedMessageID string `json:"refused_message_id,omitempty"`
	AgentID          string `json:"agent_id,omitempty"`
}

// ToolResultMeta says how the CLI decided about one tool call.
type ToolResultMeta struct {
	ID                 string              `json:"id"`
	PermissionDecision *PermissionDecision `json:"permission_decision,omitempty"`
	NonExecutionKind   string              `json:"non_execution_kind,omitempty"`
}

// PermissionDecision is the permission outcome recorded for a tool call.
type PermissionDecision struct {
	Decision   string `json:"decision"`
	Source     string `json:"source,omitempty"`
	ReasonType string `json:"reason_type,omitempty"`
}

// A StreamEvent is a `stream_event` frame (only with
// --include-partial-messages): one raw Messages API SSE event.
type StreamEvent struct {
	Base
	Event            APIEvent `json:"event"`
	ParentToolUseID  string   `json:"parent_tool_use_id"`
	APIMessageID     string   `json:"api_message_id,omitempty"`
	TTFTMS           *int64   `json:"ttft_ms,omitempty"`
	ThinkingDisplay  string   `json:"thinking_display,omitempty"`
	UserMessageUUID  string   `json:"user_message_uuid,omitempty"`
	UserMessageUUIDs []string `json:"user_message_uuids,omitempty"`
}

// An APIEvent is a Messages API streaming event: message_start,
// content_block_start, content_block_delta, content_block_stop,
// message_delta or message_stop.
type APIEvent struct {
	Type         string        `json:"type"`
	Index        int           `json:"index"`
	Message      *APIMessage   `json:"message,omitempty"`
	ContentBlock *ContentBlock `json:"content_block,omitempty"`
	Delta        *Delta        `json:"delta,omitempty"`
	Usage        *Usage        `json:"usage,omitempty"`
	// AbandonedBlocks is set on the message_stop the CLI synthesizes after
	// an interrupted stream.
	AbandonedBlocks json.RawMessage `json:"abandoned_blocks,omitempty"`
}

// A Delta is the delta of a content_block_delta event (Type text_delta,
// thinking_delta, signature_delta, input_json_delta, citations_delta) or of
// a message_delta event (StopReason set, Type empty).
type Delta struct {
	Type        string          `json:"type,omitempty"`
	Text        string          `json:"text,omitempty"`
	Thinking    string          `json:"thinking,omitempty"`
	Signature   string          `json:"signature,omitempty"`
	PartialJSON string          `json:"partial_json,omitempty"`
	Citation    json.RawMessage `json:"citation,omitempty"`

	StopReason   string          `json:"stop_reason,omitempty"`
	StopSequence string          `json:"stop_sequence,omitempty"`
	StopDetails  json.RawMessage `json:"stop_details,omitempty"`
}

// Result subtypes.
const (
	ResultSuccess                         = "success"
	ResultErrorDuringExecution            = "error_during_execution"
	ResultErrorMaxTurns                   = "error_max_turns"
	ResultErrorMaxBudgetUSD               = "error_max_budget_usd"
	ResultErrorMaxStructuredOutputRetries = "error_max_structured_output_retries"
)

// A ResultMessage is the `result` frame that ends every turn. Note that an
// API failure is subtype "success" with IsError set; see the table in the
// protocol notes.
type ResultMessage struct {
	Base
	IsError        bool     `json:"is_error"`
	StopReason     string   `json:"stop_reason"`
	TerminalReason string   `json:"terminal_reason,omitempty"`
	Result         string   `json:"result,omitempty"`
	Errors         []string `json:"errors,omitempty"`

	// Usage is the usage of this turn; ModelUsage and TotalCostUSD are
	// cumulative over the process (and a resumed session).
	Usage        *Usage                `json:"usage,omitempty"`
	ModelUsage   map[string]ModelUsage `json:"modelUsage,omitempty"`
	TotalCostUSD float64               `json:"total_cost_usd"`

	APIErrorStatus *int   `json:"api_error_status,omitempty"`
	APIErrorType   string `json:"api_error_type,omitempty"`
	APIError       string `json:"api_error,omitempty"`

	NumTurns          int                `json:"num_turns"`
	DurationMS        int64              `json:"duration_ms"`
	DurationAPIMS     int64              `json:"duration_api_ms"`
	PermissionDenials []PermissionDenial `json:"permission_denials,omitempty"`
	ResultIndex       int                `json:"result_index"`
	UserMessageUUID   string             `json:"user_message_uuid,omitempty"`
	UserMessageUUIDs  []string           `json:"user_message_uuids,omitempty"`
	FastModeState     string             `json:"fast_mode_state,omitempty"`

	// StartupFailureReason is set on the error result the CLI writes before
	// exiting on a known startup failure (bypass_root, cwd_unavailable,
	// config_file_invalid, …), when CLAUDE_CODE_STARTUP_FAILURE_RESULTS is
	// set (which [Start] does).
	StartupFailureReason string `json:"startup_failure_reason,omitempty"`
}

// ModelUsage is the cumulative usage of one model.
type ModelUsage struct {
	InputTokens              int64   `json:"inputTokens"`
	OutputTokens             int64   `json:"outputTokens"`
	CacheReadInputTokens     int64   `json:"cacheReadInputTokens"`
	CacheCreationInputTokens int64   `json:"cacheCreationInputTokens"`
	WebSearchRequests        int64   `json:"webSearchRequests"`
	CostUSD                  float64 `json:"costUSD"`
	ContextWindow            int64   `json:"contextWindow"`
	MaxOutputTokens          int64   `json:"maxOutputTokens"`
	ThinkingTokens           int64   `json:"thinkingTokens"`
}

// A PermissionDenial is a tool call that was not allowed during the turn.
type PermissionDenial struct {
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	ToolInput json.RawMessage `json:"tool_input,omitempty"`
}

// A RateLimitEvent reports claude.ai subscription rate-limit state.
type RateLimitEvent struct {
	Base
	RateLimitInfo RateLimitInfo `json:"rate_limit_info"`
}

// RateLimitInfo is the payload of a [RateLimitEvent].
type RateLimitInfo struct {
	Status                string   `json:"status"`
	ResetsAt              int64    `json:"resetsAt,omitempty"`
	RateLimitType         string   `json:"rateLimitType,omitempty"`
	Utilization           *float64 `json:"utilization,omitempty"`
	OverageStatus         string   `json:"overageStatus,omitempty"`
	OverageDisabledReason string   `json:"overageDisabledReason,omitempty"`
	IsUsingOverage        bool     `json:"isUsingOverage,omitempty"`
	SurpassedThreshold    *float64 `json:"surpassedThreshold,omitempty"`
}

// A CommandLifecycle frame tracks a user message sent with a uuid through
// the states queued, started, completed and cancelled.
type CommandLifecycle struct {
	Base
	CommandUUID string `json:"command_uuid"`
	State       string `json:"state"`
}

// An ActiveGoal frame carries the state of a `/goal` workflow; Value is nil
// when the goal was cleared.
type ActiveGoal struct {
	Base
	Value *GoalState `json:"value"`
}

// GoalState is the state of an active `/goal`.
type GoalState struct {
	Condition     string `json:"condition"`
	Iterations    int    `json:"iterations"`
	SetAt         int64  `json:"set_at"`
	LastReason    string `json:"last_reason,omitempty"`
	TokensAtStart int64  `json:"tokens_at_start,omitempty"`
}
