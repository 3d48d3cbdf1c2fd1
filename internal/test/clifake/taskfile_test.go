package clifake_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/claude"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
)

// TestTaskOutputFile: playing a recording with a task file's history
// (bash_live_short), the fake writes the command's output file where the
// real CLI does, under the CLI's TMPDIR (or CLAUDE_CODE_TMPDIR), growing a
// line at a time while the turn waits, and removes it after the tool
// result, before the turn's result.
func TestTaskOutputFile(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	w := &clifake.World{Model: func(clifake.Request) clifake.Reply {
		return clifake.Reply{Frames: clifake.Recorded("bash_live_short")}
	}}
	p, err := claude.Start(context.Background(), claude.Options{
		Launch: w.Launch, Dir: t.TempDir(), StartupTimeout: time.Minute, SessionID: "00000000-0000-4000-8000-000000000002",
		Env: append(os.Environ(), "TMPDIR="+tmp+"/"),
		CanUseTool: func(ctx context.Context, req claude.CanUseToolRequest) (claude.PermissionResult, error) {
			return claude.Allow(req.Input), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := p.Send(ctx, claude.Text("run it")); err != nil {
		t.Fatal(err)
	}
	path := w.CLIs()[0].TaskOutputPath("bde0k4fm7")
	if !strings.HasPrefix(path, tmp+"/claude-") || !strings.HasSuffix(path, "/00000000-0000-4000-8000-000000000002/tasks/bde0k4fm7.output") {
		t.Fatalf("task file at %s", path)
	}
	// The file's contents, each time they change, until the tool result.
	var seen []string
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	msgs := p.Messages()
	for result := false; !result; {
		select {
		case m, ok := <-msgs:
			if !ok {
				t.Fatal("the CLI ended before its result")
			}
			if m.Type == "user" && strings.Contains(string(m.Raw), `"tool_result"`) {
				b, err := os.ReadFile(path)
				if err != nil || string(b) != "line1\nline2\nline3\nline4\n" {
					t.Errorf("at the tool result the file is %q (%v)", b, err)
				}
			}
			if m.Type == "result" {
				result = true
			}
		case <-tick.C:
			if b, err := os.ReadFile(path); err == nil && (len(seen) == 0 || seen[len(seen)-1] != string(b)) {
				seen = append(seen, string(b))
			}
		}
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the file is still there after the result: %v", err)
	}
	if got := strings.Join(seen, "|"); got != "line1\n|line1\nline2\n|line1\nline2\nline3\n|line1\nline2\nline3\nline4\n" {
		t.Errorf("the file grew as %q", got)
	}
}

// TestTaskOutputFileWaitsForTheCommand: a recording whose command waited
// for a file (bash_live_gate) holds the task file at "first" and the
// tool result back until the test makes that file in the CLI's working
// directory; then the file gets "second" and goes, and the turn ends.
func TestTaskOutputFileWaitsForTheCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	w := &clifake.World{Model: func(clifake.Request) clifake.Reply {
		return clifake.Reply{Frames: clifake.Recorded("bash_live_gate")}
	}}
	p, err := claude.Start(context.Background(), claude.Options{
		Launch: w.Launch, Dir: dir, StartupTimeout: time.Minute, SessionID: "00000000-0000-4000-8000-000000000003",
		Env: append(os.Environ(), "CLAUDE_CODE_TMPDIR="+t.TempDir()),
		CanUseTool: func(ctx context.Context, req claude.CanUseToolRequest) (claude.PermissionResult, error) {
			return claude.Allow(req.Input), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := p.Send(ctx, claude.Text("run it")); err != nil {
		t.Fatal(err)
	}
	path := w.CLIs()[0].TaskOutputPath("b1eoa2l5l")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if b, _ := os.ReadFile(path); string(b) == "first\n" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no task file with first")
		}
	}
	// Held: no tool result while the gate is shut.
	timer := time.NewTimer(300 * time.Millisecond)
	defer timer.Stop()
	msgs := p.Messages()
	for held := true; held; {
		select {
		case m := <-msgs:
			if strings.Contains(string(m.Raw), `"tool_result"`) || m.Type == "result" {
				t.Fatalf("before the gate: %s", m.Raw)
			}
		case <-timer.C:
			held = false
		}
	}
	if b, _ := os.ReadFile(path); string(b) != "first\n" {
		t.Fatalf("before the gate the file is %q", b)
	}
	if err := os.WriteFile(filepath.Join(dir, "go-on"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for m := range msgs {
		if strings.Contains(string(m.Raw), `"tool_result"`) && !strings.Contains(string(m.Raw), `"content":"first\nsecond"`) {
			t.Errorf("tool result %s", m.Raw)
		}
		if m.Type == "result" {
			break
		}
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the file is still there after the result: %v", err)
	}
}

// TestTaskOutputFileSavedWhole: a too big output (bash_big_output) is
// written whole to the task file, which then goes to the CLI's
// tool-results file that the played result names; a RichTranscript keeps
// the played tool call and its result with the frame's tool_use_result.
func TestTaskOutputFileSavedWhole(t *testing.T) {
	t.Parallel()
	w := &clifake.World{RichTranscript: true, Model: func(clifake.Request) clifake.Reply {
		return clifake.Reply{Frames: clifake.Recorded("bash_big_output")}
	}}
	config := t.TempDir()
	p, err := claude.Start(context.Background(), claude.Options{
		Launch: w.Launch, Dir: t.TempDir(), StartupTimeout: time.Minute, SessionID: "00000000-0000-4000-8000-000000000004",
		Env: append(os.Environ(), "CLAUDE_CODE_TMPDIR="+t.TempDir(), "CLAUDE_CONFIG_DIR="+config),
		CanUseTool: func(ctx context.Context, req claude.CanUseToolRequest) (claude.PermissionResult, error) {
			return claude.Allow(req.Input), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := p.Send(ctx, claude.Text("print a lot")); err != nil {
		t.Fatal(err)
	}
	var saved string
	for m := range p.Messages() {
		if strings.Contains(string(m.Raw), `"tool_result"`) {
			var fr struct {
				Result struct {
					Path string `json:"persistedOutputPath"`
					Size int    `json:"persistedOutputSize"`
				} `json:"tool_use_result"`
			}
			_ = json.Unmarshal(m.Raw, &fr)
			saved = fr.Result.Path
			if !strings.HasPrefix(saved, config+"/projects/") || !strings.HasSuffix(saved, "/00000000-0000-4000-8000-000000000004/tool-results/brs4yl1i6.txt") || fr.Result.Size != 300000 {
				t.Errorf("the result names %+v", fr.Result)
			}
		}
		if m.Type == "result" {
			break
		}
	}
	b, err := os.ReadFile(saved)
	if err != nil || len(b) != 300000 || string(b[:20]) != "abcdefghi\nabcdefghi\n" || strings.Count(string(b), "abcdefghi\n") != 30000 {
		t.Errorf("saved output: %d bytes %v", len(b), err)
	}
	if _, err := os.Stat(w.CLIs()[0].TaskOutputPath("brs4yl1i6")); !os.IsNotExist(err) {
		t.Errorf("the task file is still there: %v", err)
	}
	tr, _ := os.ReadFile(filepath.Join(filepath.Dir(saved), "..", "..", "00000000-0000-4000-8000-000000000004.jsonl"))
	if !strings.Contains(string(tr), `"id":"toolu_big"`) || !strings.Contains(string(tr), `"toolUseResult":{`) || !strings.Contains(string(tr), `"persistedOutputSize":300000`) {
		t.Errorf("transcript %.600s", tr)
	}
}
