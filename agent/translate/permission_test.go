package translate

import (
	"encoding/json"
	"log/slog"
	"os"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/toolview"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// countingWorld counts previews: an edit's preview reads the file and
// diffs it, which for a big file is the most expensive step of a
// permission request.
type countingWorld struct{ previews *int }

func (w countingWorld) Preview(name string, in map[string]any, cwd string) ([]acp.ToolCallContent, []acp.ToolCallLocation) {
	*w.previews++
	return toolview.PreContent(name, in, cwd)
}
func (countingWorld) Live() bool                           { return true }
func (countingWorld) Poll(<-chan struct{}, func())         {}
func (countingWorld) TaskOutput(string, string) *os.File   { return nil }
func (countingWorld) TaskOutputs(string) map[string]string { return nil }

// TestPermissionPreviewOnce: a permission request computes the preview of
// the call it is about once, whether or not the client has seen the call,
// and the request shows the same call the client was sent.
func TestPermissionPreviewOnce(t *testing.T) {
	for _, reported := range []bool{false, true} {
		n := 0
		var sent []acp.SessionUpdate
		tr := New(Config{
			SessionID: "s1", Cwd: t.TempDir(), Log: slog.New(slog.DiscardHandler),
			World: countingWorld{&n},
			Sink:  func(_ string, u acp.SessionUpdate) { sent = append(sent, u) },
		})
		tr.Current = &Turn{UUID: "u1"}
		input := json.RawMessage(`{"file_path":"a.txt","old_string":"a","new_string":"b"}`)
		if reported { // the model's call was announced with its input
			tr.Translate(claude.Message{Type: "assistant", Body: &claude.AssistantMessage{Message: claude.APIMessage{
				ID: "m1", Content: claude.Content{{Type: "tool_use", ID: "toolu_1", Name: "Edit", Input: input}}}}})
			n, sent = 0, nil
		}
		req := claude.CanUseToolRequest{ToolName: "Edit", ToolUseID: "toolu_1", Input: input}
		if tu := tr.PermissionTurn(req); tu != tr.Current {
			t.Errorf("reported %v: the request belongs to %+v", reported, tu)
		}
		sid, call, done := tr.AskPermission(req)
		done()
		if n != 1 {
			t.Errorf("reported %v: the preview was computed %d times", reported, n)
		}
		if sid != "s1" || call.ToolCallID != "toolu_1" || !call.Content.IsSet() || !call.Title.IsSet() {
			t.Errorf("reported %v: request shows %s %+v", reported, sid, call)
		}
		if !reported && (len(sent) != 1 || sent[0].ToolCall == nil) {
			t.Errorf("an unseen call is announced once before the request: %+v", sent)
		}
		if reported && len(sent) != 0 {
			t.Errorf("a call the client has, unchanged, is not sent again: %+v", sent)
		}
	}
}
