package claude

import "encoding/json"

// newSystemBody returns the typed struct for a system subtype, or nil for a
// subtype this package does not model.
func newSystemBody(sub string) any {
	switch sub {
	case "init":
		return new(SystemInit)
	case "session_state_changed":
		return new(SessionStateChanged)
	case "status":
		return new(SystemStatus)
	case "api_retry":
		return new(APIRetry)
	case "compact_boundary":
		return new(CompactBoundary)
	case "session_title_changed":
		return new(SessionTitleChanged)
	case "model_fallback":
		return new(ModelFallback)
	case "model_refusal_fallback":
		return new(ModelRefusalFallback)
	case "model_refusal_no_fallback":
		return new(ModelRefusalNoFallback)
	case "informational":
		return new(Informational)
	case "permission_denied":
		return new(PermissionDenied)
	case "task_started", "task_updated", "task_progress", "task_notification", "background_tasks_changed":
		return new(TaskEvent)
	case "thinking_tokens":
		return new(ThinkingTokens)
	}
	return nil
}

// SystemInit is the system/init frame. The CLI writes it at the start of
// every turn (not at process start); Model and PermissionMode reflect
// set_model and set_permission_mode.
type SystemInit struct {
	Base
	CWD               string            `json:"cwd"`
	Tools             []string          `json:"tools"`
	MCPServers        []MCPServerState  `json:"mcp_servers"`
	Model             string            `json:"model"`
	PermissionMode    string            `json:"permissionMode"`
	SlashCommands     []string          `json:"slash_commands"`
	Agents            []string          `json:"agents"`
	Skills            []string          `json:"skills"`
	Plugins           json.RawMessage   `json:"plugins,omitempty"`
	APIKeySource      string            `json:"apiKeySource"`
	ClaudeCodeVersion string            `json:"claude_code_version"`
	OutputStyle       string            `json:"output_style"`
	Capabilities      []string          `json:"capabilities,omitempty"`
	MemoryPaths       map[string]string `json:"memory_paths,omitempty"`
	FastModeState     string            `json:"fast_mode_state,omitempty"`
	UserMessageUUIDs  []string          `json:"user_message_uuids,omitempty"`
}

// MCPServerState is one MCP server as system/init lists it.
type MCPServerState struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Source string `json:"source,omitempty"`
}

// Session states of [SessionStateChanged].
const (
	StateRunning        = "running"
	StateRequiresAction = "requires_action"
	StateIdle           = "idle"
)

// SessionStateChanged is system/session_state_changed, written when the
// environment has CLAUDE_CODE_SDK_READS_SESSION_STATE=1 (which [Start]
// sets). State "idle" means the CLI is quiescent: no turn and no background
// work that could start one.
type SessionStateChanged struct {
	Base
	State string `json:"state"`
}

// SystemStatus is system/status: "requesting" before each API request,
// "compacting" during compaction, and null (empty) when that ends.
type SystemStatus struct {
	Base
	Status           string   `json:"status"`
	PermissionMode   string   `json:"permissionMode,omitempty"`
	UserMessageUUIDs []string `json:"user_message_uuids,omitempty"`
	// CompactResult ends a compaction: "success" or "failed" (with
	// CompactError, which the CLI does not always give).
	CompactResult string `json:"compact_result,omitempty"`
	CompactError  string `json:"compact_error,omitempty"`
}

// APIRetry is system/api_retry, written before each retry sleep.
// ErrorStatus is nil for network errors.
type APIRetry struct {
	Base
	Attempt      int    `json:"attempt"`
	MaxRetries   int    `json:"max_retries"`
	RetryDelayMS int64  `json:"retry_delay_ms"`
	ErrorStatus  *int   `json:"error_status"`
	Error        string `json:"error"`
	// NoResponse is set when the API sent no response headers within the
	// first-byte window: how long the failed attempt waited, and how long
	// the retry will wait.
	NoResponse *struct {
		WaitedMS    int64 `json:"waited_ms"`
		RetryWaitMS int64 `json:"retry_wait_ms"`
	} `json:"no_response,omitempty"`
}

