package main

import (
	"bytes"
	"fmt"
	"go/format"
	"strings"
)

// codecImport is the runtime every generated package calls: hand-written,
// once, for all of them.
const codecImport = "github.com/claude-agent-acp/claude-agent-acp/acp/internal/codec"

// packageAPI is emitted into every generated package: the runtime types
// the packages share (by alias, so that values move between v1 and v2
// without conversion), and the lookups of the package's method table.
const packageAPI = `// DecodeError reports a schema violation found while decoding an ACP type.
// Path locates the offending member relative to the value being decoded, in
// dotted JSON form ("update.content.text", "prompt[2].uri"); it is empty when
// the value as a whole is wrong. A connection can turn it into an
// invalid-params error without echoing the payload. It is the same type in
// packages acp and acpv2.
type DecodeError = codec.DecodeError

// Opt is an optional schema member that can be absent, null or a value.
//
// ACP gives null and absence different meanings in places: in a
// session_info_update, an absent title leaves the title alone while a null
// title clears it, and tool_call_update patches work the same way. A Go
// pointer cannot tell the two apart, so generated types use Opt[T] for
// optional members whose schema allows null.
//
// The zero Opt is absent; Some and Null make the others. Get, Or, Ptr,
// IsSet, IsNull and IsZero read it. With the omitzero struct tag (and in the
// generated encoders) an absent Opt is left out of the JSON object; a null
// one is written as null. It is the same type in packages acp and acpv2.
type Opt[T any] = codec.Opt[T]

// Some returns an Opt holding v.
func Some[T any](v T) Opt[T] { return codec.Some(v) }

// Null returns an Opt that is explicitly null.
func Null[T any]() Opt[T] { return codec.Null[T]() }

// OptFromPtr returns Some(*p), or an absent Opt when p is nil.
func OptFromPtr[T any](p *T) Opt[T] { return codec.OptFromPtr(p) }

// MethodReceiver names the side of a connection that handles a method, as
// the schema's x-side says.
type MethodReceiver = codec.MethodReceiver

const (
	ReceiverAgent    = codec.ReceiverAgent    // sent by the client
	ReceiverClient   = codec.ReceiverClient   // sent by the agent
	ReceiverProtocol = codec.ReceiverProtocol // sent by either side ($/ methods)
)

// MethodSpec describes one ACP method: who handles it, whether it is a
// notification, and the Go types of its params and result (NewParams,
// NewResult), so that a connection can decode traffic without a
// hand-written switch.
type MethodSpec = codec.MethodSpec

// LookupMethod returns the spec of a method defined by the schema.
func LookupMethod(name string) (MethodSpec, bool) {
	s, ok := methodTable[name]
	return s, ok
}

// Methods returns the specs of every generated method, sorted by name.
func Methods() []MethodSpec { return codec.SortedMethods(methodTable) }
`

// runtimeNames are the exported names packageAPI declares; schema types
// must not take them.
var runtimeNames = []string{
	"DecodeError", "MethodReceiver", "ReceiverAgent", "ReceiverClient", "ReceiverProtocol",
	"MethodSpec", "LookupMethod", "Methods", "Opt", "Some", "Null", "OptFromPtr",
}

type emitter struct {
	bytes.Buffer
}

func (e *emitter) p(format string, args ...any) {
	fmt.Fprintf(&e.Buffer, format, args...)
	e.WriteByte('\n')
}

func (e *emitter) doc(indent string, lines []string) {
	for _, l := range lines {
		if l == "" {
			e.p("%s//", indent)
		} else {
			e.p("%s// %s", indent, l)
		}
	}
}

// emit renders the model as gofmt'ed Go source.
func emit(m *model, header []string) ([]byte, error) {
	var body emitter
	body.p("")
	body.WriteString(packageAPI)
	body.p("")
	body.methods(m)
	for _, t := range m.Types {
		switch t.Kind {
		case kindAlias:
			body.alias(t)
		case kindEnum:
			body.enum(t)
		case kindStruct:
			body.structType(t)
		case kindUnion:
			body.union(t)
		case kindValueUnion:
			body.valueUnion(t)
		}
	}
	var e emitter
	for _, h := range header {
		e.p("// %s", h)
	}
	e.p("")
	e.p("package %s", m.Config.pkg)
	e.p("")
	e.p("import (")
	for _, imp := range []string{"encoding/json", "errors", "maps"} {
		if bytes.Contains(body.Bytes(), []byte(imp[strings.LastIndex(imp, "/")+1:]+".")) {
			e.p("\t%q", imp)
		}
	}
	e.p("")
	e.p("\t%q", codecImport)
	e.p(")")
	e.Write(body.Bytes())
	out, err := format.Source(e.Bytes())
	if err != nil {
		return e.Bytes(), fmt.Errorf("formatting generated code: %w", err)
	}
	return out, nil
}

