package translate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/toolview"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/acptest"
)

var update = flag.Bool("update", false, "rewrite the translation goldens instead of comparing")

// updating reports the -update flag: rewrite the goldens instead of
// comparing.
func updating() bool { return *update }

// TestTranslateGoldens feeds CLI frames to a Translator and compares the
// session/update notifications it writes with the golden ones. No CLI, no
// pipes, no Node: each testdata/*.txtar names frames the real
// CLI printed (claude/testdata/cli-frames.jsonl, by name, in order) or
// gives them inline, and lists the notifications expected, each of which
// must also be valid ACP. Run with -update to rewrite the goldens after a
// deliberate change, and read the diff.
func TestTranslateGoldens(t *testing.T) {
	recorded := recordedFrames(t)
	files, _ := filepath.Glob("testdata/*.txtar")
	if len(files) == 0 {
		t.Fatal("no goldens")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var frames []byte
			var wantIdx = -1
			for i, f := range ar.Files {
				switch f.Name {
				case "frames":
					frames = f.Data
				case "updates":
					wantIdx = i
				}
			}
			var got bytes.Buffer
			tr := goldenTranslator(&got)
			for _, line := range strings.Split(strings.TrimSpace(string(frames)), "\n") {
				line = strings.TrimSpace(line)
				if line == "" || strings.HasPrefix(line, "#") {
					continue
				}
				raws := [][]byte{[]byte(line)}
				if !strings.HasPrefix(line, "{") {
					raws = recorded.named(t, line)
				}
				for _, raw := range raws {
					m, err := claude.DecodeMessage(raw)
					if err != nil {
						t.Fatalf("frame %s: %v", line, err)
					}
					tr.Translate(m)
				}
			}
			for _, l := range strings.Split(strings.TrimSpace(got.String()), "\n") {
				if l != "" {
					acptest.ValidateMessage(t, []byte(l))
				}
			}
			if updating() {
				if wantIdx < 0 {
					ar.Files = append(ar.Files, txtar.File{Name: "updates"})
					wantIdx = len(ar.Files) - 1
				}
				ar.Files[wantIdx].Data = got.Bytes()
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if wantIdx < 0 {
				t.Fatal("no updates section (run with -update)")
			}
			if want := string(ar.Files[wantIdx].Data); got.String() != want {
				t.Errorf("updates differ (run with -update to accept)\ngot:\n%s\nwant:\n%s", got.String(), want)
			}
		})
	}
}

// goldenTranslator translates for session "s1", working on a turn, in a
// world whose disk has none of the files the frames name, into out (one
// session/update notification per line).
func goldenTranslator(out *bytes.Buffer) *Translator {
	tr := New(Config{
		SessionID: "s1", Cwd: "/home/me/work", Log: slog.New(slog.DiscardHandler), World: goldenWorld{},
		Sink: func(sid string, u acp.SessionUpdate) {
			b, err := json.Marshal(&acp.SessionNotification{SessionID: acp.SessionID(sid), Update: u})
			if err != nil {
				panic(err)
			}
			out.WriteString(`{"jsonrpc":"2.0","method":"session/update","params":`)
			out.Write(b)
			out.WriteString("}\n")
		},
	})
	tr.Current = &Turn{UUID: "turn-1"}
	return tr
}

// goldenWorld is the present without side effects: previews are computed
// (from a disk that lacks the frames' files), no command is followed.
type goldenWorld struct{}

func (goldenWorld) Preview(name string, in map[string]any, cwd string) ([]acp.ToolCallContent, []acp.ToolCallLocation) {
	return toolview.PreContent(name, in, cwd)
}
func (goldenWorld) Live() bool                           { return false }
func (goldenWorld) Poll(<-chan struct{}, func())         {}
func (goldenWorld) TaskOutput(string, string) *os.File   { return nil }
func (goldenWorld) TaskOutputs(string) map[string]string { return nil }

// recorded is claude/testdata/cli-frames.jsonl: frames of the real CLI,
// each named "<scenario>#<n>".
type recorded map[string][][]byte

func recordedFrames(t *testing.T) recorded {
	f, err := os.Open("../../claude/testdata/cli-frames.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := recorded{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e struct {
			Name  string          `json:"name"`
			Frame json.RawMessage `json:"frame"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		scenario, _, _ := strings.Cut(e.Name, "#")
		r[scenario] = append(r[scenario], e.Frame)
		r[e.Name] = [][]byte{e.Frame}
	}
	return r
}

// named is the frames of a scenario ("tool_results"), or one frame
// ("tool_results#2").
func (r recorded) named(t *testing.T, name string) [][]byte {
	t.Helper()
	fs, ok := r[name]
	if !ok {
		t.Fatalf("no recorded frame %q", name)
	}
	return fs
}
