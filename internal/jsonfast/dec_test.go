package jsonfast

import (
	"encoding/json"
	"strings"
	"testing"
)

// valid walks any text with Skip, as the fast paths do for what they do
// not decode.
func valid(b []byte) bool {
	var d Dec
	d.Reset(b)
	d.Skip()
	return d.End()
}

func TestValidMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{
		`{}`, `[]`, `""`, `0`, `-0`, `1.5e-3`, `true`, `null`, ` {"a" : [1, "x\n", {"b":null}] } `,
		`{"a":"\u00e9\ud83d\ude00"}`, `"\/\b\f\n\r\t\\\""`, "\"\xff\xfe\"", `"` + strings.Repeat("abcdefgh", 9) + `\n"`,
		`{"a":1,}`, `[1,]`, `01`, `1.`, `.5`, `1e`, `-`, `"\x"`, `"\u12g4"`, "\"a\x01\"", `{"a" 1}`, `{1:2}`,
		`tru`, `nul`, `[`, `{`, `"abc`, `{"a":1} 2`, ``, ` `, strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	} {
		if got, want := valid([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("valid(%.40q) = %v, encoding/json says %v", s, got, want)
		}
	}
}

func TestStringsMatchEncodingJSON(t *testing.T) {
	for _, s := range []string{
		`"plain"`, `"tab\tnew\nline"`, `"\u00e9 \ud83d\ude00 \ud800 \udc00x \ud800\u0041"`, "\"bad \xff utf8 \xe2\x82\"",
		`"` + strings.Repeat("é", 40) + `\"q\""`,
	} {
		var d Dec
		d.Reset([]byte(s))
		got, ok := d.Str()
		var want string
		if err := json.Unmarshal([]byte(s), &want); err != nil || !ok || !d.End() || got != want {
			t.Errorf("Str(%q) = %q, %v; encoding/json %q, %v", s, got, ok, want, err)
		}
	}
}

// FuzzDec: Skip accepts exactly what encoding/json accepts, and Str
// decodes strings exactly as encoding/json does.
func FuzzDec(f *testing.F) {
	for _, s := range []string{`{"a":[1,"x\n",{"b":null}]}`, `"\u00e9\ud83d\ude00"`, "\"\xff\"", `[1e5,-0.5,true]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := valid(b), json.Valid(b); got != want {
			t.Fatalf("valid(%q) = %v, encoding/json says %v", b, got, want)
		}
		var d Dec
		d.Reset(b)
		if d.Kind() != '"' {
			return
		}
		s, _ := d.Str()
		var want string
		if d.End() {
			if err := json.Unmarshal(b, &want); err != nil || s != want {
				t.Fatalf("Str(%q) = %q; encoding/json %q, %v", b, s, want, err)
			}
		}
	})
}
