package transcript

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// realFixture was written by the real CLI 2.1.332 against the fake API: a
// turn with thinking, text and a Bash tool call, a second prompt, then a
// third prompt resumed with --resume-session-at the end of the first turn,
// which abandons the second. Only the API request copies were dropped and
// large attachments trimmed.
const realFixture = "testdata/cli-2.1.332-resume-at.jsonl"

func TestRealCLITranscript(t *testing.T) {
	recs, r := load(t, realFixture)
	var shape []string
	for _, rec := range recs {
		s := rec.Type
		if rec.Message != nil {
			for _, b := range rec.Message.Content {
				s += ":" + b.Type
			}
		}
		shape = append(shape, s)
	}
	want := []string{"user:text"}
	for range 9 {
		want = append(want, "attachment") // environment, model, skills, date, …
	}
	want = append(want, "assistant:thinking", "assistant:text", "assistant:tool_use", "user:tool_result",
		"attachment", "assistant:text", "user:text", "assistant:text")
	if !slices.Equal(shape, want) {
		t.Fatalf("active branch =\n%v\nwant\n%v", shape, want)
	}
	for _, rec := range recs {
		if rec.Type == TypeUser && rec.Message.Content[0].Text == "second prompt" {
			t.Errorf("the abandoned branch is on the active one")
		}
	}
	third := recs[len(recs)-2]
	if third.Message.Content[0].Text != "third prompt" || third.ParentUUID != recs[len(recs)-3].UUID {
		t.Errorf("third prompt = %+v", third)
	}
	use := recs[12].Message.Content[0]
	if use.Name != "Bash" || use.ID != "toolu_01bash" || string(use.Input) != `{"command":"echo hi","description":"Say hi"}` {
		t.Errorf("tool_use = %+v", use)
	}
	res := recs[13]
	if res.SourceToolAssistantUUID != recs[12].UUID || !strings.Contains(string(res.ToolUseResult), `"stdout":"hi"`) ||
		res.Message.Content[0].ToolUseID != "toolu_01bash" {
		t.Errorf("tool result = %+v", res)
	}
	if recs[0].Message.Content[0].Text != "please say hi" || recs[0].PermissionMode != "bypassPermissions" {
		t.Errorf("first prompt = %+v", recs[0])
	}
	if got := r.LeafUUID(); got != recs[len(recs)-1].UUID || got != r.Meta().LeafUUID {
		t.Errorf("LeafUUID = %q, meta %q", got, r.Meta().LeafUUID)
	}
	if s := r.Stats(); s.Corrupt != 0 || s.TruncatedTail || s.BrokenChain {
		t.Errorf("stats = %+v", s)
	}
	if got := r.Title(); got != "third prompt" {
		t.Errorf("Title = %q", got)
	}

	// The same file as List sees it.
	cfg := t.TempDir()
	data, err := os.ReadFile(realFixture)
	if err != nil {
		t.Fatal(err)
	}
	id := "11111111-2222-4333-8444-555555555555"
	if r.Meta().SessionID != id {
		t.Fatalf("session id = %q", r.Meta().SessionID)
	}
	path := filepath.Join(ProjectDir(cfg, "/tmp/rt/work/my.proj"), id+".jsonl")
	writeRaw(t, path, string(data))
	p, err := List(cfg, Filter{Cwd: "/tmp/rt/work/my.proj"})
	if err != nil || len(p.Sessions) != 1 {
		t.Fatalf("List = %+v, %v", p, err)
	}
	if s := p.Sessions[0]; s.SessionID != id || s.Cwd != "/tmp/rt/work/my.proj" || s.Title != "third prompt" ||
		time.Since(s.UpdatedAt) > time.Hour {
		t.Errorf("row = %+v", s)
	}
	if got, err := Find(cfg, id); err != nil || got != path {
		t.Errorf("Find = %q, %v", got, err)
	}
}

// TestRealCLISubagent reads a session of the real CLI that launched an
// asynchronous Agent subagent: its transcript sits in the session's
// subagents directory with a meta sidecar naming the launching tool_use.
func TestRealCLISubagent(t *testing.T) {
	main := "testdata/cli-2.1.332-agent/33333333-2222-4333-8444-555555555555.jsonl"
	recs, _ := load(t, main)
	var launch, notification *Record
	for _, rec := range recs {
		if rec.Message == nil {
			continue
		}
		for _, b := range rec.Message.Content {
			if b.Type == "tool_use" && b.Name == "Agent" {
				launch = rec
			}
		}
		if rec.Origin != nil && rec.Origin.Kind == "task-notification" {
			notification = rec
		}
	}
	if launch == nil || notification == nil {
		t.Fatalf("launch %v, task notification %v", launch, notification)
	}
	if got := recs[len(recs)-1]; got.Type != TypeAssistant || got.Message.Content[0].Text != "Agent launched." {
		t.Errorf("last record = %+v", got)
	}

	subs, err := Subagents(main)
	if err != nil || len(subs) != 1 {
		t.Fatalf("Subagents = %+v, %v", subs, err)
	}
	s := subs[0]
	if s.AgentID != "addffe112c3c31fcf" || s.Meta == nil || s.Meta.ToolUseID != launch.Message.Content[0].ID ||
		s.Meta.AgentType != "general-purpose" || s.Meta.RequestShape != "background" || s.Meta.Description != "Sub task" {
		t.Errorf("subagent = %+v, meta %+v", s, s.Meta)
	}
	sub, _ := load(t, s.Path)
	if len(sub) < 2 || sub[0].Type != TypeUser || !sub[0].IsSidechain {
		t.Fatalf("subagent records = %v", uuids(sub))
	}
	if last := sub[len(sub)-1]; last.Type != TypeAssistant || last.Message.Content[0].Text != "sub hello from subagent" {
		t.Errorf("subagent answer = %+v", last)
	}
}
