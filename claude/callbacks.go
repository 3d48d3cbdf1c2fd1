package claude

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
)

// A CanUseToolRequest asks whether a tool may run. Input is the tool input
// as the model wrote it; PermissionSuggestions are PermissionUpdate objects
// the host may send back in [PermissionResult.UpdatedPermissions].
type CanUseToolRequest struct {
	RequestID               string            `json:"-"`
	ToolName                string            `json:"tool_name"`
	DisplayName             string            `json:"display_name,omitempty"`
	Input                   json.RawMessage   `json:"input"`
	Description             string            `json:"description,omitempty"`
	Title                   string            `json:"title,omitempty"`
	ToolUseID               string            `json:"tool_use_id"`
	PermissionSuggestions   []json.RawMessage `json:"permission_suggestions,omitempty"`
	BlockedPath             string            `json:"blocked_path,omitempty"`
	DecisionReason          string            `json:"decision_reason,omitempty"`
	DecisionReasonType      string            `json:"decision_reason_type,omitempty"`
	MCPServer               *MCPServerRef     `json:"mcp_server,omitempty"`
	RequiresUserInteraction bool              `json:"requires_user_interaction,omitempty"`
	AgentID                 string            `json:"agent_id,omitempty"`

	// Raw is the whole request object, for fields not modelled here.
	Raw json.RawMessage `json:"-"`

	// From is the process that asked, and FramesBefore how many frames it
	// had written before it asked: the first FramesBefore frames Messages
	// (and TryMessage) give. The request is answered on a goroutine of its
	// own, so it can overtake frames the consumer has not taken yet, the
	// call it is about and its turn's start among them; a consumer that
	// counts what it took from From can take the rest first.
	From         *Process `json:"-"`
	FramesBefore uint64   `json:"-"`
}

// MCPServerRef names the MCP server a tool belongs to.
type MCPServerRef struct {
	Name   string `json:"name"`
	Source string `json:"source,omitempty"`
}

// A PermissionResult answers a [CanUseToolRequest]. Use [Allow] and [Deny].
type PermissionResult struct {
	// Behavior is "allow" or "deny".
	Behavior string `json:"behavior"`
	// UpdatedInput replaces the tool input (allow only); nil keeps it.
	UpdatedInput json.RawMessage `json:"updatedInput,omitempty"`
	// UpdatedPermissions are PermissionUpdate objects to apply (allow only).
	UpdatedPermissions []json.RawMessage `json:"updatedPermissions,omitempty"`
	// Message tells the model why (deny only).
	Message string `json:"message,omitempty"`
	// Interrupt also stops the turn (deny only).
	Interrupt bool `json:"interrupt,omitempty"`
	// ToolUseID is filled in from the request when empty, as the SDK does.
	ToolUseID string `json:"toolUseID,omitempty"`
}

// Allow permits the tool call, optionally with a changed input.
func Allow(updatedInput json.RawMessage) PermissionResult {
	return PermissionResult{Behavior: "allow", UpdatedInput: updatedInput}
}

// Deny refuses the tool call; the message is shown to the model.
func Deny(message string) PermissionResult {
	return PermissionResult{Behavior: "deny", Message: message}
}

// A HookCallbackRequest runs a hook registered through Options.Hooks.
type HookCallbackRequest struct {
	RequestID  string          `json:"-"`
	CallbackID string          `json:"callback_id"`
	Input      json.RawMessage `json:"input"`
	ToolUseID  string          `json:"tool_use_id,omitempty"`
	// Hook is Input decoded as far as the common fields go.
	Hook HookInput `json:"-"`
	// Raw is the whole request object.
	Raw json.RawMessage `json:"-"`
}

// HookInput holds the common fields of a hook's input.
type HookInput struct {
	HookEventName  string          `json:"hook_event_name"`
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	CWD            string          `json:"cwd"`
	PermissionMode string          `json:"permission_mode"`
	ToolName       string          `json:"tool_name,omitempty"`
	ToolInput      json.RawMessage `json:"tool_input,omitempty"`
	ToolResponse   json.RawMessage `json:"tool_response,omitempty"`
	ToolUseID      string          `json:"tool_use_id,omitempty"`
}

// An MCPMessageRequest carries one JSON-RPC message from the CLI to an SDK
// MCP server (Options.SDKMCPServers).
type MCPMessageRequest struct {
	RequestID  string          `json:"-"`
	ServerName string          `json:"server_name"`
	Message    json.RawMessage `json:"message"`
	Raw        json.RawMessage `json:"-"`
}

// A ControlRequest is any request the CLI sends, as given to
// Options.OnControlRequest. Raw is the request object (with its subtype).
type ControlRequest struct {
	RequestID string
	Subtype   string
	Raw       json.RawMessage
}

// mcpNotificationAck is what the SDK answers for a JSON-RPC notification.
var mcpNotificationAck = json.RawMessage(`{"jsonrpc":"2.0","result":{},"id":0}`)

// errHandlerPanic is the text the CLI gets when a callback panics; the
// panic value itself could hold anything, so it is only logged.
var errHandlerPanic = errors.New("internal error in the host's handler")

