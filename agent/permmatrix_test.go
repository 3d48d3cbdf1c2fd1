package agent_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// The permission matrix: in each mode, which tools run without asking.
// The reference is the CLI itself: the same tool calls go once through the
// agent (the client rejects every permission request) and once straight to
// the CLI with the same mode (every can_use_tool denied). The agent must
// ask exactly when the CLI asks, a tool must run exactly when it runs on
// the CLI alone, and nothing that was asked about (and so denied) may run.
//
// "auto" is left out: its classifier makes extra model calls that the
// scripted fake API cannot answer meaningfully.

// permCase is one tool call of the matrix.
type permCase struct {
	name  string
	tool  string
	input func(dir, outside string) map[string]any
	ran   func(dir, outside string, ok bool) bool // ok: its tool_result was not an error
}

var permCases = []permCase{
	{"read", "Read", func(d, _ string) map[string]any { return map[string]any{"file_path": filepath.Join(d, "existing.txt")} },
		func(_, _ string, ok bool) bool { return ok }},
	{"write", "Write", func(d, _ string) map[string]any {
		return map[string]any{"file_path": filepath.Join(d, "new.txt"), "content": "new\n"}
	}, func(d, _ string, _ bool) bool { return exists(filepath.Join(d, "new.txt")) }},
	{"edit", "Edit", func(d, _ string) map[string]any {
		return map[string]any{"file_path": filepath.Join(d, "existing.txt"), "old_string": "original", "new_string": "edited"}
	}, func(d, _ string, _ bool) bool {
		b, _ := os.ReadFile(filepath.Join(d, "existing.txt"))
		return strings.Contains(string(b), "edited")
	}},
	{"bash-touch", "Bash", func(d, _ string) map[string]any {
		return map[string]any{"command": "touch " + filepath.Join(d, "touched"), "description": "touch a file"}
	}, func(d, _ string, _ bool) bool { return exists(filepath.Join(d, "touched")) }},
	{"bash-ls", "Bash", func(d, _ string) map[string]any { return map[string]any{"command": "ls " + d, "description": "list"} },
		func(_, _ string, ok bool) bool { return ok }},
	{"write-outside", "Write", func(_, o string) map[string]any {
		return map[string]any{"file_path": filepath.Join(o, "outside.txt"), "content": "out\n"}
	}, func(_, o string, _ bool) bool { return exists(filepath.Join(o, "outside.txt")) }},
}

func exists(path string) bool { _, err := os.Stat(path); return err == nil }

// permScript is the fake API's answers: each case's tool call, one per
// model call, then a closing text.
func permScript(dir, outside string) []fakeapi.Step {
	var steps []fakeapi.Step
	for i, c := range permCases {
		steps = append(steps, toolUse(fmt.Sprintf("toolu_%02d_%s", i, c.name), c.tool, c.input(dir, outside)))
	}
	return append(steps, fakeapi.Text("All done."))
}

// permRun is what one run saw: per case, asked and ran.
type permRun map[string][2]bool

func (r permRun) String() string {
	var sb strings.Builder
	for _, c := range permCases {
		v := r[c.name]
		fmt.Fprintf(&sb, "%s:ask=%v,ran=%v ", c.name, v[0], v[1])
	}
	return sb.String()
}

func caseOf(toolUseID string) string {
	if i := strings.Index(toolUseID, "_"); i >= 0 {
		if j := strings.Index(toolUseID[i+1:], "_"); j >= 0 {
			return toolUseID[i+1+j+1:]
		}
	}
	return ""
}

// permDirs makes a project directory with existing.txt and a directory
// outside it.
func permDirs(t *testing.T, work string) (dir, outside string) {
	t.Helper()
	outside = t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "existing.txt"), []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return work, outside
}

func TestPermissionMatrix(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{claude.PermissionDefault, claude.PermissionAcceptEdits, claude.PermissionPlan, claude.PermissionBypass} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			ref := permThroughCLI(t, mode)
			got := permThroughAgent(t, mode)
			t.Logf("CLI:   %v", ref)
			t.Logf("agent: %v", got)
			for _, c := range permCases {
				if got[c.name] != ref[c.name] {
					t.Errorf("%s: agent ask=%v ran=%v, CLI ask=%v ran=%v", c.name, got[c.name][0], got[c.name][1], ref[c.name][0], ref[c.name][1])
				}
				if v := got[c.name]; v[0] && v[1] {
					t.Errorf("%s: denied but it ran", c.name)
				}
			}
		})
	}
}

// permThroughAgent runs the cases through the agent in mode; the client
// rejects every permission request.
func permThroughAgent(t *testing.T, mode string) permRun {
	h := agenttest.Start(t)
	dir, outside := permDirs(t, h.Sandbox.WorkDir)
	h.Permission = choose(string(acp.PermissionOptionKindRejectOnce))
	sid := h.NewSession(dir)
	if mode != claude.PermissionDefault {
		var sm acp.SetSessionModeResponse
		if err := h.Client.Call(h.Ctx(), acp.MethodSessionSetMode, &acp.SetSessionModeRequest{SessionID: acp.SessionID(sid), ModeID: acp.SessionModeID(mode)}, &sm); err != nil {
			t.Fatalf("set_mode %s: %v", mode, err)
		}
	}
	h.API().Script(permScript(dir, outside)...)
	if _, err := h.Prompt(sid, "run the tools"); err != nil {
		t.Fatal(err)
	}
	asked := map[string]bool{}
	for _, p := range h.Permissions() {
		asked[caseOf(string(p.ToolCall.ToolCallID))] = true
	}
	calls, _ := toolCalls(t, h, sid)
	run := permRun{}
	for i, c := range permCases {
		cs := calls[fmt.Sprintf("toolu_%02d_%s", i, c.name)]
		ok := cs != nil && cs.status == acp.ToolCallStatusCompleted
		run[c.name] = [2]bool{asked[c.name], c.ran(dir, outside, ok)}
	}
	return run
}

// permThroughCLI runs the cases on the CLI alone in mode, denying every
// can_use_tool.
func permThroughCLI(t *testing.T, mode string) permRun {
	sb := clitest.NewSandbox(t)
	t.Cleanup(func() { clitest.NoOrphans(t) })
	dir, outside := permDirs(t, sb.WorkDir)
	sb.API.Script(permScript(dir, outside)...)
	var mu sync.Mutex
	asked := map[string]bool{}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := claude.Start(ctx, claude.Options{
		Executable: sb.CLI, Env: sb.Env, Dir: dir, PermissionMode: mode,
		AllowDangerouslySkipPermissions: true,
		CanUseTool: func(ctx context.Context, req claude.CanUseToolRequest) (claude.PermissionResult, error) {
			mu.Lock()
			asked[caseOf(req.ToolUseID)] = true
			mu.Unlock()
			return claude.Deny("The user refused permission to run this tool."), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.Send(ctx, claude.Text("run the tools")); err != nil {
		t.Fatal(err)
	}
	ok := map[string]bool{}
	for m := range p.Messages() {
		if u, isUser := m.Body.(*claude.UserFrame); isUser {
			for _, b := range u.Message.Content {
				if b.Type == "tool_result" {
					ok[caseOf(b.ToolUseID)] = !b.IsError
				}
			}
		}
		if _, done := m.Body.(*claude.ResultMessage); done {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	run := permRun{}
	for _, c := range permCases {
		run[c.name] = [2]bool{asked[c.name], c.ran(dir, outside, ok[c.name])}
	}
	return run
}
