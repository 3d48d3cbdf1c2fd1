package agent_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// acpx (a headless ACP client on npm, pinned in scripts/install-deps.sh)
// drives our real binary: with --approve-all the file Claude writes is
// created; with --deny-all the disk stays untouched.

// acpxPath is the installed acpx, or "" (the test is then skipped, or
// fails under CI).
func acpxPath(t *testing.T) string {
	t.Helper()
	return clitest.Dep(t, "acpx", filepath.Join("node_modules", ".bin", "acpx"))
}

// buildAgent builds cmd/claude-agent-acp into a temporary directory.
func buildAgent(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "claude-agent-acp")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "../cmd/claude-agent-acp").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func TestAcpxApproveAndDeny(t *testing.T) {
	t.Parallel()
	acpx := acpxPath(t)
	bin := buildAgent(t)
	for _, policy := range []string{"--approve-all", "--deny-all"} {
		t.Run(policy, func(t *testing.T) {
			sb := clitest.NewSandbox(t)
			t.Cleanup(func() { clitest.NoOrphans(t) })
			path := filepath.Join(sb.WorkDir, "hello.txt")
			sb.API.Script(
				toolUse("toolu_w", "Write", map[string]any{"file_path": path, "content": "hello from acpx\n"}),
				fakeapi.Text("Finished."),
			)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, acpx, "--agent", bin, policy, "--cwd", sb.WorkDir,
				"--format", "json", "--timeout", "90", "exec", "write hello.txt")
			cmd.Dir = sb.WorkDir
			cmd.Env = sb.With("CLAUDE_CODE_EXECUTABLE=" + sb.CLI)
			out, err := cmd.CombinedOutput()
			if err != nil && policy == "--approve-all" {
				t.Fatalf("acpx: %v\n%s", err, out)
			}
			got, statErr := os.ReadFile(path)
			switch policy {
			case "--approve-all":
				if statErr != nil || string(got) != "hello from acpx\n" {
					t.Fatalf("file after --approve-all: %q %v\n%s", got, statErr, out)
				}
			case "--deny-all":
				if !os.IsNotExist(statErr) {
					t.Fatalf("--deny-all touched the disk: %q %v\n%s", got, statErr, out)
				}
				reqs := sb.API.MainRequests()
				if len(reqs) < 2 {
					t.Fatalf("Claude never heard the denial: %d requests\n%s", len(reqs), out)
				}
				if res := reqs[1].ToolResults(); len(res) != 1 || !res[0].IsError {
					t.Errorf("tool result %+v", res)
				}
			}
			// acpx's JSON output is the ACP conversation: the write was asked
			// about, and acpx answered by its policy.
			answer := map[string]string{"--approve-all": `"optionId":"allow"`, "--deny-all": `"optionId":"reject"`}[policy]
			if !strings.Contains(string(out), "session/request_permission") || !strings.Contains(string(out), answer) {
				t.Errorf("no permission request answered %s:\n%s", answer, out)
			}
		})
	}
}