// handleRequest runs the callback for a CLI request in its own goroutine,
// so a permission prompt waiting for a human never blocks reading.
func (p *Process) handleRequest(line []byte) {
	var f struct {
		RequestID string          `json:"request_id"`
		Request   json.RawMessage `json:"request"`
	}
	if err := json.Unmarshal(line, &f); err != nil || f.RequestID == "" {
		p.skipLine(line)
		return
	}
	_, sub, _ := peekEnvelope(f.Request)
	p.mu.Lock()
	if p.eof {
		p.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(p.ctx)
	p.incoming[f.RequestID] = cancel
	before := p.written // the reader is sequential: every frame written before the request
	p.mu.Unlock()
	p.bg.Add(1)
	go func() {
		defer p.bg.Done()
		resp, err := p.dispatch(ctx, f.RequestID, sub, f.Request, before)
		p.mu.Lock()
		_, live := p.incoming[f.RequestID]
		delete(p.incoming, f.RequestID)
		p.mu.Unlock()
		cancel()
		if live {
			p.answer(f.RequestID, resp, err)
		}
	}()
}

// handleCancel withdraws a CLI request: its callback's context ends and it
// is not answered.
func (p *Process) handleCancel(line []byte) {
	var f struct {
		RequestID string `json:"request_id"`
	}
	if err := json.Unmarshal(line, &f); err != nil {
		p.skipLine(line)
		return
	}
	p.mu.Lock()
	cancel, ok := p.incoming[f.RequestID]
	delete(p.incoming, f.RequestID)
	p.mu.Unlock()
	if ok {
		cancel()
	}
}

// dispatch calls the callback for one request and returns the response
// payload. A panic becomes an error answer.
func (p *Process) dispatch(ctx context.Context, id, sub string, raw json.RawMessage, before uint64) (resp any, err error) {
	defer func() {
		if r := recover(); r != nil {
			p.log.Error("claude: control request handler panicked", "subtype", sub, "panic", r, "stack", string(debug.Stack()))
			resp, err = nil, errHandlerPanic
		}
	}()
	o := &p.opts
	switch {
	case sub == "can_use_tool" && o.CanUseTool != nil:
		var req CanUseToolRequest
		if err := decodeLenient(raw, &req); err != nil {
			return nil, err
		}
		req.RequestID, req.Raw = id, raw
		req.From, req.FramesBefore = p, before
		res, err := o.CanUseTool(ctx, req)
		if err != nil {
			return nil, err
		}
		return res.wire(req.ToolUseID)
	case sub == "hook_callback" && o.HookCallback != nil:
		var req HookCallbackRequest
		if err := decodeLenient(raw, &req); err != nil {
			return nil, err
		}
		req.RequestID, req.Raw = id, raw
		if len(req.Input) > 0 {
			_ = decodeLenient(req.Input, &req.Hook)
		}
		out, err := o.HookCallback(ctx, req)
		if out == nil && err == nil {
			out = struct{}{}
		}
		return out, err
	case sub == "mcp_message" && o.MCPMessage != nil:
		var req MCPMessageRequest
		if err := decodeLenient(raw, &req); err != nil {
			return nil, err
		}
		req.RequestID, req.Raw = id, raw
		out, err := o.MCPMessage(ctx, req)
		if err != nil {
			return nil, err
		}
		if len(out) == 0 {
			out = mcpNotificationAck
		}
		return map[string]json.RawMessage{"mcp_response": out}, nil
	case o.OnControlRequest != nil:
		out, err := o.OnControlRequest(ctx, ControlRequest{RequestID: id, Subtype: sub, Raw: raw})
		if out == nil && err == nil {
			out = struct{}{}
		}
		return out, err
	}
	return nil, fmt.Errorf("Unsupported control request subtype: %s", sub)
}

// decodeLenient decodes like json.Unmarshal but accepts a field of an
// unexpected JSON type (the rest still decodes), so that a CLI that changes
// one field does not break the callback.
func decodeLenient(raw json.RawMessage, v any) error {
	err := json.Unmarshal(raw, v)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return nil
	}
	if err != nil {
		return errors.New("malformed request")
	}
	return nil
}

// wire validates r and fills in the defaults the SDK fills in.
func (r PermissionResult) wire(toolUseID string) (PermissionResult, error) {
	switch r.Behavior {
	case "allow":
	case "deny":
		if r.Message == "" {
			r.Message = "Permission denied"
		}
	default:
		return r, fmt.Errorf("invalid permission behavior %q", r.Behavior)
	}
	if r.ToolUseID == "" {
		r.ToolUseID = toolUseID
	}
	return r, nil
}

// answer writes the response to a CLI request: success with resp, or an
// error answer with err's text.
func (p *Process) answer(id string, resp any, err error) {
	type body struct {
		Subtype   string          `json:"subtype"`
		RequestID string          `json:"request_id"`
		Response  json.RawMessage `json:"response,omitempty"`
		Error     string          `json:"error,omitempty"`
	}
	b := body{Subtype: "success", RequestID: id}
	if err == nil {
		raw, merr := json.Marshal(resp)
		if merr != nil {
			p.log.Error("claude: cannot encode control response", "err", merr)
			err = errors.New("internal error: the host's response could not be encoded")
		} else {
			b.Response = raw
		}
	}
	if err != nil {
		b = body{Subtype: "error", RequestID: id, Error: err.Error()}
	}
	line, merr := marshalLine(struct {
		Type     string `json:"type"`
		Response body   `json:"response"`
	}{"control_response", b})
	if merr != nil {
		p.log.Error("claude: cannot encode control response", "err", merr)
		return
	}
	if werr := p.writeLine(nil, line); werr != nil {
		p.log.Debug("claude: cannot answer control request", "request_id", id, "err", werr)
	}
}