func (e *emitter) typeDoc(t *goType) {
	if len(t.Doc) == 0 {
		e.p("// %s is the schema type %s.", t.Name, t.Schema)
		return
	}
	lines := append([]string{t.Name + ": " + t.Doc[0]}, t.Doc[1:]...)
	e.doc("", lines)
}

func (e *emitter) alias(t *goType) {
	e.typeDoc(t)
	e.p("type %s %s", t.Name, t.Under)
	e.p("")
}

func (e *emitter) enum(t *goType) {
	e.typeDoc(t)
	if t.Open {
		e.doc("", []string{"", "Values other than the constants below are valid and must be preserved."})
	}
	e.p("type %s %s", t.Name, t.Under)
	e.p("")
	e.p("const (")
	for _, v := range t.Values {
		e.doc("\t", v.Doc)
		if t.Under == "string" {
			e.p("\t%s %s = %q", v.Go, t.Name, v.Value)
		} else {
			e.p("\t%s %s = %s", v.Go, t.Name, v.Value)
		}
	}
	e.p(")")
	e.p("")
	if t.Open {
		return
	}
	e.p("// UnmarshalJSON accepts only the values the schema lists.")
	e.p("func (v *%s) UnmarshalJSON(data []byte) error {", t.Name)
	e.p("\tvar s string")
	e.p("\tif err := json.Unmarshal(data, &s); err != nil {")
	e.p("\t\treturn err")
	e.p("\t}")
	e.p("\tswitch %s(s) {", t.Name)
	var names []string
	for _, v := range t.Values {
		names = append(names, v.Go)
	}
	e.p("\tcase %s:", strings.Join(names, ", "))
	e.p("\t\t*v = %s(s)", t.Name)
	e.p("\t\treturn nil")
	e.p("\t}")
	e.p("\treturn &DecodeError{Err: errors.New(\"not a known %s value\")}", t.Name)
	e.p("}")
	e.p("")
}

// goFieldType is the Go type of a field: optional nullable structs are
// pointers (unless the package keeps null apart for them too), other
// optional nullable values are Opt[T].
func goFieldType(f *field) string {
	switch {
	case !f.Nullable:
		return f.T.Go
	case f.Ptr:
		return "*" + f.T.Go
	}
	return "Opt[" + f.T.Go + "]"
}

func (e *emitter) fieldDecls(fields []*field) {
	for _, f := range fields {
		e.doc("\t", f.Doc)
		tag := f.JSON
		if !f.Required {
			tag += ",omitzero"
		}
		e.p("\t%s %s `json:%q`", f.Go, goFieldType(f), tag)
	}
}

