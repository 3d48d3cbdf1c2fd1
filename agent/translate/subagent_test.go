package translate

import (
	"encoding/json"
	"testing"
)

// Agent and Task (its older name, still accepted by CLI 2.1.332) launch
// subagents; their calls say so.
func TestLaunchCallsAreMarked(t *testing.T) {
	tr := &Translator{}
	for name, want := range map[string]bool{"Agent": true, "Task": true, "Bash": false, "TaskCreate": false} {
		var cc map[string]any
		_ = json.Unmarshal(tr.toolMeta(&toolState{name: name}, nil)["claudeCode"], &cc)
		if (cc["subagent"] == true) != want {
			t.Errorf("%s: %v", name, cc)
		}
	}
}
