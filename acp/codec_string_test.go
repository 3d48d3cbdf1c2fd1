package acp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func jsonString(t testing.TB, s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// TestAppendStringMatchesEncodingJSON: the string encoder writes what
// encoding/json (HTML escaping off) writes, over and around its
// eight-bytes-at-a-time path.
func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	cases := []string{"", "plain ascii text that is long enough", "a\"b\\c\nd\te\x01f", "<&>", "é日本\u2028\u2029",
		"bad \xff utf8 \xe2\x82", strings.Repeat("x", 7) + "\"", strings.Repeat("y", 8) + "\x7f" + strings.Repeat("z", 9)}
	for i := range 64 {
		cases = append(cases, strings.Repeat("a", i)+"\n"+strings.Repeat("b", 64-i)+"é")
	}
	for _, s := range cases {
		if got, want := string(codecAppendString(nil, s)), jsonString(t, s); got != want {
			t.Errorf("codecAppendString(%q) = %s, want %s", s, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("a\"b\\c\nd\u2028 \xff plain text")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(codecAppendString(nil, s)), jsonString(t, s); got != want {
			t.Fatalf("codecAppendString(%q) = %s, want %s", s, got, want)
		}
	})
}
