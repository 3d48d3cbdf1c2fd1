package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"strconv"

	"github.com/claude-agent-acp/claude-agent-acp/internal/jsonfast"
)

// DecodeError reports a schema violation found while decoding an ACP type.
// Path locates the offending member relative to the value being decoded, in
// dotted JSON form ("update.content.text", "prompt[2].uri"); it is empty when
// the value as a whole is wrong. A connection can turn it into an
// invalid-params error without echoing the payload.
type DecodeError struct {
	Path string
	Err  error
}

func (e *DecodeError) Error() string {
	if e.Path == "" {
		return "acp: " + e.Err.Error()
	}
	return "acp: " + e.Path + ": " + e.Err.Error()
}

func (e *DecodeError) Unwrap() error { return e.Err }

// Members holds the members of one JSON object while it is decoded;
// decoders delete what they consume, and what is left is unknown.
type Members = map[string]json.RawMessage

// Flags say how a member is decoded, from the schema and its annotations.
type Flags uint8

const (
	Required    Flags = 1 << iota // the member must be present
	Nullable                      // null is a value (Opt, pointer, raw JSON)
	Lenient                       // x-deserialize-default-on-error: a bad value becomes the zero value
	NullDefault                   // x-deserialize-default-on-null: null becomes the zero value
	SkipInvalid                   // x-deserialize-skip-invalid-items: bad array items are dropped
	RequestID                     // raw JSON that must be a JSON-RPC id
)

// Errors of required members, inside a *DecodeError naming the member.
var (
	ErrMissing = errors.New("required member is missing")
	ErrNull    = errors.New("must not be null")
)

// Object parses a JSON object into its members. JSON null gives an
// empty map, so that an all-optional type accepts null where the schema
// expects {} (peers send "result": null for empty results).
func Object(data []byte) (Members, error) {
	var m Members
	if err := json.Unmarshal(data, &m); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, &DecodeError{Err: fmt.Errorf("expected a JSON object, got %s", te.Value)}
		}
		return nil, err
	}
	if m == nil {
		m = Members{}
	}
	return m, nil
}

// UnionObject is Object for unions, which have no meaning for null.
func UnionObject(data []byte, name string) (Members, error) {
	if IsNull(data) {
		return nil, &DecodeError{Err: fmt.Errorf("%s must be an object, not null", name)}
	}
	return Object(data)
}

// IsNull reports whether data is the JSON literal null.
func IsNull(data []byte) bool {
	return string(bytes.TrimSpace(data)) == "null"
}

// At prefixes err's path with a member name or an index ("[3]").
func At(seg string, err error) error {
	de, ok := err.(*DecodeError)
	if !ok {
		return &DecodeError{Path: seg, Err: err}
	}
	p := seg
	switch {
	case de.Path == "":
	case de.Path[0] == '[':
		p += de.Path
	default:
		p += "." + de.Path
	}
	return &DecodeError{Path: p, Err: de.Err}
}

// Field decodes and consumes one member.
func Field[T any](m Members, key string, dst *T, f Flags) error {
	raw, ok := m[key]
	if !ok {
		if f&Required != 0 {
			return &DecodeError{Path: key, Err: ErrMissing}
		}
		return nil
	}
	delete(m, key)
	err := value(raw, dst, f)
	if err != nil && f&Lenient != 0 {
		var zero T
		*dst = zero
		return nil
	}
	if err != nil {
		return At(key, err)
	}
	return nil
}

func value[T any](raw json.RawMessage, dst *T, f Flags) error {
	if f&Nullable == 0 && IsNull(raw) {
		if f&Required != 0 && f&NullDefault == 0 {
			return ErrNull
		}
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return err
	}
	if f&RequestID != 0 {
		if r, ok := any(dst).(*json.RawMessage); ok && !isRequestID(*r) {
			return errors.New("request id must be a string, an integer or null")
		}
	}
	return nil
}

func isRequestID(raw json.RawMessage) bool {
	s := bytes.TrimSpace(raw)
	if len(s) == 0 {
		return false
	}
	switch s[0] {
	case 'n', '"':
		return true
	}
	var n json.Number
	if json.Unmarshal(s, &n) != nil {
		return false
	}
	_, err := strconv.ParseInt(string(n), 10, 64)
	return err == nil
}

// List decodes and consumes an array member item by item, so that
// errors carry the index and invalid items can be skipped.
func List[E any](m Members, key string, dst *[]E, f Flags) error {
	raw, ok := m[key]
	if !ok {
		if f&Required != 0 {
			return &DecodeError{Path: key, Err: ErrMissing}
		}
		return nil
	}
	delete(m, key)
	if IsNull(raw) {
		if f&Required != 0 && f&(NullDefault|Lenient) == 0 {
			return At(key, ErrNull)
		}
		return nil
	}
	list, err := items[E](raw, f&SkipInvalid != 0)
	if err != nil {
		if f&Lenient != 0 {
			return nil
		}
		return At(key, err)
	}
	*dst = list
	return nil
}

