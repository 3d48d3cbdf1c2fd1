package elicit

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
)

// MCPRequest is the CLI's `elicitation` control request: an MCP server
// (named ServerName) asks the user for input, with a form (Mode "form" or
// empty: RequestedSchema) or by sending them to a URL (Mode "url").
type MCPRequest struct {
	ServerName      string          `json:"mcp_server_name"`
	Message         string          `json:"message"`
	Mode            string          `json:"mode,omitempty"`
	URL             string          `json:"url,omitempty"`
	ElicitationID   string          `json:"elicitation_id,omitempty"`
	RequestedSchema json.RawMessage `json:"requested_schema,omitempty"`
	Title           string          `json:"title,omitempty"`
}

// IsURL reports a URL-mode request.
func (r *MCPRequest) IsURL() bool { return r.Mode == "url" }

// ErrUnrenderable is the error of a request that has no ACP form: a schema
// that is not an object of primitive fields, a URL request without a URL.
var ErrUnrenderable = errors.New("the MCP server's request cannot be shown as an ACP elicitation")

// MCPForm is the elicitation/create params of a form-mode request. The
// schema goes to the client as the server wrote it (its fields in the
// server's order; the typed ACP schema would sort them), completed with
// the "type":"object" and "properties" ACP requires, and a title naming
// the server when it has none, so the user knows who asks. It is checked
// against ACP's schema first: what a client could not render is
// ErrUnrenderable, and the server gets "cancel" (the user never saw it).
func MCPForm(r *MCPRequest, sessionID, toolCallID string) (json.RawMessage, error) {
	schema := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(r.RequestedSchema)) > 0 && string(bytes.TrimSpace(r.RequestedSchema)) != "null" {
		if err := json.Unmarshal(r.RequestedSchema, &schema); err != nil {
			return nil, ErrUnrenderable
		}
	}
	schema["type"] = json.RawMessage(`"object"`)
	if p := bytes.TrimSpace(schema["properties"]); len(p) == 0 || string(p) == "null" {
		schema["properties"] = json.RawMessage(`{}`)
	}
	if _, ok := schema["title"]; !ok && r.ServerName != "" {
		schema["title"] = mustJSON("Asked by the MCP server " + r.ServerName)
	}
	ordered, err := orderedSchema(r.RequestedSchema, schema)
	if err != nil {
		return nil, ErrUnrenderable
	}
	params := map[string]json.RawMessage{
		"mode":            json.RawMessage(`"form"`),
		"sessionId":       mustJSON(sessionID),
		"message":         mustJSON(r.Message),
		"requestedSchema": ordered,
	}
	if toolCallID != "" {
		params["toolCallId"] = mustJSON(toolCallID)
	}
	raw := mustJSON(params)
	var check acp.CreateElicitationRequest
	if err := json.Unmarshal(raw, &check); err != nil || check.Form == nil {
		return nil, ErrUnrenderable
	}
	for _, p := range check.Form.RequestedSchema.Properties {
		if p.Unknown != nil || p.Array != nil && p.Array.Items.Unknown != nil {
			return nil, ErrUnrenderable // a field type ACP does not define
		}
	}
	return raw, nil
}

// orderedSchema writes schema as JSON with the server's own properties
// object (raw, so its field order stays) and the other members after it.
func orderedSchema(original json.RawMessage, schema map[string]json.RawMessage) (json.RawMessage, error) {
	var orig struct {
		Properties json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(original, &orig)
	props := bytes.TrimSpace(orig.Properties)
	if len(props) == 0 || props[0] != '{' {
		props = []byte(schema["properties"])
	}
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":`)
	b.Write(props)
	for _, k := range sortedKeys(schema) {
		if k == "type" || k == "properties" {
			continue
		}
		b.WriteByte(',')
		b.Write(mustJSON(k))
		b.WriteByte(':')
		b.Write(schema[k])
	}
	b.WriteByte('}')
	if !json.Valid(b.Bytes()) {
		return nil, ErrUnrenderable
	}
	return b.Bytes(), nil
}

// MCPURL is the elicitation/create params of a URL-mode request, and its
// elicitation id (the server's, which the CLI's elicitation_complete
// frame names later; one of ours when it gave none).
func MCPURL(r *MCPRequest, sessionID, toolCallID, fallbackID string) (*acp.CreateElicitationRequest, error) {
	u, err := url.Parse(r.URL)
	if r.URL == "" || err != nil || u.Scheme != "https" && u.Scheme != "http" {
		return nil, ErrUnrenderable
	}
	id := r.ElicitationID
	if id == "" {
		id = fallbackID
	}
	scope := &acp.ElicitationSessionScope{SessionID: acp.SessionID(sessionID)}
	if toolCallID != "" {
		scope.ToolCallID = acp.Some(acp.ToolCallID(toolCallID))
	}
	return &acp.CreateElicitationRequest{
		Message: r.Message,
		URL:     &acp.ElicitationURLMode{ElicitationID: acp.ElicitationID(id), URL: r.URL, Session: scope},
	}, nil
}

// MCPResult is the CLI's answer to an elicitation control request, MCP's
// ElicitResult: the user's accept with the content as the client sent it
// (the server checks it against its own schema), their decline, or cancel
// for anything else (the client's cancel, an action this package does not
// know).
func MCPResult(resp *acp.CreateElicitationResponse) map[string]any {
	switch {
	case resp.Accept != nil:
		content, _ := resp.Accept.Content.Get()
		if content == nil {
			content = map[string]acp.ElicitationContentValue{}
		}
		return map[string]any{"action": "accept", "content": content}
	case resp.Decline != nil:
		return map[string]any{"action": "decline"}
	}
	return MCPCancel()
}

// MCPCancel is the answer for a request the user never answered: it was
// withdrawn, could not be shown, or the client failed. MCP's "decline"
// means the user refused; "cancel" that they made no choice.
func MCPCancel() map[string]any { return map[string]any{"action": "cancel"} }
