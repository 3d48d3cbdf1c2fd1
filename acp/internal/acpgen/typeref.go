package main

import (
	"fmt"
	"strings"
)

// typeOf maps a property (or value-union branch) schema to a Go type.
// A nil type with no error means the property references a definition that
// is not generated.
func (b *builder) typeOf(p *Schema) (*tref, bool, error) {
	if name := p.refName(); name != "" {
		rt, err := b.refType(name)
		return rt, false, err
	}
	if len(p.AnyOf) == 2 && p.Properties == nil {
		var ref *Schema
		nullable := false
		for _, br := range p.AnyOf {
			if br.isNullOnly() {
				nullable = true
			} else {
				ref = br
			}
		}
		if nullable && ref != nil && ref.refName() != "" {
			rt, err := b.refType(ref.refName())
			return rt, true, err
		}
		return nil, false, fmt.Errorf("unsupported anyOf")
	}
	if len(p.AnyOf) > 0 || len(p.OneOf) > 0 || len(p.AllOf) > 0 {
		return nil, false, fmt.Errorf("unsupported inline composition")
	}
	nullable := p.Type.has("null")
	switch p.Type.nonNull() {
	case "":
		if len(p.Type) == 0 {
			return &tref{Go: "json.RawMessage", Kind: tRaw}, false, nil
		}
		return nil, false, fmt.Errorf("unsupported type %v", p.Type)
	case "string":
		return &tref{Go: "string", Kind: tString}, nullable, nil
	case "boolean":
		return &tref{Go: "bool", Kind: tBool}, nullable, nil
	case "number":
		return &tref{Go: "float64", Kind: tFloat}, nullable, nil
	case "integer":
		g := intType(p.Format)
		k := tInt
		if strings.HasPrefix(g, "uint") {
			k = tUint
		}
		return &tref{Go: g, Kind: k}, nullable, nil
	case "array":
		if p.Items == nil {
			return nil, false, fmt.Errorf("array without items")
		}
		et, en, err := b.typeOf(p.Items)
		if err != nil || et == nil {
			return et, false, err
		}
		if en {
			return nil, false, fmt.Errorf("nullable array items")
		}
		return &tref{Go: "[]" + et.Go, Kind: tSlice, Elem: et}, nullable, nil
	case "object":
		ap := strings.TrimSpace(string(p.AdditionalProperties))
		if p.Properties != nil {
			return nil, false, fmt.Errorf("inline object with properties")
		}
		if ap == "" || ap == "true" {
			return &tref{Go: "map[string]json.RawMessage", Kind: tMeta}, nullable, nil
		}
		var vs Schema
		if err := jsonStrict([]byte(ap), &vs); err != nil {
			return nil, false, err
		}
		et, en, err := b.typeOf(&vs)
		if err != nil || et == nil {
			return et, false, err
		}
		if en {
			return nil, false, fmt.Errorf("nullable map values")
		}
		return &tref{Go: "map[string]" + et.Go, Kind: tMap, Elem: et}, nullable, nil
	}
	return nil, false, fmt.Errorf("unsupported type %v", p.Type)
}

// refType maps a $defs reference to a Go type. RequestId becomes
// json.RawMessage so the connection can match ids with its own ID rules.
func (b *builder) refType(name string) (*tref, error) {
	if name == "RequestId" {
		return &tref{Go: "json.RawMessage", Kind: tRaw, RequestID: true}, nil
	}
	if !b.included[name] {
		if b.stable[name] == nil && b.unstable[name] != nil {
			return nil, nil
		}
		return nil, fmt.Errorf("reference to skipped definition %s", name)
	}
	s := b.stable[name]
	if s == nil {
		s = b.unstable[name]
	}
	g := b.goNames[name]
	branches := s.OneOf
	if len(branches) == 0 {
		branches = s.AnyOf
	}
	switch {
	case len(branches) > 0 && isEnum(branches):
		return &tref{Go: g, Kind: tString}, nil
	case len(branches) > 0 && isIntEnum(branches):
		if strings.HasPrefix(intType(branches[0].Format), "uint") {
			return &tref{Go: g, Kind: tUint}, nil
		}
		return &tref{Go: g, Kind: tInt}, nil
	case len(branches) > 0, s.Type.nonNull() == "object", s.Properties != nil:
		return &tref{Go: g, Kind: tObject}, nil
	case s.Type.nonNull() == "string":
		return &tref{Go: g, Kind: tString}, nil
	case s.Type.nonNull() == "integer":
		if strings.HasPrefix(intType(s.Format), "uint") {
			return &tref{Go: g, Kind: tUint}, nil
		}
		return &tref{Go: g, Kind: tInt}, nil
	}
	return nil, fmt.Errorf("unsupported reference %s", name)
}

func intType(format string) string {
	switch format {
	case "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64":
		return format
	}
	return "int64"
}