// CompactBoundary is system/compact_boundary, written when the conversation
// was compacted.
type CompactBoundary struct {
	Base
	CompactMetadata struct {
		Trigger    string `json:"trigger"` // "manual" (/compact) or "auto"
		PreTokens  int64  `json:"pre_tokens"`
		PostTokens int64  `json:"post_tokens"` // the context after compacting
		DurationMS int64  `json:"duration_ms"`
	} `json:"compact_metadata"`
}

// SessionTitleChanged is system/session_title_changed, written when the
// session is renamed (/rename, rename_session). Title is the new name,
// already cleaned and cut to 200 characters by the CLI.
type SessionTitleChanged struct {
	Base
	Title string `json:"title"`
}

// ModelFallback is system/model_fallback: --fallback-model engaged after an
// overload, a missing model, etc.
type ModelFallback struct {
	Base
	Trigger       string `json:"trigger"`
	OriginalModel string `json:"original_model"`
	FallbackModel string `json:"fallback_model"`
	Content       string `json:"content"`
}

// ModelRefusalFallback is system/model_refusal_fallback: the model refused
// and the CLI retries on another model. The assistant frames listed in
// RetractedMessageUUIDs are withdrawn.
type ModelRefusalFallback struct {
	Base
	Trigger                string   `json:"trigger"`
	Direction              string   `json:"direction"`
	Scope                  string   `json:"scope"`
	OriginalModel          string   `json:"original_model"`
	FallbackModel          string   `json:"fallback_model"`
	RequestID              string   `json:"request_id"`
	APIRefusalCategory     string   `json:"api_refusal_category"`
	APIRefusalExplanation  string   `json:"api_refusal_explanation"`
	RetractedMessageUUIDs  []string `json:"retracted_message_uuids"`
	RefusedUserMessageUUID string   `json:"refused_user_message_uuid"`
	Content                string   `json:"content"`
}

// ModelRefusalNoFallback is system/model_refusal_no_fallback: the model
// refused and there is no (further) fallback.
type ModelRefusalNoFallback struct {
	Base
	OriginalModel          string `json:"original_model"`
	RequestID              string `json:"request_id"`
	APIRefusalCategory     string `json:"api_refusal_category"`
	APIRefusalExplanation  string `json:"api_refusal_explanation"`
	RefusedUserMessageUUID string `json:"refused_user_message_uuid"`
	Content                string `json:"content"`
}

// Informational is system/informational, a notice for the user.
type Informational struct {
	Base
	Content string `json:"content"`
	Level   string `json:"level"`
}

// PermissionDenied is system/permission_denied: a tool call was denied
// without asking (no prompt surface, dontAsk mode, or a rule).
type PermissionDenied struct {
	Base
	ToolName           string `json:"tool_name"`
	ToolUseID          string `json:"tool_use_id"`
	Message            string `json:"message"`
	DecisionReasonType string `json:"decision_reason_type,omitempty"`
	AgentID            string `json:"agent_id,omitempty"`
}

// TaskEvent covers the background-task frames system/task_started,
// task_updated, task_progress, task_notification and
// background_tasks_changed (Subtype tells which). Only the fields of the
// frame's subtype are set.
type TaskEvent struct {
	Base
	TaskID         string          `json:"task_id,omitempty"`
	RunID          string          `json:"run_id,omitempty"`
	ToolUseID      string          `json:"tool_use_id,omitempty"`
	Description    string          `json:"description,omitempty"`
	TaskType       string          `json:"task_type,omitempty"`
	SubagentType   string          `json:"subagent_type,omitempty"`
	IsBackgrounded bool            `json:"is_backgrounded,omitempty"`
	Prompt         string          `json:"prompt,omitempty"`
	Status         string          `json:"status,omitempty"`
	Summary        string          `json:"summary,omitempty"`
	OutputFile     string          `json:"output_file,omitempty"`
	Patch          json.RawMessage `json:"patch,omitempty"`
	Usage          json.RawMessage `json:"usage,omitempty"`
	Tasks          json.RawMessage `json:"tasks,omitempty"`
}

// ThinkingTokens is system/thinking_tokens, an estimate written while a
// thinking block streams.
type ThinkingTokens struct {
	Base
	EstimatedTokens      int64 `json:"estimated_tokens"`
	EstimatedTokensDelta int64 `json:"estimated_tokens_delta"`
}
