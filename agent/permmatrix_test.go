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
// What it proves about the real CLI: which calls it asks about (can_use_tool)
// and which it runs in each mode, as the reference run shows. What it proves
// about the agent: that its session/set_mode reaches the CLI
// (set_permission_mode) before the next prompt, that it asks the client
// exactly when the CLI asks, and that a rejection denies the call.
//
// Two real CLIs, not one per mode and side: the reference runs the four
// modes as four turns of one CLI (started in the first mode, switched by
// set_permission_mode before each other turn), the agent as four prompts
// of one session (session/set_mode before each). Each mode's calls work in
// a directory of their own (and an outside directory of their own), so
// that no turn finds another's files, and each turn's script replaces the
// fake API's queue, so that a turn the CLI ends early leaves nothing to the
// next.
//
// "auto" is left out: its classifier makes extra model calls that the
// scripted fake API cannot answer meaningfully.

// permModes are the modes of the matrix, in the order their turns run.
var permModes = []string{claude.PermissionDefault, claude.PermissionAcceptEdits, claude.PermissionPlan, claude.PermissionBypass}

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

// permScript is the fake API's answers for mode m (its index in
// permModes): each case's tool call, one per model call, then a closing
// text.
func permScript(m int, dir, outside string) []fakeapi.Step {
	var steps []fakeapi.Step
	for i, c := range permCases {
		steps = append(steps, toolUse(permID(m, i), c.tool, c.input(dir, outside)))
	}
	return append(steps, fakeapi.Text("All done."))
}

// permID is the tool call id of case i in mode m: toolu_<m><i>_<name>.
func permID(m, i int) string { return fmt.Sprintf("toolu_%d%02d_%s", m, i, permCases[i].name) }

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

// permDirs makes mode m's project directory (a directory of the session's
// work directory) with existing.txt, and a directory outside it.
func permDirs(t *testing.T, work string, m int) (dir, outside string) {
	t.Helper()
	outside = t.TempDir()
	dir = filepath.Join(work, permModes[m])
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "existing.txt"), []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, outside
}

func TestPermissionMatrix(t *testing.T) {
	t.Parallel()
	var ref, got []permRun // per mode
	t.Run("runs", func(t *testing.T) {
		t.Run("cli", func(t *testing.T) { t.Parallel(); ref = permThroughCLI(t) })
		t.Run("agent", func(t *testing.T) { t.Parallel(); got = permThroughAgent(t) })
	})
	if len(ref) != len(permModes) || len(got) != len(permModes) {
		t.Fatalf("runs of %d and %d modes, want %d", len(ref), len(got), len(permModes))
	}
	for m, mode := range permModes {
		t.Run(mode, func(t *testing.T) {
			ref, got := ref[m], got[m]
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

// permThroughAgent runs the cases of every mode through one session of the
// agent, one prompt per mode; the client rejects every permission request.
func permThroughAgent(t *testing.T) []permRun {
	h := agenttest.Start(t)
	h.Permission = choose(string(acp.PermissionOptionKindRejectOnce))
	sid := h.NewSession(h.Sandbox.WorkDir)
	dirs := make([][2]string, len(permModes))
	for m, mode := range permModes {
		dir, outside := permDirs(t, h.Sandbox.WorkDir, m)
		dirs[m] = [2]string{dir, outside}
		if m > 0 {
			var sm acp.SetSessionModeResponse
			if err := h.Client.Call(h.Ctx(), acp.MethodSessionSetMode, &acp.SetSessionModeRequest{SessionID: acp.SessionID(sid), ModeID: acp.SessionModeID(mode)}, &sm); err != nil {
				t.Fatalf("set_mode %s: %v", mode, err)
			}
		}
		h.API().Script(permScript(m, dir, outside)...)
		if _, err := h.Prompt(sid, "run the tools"); err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
	}
	asked := map[string]bool{} // by tool call id
	for _, p := range h.Permissions() {
		asked[string(p.ToolCall.ToolCallID)] = true
	}
	calls, _ := toolCalls(t, h, sid)
	runs := make([]permRun, len(permModes))
	for m := range permModes {
		runs[m] = permRun{}
		for i, c := range permCases {
			cs := calls[permID(m, i)]
			ok := cs != nil && cs.status == acp.ToolCallStatusCompleted
			runs[m][c.name] = [2]bool{asked[permID(m, i)], c.ran(dirs[m][0], dirs[m][1], ok)}
		}
	}
	return runs
}

// permThroughCLI runs the cases of every mode on one CLI alone, one turn
// per mode (the mode set before it), denying every can_use_tool.
func permThroughCLI(t *testing.T) []permRun {
	sb := clitest.NewSandbox(t)
	t.Cleanup(func() { clitest.NoOrphans(t) })
	var mu sync.Mutex
	asked := map[string]bool{} // by tool use id
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	p, err := claude.Start(ctx, claude.Options{
		Executable: sb.CLI, Env: sb.Env, Dir: sb.WorkDir, PermissionMode: permModes[0],
		AllowDangerouslySkipPermissions: true,
		CanUseTool: func(ctx context.Context, req claude.CanUseToolRequest) (claude.PermissionResult, error) {
			mu.Lock()
			asked[req.ToolUseID] = true
			mu.Unlock()
			return claude.Deny("The user refused permission to run this tool."), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	runs := make([]permRun, len(permModes))
	for m, mode := range permModes {
		dir, outside := permDirs(t, sb.WorkDir, m)
		if m > 0 {
			if err := p.SetPermissionMode(ctx, mode); err != nil {
				t.Fatalf("set_permission_mode %s: %v", mode, err)
			}
		}
		sb.API.Script(permScript(m, dir, outside)...)
		if err := p.Send(ctx, claude.Text("run the tools")); err != nil {
			t.Fatal(err)
		}
		ok := map[string]bool{} // by tool use id
		for msg := range p.Messages() {
			if u, isUser := msg.Body.(*claude.UserFrame); isUser {
				for _, b := range u.Message.Content {
					if b.Type == "tool_result" {
						ok[b.ToolUseID] = !b.IsError
					}
				}
			}
			if _, done := msg.Body.(*claude.ResultMessage); done {
				break
			}
		}
		mu.Lock()
		runs[m] = permRun{}
		for i, c := range permCases {
			runs[m][c.name] = [2]bool{asked[permID(m, i)], c.ran(dir, outside, ok[permID(m, i)])}
		}
		mu.Unlock()
	}
	return runs
}
