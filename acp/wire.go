package acp

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/claude-agent-acp/claude-agent-acp/acp/internal/codec"
	"github.com/claude-agent-acp/claude-agent-acp/internal/jsonfast"
)

// envelope is one JSON-RPC message as read off the wire. Raw fields keep
// the difference between absent (nil) and null ("null").
type envelope struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// msgKind says what a decoded line is.
type msgKind int

const (
	kindInvalid      msgKind = iota // answer err on id (null when no id could be read)
	kindIgnore                      // response-shaped but unmatchable: never answer a response
	kindRequest                     // has method and id
	kindNotification                // has method, no id
	kindResponse                    // has no method, an id, and result or error; err is set for an answer that is an error or unusable
)

// inbound is a classified message.
type inbound struct {
	kind   msgKind
	id     ID
	method string
	params json.RawMessage
	result json.RawMessage
	err    *Error
	size   int
	seq    uint64 // for responses: the last message read before it
	// orResponse marks a kindInvalid frame that may instead be a broken
	// response: it has a readable, non-null id and nothing but "jsonrpc"
	// and "id" that JSON-RPC defines (no method, params, result or error).
	// If one of our calls waits on that id, the call fails and nothing is
	// answered; otherwise it is answered as an invalid request.
	orResponse bool
}

// utf8BOM is a byte-order mark some peers (Windows tools, PowerShell
// pipes) put at the start of a line; it is not part of the message.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// classify validates one line strictly, as JSON-RPC 2.0 requires, and says
// how to treat it. It never echoes the line into errors.
//
// The rules, in order:
//   - not UTF-8 or not JSON: -32700, id null (no id can be trusted);
//   - a batch or a non-object: -32600, id null;
//   - no "method" but a "result" or an "error": a response (see
//     classifyResponse); it is never answered;
//   - anything else that is invalid (a missing or non-string "method", a
//     "jsonrpc" other than "2.0", "params" neither object nor array):
//     -32600 on the message's id when it can be read, so the peer's pending
//     call ends, and on id null only when it cannot (absent, or not a
//     string, integer or null);
//   - a frame with no "method", "params", "result" or "error" but a
//     readable id is ambiguous (a request without its method, or a
//     response without its result): see inbound.orResponse.
func classify(line []byte) inbound {
	if !utf8.Valid(line) {
		return inbound{kind: kindInvalid, id: nullID, err: ErrParse.WithData(map[string]string{"reason": "invalid UTF-8"})}
	}
	if !json.Valid(line) {
		return inbound{kind: kindInvalid, id: nullID, err: ErrParse}
	}
	trimmed := bytes.TrimLeft(line, " \t\r")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return inbound{kind: kindInvalid, id: nullID, err: NewInvalidRequest("JSON-RPC batches are not supported")}
	}
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return inbound{kind: kindInvalid, id: nullID, err: NewInvalidRequest("a message must be a JSON object")}
	}
	var env envelope
	if err := json.Unmarshal(line, &env); err != nil {
		return inbound{kind: kindInvalid, id: nullID, err: NewInvalidRequest("malformed envelope")}
	}
	hasMethod := env.Method != nil
	if !hasMethod && (env.Result != nil || env.Error != nil) {
		return classifyResponse(env)
	}
	// From here on the message is call-shaped: an error goes to its id
	// when the id can be read.
	var id ID
	if env.ID != nil {
		var ok bool
		if id, ok = parseID(env.ID); !ok {
			return inbound{kind: kindInvalid, id: nullID, err: NewInvalidRequest(`"id" must be a string, an integer or null`)}
		}
	}
	invalid := func(reason string) inbound {
		return inbound{kind: kindInvalid, id: orNull(id), err: NewInvalidRequest(reason),
			orResponse: !hasMethod && env.Params == nil && !id.IsZero() && id != nullID}
	}
	if string(env.JSONRPC) != `"2.0"` {
		return invalid(`"jsonrpc" must be "2.0"`)
	}
	if !hasMethod {
		return invalid(`missing "method"`)
	}
	var method string
	if m := bytes.TrimSpace(env.Method); len(m) == 0 || m[0] != '"' || json.Unmarshal(m, &method) != nil {
		return invalid(`"method" must be a string`)
	}
	if p := bytes.TrimSpace(env.Params); len(p) > 0 && p[0] != '{' && p[0] != '[' && string(p) != "null" {
		return invalid(`"params" must be an object or an array`)
	}
	if string(env.Params) == "null" {
		env.Params = nil
	}
	if id.IsZero() {
		return inbound{kind: kindNotification, method: method, params: env.Params, size: len(line)}
	}
	return inbound{kind: kindRequest, id: id, method: method, params: env.Params, size: len(line)}
}

