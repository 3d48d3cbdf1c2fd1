package acp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
)

// Mux routes inbound messages to typed handlers by method. Requests with
// no route get -32601; notifications with no route are ignored, as the
// protocol asks.
type Mux struct {
	routes map[string]func(ctx context.Context, params json.RawMessage) (any, error)
}

// NewMux returns an empty Mux.
func NewMux() *Mux {
	return &Mux{routes: map[string]func(context.Context, json.RawMessage) (any, error){}}
}

// Handle implements [Handler].
func (m *Mux) Handle(ctx context.Context, req *Request) (any, error) {
	route, ok := m.routes[req.Method]
	if !ok {
		if req.IsNotification() {
			return nil, nil
		}
		return nil, NewMethodNotFound(req.Method)
	}
	return route(ctx, req.Params)
}

// Validator is implemented by params types that check themselves after
// decoding (required fields, allowed values). Return a *FieldError to name
// the offending field in the -32602 answer.
type Validator interface {
	Validate() error
}

// FieldError says which params field is wrong and why.
type FieldError struct {
	Path   string
	Reason string
}

func (e *FieldError) Error() string { return e.Path + ": " + e.Reason }

// On routes method to fn, decoding params into P. Params that do not
// decode or validate get -32602 naming the field.
func On[P, R any](m *Mux, method string, fn func(ctx context.Context, params *P) (R, error)) {
	m.routes[method] = func(ctx context.Context, raw json.RawMessage) (any, error) {
		p := new(P)
		if err := DecodeParams(raw, p); err != nil {
			return nil, err
		}
		r, err := fn(ctx, p)
		if err != nil {
			var fe *FieldError
			if errors.As(err, &fe) {
				return nil, NewInvalidParams(fe.Path, fe.Reason)
			}
			return nil, err
		}
		return r, nil
	}
}

// OnNotification routes a notification method to fn. Undecodable params
// are logged by the connection and otherwise ignored.
func OnNotification[P any](m *Mux, method string, fn func(ctx context.Context, params *P) error) {
	m.routes[method] = func(ctx context.Context, raw json.RawMessage) (any, error) {
		p := new(P)
		if err := DecodeParams(raw, p); err != nil {
			return nil, err
		}
		return nil, fn(ctx, p)
	}
}

// DecodeParams decodes raw params into p and validates them, turning any
// failure into -32602 that names the field but never echoes the value.
func DecodeParams(raw json.RawMessage, p any) error {
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	if raw[0] != '{' {
		return NewInvalidParams("", "params must be an object")
	}
	if err := json.Unmarshal(raw, p); err != nil {
		return paramsError(err)
	}
	if v, ok := p.(Validator); ok {
		if err := v.Validate(); err != nil {
			return paramsError(err)
		}
	}
	return nil
}

func paramsError(err error) *Error {
	var fe *FieldError
	var de *DecodeError
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	var e *Error
	switch {
	case errors.As(err, &e):
		return e
	case errors.As(err, &fe):
		return NewInvalidParams(fe.Path, fe.Reason)
	case errors.As(err, &de):
		return NewInvalidParams(de.Path, de.Err.Error())
	case errors.As(err, &te):
		return NewInvalidParams(te.Field, "expected "+te.Type.String()+", got JSON "+te.Value)
	case errors.As(err, &se):
		return NewInvalidParams("", "malformed JSON")
	}
	// Decoding errors from custom unmarshalers carry their own text, which
	// names types and tags, not values.
	msg := strings.TrimPrefix(err.Error(), "json: ")
	return NewInvalidParams("", msg)
}
