// Package acptest checks ACP JSON-RPC traffic against the official ACP
// JSON schemas, v1 and v2, for use in tests.
//
// The schema files are pinned copies in testdata (v1) and testdata/v2 (the
// same bytes acp/types_gen.go and acp/acpv2/types_gen.go are generated
// from), embedded so that tests never depend on files outside the module.
// The schema is an independent oracle: this package does not import package
// acp or acpv2, so its verdicts do not share the generated code's mistakes.
//
// A message is matched to its schema definitions by method: the x-method and
// x-side annotations name the params and result definitions of every method,
// and the side that handles it picks the envelope (a request handled by the
// agent is a ClientRequest, one handled by the client an AgentRequest).
// Responses do not carry their method, so ValidateMessage can only check
// their envelope; ValidateResponse checks the result against the method's
// result definition. ValidateLine does both for either version when the
// caller knows who sent the line and, for a response, what it answers.
//
// v1: Validate, ValidateMessage, ValidateResponse. v2: ValidateV2Def,
// ValidateV2, ValidateV2Response. Either: ValidateLine.
package acptest

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
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
	//go:embed testdata/v2/schema.json
	v2StableSchema []byte
	//go:embed testdata/v2/schema.unstable.json
	v2UnstableSchema []byte
)

const (
	stableURL     = "https://acp.invalid/v1/schema.json"
	unstableURL   = "https://acp.invalid/v1/schema.unstable.json"
	v2StableURL   = "https://acp.invalid/v2/schema.json"
	v2UnstableURL = "https://acp.invalid/v2/schema.unstable.json"
)

// methodDefs names the definitions of one method as handled by one side.
type methodDefs struct {
	params, result string
	receiver       string // x-side: agent, client or protocol
	notification   bool
}

// schemaSet is one compiled schema file with its method table.
type schemaSet struct {
	url  string
	defs map[string]bool
	// methods maps a method to its definitions, one entry per handling side
	// (v2's unstable mcp/message is handled by both), sorted by side.
	methods map[string][]methodDefs

	mu       sync.Mutex
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema

	// bare are the envelopes without their params (requests and
	// notifications) or result (responses), by envelope, with what the
	// member they leave out accepts (bareEnvelope).
	bare map[string]bareEnvelope
}

// bareEnvelope is an envelope definition (AgentRequest, ClientResponse,
// ...) without the member that carries the method's data: params, or a
// result. That member is an anyOf over every method's definition, so a
// message whose params (or result) pass the method's own definition,
// which is one of those branches, passes it too: the envelope checks them
// again for nothing, and its anyOf tries the branches before the right one
// (SessionUpdate's oneOf alone costs half a millisecond a line under
// -race). validateMessage checks the bare envelope and the method's
// definition instead, when refs says that definition is a branch of the
// member the bare envelope leaves out; the verdict is the same.
type bareEnvelope struct {
	def  string          // the bare definition's name in $defs
	refs map[string]bool // the definitions the left-out member's anyOf names
}

// versionSets are the stable and unstable schema files of one protocol
// version; definitions and methods are looked up in that order.
type versionSets [2]*schemaSet

var sets = sync.OnceValues(func() (map[int]versionSets, error) {
	out := map[int]versionSets{}
	for v, files := range map[int][4]any{
		1: {stableURL, stableSchema, unstableURL, unstableSchema},
		2: {v2StableURL, v2StableSchema, v2UnstableURL, v2UnstableSchema},
	} {
		s, err := newSchemaSet(files[0].(string), files[1].([]byte), v >= 2)
		if err != nil {
			return nil, err
		}
		u, err := newSchemaSet(files[2].(string), files[3].([]byte), v >= 2)
		if err != nil {
			return nil, err
		}
		out[v] = versionSets{s, u}
	}
	return out, nil
})

func setsFor(version int) (versionSets, error) {
	all, err := sets()
	if err != nil {
		return versionSets{}, err
	}
	ss, ok := all[version]
	if !ok {
		return versionSets{}, fmt.Errorf("no ACP schema for protocol version %d", version)
	}
	return ss, nil
}

