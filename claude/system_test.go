package claude

import "testing"

// TestDecodeCompactionAndTitle decodes the frames of a /compact and of a
// /rename as CLI 2.1.332 writes them.
func TestDecodeCompactionAndTitle(t *testing.T) {
	for _, tc := range []struct {
		line  string
		check func(body any) bool
	}{
		{`{"type":"system","subtype":"status","status":"compacting","session_id":"s1","uuid":"u1"}`,
			func(b any) bool {
				s, ok := b.(*SystemStatus)
				return ok && s.Status == "compacting" && s.CompactResult == ""
			}},
		{`{"type":"system","subtype":"status","status":null,"compact_result":"success","session_id":"s1","uuid":"u2"}`,
			func(b any) bool {
				s, ok := b.(*SystemStatus)
				return ok && s.Status == "" && s.CompactResult == "success"
			}},
		{`{"type":"system","subtype":"status","status":null,"compact_result":"failed","compact_error":"Not enough messages to compact.","session_id":"s1","uuid":"u2"}`,
			func(b any) bool {
				s, ok := b.(*SystemStatus)
				return ok && s.CompactResult == "failed" && s.CompactError == "Not enough messages to compact."
			}},
		{`{"type":"system","subtype":"compact_boundary","session_id":"s1","uuid":"u3","compact_metadata":{"trigger":"manual","pre_tokens":15,"post_tokens":2445,"cumulative_dropped_tokens":0,"duration_ms":40},"logical_parent_uuid":"u0"}`,
			func(b any) bool {
				c, ok := b.(*CompactBoundary)
				m := c.CompactMetadata
				return ok && m.Trigger == "manual" && m.PreTokens == 15 && m.PostTokens == 2445 && m.DurationMS == 40
			}},
		{`{"type":"system","subtype":"session_title_changed","title":"My renamed session","uuid":"u4","session_id":"s1"}`,
			func(b any) bool { s, ok := b.(*SessionTitleChanged); return ok && s.Title == "My renamed session" }},
	} {
		m, err := DecodeMessage([]byte(tc.line))
		if err != nil || m.DecodeErr != nil || !tc.check(m.Body) {
			t.Errorf("%s: %+v %v %v", tc.line, m.Body, err, m.DecodeErr)
		}
	}
}