func (e *emitter) structType(t *goType) {
	e.typeDoc(t)
	if len(t.Dropped) > 0 {
		e.doc("", []string{"", fmt.Sprintf("Members not generated (%s) are kept in Extra.", strings.Join(t.Dropped, ", "))})
	}
	e.p("type %s struct {", t.Name)
	e.fieldDecls(t.Fields)
	if len(t.Flat) > 0 {
		e.p("")
		var names []string
		for _, v := range t.Flat {
			names = append(names, v.Field)
		}
		e.p("\t// Exactly one of %s is set; its members are members of this object.", strings.Join(names, ", "))
		e.p("")
		for _, v := range t.Flat {
			e.doc("\t", v.Doc)
			e.p("\t%s *%s `json:\"-\"`", v.Field, v.Type.Go)
		}
	}
	e.p("")
	e.p("\t// Extra holds members this schema version does not define, written back unchanged.")
	e.p("\tExtra map[string]json.RawMessage `json:\"-\"`")
	e.p("}")
	e.p("")
	e.p("func (x *%s) UnmarshalJSON(data []byte) error {", t.Name)
	e.p("\t*x = %s{}", t.Name)
	e.p("\treturn codec.Unmarshal(data, x.decodeFields, x.setExtra)")
	e.p("}")
	e.p("")
	e.p("func (x %s) MarshalJSON() ([]byte, error) { return x.AppendJSON(nil) }", t.Name)
	e.p("")
	e.p("// AppendJSON appends the JSON object to dst, as MarshalJSON writes it.")
	e.p("func (x *%s) AppendJSON(dst []byte) ([]byte, error) {", t.Name)
	e.p("\tw := codec.NewWriter(dst)")
	e.p("\tx.encodeFields(&w)")
	e.p("\tw.Extra(x.Extra)")
	e.p("\treturn w.Bytes()")
	e.p("}")
	e.p("")
	e.p("func (x *%s) extraMembers() map[string]json.RawMessage { return x.Extra }", t.Name)
	e.p("")
	e.p("func (x *%s) setExtra(m map[string]json.RawMessage) { x.Extra = m }", t.Name)
	e.p("")
	e.p("func (x *%s) decodeFields(m codec.Members) error {", t.Name)
	e.decodeFields(t.Fields, len(t.Flat) == 0)
	if len(t.Flat) > 0 {
		e.p("\tvar errs []error")
		for _, v := range t.Flat {
			e.p("\tv%s := new(%s)", v.Field, v.Type.Go)
			e.p("\terr%s := codec.Try(m, v%s.decodeFields)", v.Field, v.Field)
			e.p("\tif err%s == nil {", v.Field)
			e.p("\t\tx.%s = v%s", v.Field, v.Field)
			e.p("\t\treturn nil")
			e.p("\t}")
			e.p("\terrs = append(errs, err%s)", v.Field)
		}
		e.p("\treturn codec.NoMatch(%q, errs)", t.Name)
	}
	e.p("}")
	e.p("")
	e.p("func (x *%s) encodeFields(w *codec.Writer) {", t.Name)
	e.encodeFields(t.Fields)
	if len(t.Flat) > 0 {
		var set []string
		for _, v := range t.Flat {
			set = append(set, "x."+v.Field+" != nil")
		}
		e.p("\tif err := codec.One(%q, %s); err != nil {", t.Name, strings.Join(set, ", "))
		e.p("\t\tw.Fail(err)")
		e.p("\t\treturn")
		e.p("\t}")
		e.p("\tswitch {")
		for _, v := range t.Flat {
			e.p("\tcase x.%s != nil:", v.Field)
			e.p("\t\tx.%s.encodeFields(w)", v.Field)
		}
		e.p("\t}")
	}
	e.p("}")
	e.p("")
}

func flagsOf(f *field) string {
	var fl []string
	if f.Required {
		fl = append(fl, "codec.Required")
	}
	if f.Nullable || f.T.Kind == tRaw {
		fl = append(fl, "codec.Nullable")
	}
	if f.Lenient {
		fl = append(fl, "codec.Lenient")
	}
	if f.NullDefault {
		fl = append(fl, "codec.NullDefault")
	}
	if f.SkipInvalid {
		fl = append(fl, "codec.SkipInvalid")
	}
	if f.T.RequestID {
		fl = append(fl, "codec.RequestID")
	}
	if len(fl) == 0 {
		return "0"
	}
	return strings.Join(fl, "|")
}

// decodeFields emits "return codec.First(...)" over the fields, or, with
// last == false, an early return on the first error.
func (e *emitter) decodeFields(fields []*field, last bool) {
	if len(fields) == 0 {
		if last {
			e.p("\treturn nil")
		}
		return
	}
	if last {
		e.p("\treturn codec.First(")
	} else {
		e.p("\tif err := codec.First(")
	}
	for _, f := range fields {
		fn := "codec.Field"
		if f.T.Kind == tSlice {
			fn = "codec.List"
			if f.Nullable {
				fn = "codec.OptList"
			}
		}
		e.p("\t\t%s(m, %q, &x.%s, %s),", fn, f.JSON, f.Go, flagsOf(f))
	}
	if last {
		e.p("\t)")
	} else {
		e.p("\t); err != nil {")
		e.p("\t\treturn err")
		e.p("\t}")
	}
}

