package main

import (
	"bytes"
	_ "embed"
	"fmt"
	"go/format"
	"strings"
)

//go:embed runtime.go.tmpl
var runtimeSource string

//go:embed runtime_shared.go.tmpl
var sharedRuntimeSource string

// acpImport is the import path of package acp, which a package generated
// with sharedRuntime takes DecodeError and Opt from.
const acpImport = "github.com/claude-agent-acp/claude-agent-acp/acp"

// runtimeFor returns the runtime section for the package: runtime.go.tmpl
// verbatim, or, with sharedRuntime, with its DecodeError declaration
// replaced by runtime_shared.go.tmpl (aliases of acp's DecodeError and Opt).
func runtimeFor(cfg config) (string, error) {
	if !cfg.sharedRuntime {
		return runtimeSource, nil
	}
	const (
		intro = "// This section is copied verbatim from acp/internal/acpgen/runtime.go.tmpl."
		from  = "// DecodeError reports"
		to    = "func (e *DecodeError) Unwrap() error { return e.Err }\n"
	)
	i, j := strings.Index(runtimeSource, from), strings.Index(runtimeSource, to)
	if !strings.HasPrefix(runtimeSource, intro) || i < 0 || j < i {
		return "", fmt.Errorf("runtime.go.tmpl: DecodeError declaration not found where sharedRuntime expects it")
	}
	out := runtimeSource[:i] + sharedRuntimeSource + runtimeSource[j+len(to):]
	out = "// This section is copied from acp/internal/acpgen/runtime.go.tmpl, with\n// DecodeError and Opt taken from package acp (runtime_shared.go.tmpl)." + out[len(intro):]
	return out, nil
}

// runtimeNames are the exported names runtime.go.tmpl and optional.go
// declare; schema types must not take them.
var runtimeNames = []string{
	"DecodeError", "MethodReceiver", "ReceiverAgent", "ReceiverClient", "ReceiverProtocol",
	"MethodSpec", "LookupMethod", "Methods", "Opt", "Some", "Null", "OptFromPtr",
}

type emitter struct {
	bytes.Buffer
	// shared: the package takes Opt from acp, whose in-place encoder is
	// not this package's; its Opt fields are written through MarshalJSON.
	shared bool
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
	e := emitter{shared: m.Config.sharedRuntime}
	for _, h := range header {
		e.p("// %s", h)
	}
	e.p("")
	runtime, err := runtimeFor(m.Config)
	if err != nil {
		return nil, err
	}
	e.p("package %s", m.Config.pkg)
	e.p("")
	e.p("import (")
	for _, imp := range []string{"bytes", "encoding/json", "errors", "fmt", "maps", "math/bits", "reflect", "slices", "strconv", "strings", "unicode/utf8"} {
		e.p("\t%q", imp)
	}
	e.p("")
	e.p("\t%q", "github.com/claude-agent-acp/claude-agent-acp/internal/jsonfast")
	if m.Config.sharedRuntime {
		e.p("\t%q", acpImport)
	}
	e.p(")")
	e.p("")
	e.methods(m)
	for _, t := range m.Types {
		switch t.Kind {
		case kindAlias:
			e.alias(t)
		case kindEnum:
			e.enum(t)
		case kindStruct:
			e.structType(t)
		case kindUnion:
			e.union(t)
		case kindValueUnion:
			e.valueUnion(t)
		}
	}
	e.WriteString(runtime)
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
	e.p("\treturn codecUnmarshalStruct(data, x)")
	e.p("}")
	e.p("")
	e.p("func (x %s) MarshalJSON() ([]byte, error) { return codecMarshalStruct(&x) }", t.Name)
	e.p("")
	// Concrete calls, not codecAppendStruct's interface ones, keep the
	// writer on the stack.
	e.p("func (x *%s) appendJSON(dst []byte) ([]byte, error) {", t.Name)
	e.p("\tw := codecWriter{buf: dst, start: len(dst)}")
	e.p("\tx.encodeFields(&w)")
	e.p("\tw.extra(x.Extra)")
	e.p("\treturn w.bytes()")
	e.p("}")
	e.p("")
	e.p("func (x *%s) extraMembers() map[string]json.RawMessage { return x.Extra }", t.Name)
	e.p("")
	e.p("func (x *%s) setExtra(m map[string]json.RawMessage) { x.Extra = m }", t.Name)
	e.p("")
	e.p("func (x *%s) decodeFields(m codecMembers) error {", t.Name)
	e.decodeFields(t.Fields, len(t.Flat) == 0)
	if len(t.Flat) > 0 {
		e.p("\tvar errs []error")
		for _, v := range t.Flat {
			e.p("\tv%s := new(%s)", v.Field, v.Type.Go)
			e.p("\terr%s := codecTry(m, v%s)", v.Field, v.Field)
			e.p("\tif err%s == nil {", v.Field)
			e.p("\t\tx.%s = v%s", v.Field, v.Field)
			e.p("\t\treturn nil")
			e.p("\t}")
			e.p("\terrs = append(errs, err%s)", v.Field)
		}
		e.p("\treturn codecNoMatch(%q, errs)", t.Name)
	}
	e.p("}")
	e.p("")
	e.p("func (x *%s) encodeFields(w *codecWriter) {", t.Name)
	e.encodeFields(t.Fields)
	if len(t.Flat) > 0 {
		var set []string
		for _, v := range t.Flat {
			set = append(set, "x."+v.Field+" != nil")
		}
		e.p("\tif err := codecOne(%q, %s); err != nil {", t.Name, strings.Join(set, ", "))
		e.p("\t\tw.fail(err)")
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
		fl = append(fl, "codecRequired")
	}
	if f.Nullable || f.T.Kind == tRaw {
		fl = append(fl, "codecNullable")
	}
	if f.Lenient {
		fl = append(fl, "codecLenient")
	}
	if f.NullDefault {
		fl = append(fl, "codecNullDefault")
	}
	if f.SkipInvalid {
		fl = append(fl, "codecSkipInvalid")
	}
	if f.T.RequestID {
		fl = append(fl, "codecRequestID")
	}
	if len(fl) == 0 {
		return "0"
	}
	return strings.Join(fl, "|")
}

