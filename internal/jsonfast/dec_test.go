package jsonfast

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
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

// laxAgrees: a lax walk (ResetLax) accepts every valid text, ending where
// the validating walk ends and reporting the same escapes, and on a text
// it accepts that is not valid, only what lies inside strings is wrong.
func laxAgrees(t *testing.T, b []byte) {
	t.Helper()
	var d, lx Dec
	d.Reset(b)
	lx.ResetLax(b)
	if d.Kind() == '"' {
		raw, esc, _ := d.StrRaw()
		lraw, lesc, _ := lx.StrRaw()
		if !d.Bad() && (string(raw) != string(lraw) || esc != lesc || lx.Bad() || d.Pos() != lx.Pos()) {
			t.Fatalf("lax StrRaw(%q) = %q, %v at %d; validating %q, %v at %d", b, lraw, lesc, lx.Pos(), raw, esc, d.Pos())
		}
		return
	}
	d.Skip()
	lx.Skip()
	if ok := d.End(); ok && (!lx.End() || d.Pos() != lx.Pos()) {
		t.Fatalf("lax Skip rejects or ends elsewhere in the valid %q", b)
	}
}

func TestLax(t *testing.T) {
	for _, s := range []string{
		`{}`, `"plain"`, `"a\"b"`, `"a\\"`, `"a\\\"b"`, `["x\\",{"k\"":"\\\\"}]`, `{"a":"\u0022","b":1}`,
		`"` + strings.Repeat(`ab\n`, 40) + `"`, `"\\\\"`, `"abc`, `"a\"`,
	} {
		laxAgrees(t, []byte(s))
	}
	// Inside strings nothing is checked: a control character and a bad
	// escape pass; structure is still validated.
	var lx Dec
	lx.ResetLax([]byte("{\"a\":\"x\x01\\q\",\"b\":[1,2]}"))
	if lx.Skip(); !lx.End() {
		t.Error("a lax walk checked a string's insides")
	}
	lx.ResetLax([]byte(`{"a":"x",}`))
	if lx.Skip(); lx.End() {
		t.Error("a lax walk accepted a trailing comma")
	}
}

func FuzzLax(f *testing.F) {
	for _, s := range []string{`{"a":["x\\",{"b":"\""}]}`, `"\\\""`, `[1,"\u00e9"]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(laxAgrees)
}

// TestValidUTF8AfterAScan: ValidUTF8 agrees with utf8.Valid for the string
// just scanned, ASCII or not, at any length and position of the odd byte.
func TestValidUTF8AfterAScan(t *testing.T) {
	for n := range 40 {
		for _, odd := range []string{"", "é", "\xff", "\xe2\x82", "€"} {
			for at := 0; at <= n; at += max(1, n/4) {
				text := strings.Repeat("a", at) + odd + strings.Repeat("b", n-at)
				for _, tail := range []string{"", "é", "\xff"} { // after the closing quote
					var d Dec
					d.Reset([]byte(`["` + text + `","x` + tail + `"]`))
					d.Array()
					d.FirstElem()
					raw, esc, ok := d.StrRaw()
					if !ok || esc {
						t.Fatalf("%q: StrRaw %v %v", text, ok, esc)
					}
					if got, want := d.ValidUTF8(raw), utf8.Valid(raw); got != want {
						t.Fatalf("%q: ValidUTF8 %v, utf8.Valid %v", text, got, want)
					}
				}
			}
		}
	}
}

// TestUnescapeAgreesWithEncodingJSON: Unescape decodes what encoding/json
// decodes, with every kind of escape, non-ASCII and invalid byte at every
// offset from an eight-byte boundary, and runs between escapes from none
// to longer than a word.
func TestUnescapeAgreesWithEncodingJSON(t *testing.T) {
	pieces := []string{`\n`, `\t`, `\"`, `\\`, `\/`, `\b`, `\f`, `\r`, `\u0041`, `\u00e9`, `\ud83d\ude00`,
		`\ud83d`, `\ude00x`, `\ud83dabcdef`, `\ud83d\u0041`, "é", "€", "😀", "\xff", "\xe2\x82", "\xed\xa0\x80", "\uFFFD", "<&>"}
	for _, p := range pieces {
		for pad := range 18 {
			for _, run := range []int{0, 1, 7, 8, 9, 20} {
				raw := strings.Repeat("a", pad) + p + strings.Repeat("b", run) + p + strings.Repeat("c", pad%5)
				var want string
				if err := json.Unmarshal([]byte(`"`+raw+`"`), &want); err != nil {
					t.Fatalf("%q: %v", raw, err)
				}
				prefix := []byte("kept:")
				if got := Unescape(prefix, []byte(raw)); string(got) != "kept:"+want {
					t.Fatalf("Unescape(%q) = %q, want %q", raw, got[5:], want)
				}
			}
		}
	}
}

// FuzzUnescape: for any valid JSON string, Unescape agrees with
// encoding/json; for any other bytes (a lax walk hands it strings it did
// not validate) it does not panic.
func FuzzUnescape(f *testing.F) {
	for _, s := range []string{`a\nb`, `\u00e9\ud83d\ude00`, "\xff", `x\u12`, `tab\there "quoted"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got := Unescape(nil, raw)
		var want string
		if json.Unmarshal([]byte(`"`+string(raw)+`"`), &want) == nil && string(got) != want {
			t.Fatalf("Unescape(%q) = %q, encoding/json %q", raw, got, want)
		}
	})
}