// classifyResponse reads a message with no "method" and a "result" or an
// "error". A response is never answered, whatever is wrong with it: if its
// id cannot be read (absent, null, or not a string or integer) it matches
// nothing and is dropped; otherwise it goes to the call waiting on that id
// (if any), which fails at once when the response is unusable:
//   - both a "result" and an "error" (a null one of the two is taken as
//     absent, since some JSON-RPC libraries write the unused member as
//     null): -32603 "peer sent an invalid response: it has both result and
//     error";
//   - an "error" that is not a JSON-RPC error object: -32603 "peer sent an
//     invalid response: malformed error object".
//
// A result of the wrong shape for the call is detected by Call when it
// decodes it.
func classifyResponse(env envelope) inbound {
	id, ok := parseID(env.ID)
	if env.ID == nil || !ok || id == nullID {
		return inbound{kind: kindIgnore}
	}
	hasResult, hasError := env.Result != nil, env.Error != nil
	if hasResult && hasError {
		switch {
		case string(env.Error) == "null":
			hasError = false
		case string(env.Result) == "null":
			hasResult = false
		}
	}
	in := inbound{kind: kindResponse, id: id}
	switch {
	case hasResult && hasError:
		in.err = invalidResponse("it has both result and error")
	case hasResult:
		in.result = env.Result
	default:
		var e Error
		if string(env.Error) == "null" || json.Unmarshal(env.Error, &e) != nil {
			in.err = invalidResponse("malformed error object")
		} else {
			in.err = &e
		}
	}
	return in
}

// invalidResponse is the error a call gets when the peer's answer to it
// cannot be used.
func invalidResponse(reason string) *Error {
	return &Error{Code: CodeInternalError, Message: "peer sent an invalid response: " + reason}
}

func orNull(id ID) ID {
	if id.IsZero() {
		return nullID
	}
	return id
}

// Encoding. Each message is built into one buffer that ends in '\n' so the
// writer can send it with a single Write call.

// AppendJSON appends the JSON of v to dst as encoding/json would write it
// with HTML escaping off. Generated types, Opt, strings, raw JSON, _meta
// maps and slices of these are written in place, without encoding/json's
// reflection and without its re-validation and compaction of every
// MarshalJSON result, which cost more than the encoding itself; other
// values go through encoding/json. Pass pointers (&content, &update): an
// interface holding a pointer costs no allocation, one holding a slice or a
// struct does.
func AppendJSON(dst []byte, v any) ([]byte, error) { return codec.AppendAny(dst, v) }

func appendValue(buf *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case string:
		buf.Write(jsonfast.AppendStringNoHTMLEscape(buf.AvailableBuffer(), v))
		return nil
	case codec.Appender:
		if isNil(v) {
			buf.WriteString("null")
			return nil
		}
		// A generated type writes itself, compact and valid, straight into
		// the frame's buffer: appending in place skips encoding/json's
		// reflection and its re-validation and compaction of MarshalJSON
		// output, which cost more than the encoding itself on a streamed
		// chunk.
		b, err := v.AppendJSON(buf.AvailableBuffer())
		if err != nil {
			return err
		}
		buf.Write(b)
		return nil
	case json.RawMessage:
		if len(v) == 0 {
			buf.WriteString("null")
			return nil
		}
		return json.Compact(buf, v)
	case []byte:
		return json.Compact(buf, v)
	}
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // Encode's newline
	return nil
}

func encodeRequest(buf *bytes.Buffer, id ID, method string, params any) error {
	buf.WriteString(`{"jsonrpc":"2.0","id":`)
	buf.WriteString(id.raw)
	return encodeCallTail(buf, method, params)
}

func encodeNotification(buf *bytes.Buffer, method string, params any) error {
	buf.WriteString(`{"jsonrpc":"2.0"`)
	return encodeCallTail(buf, method, params)
}

func encodeCallTail(buf *bytes.Buffer, method string, params any) error {
	buf.WriteString(`,"method":`)
	buf.Write(jsonfast.AppendStringNoHTMLEscape(buf.AvailableBuffer(), method)) // not boxed in an any
	if params != nil {
		buf.WriteString(`,"params":`)
		if err := appendValue(buf, params); err != nil {
			return err
		}
	}
	buf.WriteString("}\n")
	return nil
}

func encodeResult(buf *bytes.Buffer, id ID, result any) error {
	buf.WriteString(`{"jsonrpc":"2.0","id":`)
	buf.WriteString(orNull(id).raw)
	buf.WriteString(`,"result":`)
	if err := appendValue(buf, result); err != nil {
		return err
	}
	buf.WriteString("}\n")
	return nil
}

func encodeError(buf *bytes.Buffer, id ID, e *Error) {
	buf.WriteString(`{"jsonrpc":"2.0","id":`)
	buf.WriteString(orNull(id).raw)
	buf.WriteString(`,"error":{"code":`)
	buf.WriteString(itoa(e.Code))
	buf.WriteString(`,"message":`)
	_ = appendValue(buf, e.Message)
	if len(e.Data) > 0 && json.Valid(e.Data) {
		buf.WriteString(`,"data":`)
		_ = json.Compact(buf, e.Data)
	}
	buf.WriteString("}}\n")
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
