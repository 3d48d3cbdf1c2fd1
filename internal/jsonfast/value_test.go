package jsonfast

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

// checkObject: Object agrees with encoding/json's Unmarshal into a
// map[string]any whenever it says ok, and says ok for every plain object.
func checkObject(t *testing.T, b []byte) (ok bool) {
	t.Helper()
	got, ok := Object(b)
	var want map[string]any
	err := json.Unmarshal(b, &want)
	if ok && (err != nil || !reflect.DeepEqual(got, want)) {
		t.Fatalf("Object(%q) = %#v; encoding/json %#v, %v", b, got, want, err)
	}
	return ok
}

func TestObjectMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{
		`{}`, ` {"a" : [1, "x\n", {"b":null}], "c": true, "d": false, "e": -1.5e-3, "f": []} `,
		`{"command":"go test ./...","description":"Run the tests","timeout":120000}`,
		`{"a\u00e9":"\ud83d\ude00", "n": {"m": {"o": [[], {}]}}}`, "{\"b\xff\":\"\xff\xe2\"}",
		`{"big":123456789012345678901234567890}`, `{"A":1,"a":2}`,
	} {
		if !checkObject(t, []byte(s)) {
			t.Errorf("Object(%q) gave up", s)
		}
	}
	for _, s := range []string{
		`null`, `[]`, `"x"`, `1`, `{"a":1,"a":2}`, `{"a":1e400}`, `{"a":1`, `{"a":1} x`, ``, `{"a":"\x"}`,
		`{"x":{"a":1,"a":2}}`,
	} {
		if checkObject(t, []byte(s)) {
			t.Errorf("Object(%q) did not give up", s)
		}
	}
}

func TestAppendStringMatchesMarshal(t *testing.T) {
	for _, s := range []string{
		"", "plain", "tab\tnew\nline\r\b\f\x00\x1f\x7f", `q"b\s/`, "<a href=\"x\">&amp;</a>",
		"é \u2028 \u2029 😀 \xff \xe2\x82 end", strings.Repeat("abcdefg<", 20), strings.Repeat("x", 13000) + "&",
		strings.Repeat("ééé\n", 50),
	} {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); string(got) != string(want) {
			t.Errorf("AppendString(%.40q) = %.60s; Marshal %.60s", s, got, want)
		}
	}
}

// FuzzObject: Object never disagrees with encoding/json, and AppendString
// writes every string as Marshal does.
func FuzzObject(f *testing.F) {
	for _, s := range []string{`{"a":[1,"x\n",{"b":null}]}`, `{"a":"\u00e9\ud83d\ude00"}`, "{\"\xff\":1}", `{"a":1e5,"b":-0.5,"c":true}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkObject(t, b)
		want, _ := json.Marshal(string(b))
		if got := AppendString(nil, string(b)); string(got) != string(want) {
			t.Fatalf("AppendString(%q) = %s; Marshal %s", b, got, want)
		}
	})
}

func BenchmarkAppendString(b *testing.B) {
	s := strings.Repeat("func main() { fmt.Println(\"hello\") }\n", 350)
	buf := make([]byte, 0, 2*len(s))
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		buf = AppendString(buf[:0], s)
	}
}

func BenchmarkObject(b *testing.B) {
	in := []byte(`{"command":"go test ./... -run TestSomething -count=1","description":"Run the tests","timeout":120000,"run_in_background":false}`)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := Object(in); !ok {
			b.Fatal("gave up")
		}
	}
}

// TestShared: a shared decoder's strings are the same values, views of the
// text when they have no escapes, copies when they do.
func TestShared(t *testing.T) {
	b := []byte(`{"plain":"abc","esc":"a\nb","bad":"` + "\xff" + `","empty":""}`)
	shared, ok := ObjectShared(b)
	plain, ok2 := Object(b)
	if !ok || !ok2 || !reflect.DeepEqual(shared, plain) {
		t.Fatalf("ObjectShared = %v, %v; Object = %v, %v", shared, ok, plain, ok2)
	}
	in := func(s string) bool {
		p := unsafe.StringData(s)
		return uintptr(unsafe.Pointer(p)) >= uintptr(unsafe.Pointer(&b[0])) &&
			uintptr(unsafe.Pointer(p)) < uintptr(unsafe.Pointer(&b[0]))+uintptr(len(b))
	}
	if !in(shared["plain"].(string)) || in(plain["plain"].(string)) {
		t.Error(`"plain" should be a view of the text when shared, a copy otherwise`)
	}
	if in(shared["esc"].(string)) || in(shared["bad"].(string)) {
		t.Error("strings with escapes or invalid UTF-8 must be copies")
	}
}

// TestStrLike: a string whose raw bytes are those of a string decoded
// before is that string (not decoded again); any other is decoded as Str
// decodes it.
func TestStrLike(t *testing.T) {
	prevRaw := []byte(`line\none`)
	prev := "line\none"
	for _, tc := range []struct {
		in, want string
		same     bool
	}{
		{`"line\none"`, "line\none", true},
		{`"line\ntwo"`, "line\ntwo", false},
		{`"line\u000aone"`, "line\none", false}, // the same text, other bytes: decoded
		{`"plain"`, "plain", false},
		{` "line\none" `, "line\none", true},    // white space around it
		{`"line\noneX"`, "line\noneX", false},   // prevRaw is only the start of it
		{`"line\none\""`, "line\none\"", false}, // the quote after prevRaw is escaped
		{`"line\n"`, "line\n", false},           // shorter than prevRaw
	} {
		var d Dec
		d.ResetShared([]byte(tc.in))
		got, ok := d.StrLike(prevRaw, prev)
		if !ok || got != tc.want || !d.End() {
			t.Errorf("StrLike(%s) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
		if same := len(got) > 0 && unsafe.StringData(got) == unsafe.StringData(prev); same != tc.same {
			t.Errorf("StrLike(%s) returned the earlier string: %v, want %v", tc.in, same, tc.same)
		}
	}
	var d Dec
	d.Reset([]byte(`7`))
	if _, ok := d.StrLike(prevRaw, prev); ok {
		t.Error("StrLike of a number reported a string")
	}
}

// TestStrLikeAgreesWithUnmarshal: whichever way StrLike takes a value (the
// comparison with prevRaw or the scan), it decodes what encoding/json
// decodes, and accepts and rejects the same documents.
func TestStrLikeAgreesWithUnmarshal(t *testing.T) {
	texts := []string{"", "a", "line\none\ttab", `quote " and \ backslash`, "é ünïcode ✓", "\u2028", "ctl \x01"}
	for _, prev := range texts {
		q, _ := json.Marshal(prev)
		prevRaw := q[1 : len(q)-1] // a valid string's bytes, as StrRaw returns them
		for _, v := range texts {
			vq, _ := json.Marshal(v)
			for _, doc := range []string{string(vq), " " + string(vq) + " ", `"` + string(prevRaw), string(vq) + `x`, `"` + string(prevRaw) + "\x01\""} {
				var want string
				wantErr := json.Unmarshal([]byte(doc), &want)
				var d Dec
				d.Reset([]byte(doc))
				got, ok := d.StrLike(prevRaw, prev)
				if valid := ok && d.End(); valid != (wantErr == nil) || valid && got != want {
					t.Errorf("StrLike(%q) of %q = %q, valid %v; encoding/json: %q, %v", prevRaw, doc, got, valid, want, wantErr)
				}
			}
		}
	}
}
