package acp

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestNegotiateVersionV2(t *testing.T) {
	// With both versions: 2 or higher gets 2, 1 gets 1, 0 gets -32022 with
	// {requested, supported} (seed 003).
	supported := []int{ProtocolV1, ProtocolV2}
	for req, want := range map[int]int{1: 1, 2: 2, 3: 2, 65535: 2} {
		if got, err := NegotiateVersion(req, supported); err != nil || got != want {
			t.Errorf("NegotiateVersion(%d) = %d, %v; want %d", req, got, err, want)
		}
	}
	_, err := NegotiateVersion(0, supported)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeUnsupportedProtocolVersion || string(e.Data) != `{"requested":0,"supported":[1,2]}` {
		t.Errorf("NegotiateVersion(0) = %v", err)
	}
}

func TestPeekProtocolVersion(t *testing.T) {
	for in, want := range map[string]int{
		`{"protocolVersion":1,"clientCapabilities":{}}`:           1,
		`{"protocolVersion":2,"info":{"name":"x","version":"1"}}`: 2,
		` {"info":{},"protocolVersion":65535}`:                    65535,
		`{"protocolVersion":0}`:                                   0,
		`{"protocolVersion":2.0}`:                                 -1,
		`{"protocolVersion":-1}`:                                  -1,
		`{"protocolVersion":65536}`:                               -1,
		`{"protocolVersion":"2"}`:                                 -1,
		`{"protocolVersion":null}`:                                -1,
		`{}`:                                                      -1,
		`[]`:                                                      -1,
		`null`:                                                    -1,
		``:                                                        -1,
	} {
		got, err := PeekProtocolVersion(json.RawMessage(in))
		if want < 0 {
			var e *Error
			if !errors.As(err, &e) || e.Code != CodeInvalidParams {
				t.Errorf("%s: %d, %v; want -32602", in, got, err)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("%s: %d, %v; want %d", in, got, err, want)
		}
	}
}

func TestIsV2RequestID(t *testing.T) {
	for id, want := range map[string]bool{
		`0`: true, `-7`: true, `9007199254740993`: true, `"abc"`: true, `""`: true,
		`null`: false, `1.5`: false, `1e3`: false, `true`: false, `{}`: false, ``: false, `"x`: false,
	} {
		if got := IsV2RequestID(json.RawMessage(id)); got != want {
			t.Errorf("IsV2RequestID(%s) = %v", id, got)
		}
	}
}

// TestNegotiateVersionV1: below 2 a request is a v1 client's, answered
// with the version asked for when supported, else the latest v1 version
// supported; v1 has no error for it.
func TestNegotiateVersionV1(t *testing.T) {
	for _, tc := range []struct {
		req       int
		supported []int
		want      int
		ok        bool
	}{
		{0, []int{1, 2}, 1, true},
		{1, []int{1, 2}, 1, true},
		{0, []int{0, 1}, 0, true},
		{2, []int{1, 2}, 0, false},
		{0, []int{2}, 0, false},
	} {
		if got, ok := NegotiateVersionV1(tc.req, tc.supported); got != tc.want || ok != tc.ok {
			t.Errorf("NegotiateVersionV1(%d, %v) = %d, %v; want %d, %v", tc.req, tc.supported, got, ok, tc.want, tc.ok)
		}
	}
}
