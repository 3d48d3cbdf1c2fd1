package main

import (
	"fmt"
	"regexp"
	"runtime"
	"sort"
	"strings"
)

// A goroutine is one block of a goroutine dump.
type goroutine struct {
	state  string  // "chan receive, 12 minutes"
	frames []frame // innermost first
}

type frame struct {
	fn, file string // "pkg.(*T).m(...)", "/src/x/y.go:123"
}

var header = regexp.MustCompile(`^goroutine \d+ \[(.*)\]:$`)

// parseDump splits a goroutine dump into goroutines.
func parseDump(lines []string) []goroutine {
	var gs []goroutine
	var cur *goroutine
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if m := header.FindStringSubmatch(l); m != nil {
			gs = append(gs, goroutine{state: m[1]})
			cur = &gs[len(gs)-1]
			continue
		}
		if cur == nil || l == "" {
			if l == "" {
				cur = nil
			}
			continue
		}
		if strings.HasPrefix(l, "\t") || strings.HasPrefix(l, "created by ") {
			continue // a file line without its function, or the creator
		}
		var file string
		if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "\t") {
			file = strings.TrimSpace(lines[i+1])
			if j := strings.LastIndex(file, " +0x"); j > 0 {
				file = file[:j]
			}
			i++
		}
		cur.frames = append(cur.frames, frame{fn: l, file: file})
	}
	return gs
}

// runningTests reads the "running tests:" list of the panic message.
func runningTests(lines []string) []string {
	var out []string
	in := false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case t == "running tests:":
			in = true
		case in && t == "":
			return out
		case in:
			out = append(out, t)
		}
	}
	return out
}

// ours reports whether a frame's file is this module's code: not the
// standard library, not a dependency in the module cache.
func ours(file string) bool {
	if file == "" {
		return false
	}
	goroot := runtime.GOROOT()
	return !(goroot != "" && strings.HasPrefix(file, goroot)) && !strings.Contains(file, "/pkg/mod/") &&
		!strings.HasPrefix(file, "runtime/") && !strings.HasPrefix(file, "testing/") && !strings.HasSuffix(strings.Split(file, ":")[0], "_testmain.go")
}

// testOf returns the test function a goroutine runs (the frame just
// inside testing.tRunner), or "".
func testOf(g goroutine) string {
	for i, f := range g.frames {
		if strings.HasPrefix(f.fn, "testing.tRunner(") && i > 0 {
			name := g.frames[i-1].fn
			if j := strings.LastIndex(name, "("); j > 0 {
				name = name[:j]
			}
			if j := strings.LastIndex(name, "/"); j >= 0 {
				name = name[j+1:]
			}
			if strings.HasPrefix(name, "testing.") {
				return "" // the test runner itself
			}
			_, name, _ = strings.Cut(name, ".") // the package name
			return name
		}
	}
	return ""
}

// waitsAt is the innermost frame of this module's code in the goroutine.
func waitsAt(g goroutine) (frame, bool) {
	for _, f := range g.frames {
		if ours(f.file) {
			return f, true
		}
	}
	return frame{}, false
}

func shortFn(fn string) string {
	if j := strings.LastIndex(fn, "("); j > 0 {
		fn = fn[:j]
	}
	if j := strings.LastIndex(fn, "/"); j >= 0 {
		fn = fn[j+1:]
	}
	return fn
}

// summarize is what replaces the dump.
func summarize(pkg string, dump []string, path, load string) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	first := dump[0]
	p("")
	p("=== TIMEOUT in %s: %s.", pkg, strings.TrimPrefix(first, "panic: "))
	if load != "" {
		p("Load average at the timeout: %s, on %d CPUs. Well above the CPU count, tests are slow for want of a CPU; a test that hangs waits at any load.", load, runtime.NumCPU())
	}
	if tests := runningTests(dump); len(tests) > 0 {
		p("Tests still running (time since each started):")
		for _, t := range tests {
			p("    %s", t)
		}
	}
	gs := parseDump(dump)
	type wait struct{ test, at, fn, state string }
	var waits []wait
	others := map[string]int{} // other goroutines by where they wait
	for _, g := range gs {
		f, ok := waitsAt(g)
		if !ok {
			continue
		}
		if t := testOf(g); t != "" {
			waits = append(waits, wait{t, f.file, shortFn(f.fn), g.state})
		} else {
			state, _, _ := strings.Cut(g.state, ",")
			others[f.file+" in "+shortFn(f.fn)+" ["+state+"]"]++
		}
	}
	sort.Slice(waits, func(i, j int) bool { return waits[i].test < waits[j].test })
	if len(waits) > 0 {
		p("Where each test goroutine is blocked (innermost line of this module's code):")
		for _, w := range waits {
			p("    %s: %s in %s [%s]", w.test, w.at, w.fn, w.state)
		}
	}
	if len(others) > 0 {
		p("Other goroutines in this module's code, by where they are blocked:")
		where := make([]string, 0, len(others))
		for w := range others {
			where = append(where, w)
		}
		sort.Slice(where, func(i, j int) bool {
			if others[where[i]] != others[where[j]] {
				return others[where[i]] > others[where[j]]
			}
			return where[i] < where[j]
		})
		for i, w := range where {
			if i == 8 {
				p("    … and %d more places (see the dump)", len(where)-i)
				break
			}
			p("    %d× %s", others[w], w)
		}
	}
	p("A test that waits for something that never comes runs into this timeout: give the wait its own deadline and fail it with what was expected.")
	p("Full goroutine dump (%d lines): %s", len(dump), path)
	return b.String()
}