func (e *emitter) encodeFields(fields []*field) {
	for _, f := range fields {
		v := "x." + f.Go
		var cond, write string
		switch f.T.Kind {
		case tString:
			cond, write = v+` != ""`, fmt.Sprintf("w.Str(%q, string(%s))", f.JSON, v)
		case tInt:
			cond, write = v+" != 0", fmt.Sprintf("w.Int(%q, int64(%s))", f.JSON, v)
		case tUint:
			cond, write = v+" != 0", fmt.Sprintf("w.Uint(%q, uint64(%s))", f.JSON, v)
		case tBool:
			cond, write = v, fmt.Sprintf("w.Bool(%q, %s)", f.JSON, v)
		case tFloat:
			cond, write = v+" != 0", fmt.Sprintf("w.Value(%q, %s)", f.JSON, v)
		case tObject:
			// Generated types append themselves in place; a pointer in an
			// interface costs no allocation, a struct value would.
			cond, write = "!codec.IsZero(&"+v+")", fmt.Sprintf("w.Obj(%q, &%s)", f.JSON, v)
		case tRaw:
			cond, write = v+" != nil", fmt.Sprintf("w.Raw(%q, %s)", f.JSON, v)
		case tSlice, tMap, tMeta:
			cond, write = v+" != nil", fmt.Sprintf("w.Value(%q, &%s)", f.JSON, v)
		}
		if f.Nullable {
			if f.Ptr {
				cond, write = v+" != nil", fmt.Sprintf("w.Obj(%q, %s)", f.JSON, v)
			} else {
				cond, write = "!"+v+".IsZero()", fmt.Sprintf("w.Obj(%q, &%s)", f.JSON, v)
			}
		}
		switch {
		case !f.Required:
			e.p("\tif %s {", cond)
			e.p("\t\t%s", write)
			e.p("\t}")
		case f.T.Kind == tSlice || f.T.Kind == tMap:
			empty := "[]"
			if f.T.Kind == tMap {
				empty = "{}"
			}
			e.p("\tif %s == nil {", v)
			e.p("\t\tw.Raw(%q, json.RawMessage(%q))", f.JSON, empty)
			e.p("\t} else {")
			e.p("\t\t%s", write)
			e.p("\t}")
		default:
			e.p("\t%s", write)
		}
	}
}

func variantDoc(t *goType, v *variant) []string {
	var note string
	switch {
	case v.Tag != "":
		note = fmt.Sprintf("%s is set when %q is %q.", v.Field, t.Tag, v.Tag)
	case t.Kind == kindUnion && t.NullTag:
		note = fmt.Sprintf("%s is set when %q is absent, null or not a string.", v.Field, t.Tag)
	case t.Kind == kindUnion:
		note = fmt.Sprintf("%s is set when %q is absent.", v.Field, t.Tag)
	default:
		return v.Doc
	}
	if len(v.Doc) == 0 {
		return []string{note}
	}
	return append([]string{note}, v.Doc...)
}

