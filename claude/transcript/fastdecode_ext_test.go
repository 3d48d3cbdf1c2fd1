package transcript_test

import (
	"bufio"
	"os"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/transcriptgen"
)

// TestFastDecodeGenerated: the fast path applies to, and agrees with
// encoding/json on, every line of a generated transcript (all six tools,
// mentions, rewinds).
func TestFastDecodeGenerated(t *testing.T) {
	path, _, err := transcriptgen.WriteSession(t.TempDir(), transcriptgen.Options{Messages: 600, RewindEvery: 25, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	n := 0
	for sc.Scan() {
		if !transcript.CheckFast(t, sc.Bytes()) {
			t.Errorf("fast path did not apply: %.300s", sc.Bytes())
		}
		n++
	}
	if n < 600 {
		t.Fatalf("%d lines", n)
	}
}
