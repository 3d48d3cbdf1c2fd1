package acp

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestErrorConstructors: each constructor gives the code and data the ACP
// error contract (seed 003) names, and errors.Is matches by code.
func TestErrorConstructors(t *testing.T) {
	for _, tc := range []struct {
		err  *Error
		code int
		data string
	}{
		{NewInvalidRequest("why"), CodeInvalidRequest, `{"reason":"why"}`},
		{NewMethodNotFound("x/y"), CodeMethodNotFound, `{"method":"x/y"}`},
		{NewInternalError("boom"), CodeInternalError, ``},
		{NewAuthRequired(""), CodeAuthRequired, ``},
		{NewResourceNotFound(""), CodeResourceNotFound, ``},
		{NewResourceNotFound("file:///a"), CodeResourceNotFound, `{"uri":"file:///a"}`},
		{NewSessionNotFound("s1"), CodeResourceNotFound, `{"sessionId":"s1"}`},
		{NewUnsupportedProtocolVersion(9, []int{1, 2}), CodeUnsupportedProtocolVersion, `{"requested":9,"supported":[1,2]}`},
		{NewRequestCancelled(), CodeRequestCancelled, ``},
	} {
		if int(tc.err.Code) != tc.code {
			t.Errorf("%v: code %d, want %d", tc.err, tc.err.Code, tc.code)
		}
		if tc.data != "" {
			var got, want any
			_ = json.Unmarshal(tc.err.Data, &got)
			_ = json.Unmarshal([]byte(tc.data), &want)
			if b1, b2 := mustMarshal(got), mustMarshal(want); string(b1) != string(b2) {
				t.Errorf("%v: data %s, want %s", tc.err, tc.err.Data, tc.data)
			}
		}
		if !errors.Is(tc.err, &Error{Code: tc.err.Code}) {
			t.Errorf("%v: errors.Is by code fails", tc.err)
		}
	}
}
