package agent_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// BenchmarkEditorFSTurn is one turn of 10 Reads and 5 Edits (one call per
// model request, in accept-edits mode), with Claude's files through the
// editor (on: mcp__editor__*, fs/* to the client) and without (off: the
// built-ins, the disk). The client answers fs/* at once, from memory: the
// difference is the agent's and the CLI's cost, not an editor's.
//
//	CLAUDE_AGENT_ACP_DEPS=$PWD/.deps go test -run '^$' -bench BenchmarkEditorFSTurn -benchtime 10x ./agent/
func BenchmarkEditorFSTurn(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(map[bool]string{false: "off", true: "on"}[on], func(b *testing.B) {
			ed := newBufferEditor()
			h := agenttest.Start(b, agenttest.Options{Client: ed.register, Env: []string{"IS_SANDBOX=1"}})
			dir := h.Sandbox.WorkDir
			files := make([]string, 10)
			for i := range files {
				files[i] = filepath.Join(dir, fmt.Sprintf("f%d.go", i))
				text := "package p\n\n" + strings.Repeat("// filler line of a source file\n", 200) + "var value = 0\n"
				if err := os.WriteFile(files[i], []byte(text), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			h.Initialize(fsCaps(on))
			sid := h.NewSession(dir)
			if err := h.Client.Call(h.Ctx(), acp.MethodSessionSetMode, &acp.SetSessionModeRequest{SessionID: acp.SessionID(sid), ModeID: "acceptEdits"}, &acp.SetSessionModeResponse{}); err != nil {
				b.Fatal(err)
			}
			read, edit := "Read", "Edit"
			if on {
				read, edit = mcpRead, mcpEdit
			}
			turn := 0
			for b.Loop() {
				var steps []fakeapi.Step
				for i, f := range files {
					steps = append(steps, toolUse(fmt.Sprintf("toolu_r%d_%d", turn, i), read, map[string]any{"file_path": f}))
				}
				for i, f := range files[:5] {
					steps = append(steps, toolUse(fmt.Sprintf("toolu_e%d_%d", turn, i), edit, map[string]any{
						"file_path": f, "old_string": fmt.Sprintf("var value = %d", turn), "new_string": fmt.Sprintf("var value = %d", turn+1)}))
				}
				h.API().Script(append(steps, fakeapi.Text("Done."))...)
				if resp, err := h.Prompt(sid, "read ten, edit five"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
					b.Fatalf("prompt: %+v %v", resp, err)
				}
				turn++
			}
			b.StopTimer()
			if on && len(ed.written()) != 5*turn {
				b.Fatalf("%d fs/write_text_file for %d turns", len(ed.written()), turn)
			}
			if !on && fsRequests(h) != 0 {
				b.Fatal("fs/* requests with the editor's files off")
			}
			for _, r := range h.API().Requests() {
				for _, tr := range r.ToolResults() {
					if strings.Contains(tr.Text, "rror") {
						b.Fatalf("a tool failed: %s", tr.Text)
					}
				}
			}
			b.ReportMetric(float64(len(ed.written())+ed.readCount())/float64(turn), "fs-requests/turn")
		})
	}
}
