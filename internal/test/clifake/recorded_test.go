package clifake

import (
	"encoding/json"
	"testing"
)

// TestRecordings: every recording is one turn as the fake plays it: JSON
// frames in the fake's placeholders, one result, and the turn's final
// command_lifecycle last.
func TestRecordings(t *testing.T) {
	t.Parallel()
	for name := range recordedFiles {
		frames := Recorded(name)
		results := 0
		for i, f := range frames {
			var fr struct {
				Type        string `json:"type"`
				SessionID   string `json:"session_id"`
				CommandUUID string `json:"command_uuid"`
				State       string `json:"state"`
			}
			if err := json.Unmarshal([]byte(f), &fr); err != nil {
				t.Fatalf("%s:%d: %v", name, i+1, err)
			}
			if fr.SessionID != "$SESSION" {
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
