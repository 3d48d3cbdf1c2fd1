package translate

import (
	"bytes"
	"strings"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// TestTerminalEndsWithNewline: a display terminal shows a command's output
// ending with a newline though Claude Code reports it trimmed, so a quick
// command, one followed live through its output file (untrimmed) and the
// same command replayed all show the same bytes.
func TestTerminalEndsWithNewline(t *testing.T) {
	recorded := recordedFrames(t)
	var got bytes.Buffer
	tr := goldenTranslator(&got)
	tr.terminals = true
	for _, name := range []string{"assistant_tool", "tool_results"} {
		for _, raw := range recorded.named(t, name) {
			m, err := claude.DecodeMessage(raw)
			if err != nil {
				t.Fatal(err)
			}
			tr.Translate(m)
		}
	}
	if !strings.Contains(got.String(), `"terminal_output":{"data":"hi\n","terminal_id":"toolu_01bash"}`) {
		t.Errorf("no terminal output \"hi\\n\" in\n%s", got.String())
	}
}
