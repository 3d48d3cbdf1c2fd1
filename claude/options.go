package claude

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"
)

// Permission modes accepted by --permission-mode and set_permission_mode.
const (
	PermissionDefault     = "default"
	PermissionAcceptEdits = "acceptEdits"
	PermissionBypass      = "bypassPermissions"
	PermissionPlan        = "plan"
	PermissionDontAsk     = "dontAsk"
	PermissionAuto        = "auto"
)

// DefaultEntrypoint is the CLAUDE_CODE_ENTRYPOINT value [Start] sets when the
// environment has none. It is the TypeScript SDK's value: the CLI treats
// known SDK entrypoints as headless hosts, and an unknown name risks CLI
// behaviour the SDK never sees. The value shows up in the User-Agent and in
// the transcript's `entrypoint` field.
const DefaultEntrypoint = "sdk-ts"

// DefaultStartupTimeout bounds the initialize handshake when
// Options.StartupTimeout is zero. The CLI normally answers in well under a
// second, but several seconds when many CLIs start at once.
const DefaultStartupTimeout = 60 * time.Second

// Options configure one CLI process. The zero value starts the CLI found by
// [FindExecutable], run in the current directory, with the CLI's own defaults.
//
// The fields map to the command line, the environment, and the initialize
// control request exactly as the TypeScript Agent SDK maps its options; the
// comment of each field names the flag.
type Options struct {
	// Executable is the CLI to run. Empty means [FindExecutable].
	Executable string
	// Launch, when set, starts the CLI instead of running Executable
	// (child.go): tests run a fake CLI in this process with it.
	Launch Launcher
	// Dir is the working directory of the CLI. Empty means ours.
	Dir string
	// Env is the environment of the CLI. Nil means os.Environ(). [Start]
	// removes NODE_OPTIONS and DEBUG and adds, unless present,
	// CLAUDE_CODE_ENTRYPOINT, CLAUDE_CODE_SDK_READS_SESSION_STATE=1 and
	// CLAUDE_CODE_STARTUP_FAILURE_RESULTS=1.
	Env []string
	// Entrypoint overrides [DefaultEntrypoint] when the environment has no
	// CLAUDE_CODE_ENTRYPOINT.
	Entrypoint string
	// EnableFileCheckpointing sets CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING,
	// which rewind_files needs.
	EnableFileCheckpointing bool

	// Model (--model) and FallbackModel (--fallback-model); they must differ.
	Model         string
	FallbackModel string
	// PermissionMode is --permission-mode (see the Permission* constants).
	PermissionMode string
	// AllowDangerouslySkipPermissions is --allow-dangerously-skip-permissions,
	// which makes bypassPermissions selectable later.
	AllowDangerouslySkipPermissions bool
	// PermissionPromptTool is --permission-prompt-tool. Empty means "stdio"
	// when CanUseTool or OnControlRequest is set, else none (the CLI then
	// denies what needs a prompt).
	PermissionPromptTool string
	// IncludePartialMessages is --include-partial-messages (stream events).
	IncludePartialMessages bool
	// ReplayUserMessages is --replay-user-messages: the CLI echoes each user
	// message (with its uuid) as a user frame.
	ReplayUserMessages bool
	// IncludeHookEvents is --include-hook-events.
	IncludeHookEvents bool

	// SessionID (--session-id) names a new session; it must not exist yet.
	SessionID string
	// Resume (--resume) continues an existing session; with ForkSession
	// (--fork-session) the history is copied into a new session.
	Resume      string
	ForkSession bool
	// ResumeSessionAt is --resume-session-at (a message uuid).
	ResumeSessionAt string
	// Continue is --continue: resume the latest session of Dir.
	Continue bool
	// NoSessionPersistence is --no-session-persistence.
	NoSessionPersistence bool
	// LockSession makes [Start] take an advisory lock on the session the
	// CLI writes (SessionID, else Resume) for the life of the CLI, so that
	// no two processes run one session at once: while another holds it,
	// Start fails with ErrSessionLocked before the CLI runs
	// (sessionlock.go).
	LockSession bool

	// MCPServers become the CLI's --mcp-config {"mcpServers":{…}}, passed
	// in a file only the user can read, never on the command line (they
	// hold credentials; see mcpconfig.go). Each value is marshalled as JSON
	// (a struct, a map or a json.RawMessage).
	MCPServers map[string]any
	// StrictMCPConfig is --strict-mcp-config.
	StrictMCPConfig bool
	// SettingSources is --setting-sources. Nil omits the flag; an empty,
	// non-nil slice passes an empty value, which isolates the CLI from all
	// settings files.
	SettingSources []string
	// Settings is --settings (a JSON object or a file path).
	Settings string
	// AllowedTools, DisallowedTools and Tools are --allowedTools,
	// --disallowedTools and --tools; nil omits a flag. An empty non-nil
	// Tools passes --tools= (no built-in tools).
	AllowedTools    []string
	DisallowedTools []string
	Tools           []string
	// AddDirs are additional directories (--add-dir, repeated).
	AddDirs []string
	// Agent is --agent.
	Agent string

	// MaxTurns is --max-turns (0 omits it); MaxBudgetUSD is
	// --max-budget-usd (0 omits it).
	MaxTurns     int
	MaxBudgetUSD float64
	// Thinking configures extended thinking; the zero value leaves the
	// CLI's default.
	Thinking Thinking
	// Effort is --effort (low, medium, high, xhigh, max).
	Effort string

	// SystemPrompt is sent in initialize as `systemPrompt`. Nil keeps the
	// CLI's full Claude Code system prompt (the SDK's "claude_code"
	// preset); []string{""} is what the SDK sends when given no prompt, a
	// bare identity line.
	SystemPrompt []string
	// AppendSystemPrompt is appended to the system prompt.
	AppendSystemPrompt string
	// Hooks registers hook callbacks per event ("PreToolUse", …); the CLI
	// calls HookCallback with one of the HookCallbackIDs.
	Hooks map[string][]HookMatcher
	// SDKMCPServers names MCP servers that live in this process: the CLI
	// talks to them through MCPMessage.
	SDKMCPServers []string
	// Agents defines subagents (name → AgentDefinition JSON).
	Agents map[string]json.RawMessage
	// InitializeExtra adds fields to the initialize request (title,
	// supportedDialogKinds, …). Fields set above take precedence.
	InitializeExtra map[string]any

	// ExtraArgs are appended to the command line as they are.
	ExtraArgs []string

	// CanUseTool answers can_use_tool requests. It runs in its own
	// goroutine; its context ends when the CLI withdraws the request or the
	// process ends.
	CanUseTool func(ctx context.Context, req CanUseToolRequest) (PermissionResult, error)
	// HookCallback answers hook_callback requests; the result (any JSON
	// value, typically a hook output object) is the answer.
	HookCallback func(ctx context.Context, req HookCallbackRequest) (any, error)
	// MCPMessage answers mcp_message requests with the JSON-RPC response of
	// the named SDK MCP server. A nil response (for notifications) sends the
	// empty result the SDK sends.
	MCPMessage func(ctx context.Context, req MCPMessageRequest) (json.RawMessage, error)
	// OnControlRequest answers every other request the CLI sends, and the
	// three above when their own callback is nil. Without it such requests
	// get an "unsupported" error answer.
	OnControlRequest func(ctx context.Context, req ControlRequest) (any, error)

	// StartupTimeout bounds the initialize handshake in [Start]. Zero means
	// [DefaultStartupTimeout].
	StartupTimeout time.Duration
	// CloseGrace and TermGrace are [Process.Close]'s waits after closing
	// stdin and after SIGTERM. Zero means the SDK's 2 s and 5 s.
	CloseGrace, TermGrace time.Duration
	// DeltaPace is how long the reader of the CLI's stdout waits, without
	// listening, before it reads on while a streamed block's deltas come
	// one at a time (see paceDeltas). Zero means [DefaultDeltaPace];
	// negative never waits.
	DeltaPace time.Duration
	// Stderr, if set, receives a copy of the CLI's stderr. It is written
	// from one goroutine; a slow writer slows the CLI down.
	Stderr io.Writer
	// Logger receives debug logs (skipped non-JSON lines, unanswerable
	// requests). Nil discards them.
	Logger *slog.Logger
}