// OptList is List for a nullable array held in an Opt.
func OptList[E any](m Members, key string, dst *Opt[[]E], f Flags) error {
	raw, ok := m[key]
	if !ok {
		return nil
	}
	delete(m, key)
	if IsNull(raw) {
		*dst = Null[[]E]()
		return nil
	}
	list, err := items[E](raw, f&SkipInvalid != 0)
	if err != nil {
		if f&Lenient != 0 {
			return nil
		}
		return At(key, err)
	}
	*dst = Some(list)
	return nil
}

func items[E any](raw json.RawMessage, skipInvalid bool) ([]E, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, err
	}
	out := make([]E, 0, len(items))
	for i, item := range items {
		var e E
		if err := json.Unmarshal(item, &e); err != nil {
			if skipInvalid {
				continue
			}
			return nil, At("["+strconv.Itoa(i)+"]", err)
		}
		out = append(out, e)
	}
	return out, nil
}

// Unmarshal decodes an object with decode, a generated type's
// decodeFields, and gives the members it did not consume to setExtra.
func Unmarshal(data []byte, decode func(Members) error, setExtra func(Members)) error {
	m, err := Object(data)
	if err != nil {
		return err
	}
	return DecodeInto(m, decode, setExtra)
}

// DecodeInto decodes the members with decode and gives what is left to
// setExtra.
func DecodeInto(m Members, decode func(Members) error, setExtra func(Members)) error {
	if err := decode(m); err != nil {
		return err
	}
	if len(m) > 0 {
		setExtra(m)
	}
	return nil
}

// First returns the first non-nil error. Generated decoders list their
// members as its arguments, which Go evaluates in order.
func First(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Variant consumes a union's discriminator, decodes the members shared by
// all variants (when common is not nil) and then the variant payload.
func Variant(m Members, tagKey string, common func(Members) error, decode func(Members) error, setExtra func(Members)) error {
	delete(m, tagKey)
	if common != nil {
		if err := common(m); err != nil {
			return err
		}
	}
	return DecodeInto(m, decode, setExtra)
}

// Try decodes from a copy of m and, on success, leaves in m only what
// decode did not consume. It lets untagged alternatives be tried in turn.
func Try(m Members, decode func(Members) error) error {
	c := maps.Clone(m)
	if err := decode(c); err != nil {
		return err
	}
	clear(m)
	maps.Copy(m, c)
	return nil
}

// Tag reads a union's discriminator without consuming it.
func Tag(m Members, key string) (string, bool, error) {
	raw, ok := m[key]
	if !ok {
		return "", false, nil
	}
	var tag string
	if IsNull(raw) || json.Unmarshal(raw, &tag) != nil {
		return "", false, &DecodeError{Path: key, Err: errors.New("discriminator must be a string")}
	}
	return tag, true, nil
}

// RawTag reads the discriminator of a raw unknown variant.
func RawTag(raw json.RawMessage, key string) string {
	var m Members
	var tag string
	if json.Unmarshal(raw, &m) == nil {
		_ = json.Unmarshal(m[key], &tag)
	}
	return tag
}

// NoMatch reports that no alternative of an untagged union matched.
func NoMatch(name string, errs []error) error {
	if len(errs) == 0 {
		return &DecodeError{Err: fmt.Errorf("no form of %s matches", name)}
	}
	return &DecodeError{Err: fmt.Errorf("no form of %s matches (first: %w)", name, errs[0])}
}

// One checks that exactly one variant of a union is set.
func One(name string, set ...bool) error {
	n := 0
	for _, s := range set {
		if s {
			n++
		}
	}
	switch {
	case n == 0:
		return fmt.Errorf("acp: %s has no variant set", name)
	case n > 1:
		return fmt.Errorf("acp: %s has %d variants set; exactly one is allowed", name, n)
	}
	return nil
}

// unknown returns an unknown variant's raw JSON for output.
func unknownJSON(name string, raw json.RawMessage) ([]byte, error) {
	if !json.Valid(raw) {
		return nil, fmt.Errorf("acp: %s: Unknown is not valid JSON", name)
	}
	return raw, nil
}

// IsZero reports whether the value p points to is its type's zero.
func IsZero(p any) bool { return reflect.ValueOf(p).Elem().IsZero() }

// Marshal encodes v like json.Marshal but without escaping <, > and &,
// so that the text the peer sees is the text the agent wrote. An encoder
// that escapes HTML still escapes the whole output.
func Marshal(v any) ([]byte, error) {
	// Strings (ids, names) are most of what reaches here; they need no
	// encoder.
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.String {
		return jsonfast.AppendStringNoHTMLEscape(nil, rv.String()), nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}
