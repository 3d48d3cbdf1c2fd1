package codec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
)

// Opt is an optional schema member that can be absent, null or a value.
//
// ACP gives null and absence different meanings in places: in a
// session_info_update, an absent title leaves the title alone while a null
// title clears it, and tool_call_update patches work the same way. A Go
// pointer cannot tell the two apart, so generated types use Opt[T] for every
// optional member whose schema allows null (object-valued ones use *T, where
// the distinction does not matter in v1).
//
// The zero Opt is absent. With the `omitzero` struct tag (and in the
// generated encoders) an absent Opt is left out of the JSON object; a null
// one is written as null.
type Opt[T any] struct {
	v     T
	state optState
}

type optState uint8

const (
	optAbsent optState = iota
	optNull
	optValue
)

// Some returns an Opt holding v.
func Some[T any](v T) Opt[T] { return Opt[T]{v: v, state: optValue} }

// Null returns an Opt that is explicitly null.
func Null[T any]() Opt[T] { return Opt[T]{state: optNull} }

// OptFromPtr returns Some(*p), or an absent Opt when p is nil.
func OptFromPtr[T any](p *T) Opt[T] {
	if p == nil {
		return Opt[T]{}
	}
	return Some(*p)
}

// Get returns the value and whether there is one.
func (o Opt[T]) Get() (T, bool) { return o.v, o.state == optValue }

// Or returns the value, or def when the Opt is absent or null.
func (o Opt[T]) Or(def T) T {
	if o.state == optValue {
		return o.v
	}
	return def
}

// Ptr returns a pointer to a copy of the value, or nil when there is none.
func (o Opt[T]) Ptr() *T {
	if o.state != optValue {
		return nil
	}
	v := o.v
	return &v
}

// IsSet reports whether the Opt holds a value.
func (o Opt[T]) IsSet() bool { return o.state == optValue }

// IsNull reports whether the Opt is explicitly null.
func (o Opt[T]) IsNull() bool { return o.state == optNull }

// IsZero reports whether the Opt is absent. encoding/json's omitzero uses it.
func (o Opt[T]) IsZero() bool { return o.state == optAbsent }

// Equal reports whether o and p are in the same state with deeply equal
// values. go-cmp uses it, so structs holding Opt can be compared without
// options.
func (o Opt[T]) Equal(p Opt[T]) bool {
	return o.state == p.state && (o.state != optValue || reflect.DeepEqual(o.v, p.v))
}

// String formats the value, "null", or "absent", for test failures and logs.
func (o Opt[T]) String() string {
	switch o.state {
	case optValue:
		return fmt.Sprint(o.v)
	case optNull:
		return "null"
	}
	return "absent"
}

// MarshalJSON writes the value, or null when there is none. An absent Opt
// only reaches here when it is not omitted (inside a slice, say).
func (o Opt[T]) MarshalJSON() ([]byte, error) { return o.AppendJSON(nil) }

// AppendJSON appends the value, or null when there is none, to dst.
func (o *Opt[T]) AppendJSON(dst []byte) ([]byte, error) {
	if o.state != optValue {
		return append(dst, "null"...), nil
	}
	return AppendAny(dst, &o.v)
}

// UnmarshalJSON makes the Opt null for JSON null and a value otherwise.
// Decoding never yields an absent Opt: absence is decided by the enclosing
// object.
func (o *Opt[T]) UnmarshalJSON(data []byte) error {
	if string(bytes.TrimSpace(data)) == "null" {
		*o = Null[T]()
		return nil
	}
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*o = Some(v)
	return nil
}
