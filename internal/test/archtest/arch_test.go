// Package archtest checks the shape of the house: which package may import
// which, and what the shipped binary links.
//
// Data flows one way: cmd → agent → (acp, claude), with the agent's own
// packages below it, and nothing points back up. Beside that flow the
// repository has three kinds of support code, one directory each:
//
//	internal/<leaf>    production leaves the binary links (jsonfast, rawio,
//	                   batchsched); they import nothing of this module, so a
//	                   leaf can never pull anything else into the binary
//	internal/test/...  test harnesses and suites (fakeapi, clitest, agenttest,
//	                   acptest, faultcli, clifake, interop, transcriptgen, ...):
//	                   only _test.go files, other harnesses and tools import them
//	internal/tools/... programs make runs (dist, bench, wineprep): imported by
//	                   nothing but themselves
//
// The schema generator lives beside what it generates (acp/internal/acpgen)
// and, being a command, is imported by nothing.
package archtest

import (
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/claude-agent-acp/claude-agent-acp"

// list runs go list over the module with the given format and extra
// arguments, one line per package.
func list(t *testing.T, env []string, args ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// rel strips the module prefix: "internal/jsonfast", or "" for the module
// root. ok is false for packages of other modules.
func rel(path string) (string, bool) {
	if path == module {
		return "", true
	}
	r, ok := strings.CutPrefix(path, module+"/")
	return r, ok
}

// imports maps each package of the module (without the module prefix) to
// the packages of the module it imports, tests excluded.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	g := map[string][]string{}
	for _, line := range list(t, nil, "-f", `{{.ImportPath}}:{{join .Imports " "}}`, module+"/...") {
		pkg, deps, _ := strings.Cut(line, ":")
		pkg, _ = rel(pkg)
		g[pkg] = nil
		for _, d := range strings.Fields(deps) {
			if r, ok := rel(d); ok {
				g[pkg] = append(g[pkg], r)
			}
		}
	}
	return g
}

func under(p, root string) bool { return p == root || strings.HasPrefix(p, root+"/") }

// A layer names where a package belongs.
type layer int

const (
	layerNone     layer = iota
	layerCmd            // cmd/...: the binary's main package
	layerAgent          // agent: the only package that knows both ACP and Claude
	layerAgentSub       // agent/...: the agent's own feature packages
	layerACP            // acp/...: our ACP library
	layerClaude         // claude/...: the CLI driver
	layerLeaf           // internal/<leaf>: production leaves
	layerHarness        // internal/test/...: test harnesses and suites
	layerTool           // internal/tools/... and generators: programs make runs
)

func layerOf(p string) layer {
	switch {
	case under(p, "cmd"):
		return layerCmd
	case p == "agent":
		return layerAgent
	case under(p, "agent"):
		return layerAgentSub
	case under(p, "acp/internal/acpgen"):
		return layerTool
	case under(p, "acp"):
		return layerACP
	case under(p, "claude"):
		return layerClaude
	case under(p, "internal/test"):
		return layerHarness
	case under(p, "internal/tools"):
		return layerTool
	case under(p, "internal") && strings.Count(p, "/") == 1:
		return layerLeaf
	}
	return layerNone
}

// shipped reports whether a package of this layer may be linked into the
// binary.
func (l layer) shipped() bool { return l != layerHarness && l != layerTool && l != layerNone }

// allowed says whether pkg may import dep, and if not, why.
func allowed(pkg, dep string) (ok bool, why string) {
	lp, ld := layerOf(pkg), layerOf(dep)
	switch {
	case ld == layerCmd:
		return false, "nothing imports a command"
	case ld == layerTool && lp != layerTool:
		return false, "internal/tools are programs make runs; only they import each other"
	case ld == layerHarness && lp.shipped():
		return false, "a test harness outside a _test.go file would be linked into the binary; import it from tests only"
	case lp == layerLeaf:
		return false, "a production leaf imports nothing of this module (so it never pulls anything into the binary)"
	case lp == layerHarness, lp == layerTool:
		return true, "" // harnesses and tools drive everything that ships
	case ld == layerLeaf:
		return true, "" // leaves serve every layer
	case lp == layerACP:
		if pkg == "acp" {
			return under(dep, "acp/internal"), "package acp builds only on its own internals"
		}
		return under(dep, "acp"), "acp knows nothing of Claude or the agent"
	case lp == layerClaude:
		return under(dep, "claude"), "the CLI driver knows nothing of ACP or the agent"
	case lp == layerAgentSub:
		return dep != "agent" && (ld == layerACP || ld == layerClaude || ld == layerAgentSub),
			"the agent's feature packages never import package agent"
	case lp == layerAgent:
		return ld == layerACP || ld == layerClaude || ld == layerAgentSub, "against the flow cmd → agent → (acp, claude)"
	case lp == layerCmd:
		return ld == layerAgent || ld == layerACP || ld == layerClaude, "against the flow cmd → agent → (acp, claude)"
	}
	return false, "against the flow cmd → agent → (acp, claude)"
}

// TestImportsFlowOneWay fails on any import against the flow, and logs the
// graph (the drawing in docs/design.md comes from it).
func TestImportsFlowOneWay(t *testing.T) {
	g := imports(t)
	var pkgs []string
	for p := range g {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		if layerOf(p) == layerNone {
			t.Errorf("%s is in no layer: production code goes under cmd, agent, acp or claude, a leaf under internal/, a harness under internal/test, a program make runs under internal/tools", p)
			continue
		}
		for _, d := range g[p] {
			if ok, why := allowed(p, d); !ok {
				t.Errorf("%s imports %s: %s", p, d, why)
			}
		}
		if layerOf(p).shipped() {
			t.Logf("%s → %s", p, strings.Join(g[p], ", "))
		}
	}
}

// TestRules checks allowed on the cases that matter most, so that a change
// to the rules that lets a harness reach the binary fails here even while
// no package does it yet.
func TestRules(t *testing.T) {
	for _, c := range []struct {
		pkg, dep string
		ok       bool
	}{
		{"internal/jsonfast", "internal/test/fakeapi", false},
		{"internal/jsonfast", "internal/rawio", false},
		{"claude", "internal/test/clitest", false},
		{"acp", "internal/test/acptest", false},
		{"agent", "internal/test/faultcli", false},
		{"agent/internal/toolview", "internal/test/fakeapi", false},
		{"cmd/claude-agent-acp", "internal/test/faultcli", false},
		{"cmd/claude-agent-acp", "internal/tools/dist", false},
		{"agent", "internal/tools/bench", false},
		{"internal/test/clitest", "internal/tools/dist", false},
		{"acp", "claude", false},
		{"claude", "acp", false},
		{"acp", "acp/acpv2", false},
		{"agent/internal/toolview", "agent", false},
		{"internal/test/agenttest", "cmd/claude-agent-acp", false},
		{"acp", "internal/jsonfast", true},
		{"claude", "internal/rawio", true},
		{"acp/acpv2", "acp", true},
		{"agent", "agent/internal/toolview", true},
		{"internal/test/agenttest", "agent", true},
		{"internal/tools/bench", "internal/test/fakeapi", true},
	} {
		if ok, why := allowed(c.pkg, c.dep); ok != c.ok {
			t.Errorf("allowed(%s, %s) = %v (%s), want %v", c.pkg, c.dep, ok, why, c.ok)
		}
	}
}

// TestBinaryLinksNoHarness lists what each release platform's build of the
// binary links, as `go list -deps ./cmd/claude-agent-acp` does, and fails
// on any harness, tool or generator: nothing made for tests may ship.
func TestBinaryLinksNoHarness(t *testing.T) {
	for _, p := range []string{"linux/amd64", "darwin/arm64", "windows/amd64"} {
		goos, goarch, _ := strings.Cut(p, "/")
		var ours []string
		for _, d := range list(t, []string{"GOOS=" + goos, "GOARCH=" + goarch, "CGO_ENABLED=0"}, "-deps", module+"/cmd/claude-agent-acp") {
			r, ok := rel(d)
			if !ok {
				continue
			}
			ours = append(ours, r)
			if !layerOf(r).shipped() {
				t.Errorf("%s: the binary links %s", p, r)
			}
		}
		t.Logf("%s: the binary links %s", p, strings.Join(ours, ", "))
	}
}
