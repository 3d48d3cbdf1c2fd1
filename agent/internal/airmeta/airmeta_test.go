package airmeta

import (
	"encoding/json"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		meta    string
		present bool
		has     bool
	}{
		{`{"jetbrains":{"air":{"version":1,"capabilities":["sessionFailure"]}}}`, true, true},
		{`{"jetbrains":{"air":{"version":2.0,"capabilities":["x","sessionFailure"]}}}`, true, true},
		{`{"jetbrains":{"air":{"version":"1","capabilities":["sessionFailure"]}}}`, true, false},
		{`{"jetbrains":{"air":{"version":1.5,"capabilities":["sessionFailure"]}}}`, true, false},
		{`{"jetbrains":{"air":{"version":0,"capabilities":["sessionFailure"]}}}`, true, false},
		// Finite integers past 2^53 are integers too (seed 000).
		{`{"jetbrains":{"air":{"version":1e16,"capabilities":["sessionFailure"]}}}`, true, true},
		{`{"jetbrains":{"air":{"version":9007199254740993,"capabilities":["sessionFailure"]}}}`, true, true},
		{`{"jetbrains":{"air":{"version":1e300,"capabilities":["sessionFailure"]}}}`, true, true},
		{`{"jetbrains":{"air":{"version":1e400,"capabilities":["sessionFailure"]}}}`, true, false},
		{`{"jetbrains":{"air":{"version":-1e16,"capabilities":["sessionFailure"]}}}`, true, false},
		{`{"jetbrains":{"air":{"version":0.5e1,"capabilities":["sessionFailure"]}}}`, true, true},
		{`{"jetbrains":{"air":{"version":1,"capabilities":[1,"sessionfailure"]}}}`, true, false},
		{`{"jetbrains":{"air":{}}}`, true, false},
		{`{"jetbrains":{"air":[]}}`, false, false},
		{`{"jetbrains":"air"}`, false, false},
		{`{}`, false, false},
	} {
		var meta map[string]json.RawMessage
		if err := json.Unmarshal([]byte(tc.meta), &meta); err != nil {
			t.Fatal(err)
		}
		env := Parse(meta)
		if env.Present != tc.present || env.Has("sessionFailure") != tc.has {
			t.Errorf("%s: present %v has %v, want %v %v", tc.meta, env.Present, env.Has("sessionFailure"), tc.present, tc.has)
		}
	}
}

func TestSetKeepsOtherMembers(t *testing.T) {
	meta := map[string]json.RawMessage{
		"other":     json.RawMessage(`1`),
		"jetbrains": json.RawMessage(`{"ide":"x","air":{"goal":{"a":1}}}`),
	}
	out := Set(meta, "sessionFailure", json.RawMessage(`{"id":"e"}`))
	if string(out["other"]) != `1` {
		t.Errorf("other member lost: %s", out)
	}
	var jb struct {
		IDE string                     `json:"ide"`
		Air map[string]json.RawMessage `json:"air"`
	}
	if err := json.Unmarshal(out["jetbrains"], &jb); err != nil {
		t.Fatal(err)
	}
	if jb.IDE != "x" || string(jb.Air["goal"]) != `{"a":1}` || string(jb.Air["sessionFailure"]) != `{"id":"e"}` || string(jb.Air["version"]) != "1" {
		t.Errorf("got %s", out["jetbrains"])
	}
	if string(meta["jetbrains"]) != `{"ide":"x","air":{"goal":{"a":1}}}` {
		t.Error("Set changed its input")
	}
}
