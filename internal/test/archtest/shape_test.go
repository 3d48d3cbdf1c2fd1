package archtest

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestAgentShape measures how package agent reads, and logs it (run with -v):
// its files and lines, the types with the most methods, and the arrows
// between its files. A file points to another when it uses a name the other
// declares (a package-level name, a method or a field), the way one package
// points to another it imports. Inside a package nothing stops those arrows
// from running both ways; a back-arrow is one that must be cut for the
// files to line up in one direction, as packages must (a greedy minimum
// feedback arc set, Eades–Lin–Smyth: an upper bound, deterministic). Issue
// 36 counted them before and after the split into feature packages.
//
//	go test ./internal/test/archtest -run AgentShape -v
//	ARCHTEST_SHAPE=agent/translate go test ./internal/test/archtest -run AgentShape -v
func TestAgentShape(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks package agent")
	}
	rel := "agent"
	if p := os.Getenv("ARCHTEST_SHAPE"); p != "" {
		rel = p
	}
	s, err := measure(rel)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d files, %d lines (tests: %d files, %d lines)", rel, s.files, s.lines, s.testFiles, s.testLines)
	for i, m := range s.methods {
		if i == 5 {
			break
		}
		t.Logf("methods: %-20s %d", m.name, m.n)
	}
	t.Logf("arrows between files: %d, back-arrows: %d, files in cycles: %d", s.arrows, len(s.back), s.cyclic)
	for _, b := range s.back {
		t.Logf("back-arrow: %s", b)
	}
}

type shape struct {
	files, lines, testFiles, testLines int
	methods                            []typeMethods
	arrows, cyclic                     int
	back                               []string // "from.go → to.go (name)"
}

type typeMethods struct {
	name string
	n    int
}

// measure type-checks the non-test files of the package at rel (relative to
// the module root) and measures them.
func measure(rel string) (*shape, error) {
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(root, rel)
	golist := func(args ...string) ([]byte, error) {
		cmd := exec.Command("go", append([]string{"list"}, args...)...)
		cmd.Dir = root
		return cmd.Output()
	}
	out, err := golist("-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}", "./"+rel)
	if err != nil {
		return nil, fmt.Errorf("go list -export: %v", err)
	}
	exports := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if p, e, ok := strings.Cut(line, "\t"); ok && e != "" {
			exports[p] = e
		}
	}
	names, err := golist("-f", "{{join .GoFiles \"\\n\"}}\n--\n{{join .TestGoFiles \"\\n\"}}\n{{join .XTestGoFiles \"\\n\"}}", "./"+rel)
	if err != nil {
		return nil, fmt.Errorf("go list: %v", err)
	}
	src, tests, _ := strings.Cut(string(names), "\n--\n")
	s := &shape{}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range strings.Fields(src) {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
		s.files++
		s.lines += fset.File(f.Pos()).LineCount()
	}
	for _, name := range strings.Fields(tests) {
		n, err := countLines(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		s.testFiles++
		s.testLines += n
	}
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		e, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(e)
	})
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	pkg, err := (&types.Config{Importer: imp}).Check(rel, fset, files, info)
	if err != nil {
		return nil, err
	}

	// Methods per named type, counted where they are declared.
	count := map[string]int{}
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil {
				count[recvName(fd.Recv.List[0].Type)]++
			}
		}
	}
	for n, c := range count {
		s.methods = append(s.methods, typeMethods{n, c})
	}
	sort.Slice(s.methods, func(i, j int) bool {
		if s.methods[i].n != s.methods[j].n {
			return s.methods[i].n > s.methods[j].n
		}
		return s.methods[i].name < s.methods[j].name
	})

	// Arrows: file → file of every object of this package it uses.
	fileOf := func(p token.Pos) string { return filepath.Base(fset.Position(p).Filename) }
	edges := map[string]map[string]string{} // from → to → an example name
	add := func(from string, obj types.Object) {
		if obj == nil || obj.Pkg() != pkg || !obj.Pos().IsValid() {
			return
		}
		// Locals are not arrows: only package-level names, methods and fields.
		if v, ok := obj.(*types.Var); ok && !v.IsField() && obj.Parent() != pkg.Scope() {
			return
		}
		if obj.Parent() != nil && obj.Parent() != pkg.Scope() && obj.Parent() != types.Universe {
			if _, ok := obj.(*types.Var); !ok {
				return // a local type, constant or label
			}
		}
		to := fileOf(obj.Pos())
		if to == from {
			return
		}
		if edges[from] == nil {
			edges[from] = map[string]string{}
		}
		if _, ok := edges[from][to]; !ok {
			edges[from][to] = obj.Name()
		}
	}
	for id, obj := range info.Uses {
		add(fileOf(id.Pos()), obj)
	}
	for sel, x := range info.Selections {
		add(fileOf(sel.Sel.Pos()), x.Obj())
	}
	var nodes []string
	for _, f := range files {
		nodes = append(nodes, fileOf(f.Pos()))
	}
	sort.Strings(nodes)
	for _, m := range edges {
		s.arrows += len(m)
	}
	order := eadesOrder(nodes, edges)
	rank := map[string]int{}
	for i, n := range order {
		rank[n] = i
	}
	for from, m := range edges {
		for to, name := range m {
			if rank[to] < rank[from] { // order puts sources first: an arrow must point later
				s.back = append(s.back, fmt.Sprintf("%s → %s (%s)", from, to, name))
			}
		}
	}
	sort.Strings(s.back)
	for _, scc := range sccs(nodes, edges) {
		if len(scc) > 1 {
			s.cyclic += len(scc)
		}
	}
	return s, nil
}

