// Package acptest checks ACP JSON-RPC traffic against the official ACP v1
// JSON schema, for use in tests.
//
// The schema files are a pinned copy in testdata (the same bytes
// acp/types_gen.go is generated from), embedded so that tests never depend on
// files outside the module. The schema is an independent oracle: this package
// does not import package acp, so its verdicts do not share the generated
// code's mistakes.
//
// A message is matched to its schema definitions by method: the x-method and
// x-side annotations name the params and result definitions of every method,
// and the side that handles it picks the envelope (a request handled by the
// agent is a ClientRequest, one handled by the client an AgentRequest).
// Responses do not carry their method, so ValidateMessage can only check
// their envelope; ValidateResponse checks the result against the method's
// result definition.
package acptest

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var (
	//go:embed testdata/schema.json
	stableSchema []byte
	//go:embed testdata/schema.unstable.json
	unstableSchema []byte
)

const (
	stableURL   = "https://acp.invalid/v1/schema.json"
	unstableURL = "https://acp.invalid/v1/schema.unstable.json"
)

// methodDefs names the definitions of one method.
type methodDefs struct {
	params, result string
	receiver       string // x-side: agent, client or protocol
	notification   bool
}

// schemaSet is one compiled schema file with its method table.
type schemaSet struct {
	url     string
	defs    map[string]bool
	methods map[string]methodDefs

	mu       sync.Mutex
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
}

var sets = sync.OnceValues(func() ([2]*schemaSet, error) {
	s, err := newSchemaSet(stableURL, stableSchema)
	if err != nil {
		return [2]*schemaSet{}, err
	}
	u, err := newSchemaSet(unstableURL, unstableSchema)
	return [2]*schemaSet{s, u}, err
})