func (e *emitter) union(t *goType) {
	e.typeDoc(t)
	e.doc("", []string{"", fmt.Sprintf("Exactly one variant field is set. A %q this package does not know", t.Tag),
		"decodes into Unknown and is written back verbatim."})
	e.p("type %s struct {", t.Name)
	if len(t.Fields) > 0 {
		e.p("\t// Members shared by every variant.")
		e.p("")
		e.fieldDecls(t.Fields)
		e.p("")
	}
	for _, v := range t.Variants {
		e.doc("\t", variantDoc(t, v))
		e.p("\t%s *%s `json:\"-\"`", v.Field, v.Type.Go)
	}
	e.p("\t// Unknown holds a variant this package does not know, as received.")
	e.p("\tUnknown json.RawMessage `json:\"-\"`")
	e.p("}")
	e.p("")

	// Tag.
	if t.Default != nil {
		e.p("// Tag returns the %q of the variant that is set (\"\" for %s, which has none).", t.Tag, t.Default.Field)
	} else {
		e.p("// Tag returns the %q of the variant that is set.", t.Tag)
	}
	e.p("func (u %s) Tag() string {", t.Name)
	e.p("\tswitch {")
	for _, v := range t.Variants {
		if v.Tag == "" {
			continue
		}
		e.p("\tcase u.%s != nil:", v.Field)
		e.p("\t\treturn %q", v.Tag)
	}
	e.p("\tcase u.Unknown != nil:")
	e.p("\t\treturn codec.RawTag(u.Unknown, %q)", t.Tag)
	e.p("\t}")
	e.p("\treturn \"\"")
	e.p("}")
	e.p("")

	// MarshalJSON.
	var set []string
	for _, v := range t.Variants {
		set = append(set, "u."+v.Field+" != nil")
	}
	set = append(set, "u.Unknown != nil")
	e.p("func (u %s) MarshalJSON() ([]byte, error) { return u.AppendJSON(nil) }", t.Name)
	e.p("")
	e.p("// AppendJSON appends the JSON of the variant that is set to dst, as MarshalJSON writes it.")
	e.p("func (u *%s) AppendJSON(dst []byte) ([]byte, error) {", t.Name)
	e.p("\tif err := codec.One(%q, %s); err != nil {", t.Name, strings.Join(set, ", "))
	e.p("\t\treturn nil, err")
	e.p("\t}")
	e.p("\tw := codec.NewWriter(dst)")
	e.p("\tswitch {")
	for _, v := range t.Variants {
		e.p("\tcase u.%s != nil:", v.Field)
		if v.Tag != "" {
			e.p("\t\tw.Str(%q, %q)", t.Tag, v.Tag)
		}
		if len(t.Fields) > 0 {
			e.p("\t\tu.encodeCommon(&w)")
		}
		e.p("\t\tu.%s.encodeFields(&w)", v.Field)
		e.p("\t\tw.Extra(u.%s.extraMembers())", v.Field)
		e.p("\t\treturn w.Bytes()")
	}
	e.p("\t}")
	e.p("\treturn codec.AppendUnknown(dst, %q, u.Unknown)", t.Name)
	e.p("}")
	e.p("")

	// UnmarshalJSON.
	common, commonFn := "", "nil"
	if len(t.Fields) > 0 {
		common, commonFn = "u.decodeCommon(m)", "u.decodeCommon"
	}
	if t.Nested {
		// Held as a payload, the union is decoded from the members of the
		// object that holds it (decodeFields); alone, it keeps an unknown
		// variant byte for byte.
		e.p("func (u *%s) UnmarshalJSON(data []byte) error {", t.Name)
		e.p("\tm, err := codec.UnionObject(data, %q)", t.Name)
		e.p("\tif err != nil {")
		e.p("\t\t*u = %s{}", t.Name)
		e.p("\t\treturn err")
		e.p("\t}")
		e.p("\tif err := u.decodeFields(m); err != nil {")
		e.p("\t\treturn err")
		e.p("\t}")
		e.p("\tif u.Unknown != nil {")
		e.p("\t\tu.Unknown = append(json.RawMessage(nil), data...)")
		e.p("\t}")
		e.p("\treturn nil")
		e.p("}")
		e.p("")
		e.p("// decodeFields decodes the union from an object's members. A variant it")
		e.p("// does not know becomes Unknown: the members, in key order.")
		e.p("func (u *%s) decodeFields(m codec.Members) error {", t.Name)
		e.p("\t*u = %s{}", t.Name)
	} else {
		e.p("func (u *%s) UnmarshalJSON(data []byte) error {", t.Name)
		e.p("\t*u = %s{}", t.Name)
		e.p("\tm, err := codec.UnionObject(data, %q)", t.Name)
		e.p("\tif err != nil {")
		e.p("\t\treturn err")
		e.p("\t}")
	}
	if t.NullTag {
		e.p("\ttag, hasTag, err := codec.Tag(m, %q)", t.Tag)
		e.p("\tif err != nil {")
		e.p("\t\t// A null or malformed %q is the %s form, which keeps the member in its Extra.", t.Tag, t.Default.Field)
		e.p("\t\thasTag = false")
		e.p("\t}")
	} else {
		e.p("\ttag, hasTag, err := codec.Tag(m, %q)", t.Tag)
		e.p("\tif err != nil {")
		e.p("\t\treturn err")
		e.p("\t}")
	}
	e.p("\tswitch {")
	for _, v := range t.Variants {
		if v.Tag == "" {
			continue
		}
		e.p("\tcase hasTag && tag == %q:", v.Tag)
		e.p("\t\tv := new(%s)", v.Type.Go)
		e.p("\t\tif err := codec.Variant(m, %q, %s, v.decodeFields, v.setExtra); err != nil {", t.Tag, commonFn)
		e.p("\t\t\treturn err")
		e.p("\t\t}")
		e.p("\t\tu.%s = v", v.Field)
		e.p("\t\treturn nil")
	}
	e.p("\t}")
	switch d := t.Default; {
	case d != nil && t.HasOther:
		// The schema has its own catch-all branch for unknown tags, so the
		// default variant applies only when the tag is absent.
		e.p("\tif !hasTag {")
		if common != "" {
			e.p("\t\tif err := %s; err != nil {", common)
			e.p("\t\t\treturn err")
			e.p("\t\t}")
		}
		e.p("\t\tv := new(%s)", d.Type.Go)
		e.p("\t\tif err := codec.DecodeInto(m, v.decodeFields, v.setExtra); err != nil {")
		e.p("\t\t\treturn err")
		e.p("\t\t}")
		e.p("\t\tu.%s = v", d.Field)
		e.p("\t\treturn nil")
		e.p("\t}")
	case d != nil:
		// Without a tag the default variant applies. With an unknown tag it
		// is tried as well, because the schema's anyOf accepts any object
		// that fits the default; what does not fit is Unknown.
		e.p("\tmm := m")
		e.p("\tif hasTag {")
		e.p("\t\tmm = maps.Clone(m)")
		e.p("\t}")
		e.p("\tv := new(%s)", d.Type.Go)
		if common != "" {
			e.p("\terr = u.decodeCommon(mm)")
			e.p("\tif err == nil {")
			e.p("\t\terr = codec.DecodeInto(mm, v.decodeFields, v.setExtra)")
			e.p("\t}")
		} else {
			e.p("\terr = codec.DecodeInto(mm, v.decodeFields, v.setExtra)")
		}
		e.p("\tif err == nil {")
		e.p("\t\tu.%s = v", d.Field)
		e.p("\t\treturn nil")
		e.p("\t}")
		e.p("\tif !hasTag {")
		e.p("\t\treturn err")
		e.p("\t}")
		e.p("\t*u = %s{}", t.Name)
	default:
		e.p("\tif !hasTag {")
		e.p("\t\treturn &DecodeError{Path: %q, Err: codec.ErrMissing}", t.Tag)
		e.p("\t}")
	}
	if t.Nested {
		e.p("\tw := codec.NewWriter(nil)")
		e.p("\tw.Extra(m)")
		e.p("\tunknown, err := w.Bytes()")
		e.p("\tu.Unknown = unknown")
		e.p("\treturn err")
	} else {
		e.p("\tu.Unknown = append(json.RawMessage(nil), data...)")
		e.p("\treturn nil")
	}
	e.p("}")
	e.p("")
	if t.Nested {
		e.nestedUnion(t, set)
	}

	if len(t.Fields) > 0 {
		e.p("func (x *%s) decodeCommon(m codec.Members) error {", t.Name)
		e.decodeFields(t.Fields, true)
		e.p("}")
		e.p("")
		e.p("func (x *%s) encodeCommon(w *codec.Writer) {", t.Name)
		e.encodeFields(t.Fields)
		e.p("}")
		e.p("")
	}
}

