package toolview

import (
	"encoding/json"
	"fmt"
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

func refDecodeBash(b []byte) BashResult {
	var r struct {
		Stdout      string `json:"stdout"`
		Stderr      string `json:"stderr"`
		Interrupted bool   `json:"interrupted"`
	}
	var bg struct {
		BackgroundTaskID string `json:"backgroundTaskId"`
	}
	var persisted struct {
		Path string `json:"persistedOutputPath"`
		Size int64  `json:"persistedOutputSize"`
	}
	ok := json.Unmarshal(b, &r) == nil
	_ = json.Unmarshal(b, &bg)
	_ = json.Unmarshal(b, &persisted)
	return BashResult{Stdout: r.Stdout, Stderr: r.Stderr, Interrupted: r.Interrupted, BackgroundTaskID: bg.BackgroundTaskID,
		PersistedOutputPath: persisted.Path, PersistedOutputSize: persisted.Size, ok: ok}
}

// refPatchHunks is PatchHunks with encoding/json alone.
func refPatchHunks(raw []byte) ([]Hunk, bool) {
	var ph []patchHunk
	if json.Unmarshal(raw, &ph) != nil {
		return nil, false
	}
	return hunksOf(ph)
}

func checkFastJSON(t *testing.T, b []byte) {
	t.Helper()
	var ref []patchHunk
	refErr := json.Unmarshal(b, &ref)
	if got, ok := patchFast(b); ok && (refErr != nil || !reflect.DeepEqual(got, ref) && !(len(got) == 0 && len(ref) == 0)) {
		t.Fatalf("patchFast(%q) = %#v; encoding/json %#v (%v)", b, got, ref, refErr)
	}
	if got, want := fmt.Sprint(PatchHunks(b)), fmt.Sprint(refPatchHunks(b)); got != want {
		t.Fatalf("PatchHunks(%q) = %s; encoding/json %s", b, got, want)
	}
	if got, want := DecodeInput(b), refDecodeInput(b); !reflect.DeepEqual(got, want) {
		t.Fatalf("DecodeInput(%q) = %#v; encoding/json %#v", b, got, want)
	}
	if got, want := DecodeBash(b), refDecodeBash(b); got != want {
		t.Fatalf("DecodeBash(%q) = %+v; encoding/json %+v", b, got, want)
	}
	// The result text as a hint: used when it is stdout's own bytes,
	// ignored otherwise; either way the result is encoding/json's.
	for _, hint := range []string{`ok\n`, `a`, `x`, ``, `ok`} {
		var text string
		if json.Unmarshal([]byte(`"`+hint+`"`), &text) != nil {
			continue
		}
		if got, want := DecodeBashLike(b, []byte(hint), text), refDecodeBash(b); got != want {
			t.Fatalf("DecodeBashLike(%q, %q) = %+v; encoding/json %+v", b, hint, got, want)
		}
	}
}

var fastJSONCorpus = []string{
	`{"command":"go test ./...","description":"Run the tests","timeout":120000,"run_in_background":false}`,
	`{"file_path":"/p/a.go","old_string":"a\n\"b\"","new_string":"\u00e9","replace_all":true}`,
	`{"todos":[{"content":"x","status":"pending","activeForm":"X"}],"n":null,"f":-1.5e-3}`,
	`{}`, `null`, `[]`, `"s"`, ``, `{"a":1,"a":2}`, `{"a":1e400}`, `{"a":` + "\"\xff\"}", `{"a":1} 2`,
	`{"stdout":"ok\n","stderr":"warn","interrupted":true,"isImage":false}`, `{"stdout":5}`, `{"Stdout":"x"}`,
	`{"stdout":"a","stdout":"b"}`, `{"stdout":"","backgroundTaskId":"b1"}`, `{"backgroundTaskId":7,"stdout":"x"}`,
	`[{"oldStart":2,"newStart":2,"lines":[" a","-b","+B"," c","\\ No newline"]},{"oldStart":10,"oldLines":2,"newStart":10,"newLines":3,"lines":[" x","+y"," z"]}]`,
	`[{"oldStart":1.5,"lines":[]}]`, `[{"oldStart":null,"lines":null}]`, `[{"oldstart":1,"lines":["+a"]}]`, `[{"lines":["+a"],"lines":["-b"]}]`,
	`[{"oldStart":99999999999999999999,"lines":["+a"]}]`, `[1]`, `[{"lines":[1]}]`, `[{"lines":"x"}]`, `[{"newStart":-3,"lines":["+\u00e9"]}]`,
	`{"stdout":"abc","stderr":"","interrupted":false,"persistedOutputPath":"/h/.claude/t/b1.txt","persistedOutputSize":300000}`,
	`{"persistedOutputPath":5,"persistedOutputSize":3}`, `{"persistedOutputSize":3e5}`, `{"persistedOutputSize":-1,"persistedOutputPath":null}`,
	`{"persistedOutputSize":12345678901234567890}`, `{"persistedoutputpath":"x"}`, `{"persistedOutputSize":"300000"}`,
	`{"backgroundtaskid":"x"}`, `{"backgroundTaskId":"a","backgroundTaskId":"b"}`, `{"stdout":null,"interrupted":null}`, `{"interrupted":"yes"}`, `{"\u0073tdout":"x"}`,
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
