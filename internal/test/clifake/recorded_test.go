package clifake

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestRecordingsMatchThePin: the recordings were made with the CLI the
// tests pin; after an upgrade they must be made again, or the tests that
// play them would test the agent against an older CLI's output.
func TestRecordingsMatchThePin(t *testing.T) {
	t.Parallel()
	script, err := os.ReadFile("../../../scripts/install-deps.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`@anthropic-ai/claude-code@([0-9][^"' ]*)`).FindSubmatch(script)
	if m == nil {
		t.Fatal("no @anthropic-ai/claude-code@<version> in scripts/install-deps.sh")
	}
	if pin := string(m[1]); pin != recordedWith {
		t.Fatalf("the recordings (internal/test/clifake/recorded) were made with CLI %s, the tests pin %s: record them again with it (recordedFiles says how) and set recordedWith", recordedWith, pin)
	}
}

// TestRecordings: every recording is one turn as the fake plays it: JSON
// frames in the fake's placeholders, one result, and the turn's final
// command_lifecycle last.
func TestRecordings(t *testing.T) {
	t.Parallel()
	for name := range recordedFiles {
		frames := Recorded(name)
		results := 0
		for i, f := range frames {
			if strings.HasPrefix(f, taskOutputPrefix) { // taskfile.go
				var l taskOutputLine
				if err := json.Unmarshal([]byte(f), &l); err != nil || l.Task == "" || l.AfterMS < 0 || l.Remove && l.Append != "" || l.WaitFor != "" && (l.Remove || l.Append != "") {
					t.Errorf("%s:%d: task output line %s: %v", name, i+1, f, err)
				}
				continue
			}
			var fr struct {
				Type        string `json:"type"`
				SessionID   string `json:"session_id"`
				CommandUUID string `json:"command_uuid"`
				State       string `json:"state"`
			}
			if err := json.Unmarshal([]byte(f), &fr); err != nil {
				t.Fatalf("%s:%d: %v", name, i+1, err)
			}
			if fr.SessionID != "$SESSION" && fr.Type != "control_request" && fr.Type != "control_response" { // exchange.go
				t.Errorf("%s:%d: session %q", name, i+1, fr.SessionID)
			}
			if fr.Type == "result" {
				results++
			}
			if last := i == len(frames)-1; last != (fr.Type == "command_lifecycle") ||
				last && (fr.CommandUUID != "$MESSAGE" || fr.State != "completed" && fr.State != "cancelled") {
				t.Errorf("%s:%d: %s", name, i+1, f)
			}
		}
		if results != 1 {
			t.Errorf("%s: %d results", name, results)
		}
	}
}