func newSchemaSet(url string, data []byte) (*schemaSet, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	var raw struct {
		AnyOf []json.RawMessage        `json:"anyOf"`
		Defs  map[string]schemaMembers `json:"$defs"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	s := &schemaSet{
		url: url, defs: map[string]bool{}, methods: map[string]methodDefs{},
		compiler: c, compiled: map[string]*jsonschema.Schema{},
	}
	// The JSON-RPC envelope definitions tell params, results and
	// notifications apart; x-method and x-side name the method.
	refs := func(names ...string) string {
		var b strings.Builder
		for _, n := range names {
			b.Write(raw.Defs[n].all)
		}
		return b.String()
	}
	results := refs("AgentResponse", "ClientResponse")
	notes := refs("AgentNotification", "ClientNotification")
	for _, top := range raw.AnyOf {
		if bytes.Contains(top, []byte(`"ProtocolLevel"`)) {
			notes += string(top)
		}
	}
	for name, d := range raw.Defs {
		s.defs[name] = true
		if d.Method == "" {
			continue
		}
		m := s.methods[d.Method]
		m.receiver = d.Side
		ref := `"#/$defs/` + name + `"`
		switch {
		case strings.Contains(results, ref):
			m.result = name
		case strings.Contains(notes, ref):
			m.params, m.notification = name, true
		default:
			m.params = name
		}
		s.methods[d.Method] = m
	}
	return s, nil
}

// schemaMembers is the part of a definition the method table needs, plus
// its raw text for reference lookups.
type schemaMembers struct {
	Method string `json:"x-method"`
	Side   string `json:"x-side"`
	all    []byte
}

func (m *schemaMembers) UnmarshalJSON(b []byte) error {
	type plain schemaMembers
	if err := json.Unmarshal(b, (*plain)(m)); err != nil {
		return err
	}
	m.all = append([]byte(nil), b...)
	return nil
}

// schema compiles (once) the definition with the given name, or the whole
// schema for "".
func (s *schemaSet) schema(def string) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.compiled[def]; ok {
		return sch, nil
	}
	loc := s.url
	if def != "" {
		loc += "#/$defs/" + def
	}
	sch, err := s.compiler.Compile(loc)
	if err != nil {
		return nil, err
	}
	s.compiled[def] = sch
	return sch, nil
}

func (s *schemaSet) validate(def string, v any) error {
	sch, err := s.schema(def)
	if err != nil {
		return err
	}
	return sch.Validate(v)
}

// find returns the schema file that defines def, preferring the stable one.
func find(def string) (*schemaSet, error) {
	ss, err := sets()
	if err != nil {
		return nil, err
	}
	for _, s := range ss {
		if s.defs[def] {
			return s, nil
		}
	}
	return nil, fmt.Errorf("no schema definition %q", def)
}

// lookup returns the method's definitions and the schema file they are in.
func lookup(method string) (*schemaSet, methodDefs, bool) {
	ss, err := sets()
	if err != nil {
		return nil, methodDefs{}, false
	}
	for _, s := range ss {
		if m, ok := s.methods[method]; ok {
			return s, m, true
		}
	}
	return nil, methodDefs{}, false
}

func parse(data []byte) (any, error) {
	return jsonschema.UnmarshalJSON(bytes.NewReader(data))
}

// Validate marshals v with encoding/json and checks it against the schema
// definition defName ("PromptResponse", "SessionNotification", ...). The
// stable schema is used when it defines defName, the unstable one otherwise.
func Validate(t testing.TB, defName string, v any) {
	t.Helper()
	if err := validateValue(defName, v); err != nil {
		t.Errorf("%s does not match the ACP schema: %v", defName, err)
	}
}

func validateValue(defName string, v any) error {
	s, err := find(defName)
	if err != nil {
		return err
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("marshal: %w", err)
	}
	inst, err := parse(data)
	if err != nil {
		return err
	}
	return s.validate(defName, inst)
}

// ValidateMessage checks one JSON-RPC message line against the schema:
//
//   - a request or notification: its envelope against the definition for the
//     direction the method travels, and its params against the method's params
//     definition (absent params count as {});
//   - a response: its envelope and, for an error, the error object. The
//     result needs the method: use ValidateResponse.
//
// Methods outside the stable schema are looked up in the unstable one.
// Methods in neither must be extensions (a leading "_").
func ValidateMessage(t testing.TB, line []byte) {
	t.Helper()
	if err := validateMessage(line, ""); err != nil {
		t.Errorf("message does not match the ACP schema: %v\n%s", err, line)
	}
}

// ValidateResponse checks a response line to a request for method: the
// envelope, and the result against the method's result definition (or the
// error object).
func ValidateResponse(t testing.TB, method string, line []byte) {
	t.Helper()
	if err := validateMessage(line, method); err != nil {
		t.Errorf("%s response does not match the ACP schema: %v\n%s", method, err, line)
	}
}

func validateMessage(line []byte, responseTo string) error {
	inst, err := parse(line)
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	msg, ok := inst.(map[string]any)
	if !ok {
		return fmt.Errorf("not a JSON object")
	}
	if msg["jsonrpc"] != "2.0" {
		return fmt.Errorf(`"jsonrpc" must be "2.0"`)
	}
	ss, err := sets()
	if err != nil {
		return err
	}
	stable := ss[0]
	_, hasID := msg["id"]
	method, hasMethod := msg["method"].(string)
	_, hasResult := msg["result"]
	_, hasError := msg["error"]
	if _, ok := msg["method"]; ok && !hasMethod {
		return fmt.Errorf(`"method" must be a string`)
	}

	if !hasMethod {
		if !hasID || hasResult == hasError {
			return fmt.Errorf("neither a call nor a response (a response has an id and exactly one of result and error)")
		}
		if err := stable.validate("", inst); err != nil {
			return err
		}
		if hasError {
			return stable.validate("Error", msg["error"])
		}
		if responseTo == "" {
			return nil
		}
		s, m, ok := lookup(responseTo)
		if !ok || m.result == "" {
			return fmt.Errorf("method %q has no result in the schema", responseTo)
		}
		return s.validate(m.result, msg["result"])
	}
	if responseTo != "" {
		return fmt.Errorf("expected a response, got a %q call", method)
	}

	s, m, known := lookup(method)
	if !known {
		if !strings.HasPrefix(method, "_") {
			return fmt.Errorf("method %q is not defined by the ACP schema (extension methods start with _)", method)
		}
		return stable.validate("", inst)
	}
	if m.notification == hasID {
		kind := "request"
		if m.notification {
			kind = "notification"
		}
		return fmt.Errorf("%s is a %s", method, kind)
	}
	if envelope := envelopeDef(m); envelope != "" {
		if err := s.validate(envelope, inst); err != nil {
			return err
		}
	} else if err := s.validate("", inst); err != nil {
		return err
	}
	params, ok := msg["params"]
	if !ok {
		params = map[string]any{}
	}
	if err := s.validate(m.params, params); err != nil {
		return fmt.Errorf("params (%s): %w", m.params, err)
	}
	return nil
}

// envelopeDef is the envelope a call travels in: messages handled by the
// agent are sent by the client, and the other way round. Protocol-level
// messages ($/...) use the whole schema.
func envelopeDef(m methodDefs) string {
	sender := map[string]string{"agent": "Client", "client": "Agent"}[m.receiver]
	if sender == "" {
		return ""
	}
	if m.notification {
		return sender + "Notification"
	}
	return sender + "Request"
}
