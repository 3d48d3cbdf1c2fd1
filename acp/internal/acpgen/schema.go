package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// Schema is the subset of JSON Schema 2020-12 that the ACP schema uses.
// Unknown keywords are rejected when the file is read, so a new construct
// in a future schema stops the generator instead of being silently ignored.
type Schema struct {
	SchemaURI   string          `json:"$schema"`
	Ref         string          `json:"$ref"`
	Defs        *orderedSchemas `json:"$defs"`
	Title       string          `json:"title"`
	Description string          `json:"description"`

	Type     typeList        `json:"type"`
	Format   string          `json:"format"`
	Const    json.RawMessage `json:"const"`
	Enum     []any           `json:"enum"`
	Default  json.RawMessage `json:"default"`
	Minimum  *float64        `json:"minimum"`
	Maximum  *float64        `json:"maximum"`
	MinLen   *int            `json:"minLength"`
	MinItems *int            `json:"minItems"`
	Encoding string          `json:"contentEncoding"`
	Required []string        `json:"required"`

	Properties            *orderedSchemas `json:"properties"`
	AdditionalProperties  json.RawMessage `json:"additionalProperties"`
	UnevaluatedProperties json.RawMessage `json:"unevaluatedProperties"`
	Items                 *Schema         `json:"items"`

	AllOf         []*Schema      `json:"allOf"`
	AnyOf         []*Schema      `json:"anyOf"`
	OneOf         []*Schema      `json:"oneOf"`
	Not           *Schema        `json:"not"`
	Discriminator *discriminator `json:"discriminator"`

	XMethod         string `json:"x-method"`
	XSide           string `json:"x-side"`
	XDocsIgnore     bool   `json:"x-docs-ignore"`
	XDefaultOnError bool   `json:"x-deserialize-default-on-error"`
	XSkipInvalid    bool   `json:"x-deserialize-skip-invalid-items"`
	XDefaultOnNull  bool   `json:"x-deserialize-default-on-null"`
}

type discriminator struct {
	PropertyName string `json:"propertyName"`
}

// typeList is the "type" keyword: a single name or a list of names.
type typeList []string

func (t *typeList) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*t = typeList{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*t = many
	return nil
}

// has reports whether name is one of the listed types.
func (t typeList) has(name string) bool {
	for _, s := range t {
		if s == name {
			return true
		}
	}
	return false
}

// nonNull returns the single non-null type name, or "" when there is none
// or more than one.
func (t typeList) nonNull() string {
	var out string
	for _, s := range t {
		if s == "null" {
			continue
		}
		if out != "" {
			return ""
		}
		out = s
	}
	return out
}

// orderedSchemas is a JSON object of schemas that remembers member order.
// The generator emits types and fields in schema order so that the output
// reads like the schema and is byte-for-byte reproducible.
type orderedSchemas struct {
	Keys []string
	Map  map[string]*Schema
}

func (o *orderedSchemas) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return fmt.Errorf("expected object of schemas")
	}
	o.Map = map[string]*Schema{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key := tok.(string)
		var s Schema
		if err := dec.Decode(&s); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		if _, dup := o.Map[key]; dup {
			return fmt.Errorf("duplicate key %q", key)
		}
		o.Keys = append(o.Keys, key)
		o.Map[key] = &s
	}
	_, err := dec.Token()
	return err
}

// get returns the named member or nil.
func (o *orderedSchemas) get(key string) *Schema {
	if o == nil {
		return nil
	}
	return o.Map[key]
}

// readSchema reads and strictly decodes a schema file.
func readSchema(path string) (*Schema, []byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Schema
	if err := dec.Decode(&s); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if s.Defs == nil {
		return nil, nil, fmt.Errorf("%s: no $defs", path)
	}
	return &s, data, nil
}

// refName returns the $defs name of a "#/$defs/Name" reference, looking
// through the single-element allOf wrapper the schema uses to attach a
// description to a reference.
func (s *Schema) refName() string {
	if s == nil {
		return ""
	}
	if s.Ref != "" {
		const prefix = "#/$defs/"
		if len(s.Ref) > len(prefix) && s.Ref[:len(prefix)] == prefix {
			return s.Ref[len(prefix):]
		}
		return ""
	}
	if len(s.AllOf) == 1 && s.Properties == nil && len(s.AnyOf) == 0 && len(s.OneOf) == 0 {
		return s.AllOf[0].refName()
	}
	return ""
}

// constString returns the string value of a "const" keyword.
func (s *Schema) constString() (string, bool) {
	if s == nil || len(s.Const) == 0 {
		return "", false
	}
	var v string
	if json.Unmarshal(s.Const, &v) != nil {
		return "", false
	}
	return v, true
}

// isNullOnly reports whether the schema is {"type":"null"}.
func (s *Schema) isNullOnly() bool {
	return len(s.Type) == 1 && s.Type[0] == "null" && s.Ref == "" && len(s.AllOf) == 0
}

// isRequired reports whether the object schema lists name as required.
func (s *Schema) isRequired(name string) bool {
	for _, r := range s.Required {
		if r == name {
			return true
		}
	}
	return false
}
