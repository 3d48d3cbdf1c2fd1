package jsonfast

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// encodeString is what encoding/json writes for s, with or without HTML
// escaping.
func encodeString(t testing.TB, s string, html bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func checkAppendString(t *testing.T, s string) {
	t.Helper()
	if got, want := string(AppendString(nil, s)), encodeString(t, s, true); got != want {
		t.Errorf("AppendString(%q) = %s, want %s", s, got, want)
	}
	if got, want := string(AppendStringNoHTMLEscape(nil, s)), encodeString(t, s, false); got != want {
		t.Errorf("AppendStringNoHTMLEscape(%q) = %s, want %s", s, got, want)
	}
}

// TestAppendStringMatchesEncodingJSON: both string encoders write what
// encoding/json writes, with HTML escaping on and off, over and around
// their eight-bytes-at-a-time path.
func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	cases := []string{"", "plain ascii text that is long enough", "a\"b\\c\nd\te\x01f", "<&>", "é日本\u2028\u2029",
		"bad \xff utf8 \xe2\x82", strings.Repeat("x", 7) + "\"", strings.Repeat("y", 8) + "\x7f" + strings.Repeat("z", 9),
		strings.Repeat("<", 9) + strings.Repeat("a&b>", 5)}
	for i := range 64 {
		cases = append(cases, strings.Repeat("a", i)+"\n"+strings.Repeat("b", 64-i)+"é", strings.Repeat("a", i)+"<"+strings.Repeat("b", 64-i))
	}
	for _, s := range cases {
		checkAppendString(t, s)
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("a\"b\\c\nd\u2028 \xff plain <text> & more")
	f.Fuzz(func(t *testing.T, s string) { checkAppendString(t, s) })
}
