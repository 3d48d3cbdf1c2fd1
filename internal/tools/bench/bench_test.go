package bench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
)

// TestMain fails the package if a run leaves a goroutine behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestHarnessShort is the harness's CI run: one short iteration of every
// scenario against our adapter, the TypeScript reference and the bare CLI,
// so the harness never rots. It asserts that a complete table came out,
// never how fast anything was.
func TestHarnessShort(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real CLIs for about a minute")
	}
	cli := clitest.CLIPath(t)
	ref := referencePath(t)
	ours := filepath.Join(t.TempDir(), "claude-agent-acp")
	build := exec.Command("go", "build", "-o", ours, "github.com/claude-agent-acp/claude-agent-acp/cmd/claude-agent-acp")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var log strings.Builder
	r, err := Run(context.Background(), Config{
		Ours: []string{ours}, Reference: []string{ref}, CLI: cli,
		Iterations: 1, Turns: 2, Deltas: 2000, Sessions: 3, ReplayMessages: 500, HibernateSessions: hibernateCap + 2, ColdStarts: 1, WarmPairs: 1, Log: &log,
	})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, log.String())
	}
	t.Log("\n" + log.String())
	doc := r.Document()
	t.Log("\n" + doc)
	for _, want := range []string{"| Measure | Go | TypeScript | bare CLI | TS / Go |", "→ `initialize` answer", "| Target |"} {
		if !strings.Contains(doc, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, sys := range []string{Ours, Reference, Bare} {
		if len(r.Samples[sys]) != 1 {
			t.Errorf("%s: %d samples, want 1", sys, len(r.Samples[sys]))
		}
	}
	if strings.Contains(doc, "| – |") {
		t.Errorf("report has empty cells:\n%s", doc)
	}
}

// referencePath finds the TypeScript reference that make deps installs
// next to the CLI. CI must have it; elsewhere the test is skipped without.
func referencePath(t *testing.T) string {
	t.Helper()
	return clitest.Dep(t, "TypeScript reference", filepath.Join("node_modules", ".bin", "claude-agent-acp"))
}

// TestHibernationFigures runs the hibernation scenario alone, with the
// number of sessions of CLAUDE_AGENT_ACP_BENCH_HIBERNATE (e.g. 20), and
// logs its figures (BENCHMARKS.md's hibernation section). Skipped unless
// set: make bench-compare measures it with everything else.
func TestHibernationFigures(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CLAUDE_AGENT_ACP_BENCH_HIBERNATE"))
	if n <= hibernateCap {
		t.Skip("set CLAUDE_AGENT_ACP_BENCH_HIBERNATE to a session count above the cap")
	}
	ours := filepath.Join(t.TempDir(), "claude-agent-acp")
	build := exec.Command("go", "build", "-o", ours, "github.com/claude-agent-acp/claude-agent-acp/cmd/claude-agent-acp")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cfg := Config{CLI: clitest.CLIPath(t), HibernateSessions: n, tmp: t.TempDir()}
	m, err := runHibernation(context.Background(), &cfg, []string{ours})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d sessions: peak tree RSS %s with a cap of %d, %s without; prompt → first chunk %s hibernated, %s live",
		n, mib.format(m[kHibRSSCap]), hibernateCap, mib.format(m[kHibRSSNoCap]), ms.format(m[kHibResume]), ms.format(m[kHibLive]))
}
