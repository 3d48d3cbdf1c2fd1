package toolview

import (
	"encoding/json"
	"reflect"
	"testing"
)

// What DecodeInput and BashOutput decoded with encoding/json alone.

func refDecodeInput(raw json.RawMessage) map[string]any {
	var in map[string]any
	if json.Unmarshal(raw, &in) != nil || in == nil {
		return map[string]any{}
	}
	return in
}

func refBashStructured(b []byte) (bashStructured, bool) {
	var r bashStructured
	return r, json.Unmarshal(b, &r) == nil
}

func checkFastJSON(t *testing.T, b []byte) {
	t.Helper()
	if got, want := DecodeInput(b), refDecodeInput(b); !reflect.DeepEqual(got, want) {
		t.Fatalf("DecodeInput(%q) = %#v; encoding/json %#v", b, got, want)
	}
	var got bashStructured
	ok := got.decode(b)
	want, wok := refBashStructured(b)
	if ok != wok || got != want {
		t.Fatalf("Bash result %q = %+v, %v; encoding/json %+v, %v", b, got, ok, want, wok)
	}
}

var fastJSONCorpus = []string{
	`{"command":"go test ./...","description":"Run the tests","timeout":120000,"run_in_background":false}`,
	`{"file_path":"/p/a.go","old_string":"a\n\"b\"","new_string":"\u00e9","replace_all":true}`,
	`{"todos":[{"content":"x","status":"pending","activeForm":"X"}],"n":null,"f":-1.5e-3}`,
	`{}`, `null`, `[]`, `"s"`, ``, `{"a":1,"a":2}`, `{"a":1e400}`, `{"a":` + "\"\xff\"}", `{"a":1} 2`,
	`{"stdout":"ok\n","stderr":"warn","interrupted":true,"isImage":false}`, `{"stdout":5}`, `{"Stdout":"x"}`,
	`{"stdout":"a","stdout":"b"}`, `{"stdout":null,"interrupted":null}`, `{"interrupted":"yes"}`, `{"\u0073tdout":"x"}`,
}

func TestToolJSONFastPaths(t *testing.T) {
	for _, s := range fastJSONCorpus {
		checkFastJSON(t, []byte(s))
	}
}

// FuzzToolJSON: DecodeInput and the Bash result decoding never differ
// from encoding/json.
func FuzzToolJSON(f *testing.F) {
	for _, s := range fastJSONCorpus {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkFastJSON(t, b) })
}
