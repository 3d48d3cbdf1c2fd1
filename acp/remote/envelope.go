package remote

import (
	"bytes"

	"github.com/claude-agent-acp/claude-agent-acp/internal/jsonfast"
)

// An envelope is what the transport reads of a JSON-RPC message to route
// it: its id, its method, and the sessionId of its params or its result.
// Nothing else of the message is decoded.
type envelope struct {
	id        string // the id's compact JSON text; "" when absent or null
	hasID     bool   // an "id" member is present (null included)
	method    string
	hasMethod bool
	session   string // params.sessionId (a request or notification)
	result    string // result.sessionId (a response)
	hasResult bool
	hasError  bool
}

// isRequest reports a message that expects an answer.
func (e *envelope) isRequest() bool { return e.hasMethod && e.id != "" }

// isResponse reports a message that answers a request.
func (e *envelope) isResponse() bool { return !e.hasMethod && e.hasID && (e.hasResult || e.hasError) }

// peek reads the envelope of one JSON text. kind is the first byte of the
// top-level value ('{', '[', …; 0 for none); ok is false when the text is
// not valid JSON. trusted texts (the agent's own output) are scanned
// without validating the insides of strings.
func peek(b []byte, trusted bool) (env envelope, kind byte, ok bool) {
	var d jsonfast.Dec
	if trusted {
		d.ResetLax(b)
	} else {
		d.Reset(b)
	}
	kind = d.Kind()
	if kind != '{' {
		d.Skip()
		return env, kind, d.End()
	}
	d.Object()
	for key, _, more := d.FirstKey(); more; key, _, more = d.NextKey() {
		switch string(key) {
		case "id":
			env.hasID = true
			if d.Kind() == 'n' {
				d.Skip()
				continue
			}
			env.id = string(d.Raw())
		case "method":
			env.method, env.hasMethod = d.Str()
		case "params":
			env.session = sessionMember(&d)
		case "result":
			env.hasResult = true
			env.result = sessionMember(&d)
		case "error":
			env.hasError = true
			d.Skip()
		default:
			d.Skip()
		}
	}
	return env, kind, !d.Bad() && d.End()
}

// sessionMember consumes an object and returns its "sessionId" if that is
// a string; any other value is skipped.
func sessionMember(d *jsonfast.Dec) string {
	if d.Kind() != '{' {
		d.Skip()
		return ""
	}
	d.Object()
	var id string
	for key, _, more := d.FirstKey(); more; key, _, more = d.NextKey() {
		if string(key) == "sessionId" && d.Kind() == '"' {
			id, _ = d.Str()
			continue
		}
		d.Skip()
	}
	return id
}

// oneLine makes a client's JSON text one line of the agent's
// newline-delimited stream. JSON strings cannot hold a raw line break, so
// one in the text is white space (or the text is invalid, and stays so):
// replacing it with a space changes nothing else.
func oneLine(b []byte) []byte {
	if bytes.IndexByte(b, '\n') < 0 && bytes.IndexByte(b, '\r') < 0 {
		return b
	}
	for i, c := range b {
		if c == '\n' || c == '\r' {
			b[i] = ' '
		}
	}
	return b
}

// sessionScoped lists the methods whose POST must carry Acp-Session-Id,
// as the TypeScript SDK's transport checks them.
var sessionScoped = map[string]bool{
	"session/cancel":            true,
	"session/close":             true,
	"session/delete":            true,
	"session/fork":              true,
	"session/load":              true,
	"session/prompt":            true,
	"session/resume":            true,
	"session/set_config_option": true,
	"session/set_mode":          true,
	"session/set_model":         true,
}
