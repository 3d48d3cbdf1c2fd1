package main

import (
	"fmt"
	"slices"
	"strings"
)

// A kind is how a schema definition is represented in Go.
type kind int

const (
	kindStruct     kind = iota // object with properties
	kindAlias                  // named string or integer
	kindEnum                   // named string with constants
	kindUnion                  // object union picked by a discriminator member
	kindValueUnion             // untagged union tried branch by branch
)

// goType is one generated top-level Go type.
type goType struct {
	Name      string // Go name
	Schema    string // $defs name; "" for synthesized variant types
	Kind      kind
	Doc       []string
	Unstable  bool
	Synthetic bool

	Under  string // kindAlias: underlying Go type
	Open   bool   // kindEnum: values outside the list are accepted
	Values []enumValue

	Fields   []*field   // kindStruct fields; kindUnion fields shared by all variants
	Tag      string     // kindUnion: discriminator member
	Variants []*variant // kindUnion, kindValueUnion
	Default  *variant   // kindUnion: variant used when the discriminator is absent
	HasOther bool       // kindUnion: the schema names an explicit catch-all branch
	NullTag  bool       // kindUnion: Default is the branch whose discriminator is null (or absent)
	Nested   bool       // kindUnion: some union or struct holds it as a payload (members flattened)
	Flat     []*variant // kindStruct: untagged alternatives that share the object

	Dropped []string // properties left out (unstable, not generated)
}

type enumValue struct {
	Go, Value string
	Doc       []string
}

// variant is one branch of a union.
type variant struct {
	Field string // Go field name
	Tag   string // discriminator value; "" for untagged branches
	Type  *tref  // payload type: a generated struct, or a scalar/slice in value unions
	Doc   []string
}

// field is one object member.
type field struct {
	JSON, Go    string
	Doc         []string
	T           *tref
	Required    bool
	Nullable    bool // optional and null allowed: Opt[T] or *T
	Ptr         bool // Nullable and represented as *T (null reads as absent)
	Lenient     bool // x-deserialize-default-on-error
	SkipInvalid bool // x-deserialize-skip-invalid-items
	NullDefault bool // x-deserialize-default-on-null
	Unstable    bool
}

// A tkind classifies a field's Go type for encoding decisions.
type tkind int

const (
	tString tkind = iota // string or named string
	tInt                 // signed integer or named one
	tUint                // unsigned integer or named one
	tFloat
	tBool
	tObject // generated struct or union
	tSlice
	tMap
	tRaw  // json.RawMessage
	tMeta // map[string]json.RawMessage
)

// tref is a Go type expression with enough structure to encode it.
type tref struct {
	Go        string
	Kind      tkind
	Elem      *tref
	RequestID bool // json.RawMessage standing for the schema's RequestId
}

// config selects what to generate beyond the stable schema and what to skip.
// There is one per generated package (see profiles); the v1 one is
// defaultConfig.
type config struct {
	// pkg is the Go package name of the output, and regenerate the command
	// named in its header.
	pkg, regenerate string
	// skip lists $defs not generated: JSON-RPC envelopes and the error
	// object, which the hand-written connection code owns.
	skip map[string]bool
	// unstableDefs are unstable-only $defs to generate.
	unstableDefs []string
	// unstableProps are unstable properties added to stable $defs.
	unstableProps map[string][]string
	// reserved are Go names owned by hand-written code in the package.
	reserved []string
	// reservedPrefixes are Go name prefixes owned by hand-written code.
	reservedPrefixes []string
	// unstableNote replaces the UNSTABLE banner in doc comments.
	unstableNote string
	// optObjects makes optional nullable object members Opt[T] instead of
	// *T, for schemas where null and absence differ for objects too (v2's
	// tool_call_update capabilities, terminal_update exitStatus, usage_update
	// cost: absent leaves the value alone, null clears it).
	optObjects bool
}