// nestedUnion emits the rest of a struct's hooks for a union held as the
// payload of another union's variant: its members are written into the
// holder's object after the holder's discriminator.
func (e *emitter) nestedUnion(t *goType, set []string) {
	e.p("func (u *%s) encodeFields(w *codec.Writer) {", t.Name)
	e.p("\tif err := codec.One(%q, %s); err != nil {", t.Name, strings.Join(set, ", "))
	e.p("\t\tw.Fail(err)")
	e.p("\t\treturn")
	e.p("\t}")
	e.p("\tswitch {")
	for _, v := range t.Variants {
		e.p("\tcase u.%s != nil:", v.Field)
		if v.Tag != "" {
			e.p("\t\tw.Str(%q, %q)", t.Tag, v.Tag)
		}
		if len(t.Fields) > 0 {
			e.p("\t\tu.encodeCommon(w)")
		}
		e.p("\t\tu.%s.encodeFields(w)", v.Field)
		e.p("\t\tw.Extra(u.%s.extraMembers())", v.Field)
		e.p("\t\treturn")
	}
	e.p("\t}")
	e.p("\tvar m codec.Members")
	e.p("\tif err := json.Unmarshal(u.Unknown, &m); err != nil || m == nil {")
	e.p("\t\tw.Fail(errors.New(\"acp: %s: Unknown is not a JSON object\"))", t.Name)
	e.p("\t\treturn")
	e.p("\t}")
	e.p("\tw.Extra(m)")
	e.p("}")
	e.p("")
	e.p("// extraMembers is nil: each variant keeps its own (see encodeFields).")
	e.p("func (u *%s) extraMembers() map[string]json.RawMessage { return nil }", t.Name)
	e.p("")
	e.p("// setExtra does nothing: decodeFields has given the members it does not")
	e.p("// know to the variant's Extra, or to Unknown.")
	e.p("func (u *%s) setExtra(map[string]json.RawMessage) {}", t.Name)
	e.p("")
}