// Thinking configures extended thinking. Type is "enabled" (with
// BudgetTokens, --max-thinking-tokens), "disabled" or "adaptive"; Display is
// --thinking-display (summarized, omitted, highlights).
type Thinking struct {
	Type         string
	BudgetTokens int
	Display      string
}

// A HookMatcher registers hook callbacks for one event in initialize.
type HookMatcher struct {
	Matcher         string   `json:"matcher,omitempty"`
	HookCallbackIDs []string `json:"hookCallbackIds"`
	Timeout         int      `json:"timeout,omitempty"`
}

// errSameFallback mirrors the SDK, which refuses a fallback equal to the
// main model.
var errSameFallback = errors.New("claude: FallbackModel must differ from Model")

// args returns the CLI arguments for o, in the order the SDK appends them;
// mcpConfig is the path of the file holding o.MCPServers (mcpConfigFile).
func (o *Options) args(mcpConfig string) ([]string, error) {
	a := []string{"--output-format", "stream-json", "--verbose", "--input-format", "stream-json"}
	flag := func(name, value string) { a = append(a, "--"+name+"="+value) }
	switch o.Thinking.Type {
	case "":
	case "enabled":
		if o.Thinking.BudgetTokens > 0 {
			flag("max-thinking-tokens", strconv.Itoa(o.Thinking.BudgetTokens))
		} else {
			flag("thinking", "adaptive")
		}
	case "disabled", "adaptive":
		flag("thinking", o.Thinking.Type)
	default:
		return nil, errors.New("claude: Thinking.Type must be enabled, disabled or adaptive")
	}
	if o.Thinking.Display != "" {
		flag("thinking-display", o.Thinking.Display)
	}
	if o.Effort != "" {
		flag("effort", o.Effort)
	}
	if o.MaxTurns > 0 {
		flag("max-turns", strconv.Itoa(o.MaxTurns))
	}
	if o.MaxBudgetUSD > 0 {
		flag("max-budget-usd", strconv.FormatFloat(o.MaxBudgetUSD, 'f', -1, 64))
	}
	if o.Model != "" {
		flag("model", o.Model)
	}
	if o.Agent != "" {
		flag("agent", o.Agent)
	}
	if tool := o.promptTool(); tool != "" {
		flag("permission-prompt-tool", tool)
	}
	if o.Continue {
		a = append(a, "--continue")
	}
	if o.Resume != "" {
		flag("resume", o.Resume)
	}
	if o.AllowedTools != nil {
		flag("allowedTools", strings.Join(o.AllowedTools, ","))
	}
	if o.DisallowedTools != nil {
		flag("disallowedTools", strings.Join(o.DisallowedTools, ","))
	}
	if o.Tools != nil {
		flag("tools", strings.Join(o.Tools, ","))
	}
	if mcpConfig != "" {
		a = append(a, "--mcp-config", mcpConfig)
	}
	if o.SettingSources != nil {
		flag("setting-sources", strings.Join(o.SettingSources, ","))
	}
	if o.StrictMCPConfig {
		a = append(a, "--strict-mcp-config")
	}
	if o.PermissionMode != "" {
		flag("permission-mode", o.PermissionMode)
	}
	if o.AllowDangerouslySkipPermissions {
		a = append(a, "--allow-dangerously-skip-permissions")
	}
	if o.FallbackModel != "" {
		if o.FallbackModel == o.Model {
			return nil, errSameFallback
		}
		flag("fallback-model", o.FallbackModel)
	}
	if o.IncludeHookEvents {
		a = append(a, "--include-hook-events")
	}
	if o.IncludePartialMessages {
		a = append(a, "--include-partial-messages")
	}
	if o.ReplayUserMessages {
		a = append(a, "--replay-user-messages")
	}
	for _, d := range o.AddDirs {
		flag("add-dir", d)
	}
	if o.ForkSession {
		a = append(a, "--fork-session")
	}
	if o.ResumeSessionAt != "" {
		flag("resume-session-at", o.ResumeSessionAt)
	}
	if o.SessionID != "" {
		flag("session-id", o.SessionID)
	}
	if o.NoSessionPersistence {
		a = append(a, "--no-session-persistence")
	}
	if o.Settings != "" {
		a = append(a, "--settings", o.Settings)
	}
	return append(a, o.ExtraArgs...), nil
}