var defaultConfig = config{
	pkg:        "acp",
	regenerate: "go generate ./acp",
	skip: map[string]bool{
		"Error": true, "ErrorCode": true, "RequestId": true,
		"ExtRequest": true, "ExtResponse": true, "ExtNotification": true,
	},
	unstableDefs: []string{"ForkSessionRequest", "ForkSessionResponse", "SessionForkCapabilities", "Usage"},
	unstableProps: map[string][]string{
		"SessionCapabilities": {"fork"},
		"PromptResponse":      {"usage"},
	},
	reserved: []string{
		"Conn", "Error", "ErrorCode", "Handler", "HandlerFunc", "Option", "Request",
		"Response", "Notification", "Message", "ID", "Dispatcher", "Side", "NewConn",
		"LatestProtocolVersion", "NegotiateVersion", "ProtocolV1", "ProtocolV2",
		"PeekProtocolVersion", "IsV2RequestID",
	},
	reservedPrefixes: []string{"Err", "Code"},
	unstableNote:     unstableNote,
}

// v2Config generates package acpv2 (acp/acpv2/types_gen.go) from the v2
// schema. It mirrors the v1 selection of unstable additions (session/fork
// and token usage, which v2 reports on the idle state update instead of the
// prompt response). The JSON-RPC error object is generated here, because
// v2 uses it inside a schema type (an idle state's error stop reason), as
// Error with an open integer ErrorCode; the connection still uses acp.Error.
var v2Config = config{
	pkg:        "acpv2",
	regenerate: "go generate ./acp/acpv2",
	skip: map[string]bool{
		"RequestId":  true,
		"ExtRequest": true, "ExtResponse": true, "ExtNotification": true,
	},
	unstableDefs: []string{"ForkSessionRequest", "ForkSessionResponse", "SessionForkCapabilities", "Usage"},
	unstableProps: map[string][]string{
		"SessionCapabilities": {"fork"},
		"IdleStateUpdate":     {"usage"},
	},
	reserved:     []string{"ProtocolVersion2", "SessionNotFound", "UnsupportedProtocolVersion"},
	unstableNote: "Unstable: not part of the stable ACP v2 schema; it may change or disappear.",
	optObjects:   true,
}

// profiles are the packages acpgen can generate, by -profile name.
var profiles = map[string]config{"v1": defaultConfig, "v2": v2Config}

// method is one row of the generated method table.
type method struct {
	Name         string
	Const        string
	Receiver     string // x-side
	Notification bool
	Unstable     bool
	Params       string // Go type
	Result       string // Go type; "" for notifications
}

// model is everything the emitter needs.
type model struct {
	Types   []*goType
	Methods []*method
	Config  config
	byName  map[string]*goType // by $defs name
}

type builder struct {
	cfg          config
	stable       map[string]*Schema
	unstable     map[string]*Schema
	included     map[string]bool
	unstableOnly map[string]bool // included defs that exist only in the unstable schema
	m            *model
	goNames      map[string]string
}