func (e *emitter) valueUnion(t *goType) {
	e.typeDoc(t)
	e.doc("", []string{"", "Exactly one field is set; decoding tries the forms in order."})
	e.p("type %s struct {", t.Name)
	for _, v := range t.Variants {
		e.doc("\t", v.Doc)
		e.p("\t%s %s", v.Field, valueFieldType(v))
	}
	e.p("}")
	e.p("")
	var set []string
	for _, v := range t.Variants {
		set = append(set, "u."+v.Field+" != nil")
	}
	e.p("func (u %s) MarshalJSON() ([]byte, error) { return u.AppendJSON(nil) }", t.Name)
	e.p("")
	e.p("// AppendJSON appends the JSON of the variant that is set to dst, as MarshalJSON writes it.")
	e.p("func (u *%s) AppendJSON(dst []byte) ([]byte, error) {", t.Name)
	e.p("\tif err := codec.One(%q, %s); err != nil {", t.Name, strings.Join(set, ", "))
	e.p("\t\treturn nil, err")
	e.p("\t}")
	e.p("\tswitch {")
	for _, v := range t.Variants[:len(t.Variants)-1] {
		e.p("\tcase u.%s != nil:", v.Field)
		e.p("\t\treturn codec.AppendAny(dst, %s)", valueRef(v))
	}
	e.p("\t}")
	e.p("\treturn codec.AppendAny(dst, %s)", valueRef(t.Variants[len(t.Variants)-1]))
	e.p("}")
	e.p("")
	e.p("func (u *%s) UnmarshalJSON(data []byte) error {", t.Name)
	e.p("\t*u = %s{}", t.Name)
	e.p("\tif codec.IsNull(data) {")
	e.p("\t\treturn &DecodeError{Err: errors.New(\"%s must not be null\")}", t.Name)
	e.p("\t}")
	e.p("\tvar errs []error")
	for i, v := range t.Variants {
		e.p("\tvar v%s %s", v.Field, v.Type.Go)
		op := "="
		if i == 0 {
			op = ":="
		}
		e.p("\terr %s json.Unmarshal(data, &v%s)", op, v.Field)
		e.p("\tif err == nil {")
		if v.Type.Kind == tSlice {
			e.p("\t\tu.%s = v%s", v.Field, v.Field)
		} else {
			e.p("\t\tu.%s = &v%s", v.Field, v.Field)
		}
		e.p("\t\treturn nil")
		e.p("\t}")
		e.p("\terrs = append(errs, err)")
	}
	e.p("\treturn codec.NoMatch(%q, errs)", t.Name)
	e.p("}")
	e.p("")
}

// valueFieldType: slices are set when non-nil, everything else is a pointer.
func valueFieldType(v *variant) string {
	if v.Type.Kind == tSlice {
		return v.Type.Go
	}
	return "*" + v.Type.Go
}

// valueRef is a pointer to a value union's form: what codec.AppendAny
// writes without boxing a copy.
func valueRef(v *variant) string {
	if v.Type.Kind == tSlice {
		return "&u." + v.Field
	}
	return "u." + v.Field
}

func (e *emitter) methods(m *model) {
	e.p("// Method names, from the schema's x-method.")
	e.p("const (")
	for _, mt := range m.Methods {
		if mt.Unstable {
			e.p("\t// %s", m.Config.unstableNote)
		}
		e.p("\t%s = %q", mt.Const, mt.Name)
	}
	e.p(")")
	e.p("")
	e.p("var methodTable = map[string]MethodSpec{")
	for _, mt := range m.Methods {
		recv := map[string]string{"agent": "ReceiverAgent", "client": "ReceiverClient", "protocol": "ReceiverProtocol"}[mt.Receiver]
		result := "nil"
		if mt.Result != "" {
			result = "func() any { return new(" + mt.Result + ") }"
		}
		e.p("\t%s: codec.NewMethodSpec(%s, %s, %v, %v,", mt.Const, mt.Const, recv, mt.Notification, mt.Unstable)
		e.p("\t\tfunc() any { return new(%s) }, %s),", mt.Params, result)
	}
	e.p("}")
	e.p("")
}
