package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// JSON-RPC 2.0 and ACP error codes. Codes from -32768 to -32000 and from
// -32899 to -32800 are reserved for JSON-RPC and ACP; a code we do not know is
// still carried through unchanged and treated by callers as a generic failure.
const (
	CodeParseError                 = -32700
	CodeInvalidRequest             = -32600
	CodeMethodNotFound             = -32601
	CodeInvalidParams              = -32602
	CodeInternalError              = -32603
	CodeRequestCancelled           = -32800
	CodeAuthRequired               = -32000
	CodeResourceNotFound           = -32002
	CodeUnsupportedProtocolVersion = -32022
)

// Error is a JSON-RPC error object: exactly a code, a message and optional
// data. Handlers return it (or wrap it) to choose the error response the peer
// sees; a Call returns it when the peer answered with an error.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`

	// cause is why the connection failed a call itself (it ended before
	// the response), for errors.Is(err, ErrPeerClosed) and the like.
	cause error
}

// Unwrap returns why the connection failed the call, if it did.
func (e *Error) Unwrap() error { return e.cause }

func (e *Error) Error() string {
	if len(e.Data) > 0 {
		return fmt.Sprintf("%s (code %d): %s", e.Message, e.Code, e.Data)
	}
	return fmt.Sprintf("%s (code %d)", e.Message, e.Code)
}

// Is reports whether target is an *Error with the same code, so that
// errors.Is(err, acp.ErrMethodNotFound) works whatever the message or data.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// WithData returns a copy of e carrying data (marshalled to JSON). A value
// that cannot be marshalled is dropped rather than failing the reply.
func (e *Error) WithData(data any) *Error {
	c := *e
	c.Data = mustMarshal(data)
	return &c
}

func mustMarshal(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// Sentinel errors for errors.Is comparisons; they compare by code only.
var (
	ErrParse                      = &Error{Code: CodeParseError, Message: "Parse error"}
	ErrInvalidRequest             = &Error{Code: CodeInvalidRequest, Message: "Invalid request"}
	ErrMethodNotFound             = &Error{Code: CodeMethodNotFound, Message: "Method not found"}
	ErrInvalidParams              = &Error{Code: CodeInvalidParams, Message: "Invalid params"}
	ErrInternal                   = &Error{Code: CodeInternalError, Message: "Internal error"}
	ErrRequestCancelled           = &Error{Code: CodeRequestCancelled, Message: "Request cancelled"}
	ErrAuthRequired               = &Error{Code: CodeAuthRequired, Message: "Authentication required"}
	ErrResourceNotFound           = &Error{Code: CodeResourceNotFound, Message: "Resource not found"}
	ErrUnsupportedProtocolVersion = &Error{Code: CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version"}
)

// NewInvalidRequest is -32600 with a human reason in data.
func NewInvalidRequest(reason string) *Error {
	return ErrInvalidRequest.WithData(map[string]string{"reason": reason})
}

// NewMethodNotFound is -32601 naming the method.
func NewMethodNotFound(method string) *Error {
	return ErrMethodNotFound.WithData(map[string]string{"method": method})
}

// NewInvalidParams is -32602 naming the offending field (a JSON path such as
// "prompt[2].type", or "" for the whole params) and why. It never echoes the
// params themselves: they may carry secrets (MCP env, headers).
func NewInvalidParams(path, reason string) *Error {
	return &Error{
		Code:    CodeInvalidParams,
		Message: invalidParamsMessage(path, reason),
		Data:    mustMarshal(map[string]string{"path": path, "reason": reason}),
	}
}

func invalidParamsMessage(path, reason string) string {
	if path == "" {
		return "Invalid params: " + reason
	}
	return "Invalid params: " + path + ": " + reason
}

// NewInternalError is -32603 with a message a person can act on; the
// detail goes to data.
func NewInternalError(message string) *Error {
	if message == "" {
		return ErrInternal
	}
	return &Error{Code: CodeInternalError, Message: message}
}

// InternalError wraps any Go error as -32603, keeping an *Error found in its
// chain as it is. It includes err's text in data, so call it only for errors
// whose text is fit for the peer to see.
func InternalError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return ErrInternal.WithData(map[string]string{"error": err.Error()})
}

// NewAuthRequired is -32000; message should be the agent's own words on
// how to log in.
func NewAuthRequired(message string) *Error {
	if message == "" {
		message = ErrAuthRequired.Message
	}
	return &Error{Code: CodeAuthRequired, Message: message}
}

// NewResourceNotFound is -32002 with an optional uri in data.
func NewResourceNotFound(uri string) *Error {
	if uri == "" {
		return ErrResourceNotFound
	}
	return ErrResourceNotFound.WithData(map[string]string{"uri": uri})
}

// NewSessionNotFound is -32002 with data.sessionId, for a session-scoped
// request naming a session that does not exist or is not active.
func NewSessionNotFound(sessionID string) *Error {
	return &Error{
		Code:    CodeResourceNotFound,
		Message: "Session not found",
		Data:    mustMarshal(map[string]string{"sessionId": sessionID}),
	}
}

// NewUnsupportedProtocolVersion is -32022 with {requested, supported}.
func NewUnsupportedProtocolVersion(requested int, supported []int) *Error {
	return ErrUnsupportedProtocolVersion.WithData(map[string]any{"requested": requested, "supported": supported})
}

// NewRequestCancelled is -32800.
func NewRequestCancelled() *Error { return ErrRequestCancelled }

// Cancellation causes, available through context.Cause on a handler's
// context, so a handler can tell why it was stopped.
var (
	// ErrCancelledByPeer: the peer sent $/cancel_request for this request.
	ErrCancelledByPeer = errors.New("acp: request cancelled by peer")
	// ErrPeerClosed: the peer closed its side of the connection (EOF).
	ErrPeerClosed = errors.New("acp: peer closed the connection")
	// ErrShutdown: the connection was closed locally.
	ErrShutdown = errors.New("acp: connection shut down")
	// ErrTransport: writing to the peer failed; the connection is dead.
	ErrTransport = errors.New("acp: transport failed")
)

// toWireError turns a handler's error into the error object sent to the
// peer. A plain Go error becomes -32603 naming the method; its text is not
// sent (it may hold paths or secrets) but is logged by the connection.
func toWireError(err error, method string, cancelled bool) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if cancelled && (errors.Is(err, context.Canceled) || errors.Is(err, ErrCancelledByPeer)) {
		return ErrRequestCancelled
	}
	return ErrInternal.WithData(map[string]string{"method": method})
}