func newSchemaSet(url string, data []byte, strict bool) (*schemaSet, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	if strict {
		closeOpenValues(doc)
	}
	bare := addBareEnvelopes(doc)
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
		url: url, defs: map[string]bool{}, methods: map[string][]methodDefs{},
		compiler: c, compiled: map[string]*jsonschema.Schema{}, bare: bare,
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
	for _, name := range slices.Sorted(maps.Keys(raw.Defs)) {
		d := raw.Defs[name]
		s.defs[name] = true
		if d.Method == "" {
			continue
		}
		list := s.methods[d.Method]
		i := slices.IndexFunc(list, func(m methodDefs) bool { return m.receiver == d.Side })
		if i < 0 {
			list = append(list, methodDefs{receiver: d.Side})
			i = len(list) - 1
		}
		m := &list[i]
		ref := `"#/$defs/` + name + `"`
		switch {
		case strings.Contains(results, ref):
			m.result = name
		case strings.Contains(notes, ref):
			m.params, m.notification = name, true
		default:
			m.params = name
		}
		slices.SortFunc(list, func(a, b methodDefs) int { return strings.Compare(a.receiver, b.receiver) })
		s.methods[d.Method] = list
	}
	return s, nil
}

// closeOpenValues narrows the v2 schema's catch-alls for unknown values to
// the values a sender may use today. v2 keeps every enum and union open: a
// branch titled "other" (or "unknown") accepts any string, or any object
// whose discriminator is no known value, so that receivers keep what newer
// peers send. But values that do not begin with "_" are reserved for future
// ACP versions; a sender speaking this schema may only use the listed values
// and "_"-prefixed extensions. So for checking what is sent, each catch-all
// gets "pattern": "^_" on its value or discriminator. Without this, a v1
// update such as {"sessionUpdate":"plan"} would pass as a "future" v2
// variant. Catch-alls for any JSON value (error data) and integer codes stay
// open.
func closeOpenValues(doc any) {
	switch x := doc.(type) {
	case []any:
		for _, v := range x {
			closeOpenValues(v)
		}
	case map[string]any:
		for _, key := range []string{"anyOf", "oneOf"} {
			branches, _ := x[key].([]any)
			for _, b := range branches {
				br, ok := b.(map[string]any)
				if !ok || (br["title"] != "other" && br["title"] != "unknown") {
					continue
				}
				switch br["type"] {
				case "string":
					br["pattern"] = "^_"
				case "object":
					if p := catchAllTag(br); p != nil {
						p["pattern"] = "^_"
					}
				}
			}
		}
		for _, v := range x {
			closeOpenValues(v)
		}
	}
}

// catchAllTag returns the discriminator property of an "other" object
// branch: the property its "not" tests for known constants.
func catchAllTag(br map[string]any) map[string]any {
	not, _ := br["not"].(map[string]any)
	known, _ := not["anyOf"].([]any)
	if len(known) == 0 {
		return nil
	}
	first, _ := known[0].(map[string]any)
	props, _ := first["properties"].(map[string]any)
	mine, _ := br["properties"].(map[string]any)
	for k := range props {
		if p, ok := mine[k].(map[string]any); ok && p["type"] == "string" {
			return p
		}
	}
	return nil
}

// addBareEnvelopes adds to doc's $defs a copy of each envelope without
// the member that carries the method's data (see bareEnvelope): requests
// and notifications without properties.params, responses without the
// Result branch's properties.result. Everything else of the envelope (its
// type, required members, id, method, the Error branch) stays.
func addBareEnvelopes(doc any) map[string]bareEnvelope {
	out := map[string]bareEnvelope{}
	root, _ := doc.(map[string]any)
	defs, _ := root["$defs"].(map[string]any)
	// without returns a copy of obj whose "properties" lack member, and
	// the definitions member's schema names; nil if it has no such member.
	without := func(obj map[string]any, member string) (map[string]any, map[string]bool) {
		props, _ := obj["properties"].(map[string]any)
		m, ok := props[member]
		if !ok {
			return nil, nil
		}
		refs := map[string]bool{}
		collectRefs(m, refs)
		cp, cprops := maps.Clone(obj), maps.Clone(props)
		delete(cprops, member)
		cp["properties"] = cprops
		return cp, refs
	}
	for _, side := range []string{"Agent", "Client"} {
		for _, kind := range []string{"Request", "Notification"} {
			name := side + kind
			env, _ := defs[name].(map[string]any)
			if bare, refs := without(env, "params"); bare != nil {
				out[name] = bareEnvelope{name + "WithoutParams", refs}
				defs[name+"WithoutParams"] = bare
			}
		}
		name := side + "Response"
		env, _ := defs[name].(map[string]any)
		branches, _ := env["anyOf"].([]any)
		var refs map[string]bool
		bareBranches := slices.Clone(branches)
		for i, b := range branches {
			br, _ := b.(map[string]any)
			if bare, r := without(br, "result"); bare != nil && refs == nil {
				bareBranches[i], refs = bare, r
			}
		}
		if refs != nil {
			bare := maps.Clone(env)
			bare["anyOf"] = bareBranches
			out[name] = bareEnvelope{name + "WithoutResult", refs}
			defs[name+"WithoutResult"] = bare
		}
	}
	return out
}