func recvName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return recvName(x.X)
	case *ast.IndexExpr:
		return recvName(x.X)
	case *ast.IndexListExpr:
		return recvName(x.X)
	case *ast.Ident:
		return x.Name
	}
	return "?"
}

// eadesOrder orders nodes so that few arrows point backwards (Eades, Lin and
// Smyth 1993): sinks go to the end, sources to the front, and otherwise the
// node with the most arrows out over arrows in goes to the front. Ties are
// broken by name, so the count is reproducible.
func eadesOrder(nodes []string, edges map[string]map[string]string) []string {
	alive := map[string]bool{}
	for _, n := range nodes {
		alive[n] = true
	}
	deg := func(n string) (in, out int) {
		for to := range edges[n] {
			if alive[to] {
				out++
			}
		}
		for from, m := range edges {
			if _, ok := m[n]; ok && alive[from] {
				in++
			}
		}
		return
	}
	var front, back []string
	for len(alive) > 0 {
		progress := true
		for progress {
			progress = false
			for _, n := range nodes {
				if !alive[n] {
					continue
				}
				in, out := deg(n)
				if out == 0 {
					back = append(back, n)
					delete(alive, n)
					progress = true
				} else if in == 0 {
					front = append(front, n)
					delete(alive, n)
					progress = true
				}
			}
		}
		best, bestD := "", 0
		for _, n := range nodes {
			if !alive[n] {
				continue
			}
			in, out := deg(n)
			if d := out - in; best == "" || d > bestD {
				best, bestD = n, d
			}
		}
		if best != "" {
			front = append(front, best)
			delete(alive, best)
		}
	}
	for i, j := 0, len(back)-1; i < j; i, j = i+1, j-1 {
		back[i], back[j] = back[j], back[i]
	}
	return append(front, back...)
}

// sccs returns the strongly connected components (Tarjan).
func sccs(nodes []string, edges map[string]map[string]string) [][]string {
	index, low := map[string]int{}, map[string]int{}
	on := map[string]bool{}
	var stack []string
	var out [][]string
	next := 0
	var visit func(n string)
	visit = func(n string) {
		index[n], low[n] = next, next
		next++
		stack = append(stack, n)
		on[n] = true
		var tos []string
		for to := range edges[n] {
			tos = append(tos, to)
		}
		sort.Strings(tos)
		for _, to := range tos {
			if _, seen := index[to]; !seen {
				visit(to)
				low[n] = min(low[n], low[to])
			} else if on[to] {
				low[n] = min(low[n], index[to])
			}
		}
		if low[n] == index[n] {
			var c []string
			for {
				m := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[m] = false
				c = append(c, m)
				if m == n {
					break
				}
			}
			out = append(out, c)
		}
	}
	for _, n := range nodes {
		if _, seen := index[n]; !seen {
			visit(n)
		}
	}
	return out
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	return filepath.Dir(strings.TrimSpace(string(out))), nil
}

func countLines(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		n++
	}
	return n, sc.Err()
}
