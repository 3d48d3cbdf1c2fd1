package agent_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// TestSlashCommands: the CLI's commands, the project's own included,
// reach the client without those that cannot work behind an editor; a
// prompt starting with "/" runs the command (a project command expands
// into a prompt for Claude, a local command's output comes back as agent
// text).
func TestSlashCommands(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	dir := filepath.Join(h.Sandbox.WorkDir, ".claude", "commands")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := "---\ndescription: Greet someone\nargument-hint: <name>\n---\nSay hello to $ARGUMENTS warmly.\n"
	if err := os.WriteFile(filepath.Join(dir, "greet.md"), []byte(cmd), 0o644); err != nil {
		t.Fatal(err)
	}
	sid := h.NewSession(h.Sandbox.WorkDir)
	var cmds []acp.AvailableCommand
	h.WaitFor("available_commands_update", 30*time.Second, func() bool {
		for _, u := range h.Updates(sid) {
			if u.AvailableCommandsUpdate != nil {
				cmds = u.AvailableCommandsUpdate.AvailableCommands
			}
		}
		return cmds != nil
	})
	byName := map[string]acp.AvailableCommand{}
	for _, c := range cmds {
		byName[c.Name] = c
	}
	greet, ok := byName["greet"]
	if !ok || !strings.HasPrefix(greet.Description, "Greet someone") || greet.Input == nil || greet.Input.Unstructured.Hint != "<name>" {
		t.Errorf("greet: %+v", greet)
	}
	for _, name := range []string{"compact", "context", "model", "init"} {
		if _, ok := byName[name]; !ok {
			t.Errorf("%s missing", name)
		}
	}
	for _, name := range []string{"clear", "doctor", "color", "__remote-workflow", "agents", "release-notes"} {
		if _, ok := byName[name]; ok {
			t.Errorf("%s offered", name)
		}
	}

	h.API().Script(fakeapi.Text("Hello, Bob!"))
	if resp, err := h.Prompt(sid, "/greet Bob"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("/greet: %+v %v", resp, err)
	}
	reqs := h.API().MainRequests()
	if got := reqs[len(reqs)-1].LastUserText; !strings.Contains(got, "Say hello to Bob warmly.") {
		t.Errorf("the command did not expand: %q", got)
	}
	before := h.AgentText(sid)
	if resp, err := h.Prompt(sid, "/cost"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("/cost: %+v %v", resp, err)
	}
	if out := strings.TrimPrefix(h.AgentText(sid), before); !strings.Contains(out, "cost") {
		t.Errorf("local command output %q", out)
	}
	if n := len(h.API().MainRequests()); n != len(reqs) {
		t.Errorf("a local command called the model")
	}
}