// collectRefs adds the definitions the $refs in schema name to refs.
func collectRefs(schema any, refs map[string]bool) {
	switch x := schema.(type) {
	case []any:
		for _, v := range x {
			collectRefs(v, refs)
		}
	case map[string]any:
		if r, ok := x["$ref"].(string); ok {
			if name, ok := strings.CutPrefix(r, "#/$defs/"); ok {
				refs[name] = true
			}
		}
		for _, v := range x {
			collectRefs(v, refs)
		}
	}
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

// find returns the schema file of the version that defines def, preferring
// the stable one.
func find(version int, def string) (*schemaSet, error) {
	ss, err := setsFor(version)
	if err != nil {
		return nil, err
	}
	for _, s := range ss {
		if s.defs[def] {
			return s, nil
		}
	}
	return nil, fmt.Errorf("no v%d schema definition %q", version, def)
}

// lookup returns the method's definitions and the schema file they are in.
// receiver picks the handling side ("agent", "client"); "" accepts any
// side, or the first in side order when there are several.
func lookup(version int, method, receiver string) (*schemaSet, methodDefs, bool) {
	ss, err := setsFor(version)
	if err != nil {
		return nil, methodDefs{}, false
	}
	for _, s := range ss {
		for _, m := range s.methods[method] {
			if receiver == "" || m.receiver == receiver || m.receiver == "protocol" {
				return s, m, true
			}
		}
	}
	return nil, methodDefs{}, false
}

func parse(data []byte) (any, error) {
	return jsonschema.UnmarshalJSON(bytes.NewReader(data))
}

// Validate marshals v with encoding/json and checks it against the v1 schema
// definition defName ("PromptResponse", "SessionNotification", ...). The
// stable schema is used when it defines defName, the unstable one otherwise.
func Validate(t testing.TB, defName string, v any) {
	t.Helper()
	if err := validateValue(1, defName, v); err != nil {
		t.Errorf("%s does not match the ACP schema: %v", defName, err)
	}
}

// ValidateV2Def is Validate against the v2 schema.
func ValidateV2Def(t testing.TB, defName string, v any) {
	t.Helper()
	if err := validateValue(2, defName, v); err != nil {
		t.Errorf("%s does not match the ACP v2 schema: %v", defName, err)
	}
}

func validateValue(version int, defName string, v any) error {
	s, err := find(version, defName)
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

// ValidateMessage checks one JSON-RPC message line against the v1 schema:
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
	if err := validateLine(Line{Version: 1}, line, false); err != nil {
		t.Errorf("message does not match the ACP schema: %v\n%s", err, line)
	}
}

// ValidateResponse checks a response line to a request for method: the
// envelope, and the result against the method's result definition (or the
// error object).
func ValidateResponse(t testing.TB, method string, line []byte) {
	t.Helper()
	if err := validateLine(Line{Version: 1, Method: method}, line, false); err != nil {
		t.Errorf("%s response does not match the ACP schema: %v\n%s", method, err, line)
	}
}

// ValidateV2 is ValidateMessage against the v2 schema.
func ValidateV2(t testing.TB, line []byte) {
	t.Helper()
	if err := validateLine(Line{Version: 2}, line, false); err != nil {
		t.Errorf("message does not match the ACP v2 schema: %v\n%s", err, line)
	}
}

// ValidateV2Response is ValidateResponse against the v2 schema.
func ValidateV2Response(t testing.TB, method string, line []byte) {
	t.Helper()
	if err := validateLine(Line{Version: 2, Method: method}, line, false); err != nil {
		t.Errorf("%s response does not match the ACP v2 schema: %v\n%s", method, err, line)
	}
}

// Line says what is known about a wire line, for ValidateLine.
type Line struct {
	// Version is the negotiated protocol version: 1 or 2.
	Version int
	// FromAgent says who sent the line: the agent (true) or the client.
	FromAgent bool
	// Method, for a response, is the method of the request it answers;
	// "" checks only the envelope (and the error object, if any).
	Method string

	full bool // check the whole envelope even where a bare one would do (tests)
}

// ValidateLine checks one line of a conversation whose sender is known, as a
// golden transcript records it, against the schema of l.Version. On top of
// what ValidateMessage and ValidateResponse check, a call must travel in the
// direction its x-side allows (the agent sends only methods the client
// handles, and the other way round), and a response's envelope is the
// sender's (AgentResponse or ClientResponse) and answers a method the sender
// handles.
func ValidateLine(t testing.TB, l Line, line []byte) {
	t.Helper()
	reportLine(t, l, line, validateLine(l, line, true))
}

// reportLine fails t with ValidateLine's message when err is set.
func reportLine(t testing.TB, l Line, line []byte, err error) {
	t.Helper()
	if err != nil {
		from := "client"
		if l.FromAgent {
			from = "agent"
		}
		what := "message"
		if l.Method != "" {
			what = l.Method + " response"
		}
		t.Errorf("%s from the %s does not match the ACP v%d schema: %v\n%s", what, from, l.Version, err, line)
	}
}

func validateLine(l Line, line []byte, directed bool) error {
	inst, err := parse(line)
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if _, batch := inst.([]any); batch {
		// The v2 draft's migration guide allowed batches on stdio; the schema
		// and the SDK that bundles it (TypeScript 2.4.0) do not: "ACP does
		// not use JSON-RPC batches" on any version.
		return fmt.Errorf("a JSON-RPC batch (ACP does not use batches)")
	}
	return validateMessage(l, inst, directed)
}

func validateMessage(l Line, inst any, directed bool) error {
	responseTo := l.Method
	msg, ok := inst.(map[string]any)
	if !ok {
		return fmt.Errorf("not a JSON object")
	}
	if msg["jsonrpc"] != "2.0" {
		return fmt.Errorf(`"jsonrpc" must be "2.0"`)
	}
	ss, err := setsFor(l.Version)
	if err != nil {
		return err
	}
	stable := ss[0]
	sender, handler := "Client", "agent"
	if l.FromAgent {
		sender, handler = "Agent", "client"
	}
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
		envelope := ""
		if directed {
			envelope = sender + "Response"
		}
		// A result the method's own definition checks leaves the envelope
		// to check the rest (bareEnvelope).
		var s *schemaSet
		var m methodDefs
		known := false
		if hasResult && responseTo != "" {
			receiver := ""
			if directed {
				receiver = strings.ToLower(sender)
			}
			s, m, known = lookup(l.Version, responseTo, receiver)
		}
		if b, ok := stable.bare[envelope]; ok && !l.full && known && m.result != "" && b.refs[m.result] {
			envelope = b.def
		}
		if err := stable.validate(envelope, inst); err != nil {
			return err
		}
		if hasError {
			if err := stable.validate("Error", msg["error"]); err != nil {
				return err
			}
			if l.Version >= 2 {
				return checkErrorData(stable, msg["error"])
			}
			return nil
		}
		if responseTo == "" {
			return nil
		}
		if !known || m.result == "" {
			if directed {
				return fmt.Errorf("method %q has no result handled by the %s in the schema", responseTo, strings.ToLower(sender))
			}
			return fmt.Errorf("method %q has no result in the schema", responseTo)
		}
		return s.validate(m.result, msg["result"])
	}
	if responseTo != "" {
		return fmt.Errorf("expected a response, got a %q call", method)
	}

	receiver := ""
	if directed {
		receiver = handler
	}
	s, m, known := lookup(l.Version, method, receiver)
	if !known {
		if directed {
			if _, _, found := lookup(l.Version, method, ""); found {
				return fmt.Errorf("method %q is not sent by the %s", method, strings.ToLower(sender))
			}
		}
		if !strings.HasPrefix(method, "_") {
			return fmt.Errorf("method %q is not defined by the ACP schema (extension methods start with _)", method)
		}
		envelope := ""
		if directed {
			envelope = sender + "Request"
			if !hasID {
				envelope = sender + "Notification"
			}
		}
		return stable.validate(envelope, inst)
	}
	if m.notification == hasID {
		kind := "request"
		if m.notification {
			kind = "notification"
		}
		return fmt.Errorf("%s is a %s", method, kind)
	}
	if envelope := envelopeDef(m); envelope != "" {
		// The params are checked below against the method's definition
		// (bareEnvelope).
		if b, ok := s.bare[envelope]; ok && !l.full && b.refs[m.params] {
			envelope = b.def
		}
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

// checkErrorData applies the v2 error data shapes (seed 003) that the
// schema describes but does not enforce, its ErrorData being open: -32022
// carries UnsupportedProtocolVersionErrorData {requested, supported}, and
// -32002 carries either no data (a missing resource) or
// SessionNotFoundErrorData {sessionId} (a session that does not exist or is
// not active).
func checkErrorData(s *schemaSet, e any) error {
	obj, _ := e.(map[string]any)
	code, _ := obj["code"].(json.Number)
	data, hasData := obj["data"]
	switch code {
	case "-32022":
		if err := s.validate("UnsupportedProtocolVersionErrorData", data); err != nil {
			return fmt.Errorf("-32022 data: %w", err)
		}
	case "-32002":
		if hasData && data != nil {
			if err := s.validate("SessionNotFoundErrorData", data); err != nil {
				return fmt.Errorf("-32002 data: %w", err)
			}
		}
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
