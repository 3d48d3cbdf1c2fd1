package transcriptgen

import (
	"context"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
)

// TestReadBack checks that the transcript reader sees what the generator
// says it wrote: every line valid, the active branch as long as counted
// (rewound turns left out), each record following its parent.
func TestReadBack(t *testing.T) {
	for _, o := range []Options{
		{Messages: 2},
		{Messages: 100, Seed: 7},
		{Messages: 600, RewindEvery: 5, Seed: 9, Cwd: "/tmp/some where"},
	} {
		dir := t.TempDir()
		path, st, err := WriteSession(dir, o)
		if err != nil {
			t.Fatal(err)
		}
		if !transcript.ValidSessionID(st.SessionID) || st.Messages < o.Messages {
			t.Fatalf("%+v: stats %+v", o, st)
		}
		r, err := transcript.Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := r.Collect(context.Background())
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != st.Active || r.Stats().Corrupt != 0 || r.Stats().Messages != st.Messages {
			t.Errorf("%+v: read %d records (stats %+v), generator says %+v", o, len(recs), r.Stats(), st)
		}
		tools, prompts := 0, 0
		for i, rec := range recs {
			if i > 0 && rec.ParentUUID != recs[i-1].UUID {
				t.Fatalf("record %d does not follow its parent", i)
			}
			for _, b := range rec.Message.Content {
				if b.Type == "tool_use" {
					tools++
				}
			}
			if rec.PermissionMode != "" {
				prompts++
			}
		}
		if tools != st.ToolCalls || prompts != st.Turns {
			t.Errorf("%+v: %d tool calls and %d prompts on the branch, generator says %d and %d", o, tools, prompts, st.ToolCalls, st.Turns)
		}
		if o.RewindEvery > 0 && st.Active >= st.Messages {
			t.Errorf("rewinds left no dead branch: %+v", st)
		}
	}
}
