package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"

	"github.com/claude-agent-acp/claude-agent-acp/internal/jsonfast"
)

// Appender is implemented by the pointers of generated types and of
// Opt: they append their JSON to dst, so that a nested value is written in
// place instead of into a buffer of its own that is then copied.
type Appender interface {
	AppendJSON(dst []byte) ([]byte, error)
}

// Writer builds one JSON object member by member, appending to buf
// from offset start. The first error sticks; Bytes returns it.
type Writer struct {
	buf   []byte
	start int
	err   error
}

// NewWriter returns a Writer that appends an object to dst. With a nil dst
// it allocates once, for the size most objects fit in.
func NewWriter(dst []byte) Writer { return Writer{buf: dst, start: len(dst)} }

// Key writes a member name and the colon after it.
func (w *Writer) Key(k string) {
	if w.buf == nil {
		// One allocation that most objects fit in, instead of growing
		// from nothing a few bytes at a time.
		w.buf = make([]byte, 0, 128)
	}
	if len(w.buf) == w.start {
		w.buf = append(w.buf, '{')
	} else {
		w.buf = append(w.buf, ',')
	}
	w.buf = jsonfast.AppendStringNoHTMLEscape(w.buf, k)
	w.buf = append(w.buf, ':')
}

// Str writes a string member.
func (w *Writer) Str(k, v string) {
	w.Key(k)
	w.buf = jsonfast.AppendStringNoHTMLEscape(w.buf, v)
}

// Int writes an integer member.
func (w *Writer) Int(k string, v int64) {
	w.Key(k)
	w.buf = strconv.AppendInt(w.buf, v, 10)
}

// Uint writes an unsigned integer member.
func (w *Writer) Uint(k string, v uint64) {
	w.Key(k)
	w.buf = strconv.AppendUint(w.buf, v, 10)
}

// Bool writes a boolean member.
func (w *Writer) Bool(k string, v bool) {
	w.Key(k)
	w.buf = strconv.AppendBool(w.buf, v)
}

// Value writes any value (see AppendAny).
func (w *Writer) Value(k string, v any) {
	if w.err != nil {
		return
	}
	w.Key(k)
	b, err := AppendAny(w.buf, v)
	if err != nil {
		w.Fail(fmt.Errorf("acp: encoding %s: %w", k, err))
		return
	}
	w.buf = b
}

// Obj writes a generated type or an Opt in place.
func (w *Writer) Obj(k string, v Appender) {
	if w.err != nil {
		return
	}
	w.Key(k)
	b, err := v.AppendJSON(w.buf)
	if err != nil {
		w.Fail(fmt.Errorf("acp: encoding %s: %w", k, err))
		return
	}
	w.buf = b
}

// Raw writes raw JSON; nil is written as null.
func (w *Writer) Raw(k string, v json.RawMessage) {
	if v == nil {
		v = json.RawMessage("null")
	} else if !Valid(v) {
		w.Fail(fmt.Errorf("acp: encoding %s: invalid raw JSON", k))
		return
	}
	w.Key(k)
	w.buf = append(w.buf, v...)
}

// Extra writes unknown members in key order, for stable output.
func (w *Writer) Extra(m map[string]json.RawMessage) {
	if len(m) == 0 {
		return // the common case; sorting nothing still allocates
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		w.Raw(k, m[k])
	}
}

// Fail records err; the first one is what Bytes returns.
func (w *Writer) Fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// Bytes closes the object and returns the buffer, or the first error.
func (w *Writer) Bytes() ([]byte, error) {
	if w.err != nil {
		return nil, w.err
	}
	if len(w.buf) == w.start {
		return append(w.buf, '{', '}'), nil
	}
	return append(w.buf, '}'), nil
}

// AppendUnknown appends an unknown union variant as received.
func AppendUnknown(dst []byte, name string, raw json.RawMessage) ([]byte, error) {
	b, err := unknownJSON(name, raw)
	if err != nil {
		return nil, err
	}
	return append(dst, b...), nil
}

// AppendAny appends v as encoding/json would encode it (HTML
// characters unescaped), writing generated types, Opt, strings, numbers,
// booleans, raw JSON, _meta maps and slices of these in place. Pointers are
// followed: callers pass &field so that nothing is boxed. Anything else goes
// through encoding/json.
func AppendAny(dst []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case Appender:
		return v.AppendJSON(dst)
	case string:
		return jsonfast.AppendStringNoHTMLEscape(dst, v), nil
	case *string:
		return jsonfast.AppendStringNoHTMLEscape(dst, *v), nil
	case json.RawMessage:
		return AppendRaw(dst, v)
	case *json.RawMessage:
		return AppendRaw(dst, *v)
	case map[string]json.RawMessage:
		return AppendMeta(dst, v)
	case *map[string]json.RawMessage:
		return AppendMeta(dst, *v)
	}
	if v == nil {
		return append(dst, "null"...), nil
	}
	e := reflect.ValueOf(v)
	if e.Kind() == reflect.Pointer {
		if e.IsNil() {
			return append(dst, "null"...), nil
		}
		e = e.Elem()
	}
	switch e.Kind() {
	case reflect.String:
		return jsonfast.AppendStringNoHTMLEscape(dst, e.String()), nil
	case reflect.Bool:
		return strconv.AppendBool(dst, e.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.AppendInt(dst, e.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.AppendUint(dst, e.Uint(), 10), nil
	case reflect.Pointer:
		return AppendAny(dst, e.Interface())
	case reflect.Slice: // the elements of a slice are addressable, even in a copy
		if e.IsNil() {
			return append(dst, "null"...), nil
		}
		if e.Type().Elem().Kind() == reflect.Uint8 {
			break // []byte is base64 in encoding/json
		}
		dst = append(dst, '[')
		for i := range e.Len() {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = AppendAny(dst, e.Index(i).Addr().Interface()); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	}
	return appendMarshal(dst, e.Interface())
}

func appendMarshal(dst []byte, v any) ([]byte, error) {
	b, err := Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(dst, b...), nil
}

// Valid is json.Valid at the speed of a scan: raw members (rawInput,
// rawOutput of big tool results) are checked on every write.
func Valid(b []byte) bool {
	var d jsonfast.Dec
	d.Reset(b)
	d.Skip()
	return d.End()
}

// AppendRaw appends raw JSON compacted, as encoding/json writes a
// json.RawMessage; nil is null.
func AppendRaw(dst []byte, raw json.RawMessage) ([]byte, error) {
	if raw == nil {
		return append(dst, "null"...), nil
	}
	if !Valid(raw) {
		return nil, errors.New("invalid raw JSON")
	}
	if bytes.IndexAny(raw, " \t\r\n") < 0 {
		return append(dst, raw...), nil
	}
	b := bytes.NewBuffer(dst)
	if err := json.Compact(b, raw); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// AppendMeta appends a _meta object with its keys sorted, as
// encoding/json writes maps.
func AppendMeta(dst []byte, m map[string]json.RawMessage) ([]byte, error) {
	if m == nil {
		return append(dst, "null"...), nil
	}
	var small [8]string
	keys := small[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonfast.AppendStringNoHTMLEscape(dst, k)
		dst = append(dst, ':')
		var err error
		if dst, err = AppendRaw(dst, m[k]); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}
