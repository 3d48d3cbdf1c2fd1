// Package archtest checks the shape of the house: which package may
// import which. Data flows one way: cmd → agent → (acp, claude), with the
// agent's own packages below it, and nothing points back up.
package archtest

import (
	"os/exec"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/claude-agent-acp/claude-agent-acp"

// imports maps each package of the module (without the module prefix) to
// the packages of the module it imports, tests excluded.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}:{{join .Imports " "}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	g := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, deps, _ := strings.Cut(line, ":")
		pkg = strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
		g[pkg] = nil
		for _, d := range strings.Fields(deps) {
			if rest, ok := strings.CutPrefix(d, module+"/"); ok {
				g[pkg] = append(g[pkg], rest)
			}
		}
	}
	return g
}

// allowed says whether pkg may import dep.
func allowed(pkg, dep string) bool {
	under := func(p, root string) bool { return p == root || strings.HasPrefix(p, root+"/") }
	switch {
	case under(dep, "cmd"):
		return false // nothing imports a command
	case dep == "internal/jsonfast", dep == "internal/rawio", dep == "internal/batchsched":
		return true // leaves (they import nothing of ours) under every layer
	case under(pkg, "acp"):
		return under(dep, "acp") && !(pkg == "acp" && dep != "acp") // acp knows nothing else; acp/acpv2 builds on acp
	case under(pkg, "claude"):
		return under(dep, "claude") // the CLI driver knows nothing of ACP
	case under(pkg, "agent/internal"):
		return !under(dep, "agent") || under(dep, "agent/internal") && dep != pkg
	case under(pkg, "agent") && pkg != "agent":
		return dep != "agent" && dep != pkg // feature packages never import the server (agent_test.go)
	case pkg == "agent":
		return under(dep, "acp") || under(dep, "claude") || under(dep, "agent")
	case under(pkg, "cmd"):
		return dep == "agent" || under(dep, "claude") || under(dep, "acp")
	case under(pkg, "internal"):
		return true // harnesses drive everything
	}
	return false
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
		for _, d := range g[p] {
			if !allowed(p, d) {
				t.Errorf("%s imports %s: against the flow cmd → agent → (acp, claude)", p, d)
			}
		}
		if !strings.HasPrefix(p, "internal") {
			t.Logf("%s → %s", p, strings.Join(g[p], ", "))
		}
	}
}