// decodeFields emits "return codecFirst(...)" over the fields, or, with
// last == false, an early return on the first error.
func (e *emitter) decodeFields(fields []*field, last bool) {
	if len(fields) == 0 {
		if last {
			e.p("\treturn nil")
		}
		return
	}
	if last {
		e.p("\treturn codecFirst(")
	} else {
		e.p("\tif err := codecFirst(")
	}
	for _, f := range fields {
		fn := "codecField"
		if f.T.Kind == tSlice {
			fn = "codecList"
			if f.Nullable {
				fn = "codecOptList"
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
			cond, write = v+` != ""`, fmt.Sprintf("w.str(%q, string(%s))", f.JSON, v)
		case tInt:
			cond, write = v+" != 0", fmt.Sprintf("w.int(%q, int64(%s))", f.JSON, v)
		case tUint:
			cond, write = v+" != 0", fmt.Sprintf("w.uint(%q, uint64(%s))", f.JSON, v)
		case tBool:
			cond, write = v, fmt.Sprintf("w.bool(%q, %s)", f.JSON, v)
		case tFloat:
			cond, write = v+" != 0", fmt.Sprintf("w.value(%q, %s)", f.JSON, v)
		case tObject:
			// Generated types append themselves in place; a pointer in an
			// interface costs no allocation, a struct value would.
			cond, write = "!codecIsZero(&"+v+")", fmt.Sprintf("w.obj(%q, &%s)", f.JSON, v)
		case tRaw:
			cond, write = v+" != nil", fmt.Sprintf("w.raw(%q, %s)", f.JSON, v)
		case tSlice, tMap, tMeta:
			cond, write = v+" != nil", fmt.Sprintf("w.value(%q, &%s)", f.JSON, v)
		}
		if f.Nullable {
			if f.Ptr {
				cond, write = v+" != nil", fmt.Sprintf("w.obj(%q, %s)", f.JSON, v)
			} else if e.shared {
				cond, write = "!"+v+".IsZero()", fmt.Sprintf("w.value(%q, %s)", f.JSON, v)
			} else {
				cond, write = "!"+v+".IsZero()", fmt.Sprintf("w.obj(%q, &%s)", f.JSON, v)
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
			e.p("\t\tw.raw(%q, json.RawMessage(%q))", f.JSON, empty)
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
	e.p("\t\treturn codecRawTag(u.Unknown, %q)", t.Tag)
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
	e.p("func (u %s) MarshalJSON() ([]byte, error) { return u.appendJSON(nil) }", t.Name)
	e.p("")
	e.p("func (u *%s) appendJSON(dst []byte) ([]byte, error) {", t.Name)
	e.p("\tif err := codecOne(%q, %s); err != nil {", t.Name, strings.Join(set, ", "))
	e.p("\t\treturn nil, err")
	e.p("\t}")
	e.p("\tw := codecWriter{buf: dst, start: len(dst)}")
	e.p("\tswitch {")
	for _, v := range t.Variants {
		e.p("\tcase u.%s != nil:", v.Field)
		if v.Tag != "" {
			e.p("\t\tw.str(%q, %q)", t.Tag, v.Tag)
		}
		if len(t.Fields) > 0 {
			e.p("\t\tu.encodeCommon(&w)")
		}
		e.p("\t\tu.%s.encodeFields(&w)", v.Field)
		e.p("\t\tw.extra(u.%s.extraMembers())", v.Field)
		e.p("\t\treturn w.bytes()")
	}
	e.p("\t}")
	e.p("\treturn codecAppendUnknown(dst, %q, u.Unknown)", t.Name)
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
		e.p("\tm, err := codecUnionObject(data, %q)", t.Name)
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
		e.p("func (u *%s) decodeFields(m codecMembers) error {", t.Name)
		e.p("\t*u = %s{}", t.Name)
	} else {
		e.p("func (u *%s) UnmarshalJSON(data []byte) error {", t.Name)
		e.p("\t*u = %s{}", t.Name)
		e.p("\tm, err := codecUnionObject(data, %q)", t.Name)
		e.p("\tif err != nil {")
		e.p("\t\treturn err")
		e.p("\t}")
	}
	if t.NullTag {
		e.p("\ttag, hasTag, err := codecTag(m, %q)", t.Tag)
		e.p("\tif err != nil {")
		e.p("\t\t// A null or malformed %q is the %s form, which keeps the member in its Extra.", t.Tag, t.Default.Field)
		e.p("\t\thasTag = false")
		e.p("\t}")
	} else {
		e.p("\ttag, hasTag, err := codecTag(m, %q)", t.Tag)
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
		e.p("\t\treturn codecVariant(m, %q, %s, &u.%s)", t.Tag, commonFn, v.Field)
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
		e.p("\t\tif err := codecDecodeInto(m, v); err != nil {")
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
			e.p("\t\terr = codecDecodeInto(mm, v)")
			e.p("\t}")
		} else {
			e.p("\terr = codecDecodeInto(mm, v)")
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
		e.p("\t\treturn &DecodeError{Path: %q, Err: codecErrMissing}", t.Tag)
		e.p("\t}")
	}
	if t.Nested {
		e.p("\tvar w codecWriter")
		e.p("\tw.extra(m)")
		e.p("\tunknown, err := w.bytes()")
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
		e.p("func (x *%s) decodeCommon(m codecMembers) error {", t.Name)
		e.decodeFields(t.Fields, true)
		e.p("}")
		e.p("")
		e.p("func (x *%s) encodeCommon(w *codecWriter) {", t.Name)
		e.encodeFields(t.Fields)
		e.p("}")
		e.p("")
	}
}

// nestedUnion emits the rest of codecStruct for a union held as the
// payload of another union's variant: its members are written into the
// holder's object after the holder's discriminator.
func (e *emitter) nestedUnion(t *goType, set []string) {
	e.p("func (u *%s) encodeFields(w *codecWriter) {", t.Name)
	e.p("\tif err := codecOne(%q, %s); err != nil {", t.Name, strings.Join(set, ", "))
	e.p("\t\tw.fail(err)")
	e.p("\t\treturn")
	e.p("\t}")
	e.p("\tswitch {")
	for _, v := range t.Variants {
		e.p("\tcase u.%s != nil:", v.Field)
		if v.Tag != "" {
			e.p("\t\tw.str(%q, %q)", t.Tag, v.Tag)
		}
		if len(t.Fields) > 0 {
			e.p("\t\tu.encodeCommon(w)")
		}
		e.p("\t\tu.%s.encodeFields(w)", v.Field)
		e.p("\t\tw.extra(u.%s.extraMembers())", v.Field)
		e.p("\t\treturn")
	}
	e.p("\t}")
	e.p("\tvar m codecMembers")
	e.p("\tif err := json.Unmarshal(u.Unknown, &m); err != nil || m == nil {")
	e.p("\t\tw.fail(errors.New(\"acp: %s: Unknown is not a JSON object\"))", t.Name)
	e.p("\t\treturn")
	e.p("\t}")
	e.p("\tw.extra(m)")
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
	e.p("func (u %s) MarshalJSON() ([]byte, error) { return u.appendJSON(nil) }", t.Name)
	e.p("")
	e.p("func (u *%s) appendJSON(dst []byte) ([]byte, error) {", t.Name)
	e.p("\tif err := codecOne(%q, %s); err != nil {", t.Name, strings.Join(set, ", "))
	e.p("\t\treturn nil, err")
	e.p("\t}")
	e.p("\tswitch {")
	for _, v := range t.Variants[:len(t.Variants)-1] {
		e.p("\tcase u.%s != nil:", v.Field)
		e.p("\t\treturn codecAppendAny(dst, %s)", valueRef(v))
	}
	e.p("\t}")
	e.p("\treturn codecAppendAny(dst, %s)", valueRef(t.Variants[len(t.Variants)-1]))
	e.p("}")
	e.p("")
	e.p("func (u *%s) UnmarshalJSON(data []byte) error {", t.Name)
	e.p("\t*u = %s{}", t.Name)
	e.p("\tif codecIsNull(data) {")
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
	e.p("\treturn codecNoMatch(%q, errs)", t.Name)
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

// valueRef is a pointer to a value union's form: what codecAppendAny
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
	e.p("var codecMethods = map[string]MethodSpec{")
	for _, mt := range m.Methods {
		recv := map[string]string{"agent": "ReceiverAgent", "client": "ReceiverClient", "protocol": "ReceiverProtocol"}[mt.Receiver]
		e.p("\t%s: {", mt.Const)
		e.p("\t\tName: %s, Receiver: %s, Notification: %v, Unstable: %v,", mt.Const, recv, mt.Notification, mt.Unstable)
		e.p("\t\tnewParams: func() any { return new(%s) },", mt.Params)
		if mt.Result != "" {
			e.p("\t\tnewResult: func() any { return new(%s) },", mt.Result)
		}
		e.p("\t},")
	}
	e.p("}")
	e.p("")
}
