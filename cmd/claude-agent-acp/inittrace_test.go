package main

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Init budgets per package of this module (and main). The binary is exec'd
// once more per Claude session as that session's reaper (claude/reaper.go),
// and each exec runs every package's init before ReaperMain. Regexps,
// tables and the like are therefore built on first use (sync.OnceValue),
// not in package-level initialisers.
//
// After that, the largest package inits are agent's, 25 allocations (two
// per sync.OnceValue), and acp's 2.8 KB (its generated method table). A
// regexp compiled at init costs 25 to 900 allocations and 4 KB or more, and
// before the change agent made 1,230 allocations (113 KB) and scrub 531;
// the budgets leave about twice today's figures for new lazy values while
// failing on that kind of work.
const (
	initAllocBudget = 48
	initByteBudget  = 8 << 10
)

// inittraceLine is a line of GODEBUG=inittrace=1:
// "init <package> @<start> ms, <clock> ms clock, <bytes> bytes, <allocs> allocs".
var inittraceLine = regexp.MustCompile(`(?m)^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)

func TestInitIsCheap(t *testing.T) {
	t.Parallel()
	_, stderr, code := runOnce(t, append(os.Environ(), "GODEBUG=inittrace=1"), "--version")
	if code != 0 {
		t.Fatalf("--version: exit %d\n%s", code, stderr)
	}
	lines := inittraceLine.FindAllStringSubmatch(stderr, -1)
	if len(lines) == 0 {
		t.Fatalf("no inittrace lines in the binary's stderr:\n%s", stderr)
	}
	const module = "github.com/claude-agent-acp/claude-agent-acp"
	for _, m := range lines {
		pkg := m[1]
		if pkg != "main" && pkg != module && !strings.HasPrefix(pkg, module+"/") {
			continue
		}
		bytes, _ := strconv.Atoi(m[2])
		allocs, _ := strconv.Atoi(m[3])
		t.Logf("init %s: %d bytes, %d allocs", pkg, bytes, allocs)
		if allocs > initAllocBudget || bytes > initByteBudget {
			t.Errorf("init of %s: %d bytes in %d allocations, over the budget of %d bytes, %d allocations: "+
				"build it on first use (sync.OnceValue) instead of in a package-level initialiser",
				pkg, bytes, allocs, initByteBudget, initAllocBudget)
		}
	}
}
