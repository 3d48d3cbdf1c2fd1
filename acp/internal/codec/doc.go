// Package codec is the runtime of the generated ACP schema types in
// packages acp (v1) and acpv2 (v2): member-by-member decoding, so that
// required members, the schema's leniency annotations and unknown members
// are honoured, and an object writer that appends in place and never
// escapes HTML characters. acp/internal/acpgen generates code that calls
// it; it is written by hand, once, for both versions.
//
// The types both versions share by alias live here too: DecodeError (so a
// bad v2 member is answered -32602 naming it exactly as a v1 one), Opt (so
// an optional value moves between v1 and v2 structs without conversion) and
// MethodSpec.
//
// A generated struct T has, beside its fields and Extra:
//
//	func (x *T) UnmarshalJSON(data []byte) error          // codec.Unmarshal(data, x.decodeFields, x.setExtra)
//	func (x T) MarshalJSON() ([]byte, error)              // x.AppendJSON(nil)
//	func (x *T) AppendJSON(dst []byte) ([]byte, error)    // a Writer over encodeFields, then Extra
//	func (x *T) decodeFields(m codec.Members) error       // Field, List, OptList per member
//	func (x *T) encodeFields(w *codec.Writer)             // Str, Int, Obj, Value, Raw per member
//
// AppendJSON is exported (Appender) so that AppendAny writes a nested
// generated value, or an Opt, straight into the buffer of the frame that
// holds it; the other hooks stay unexported and reach the runtime as
// method values.
package codec
