package archtest

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The rules docs/design.md states for package agent and its feature
// packages, checked (the import flow itself is TestImportsFlowOneWay's):
//
//   - agent is the server: the connection, the method tables, the session
//     actor, the turn queue, lifecycle and hibernation. Each concern it
//     serves has one home in a feature package under agent/ (translate,
//     failure, config, goal, v2conv, internal/...), which never imports
//     package agent, so a feature can neither settle a turn nor reach the
//     connection.
//   - v1 is untouched by v2: only the server (agent) and the v2 conversion
//     (agent/v2conv) know ACP v2.
//   - translation settles no turn and talks to no CLI: agent/translate
//     uses what the CLI printed (claude's types) and nothing that runs or
//     drives a CLI.

const agentModule = "github.com/claude-agent-acp/claude-agent-acp"

// agentPackages lists the packages under agent/ (module-relative) with
// their imports of this module, tests excluded.
func agentPackages(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}:{{join .Imports " "}}`, "./agent/...")
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	g := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, deps, _ := strings.Cut(line, ":")
		pkg = strings.TrimPrefix(pkg, agentModule+"/")
		g[pkg] = nil
		for _, d := range strings.Fields(deps) {
			if r, ok := strings.CutPrefix(d, agentModule+"/"); ok {
				g[pkg] = append(g[pkg], r)
			}
		}
	}
	return g
}

func TestAgentFeaturePackages(t *testing.T) {
	design, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	for pkg, deps := range agentPackages(t) {
		for _, d := range deps {
			switch {
			case pkg != "agent" && d == "agent":
				t.Errorf("%s imports agent: a feature package never imports the server", pkg)
			case d == "acp/acpv2" && pkg != "agent" && pkg != "agent/v2conv":
				t.Errorf("%s imports acp/acpv2: v1 is untouched by v2 (only agent and agent/v2conv know v2)", pkg)
			}
		}
		// The map names every package of the agent.
		if pkg != "agent" && !strings.Contains(string(design), "`"+pkg+"`") && !strings.HasPrefix(pkg, "agent/internal/") {
			t.Errorf("docs/design.md does not name %s (its map lists the agent's packages)", pkg)
		}
	}
}

// TestTranslationTalksToNoCLI: nothing in agent/translate refers to a
// running CLI (claude.Process, its calls) or to a function of package
// claude; it may use the CLI's data types and their methods.
func TestTranslationTalksToNoCLI(t *testing.T) {
	used := claudeUses(t, "agent/translate")
	if len(used) == 0 {
		t.Fatal("agent/translate uses nothing of claude: the check checks nothing")
	}
	for name, kind := range used {
		switch {
		case name == "Process" || name == "Call" || strings.HasPrefix(name, "Process.") || strings.HasPrefix(name, "Call."):
			t.Errorf("agent/translate uses claude.%s: translation talks to no CLI", name)
		case kind == "func":
			t.Errorf("agent/translate calls claude.%s: translation uses the CLI's frames, not the driver", name)
		}
	}
}

// claudeUses type-checks the package at rel and returns the objects of
// package claude it refers to: "Name" → "type", "func", "const", "var", and
// methods and fields as "Type.Name" → "method" or "field".
func claudeUses(t *testing.T, rel string) map[string]string {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	golist := func(args ...string) []byte {
		cmd := exec.Command("go", append([]string{"list"}, args...)...)
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list %v: %v", args, err)
		}
		return out
	}
	exports := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(golist("-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}", "./"+rel))), "\n") {
		if p, e, ok := strings.Cut(line, "\t"); ok && e != "" {
			exports[p] = e
		}
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range strings.Fields(string(golist("-f", "{{join .GoFiles \" \"}}", "./"+rel))) {
		f, err := parser.ParseFile(fset, filepath.Join(root, rel, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) { return os.Open(exports[path]) })
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	if _, err := (&types.Config{Importer: imp}).Check(rel, fset, files, info); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, obj := range info.Uses {
		if obj.Pkg() == nil || obj.Pkg().Path() != agentModule+"/claude" {
			continue
		}
		switch o := obj.(type) {
		case *types.TypeName:
			out[o.Name()] = "type"
		case *types.Const:
			out[o.Name()] = "const"
		case *types.Var:
			if o.IsField() {
				out["field."+o.Name()] = "field"
			} else {
				out[o.Name()] = "var"
			}
		case *types.Func:
			if recv := o.Type().(*types.Signature).Recv(); recv != nil {
				out[typeName(recv.Type())+"."+o.Name()] = "method"
			} else {
				out[o.Name()] = "func"
			}
		}
	}
	return out
}

func typeName(t types.Type) string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := t.(*types.Named); ok {
		return n.Obj().Name()
	}
	return t.String()
}