func (o *Options) promptTool() string {
	if o.PermissionPromptTool != "" {
		return o.PermissionPromptTool
	}
	if o.CanUseTool != nil || o.OnControlRequest != nil {
		return "stdio"
	}
	return ""
}

// env returns the CLI environment for o (see [Options.Env]).
func (o *Options) env(base []string) []string {
	out := make([]string, 0, len(base)+4)
	has := func(key string) bool {
		for _, kv := range out {
			if k, _, _ := strings.Cut(kv, "="); k == key {
				return true
			}
		}
		return false
	}
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if k == "NODE_OPTIONS" || k == "DEBUG" {
			continue
		}
		out = append(out, kv)
	}
	if !has("CLAUDE_CODE_ENTRYPOINT") {
		ep := o.Entrypoint
		if ep == "" {
			ep = DefaultEntrypoint
		}
		out = append(out, "CLAUDE_CODE_ENTRYPOINT="+ep)
	}
	if !has("CLAUDE_CODE_SDK_READS_SESSION_STATE") {
		out = append(out, "CLAUDE_CODE_SDK_READS_SESSION_STATE=1")
	}
	if !has("CLAUDE_CODE_STARTUP_FAILURE_RESULTS") {
		out = append(out, "CLAUDE_CODE_STARTUP_FAILURE_RESULTS=1")
	}
	if o.EnableFileCheckpointing && !has("CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING") {
		out = append(out, "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=true")
	}
	return out
}

// initializeRequest returns the payload of the initialize control request.
func (o *Options) initializeRequest() map[string]any {
	req := make(map[string]any, len(o.InitializeExtra)+5)
	for k, v := range o.InitializeExtra {
		req[k] = v
	}
	if len(o.Hooks) > 0 {
		req["hooks"] = o.Hooks
	}
	if len(o.SDKMCPServers) > 0 {
		req["sdkMcpServers"] = o.SDKMCPServers
	}
	if len(o.Agents) > 0 {
		req["agents"] = o.Agents
	}
	if o.SystemPrompt != nil {
		req["systemPrompt"] = o.SystemPrompt
	}
	if o.AppendSystemPrompt != "" {
		req["appendSystemPrompt"] = o.AppendSystemPrompt
	}
	return req
}