// build converts the schemas into the Go model.
func build(stable, unstable *Schema, cfg config) (*model, error) {
	b := &builder{
		cfg:          cfg,
		stable:       stable.Defs.Map,
		unstable:     unstable.Defs.Map,
		included:     map[string]bool{},
		unstableOnly: map[string]bool{},
		m:            &model{Config: cfg, byName: map[string]*goType{}},
		goNames:      map[string]string{},
	}
	var order []string
	for _, name := range stable.Defs.Keys {
		s := b.stable[name]
		if cfg.skip[name] || s.XDocsIgnore {
			continue
		}
		order = append(order, name)
		b.included[name] = true
	}
	for _, name := range cfg.unstableDefs {
		if b.stable[name] != nil {
			return nil, fmt.Errorf("unstable def %s is already stable; drop it from the config", name)
		}
		if b.unstable[name] == nil {
			return nil, fmt.Errorf("unstable def %s not found", name)
		}
		order = append(order, name)
		b.included[name] = true
		b.unstableOnly[name] = true
	}
	for _, name := range order {
		b.goNames[name] = goName(name)
	}
	for _, name := range order {
		s, err := b.defSchema(name)
		if err != nil {
			return nil, err
		}
		if err := b.addDef(name, s); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	if err := b.checkPayloads(); err != nil {
		return nil, err
	}
	if err := b.methods(unstable); err != nil {
		return nil, err
	}
	if err := b.checkNames(); err != nil {
		return nil, err
	}
	return b.m, nil
}

// defSchema returns the definition to generate: the stable one, widened by
// the configured unstable properties, or an unstable-only definition.
func (b *builder) defSchema(name string) (*Schema, error) {
	if b.unstableOnly[name] {
		return b.unstable[name], nil
	}
	s := b.stable[name]
	extra := b.cfg.unstableProps[name]
	if len(extra) == 0 {
		return s, nil
	}
	u := b.unstable[name]
	if u == nil || u.Properties == nil {
		return nil, fmt.Errorf("%s: no unstable properties", name)
	}
	merged := *s
	props := &orderedSchemas{Map: map[string]*Schema{}}
	for _, k := range u.Properties.Keys {
		switch {
		case s.Properties.get(k) != nil:
			props.Map[k] = s.Properties.Map[k]
		case slices.Contains(extra, k):
			p := *u.Properties.Map[k]
			p.Description = "**UNSTABLE**\n\n" + p.Description
			props.Map[k] = &p
		default:
			continue
		}
		props.Keys = append(props.Keys, k)
	}
	for _, k := range extra {
		if props.Map[k] == nil {
			return nil, fmt.Errorf("%s: unstable property %s not found", name, k)
		}
	}
	merged.Properties = props
	return &merged, nil
}

// doc is docText with the package's note for unstable definitions.
func (b *builder) doc(desc string, opt docOptions) []string {
	out := docText(desc, false, opt)
	if b.cfg.unstableNote != unstableNote {
		for i, l := range out {
			if l == unstableNote {
				out[i] = b.cfg.unstableNote
			}
		}
	}
	return out
}

func (b *builder) add(t *goType) {
	b.m.Types = append(b.m.Types, t)
	if t.Schema != "" {
		b.m.byName[t.Schema] = t
	}
}

// addDef classifies one definition and adds its Go type(s).
func (b *builder) addDef(name string, s *Schema) error {
	t := &goType{
		Name:     b.goNames[name],
		Schema:   name,
		Unstable: b.unstableOnly[name],
	}
	t.Doc = b.doc(s.Description, typeDoc)
	if t.Unstable && !slices.Contains(t.Doc, b.cfg.unstableNote) {
		t.Doc = append(t.Doc, "", b.cfg.unstableNote)
	}
	branches := s.OneOf
	if len(branches) == 0 {
		branches = s.AnyOf
	}
	switch {
	case len(branches) > 0 && isEnum(branches):
		return b.addEnum(t, branches)
	case len(branches) > 0 && isIntEnum(branches):
		return b.addIntEnum(t, branches)
	case len(branches) > 0:
		return b.addUnion(t, s, branches)
	case s.Type.nonNull() == "string" && s.Properties == nil:
		t.Kind, t.Under = kindAlias, "string"
	case s.Type.nonNull() == "integer":
		t.Kind, t.Under = kindAlias, intType(s.Format)
	case s.Type.nonNull() == "object" || s.Properties != nil:
		t.Kind = kindStruct
		fields, err := b.fields(t, s, "")
		if err != nil {
			return err
		}
		t.Fields = fields
	default:
		return fmt.Errorf("unsupported definition shape")
	}
	b.add(t)
	return nil
}

// nullTagBranch reports whether a union branch is the form whose
// discriminator is null or absent (v2's IdleStateUpdate without a
// stopReason): its only property is the discriminator, typed null.
func nullTagBranch(br *Schema, tag string) bool {
	if tag == "" || br.Properties == nil || len(br.Properties.Keys) != 1 || br.isRequired(tag) {
		return false
	}
	p := br.Properties.get(tag)
	return p != nil && p.isNullOnly()
}

// isEnum reports whether every branch is a string constant or the
// catch-all "other" string.
func isEnum(branches []*Schema) bool {
	for _, br := range branches {
		if _, ok := br.constString(); ok && br.Properties == nil {
			continue
		}
		if (br.Title == "other" || br.Title == "unknown") && br.Type.nonNull() == "string" && br.Properties == nil {
			continue
		}
		return false
	}
	return true
}

// isIntEnum reports whether every branch is a titled integer constant or
// a titled integer catch-all (v2's ErrorCode), all of one format.
func isIntEnum(branches []*Schema) bool {
	format := branches[0].Format
	for _, br := range branches {
		if br.Type.nonNull() != "integer" || br.Title == "" || br.Properties != nil || br.Format != format {
			return false
		}
	}
	return true
}

// addIntEnum adds an open integer enum: a named integer type with the
// listed values as constants, named after their titles.
func (b *builder) addIntEnum(t *goType, branches []*Schema) error {
	t.Kind, t.Under = kindEnum, intType(branches[0].Format)
	for _, br := range branches {
		if len(br.Const) == 0 {
			t.Open = true
			continue
		}
		var n int64
		if err := jsonStrict(br.Const, &n); err != nil {
			return fmt.Errorf("integer constant %s: %w", br.Const, err)
		}
		t.Values = append(t.Values, enumValue{
			Go:    t.Name + goName(br.Title),
			Value: fmt.Sprint(n),
			Doc:   b.doc(br.Description, fieldDoc),
		})
	}
	if !t.Open {
		return fmt.Errorf("closed integer enums are not supported")
	}
	b.add(t)
	return nil
}

func (b *builder) addEnum(t *goType, branches []*Schema) error {
	t.Kind, t.Under = kindEnum, "string"
	for _, br := range branches {
		v, ok := br.constString()
		if !ok {
			t.Open = true
			continue
		}
		t.Values = append(t.Values, enumValue{
			Go:    t.Name + goName(v),
			Value: v,
			Doc:   b.doc(br.Description, fieldDoc),
		})
	}
	b.add(t)
	return nil
}

// tagOf returns the discriminator member and value of a branch: the one
// required property whose schema is a string constant.
func tagOf(br *Schema) (key, value string, ok bool) {
	if br.Properties == nil {
		return "", "", false
	}
	for _, k := range br.Properties.Keys {
		if v, isConst := br.Properties.Map[k].constString(); isConst && br.isRequired(k) {
			return k, v, true
		}
	}
	return "", "", false
}

func (b *builder) addUnion(t *goType, s *Schema, branches []*Schema) error {
	tagged := false
	for _, br := range branches {
		if key, _, ok := tagOf(br); ok {
			if t.Tag != "" && t.Tag != key {
				return fmt.Errorf("mixed discriminators %s and %s", t.Tag, key)
			}
			t.Tag, tagged = key, true
		}
	}
	if s.Discriminator != nil && s.Discriminator.PropertyName != t.Tag {
		return fmt.Errorf("discriminator %s does not match branches", s.Discriminator.PropertyName)
	}
	var common []*field
	if s.Properties != nil {
		var err error
		if common, err = b.fields(t, s, t.Tag); err != nil {
			return err
		}
	}
	switch {
	case tagged:
		t.Kind, t.Fields = kindUnion, common
	case s.Properties != nil:
		t.Kind, t.Fields = kindStruct, common
	default:
		t.Kind = kindValueUnion
	}
	b.add(t)
	for _, br := range branches {
		if br.Title == "other" && br.Not != nil {
			if !tagged {
				return fmt.Errorf("catch-all branch in an untagged union")
			}
			t.HasOther = true
			continue
		}
		v, err := b.variant(t, br)
		if err != nil {
			return err
		}
		switch {
		case t.Kind == kindStruct:
			t.Flat = append(t.Flat, v)
		case tagged && v.Tag == "":
			if t.Default != nil {
				return fmt.Errorf("two untagged branches in a tagged union")
			}
			t.Default = v
			t.NullTag = nullTagBranch(br, t.Tag)
			t.Variants = append(t.Variants, v)
		default:
			t.Variants = append(t.Variants, v)
		}
	}
	seen := map[string]bool{}
	for _, f := range t.Fields {
		seen[f.Go] = true
	}
	for _, v := range append(slices.Clone(t.Variants), t.Flat...) {
		if seen[v.Field] {
			return fmt.Errorf("variant field %s collides", v.Field)
		}
		seen[v.Field] = true
	}
	return nil
}

// variant builds one union branch. Branches that carry their own
// properties, or none, get a synthesized struct named after the union.
func (b *builder) variant(t *goType, br *Schema) (*variant, error) {
	v := &variant{Doc: b.doc(br.Description, fieldDoc)}
	key, tag, tagged := tagOf(br)
	if tagged {
		v.Tag = tag
		v.Field = goName(tag)
	} else {
		if nullTagBranch(br, t.Tag) {
			key = t.Tag
		}
		if br.Title == "" {
			return nil, fmt.Errorf("untagged branch without a title")
		}
		v.Field = goName(br.Title)
	}
	if t.Kind == kindValueUnion && br.refName() == "" {
		// A scalar or array branch of a value union.
		rt, nullable, err := b.typeOf(br)
		if err != nil || rt == nil || nullable {
			return nil, fmt.Errorf("branch %s: unsupported value type", v.Field)
		}
		v.Type = rt
		return v, nil
	}
	var ref string
	switch {
	case br.refName() != "":
		ref = br.refName()
	case len(br.AllOf) == 1 && br.AllOf[0].refName() != "":
		ref = br.AllOf[0].refName()
	case len(br.AllOf) > 1:
		return nil, fmt.Errorf("branch %s: allOf with %d members", v.Field, len(br.AllOf))
	}
	inline := br.Properties != nil && len(br.Properties.Keys) > 0 && !(tagged && len(br.Properties.Keys) == 1)
	switch {
	case ref != "" && inline:
		return nil, fmt.Errorf("branch %s: both a reference and inline properties", v.Field)
	case ref != "":
		rt, err := b.refType(ref)
		if err != nil {
			return nil, err
		}
		if rt == nil || rt.Kind != tObject {
			return nil, fmt.Errorf("branch %s: payload %s is not an object", v.Field, ref)
		}
		v.Type = rt
	default:
		// Inline properties, or a bare tag: synthesize a struct.
		st := &goType{
			Name:      t.Name + v.Field,
			Kind:      kindStruct,
			Unstable:  t.Unstable,
			Synthetic: true,
		}
		if tagged {
			st.Doc = []string{fmt.Sprintf("%s is the payload of a %s whose %s is %q.", st.Name, t.Name, key, tag)}
		} else {
			st.Doc = []string{fmt.Sprintf("%s is the %s form of a %s.", st.Name, br.Title, t.Name)}
		}
		if br.Properties != nil {
			fields, err := b.fields(st, br, key)
			if err != nil {
				return nil, err
			}
			st.Fields = fields
		}
		b.add(st)
		v.Type = &tref{Go: st.Name, Kind: tObject}
	}
	return v, nil
}

// fields converts the properties of s, leaving out the discriminator.
func (b *builder) fields(t *goType, s *Schema, tag string) ([]*field, error) {
	var out []*field
	if s.Properties == nil {
		return nil, nil
	}
	for _, k := range s.Properties.Keys {
		if k == tag {
			continue
		}
		p := s.Properties.Map[k]
		f := &field{
			JSON:        k,
			Go:          goName(k),
			Required:    s.isRequired(k),
			Lenient:     p.XDefaultOnError,
			SkipInvalid: p.XSkipInvalid,
			NullDefault: p.XDefaultOnNull,
		}
		if k == "_meta" {
			f.Go = "Meta"
			f.T = &tref{Go: "map[string]json.RawMessage", Kind: tMeta}
			f.Lenient = true
			f.Doc = []string{"Meta is the _meta extension object, kept verbatim (numbers keep their precision)."}
			out = append(out, f)
			continue
		}
		rt, nullable, err := b.typeOf(p)
		if err != nil {
			return nil, fmt.Errorf("property %s: %w", k, err)
		}
		if rt == nil {
			// References an unstable definition that is not generated.
			t.Dropped = append(t.Dropped, k)
			continue
		}
		f.T = rt
		f.Nullable = nullable && !f.Required
		f.Ptr = f.Nullable && rt.Kind == tObject && !b.cfg.optObjects
		f.Unstable = strings.HasPrefix(p.Description, "**UNSTABLE**")
		f.Doc = b.doc(p.Description, fieldDoc)
		if f.Required && nullable && rt.Kind != tRaw {
			return nil, fmt.Errorf("property %s: required and nullable", k)
		}
		out = append(out, f)
	}
	return out, nil
}
