package acp

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
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
	kindInvalid      msgKind = iota // answer with the error, id null or the message's id
	kindIgnore                      // response-shaped garbage: never answer a response
	kindRequest                     // has method and id
	kindNotification                // has method, no id
	kindResponse                    // has id and result or error
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
}

// classify validates one line strictly, as JSON-RPC 2.0 requires, and says
// how to treat it. It never echoes the line into errors.
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
	if string(env.JSONRPC) != `"2.0"` {
		return inbound{kind: kindInvalid, id: nullID, err: NewInvalidRequest(`"jsonrpc" must be "2.0"`)}
	}
	if !hasMethod {
		return inbound{kind: kindInvalid, id: nullID, err: NewInvalidRequest(`missing "method"`)}
	}
	var method string
	if json.Unmarshal(env.Method, &method) != nil {
		return inbound{kind: kindInvalid, id: nullID, err: NewInvalidRequest(`"method" must be a string`)}
	}
	var id ID
	if env.ID != nil {
		var ok bool
		if id, ok = parseID(env.ID); !ok {
			return inbound{kind: kindInvalid, id: nullID, err: NewInvalidRequest(`"id" must be a string, an integer or null`)}
		}
	}
	if p := bytes.TrimSpace(env.Params); len(p) > 0 && p[0] != '{' && p[0] != '[' && string(p) != "null" {
		return inbound{kind: kindInvalid, id: orNull(id), err: NewInvalidRequest(`"params" must be an object or an array`)}
	}
	if string(env.Params) == "null" {
		env.Params = nil
	}
	if id.IsZero() {
		return inbound{kind: kindNotification, method: method, params: env.Params, size: len(line)}
	}
	return inbound{kind: kindRequest, id: id, method: method, params: env.Params, size: len(line)}
}

func classifyResponse(env envelope) inbound {
	if env.Result != nil && env.Error != nil {
		return inbound{kind: kindIgnore}
	}
	id, ok := parseID(env.ID)
	if env.ID == nil || !ok {
		return inbound{kind: kindIgnore}
	}
	in := inbound{kind: kindResponse, id: id, result: env.Result}
	if env.Error != nil {
		var e Error
		if json.Unmarshal(env.Error, &e) != nil || string(env.Error) == "null" {
			e = Error{Code: CodeInternalError, Message: "peer sent a malformed error object"}
		}
		in.err = &e
	}
	return in
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
func AppendJSON(dst []byte, v any) ([]byte, error) { return codecAppendAny(dst, v) }

func appendValue(buf *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case string:
		buf.Write(codecAppendString(buf.AvailableBuffer(), v))
		return nil
	case codecAppender:
		if isNil(v) {
			buf.WriteString("null")
			return nil
		}
		// A generated type writes itself, compact and valid, straight into
		// the frame's buffer: appending in place skips encoding/json's
		// reflection and its re-validation and compaction of MarshalJSON
		// output, which cost more than the encoding itself on a streamed
		// chunk.
		b, err := v.appendJSON(buf.AvailableBuffer())
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
	buf.Write(codecAppendString(buf.AvailableBuffer(), method)) // not boxed in an any
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
