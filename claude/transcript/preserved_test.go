package transcript

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
)

// compactFixture was written by the real CLI 2.1.332 against the fake API:
// two prompts, /compact (which kept the last answer, "Second answer.",
// verbatim: its boundary's preservedSegment and preservedMessages name
// it), then a third prompt. Only the API request copies and queue lines
// were dropped and large attachments trimmed.
const compactFixture = "testdata/cli-2.1.332-compact.jsonl"

// TestPreservedAfterCompactionRealCLI: the branch after a compaction
// carries what Claude Code kept across the cut, after the summary (its
// anchor), as Claude Code links it back on resume; and the boundary's
// compactMetadata is decoded.
func TestPreservedAfterCompactionRealCLI(t *testing.T) {
	recs, r := load(t, compactFixture)
	var shape []string
	for _, rec := range recs {
		switch {
		case rec.Type == TypeAttachment:
		case rec.Type == TypeSystem:
			shape = append(shape, "system:"+rec.Subtype)
		case rec.IsCompactSummary:
			shape = append(shape, "summary")
		case rec.IsMeta:
			shape = append(shape, "meta")
		default:
			shape = append(shape, rec.Type+":"+blockText(rec))
		}
	}
	want := []string{
		"system:compact_boundary", "summary",
		"assistant:Second answer.", // kept verbatim, before the cut
		"meta",
		"user:<command-name>/compact</command-name>\n            <command-message>compact</command-message>\n            <command-args></command-args>",
		"user:<local-command-stdout>Compacted </local-command-stdout>",
		"user:Next.", "assistant:After compact.",
	}
	if !slices.Equal(shape, want) {
		t.Fatalf("records =\n%q\nwant\n%q", shape, want)
	}
	var m struct {
		Trigger    string `json:"trigger"`
		PreTokens  int64  `json:"preTokens"`
		PostTokens int64  `json:"postTokens"`
	}
	if err := json.Unmarshal(recs[0].CompactMetadata, &m); err != nil || m.Trigger != "manual" || m.PreTokens == 0 || m.PostTokens == 0 {
		t.Errorf("compactMetadata %s: %+v %v", recs[0].CompactMetadata, m, err)
	}
	if r.Len() != len(recs) {
		t.Errorf("Len %d, records %d", r.Len(), len(recs))
	}
	if got := r.LeafUUID(); got != recs[len(recs)-1].UUID {
		t.Errorf("LeafUUID %q, want the last record's %q", got, recs[len(recs)-1].UUID)
	}
}

func blockText(rec *Record) string {
	if rec.Message == nil {
		return ""
	}
	var s string
	for _, b := range rec.Message.Content {
		s += b.Text
	}
	return s
}

// TestPreservedForms: the list form wins over the segment, both are put
// after the anchor; a list naming a missing line, a segment whose walk
// breaks, or an anchor off the branch keep the branch as it is.
func TestPreservedForms(t *testing.T) {
	boundary := func(meta obj) string {
		return enc(t, obj{"parentUuid": nil, "logicalParentUuid": uid(4), "type": "system", "subtype": "compact_boundary",
			"uuid": uid(10), "sessionId": sid, "compactMetadata": meta})
	}
	before := []string{
		userLine(t, uid(1), "", "one"), assistantLine(t, uid(2), uid(1), "two"),
		userLine(t, uid(3), uid(2), "three"), assistantLine(t, uid(4), uid(3), "four"),
	}
	after := []string{
		userLine(t, uid(11), uid(10), "summary", "isCompactSummary", true),
		userLine(t, uid(12), uid(11), "next"), assistantLine(t, uid(13), uid(12), "answer"),
	}
	plain := []string{uid(10), uid(11), uid(12), uid(13)}
	segment := func(head, anchor, tail string) obj {
		return obj{"headUuid": head, "anchorUuid": anchor, "tailUuid": tail}
	}
	for _, tc := range []struct {
		name string
		meta obj
		want []string
	}{
		{"segment", obj{"preservedSegment": segment(uid(3), uid(11), uid(4))},
			[]string{uid(10), uid(11), uid(3), uid(4), uid(12), uid(13)}},
		{"list", obj{"preservedMessages": obj{"anchorUuid": uid(11), "uuids": []any{uid(2), uid(4)}},
			"preservedSegment": segment(uid(3), uid(11), uid(4))},
			[]string{uid(10), uid(11), uid(2), uid(4), uid(12), uid(13)}},
		{"anchored at the boundary", obj{"preservedSegment": segment(uid(4), uid(10), uid(4))},
			[]string{uid(10), uid(4), uid(11), uid(12), uid(13)}},
		{"list names a missing line", obj{"preservedMessages": obj{"anchorUuid": uid(11), "uuids": []any{uid(4), uid(99)}}}, plain},
		{"walk breaks", obj{"preservedSegment": segment(uid(98), uid(11), uid(4))}, plain},
		{"anchor off the branch", obj{"preservedSegment": segment(uid(3), uid(97), uid(4))}, plain},
		{"nothing kept", obj{"trigger": "auto", "preTokens": 100}, plain},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			lines := append(append(slices.Clone(before), boundary(tc.meta)), after...)
			writeLines(t, path, lines...)
			recs, _ := load(t, path)
			if got := uuids(recs); !slices.Equal(got, tc.want) {
				t.Errorf("records %v, want %v", got, tc.want)
			}
		})
	}
}
