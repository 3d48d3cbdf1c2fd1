package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMemoryReturnedAfterHugePrompt: after a 60 MiB prompt has been
// answered, the agent gives the memory back to the operating system
// within 10 s (resident set under 64 MiB), rather than holding hundreds of
// MiB until the Go runtime's periodic GC and scavenger get to it minutes
// later. A functional bound, not a benchmark: the idle agent needs ~10 MiB.
func TestMemoryReturnedAfterHugePrompt(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/<pid>/status")
	}
	p := startAgent(t)
	p.initialize()
	sid := p.newSession(1)
	const big = 60 << 20
	p.write(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"` + sid +
		`","prompt":[{"type":"text","text":"size ` + strings.Repeat("a", big) + `"}]}}` + "\n")
	m := p.response(2)
	if m.Error != nil || !strings.Contains(string(m.Result), "end_turn") {
		t.Fatalf("60 MiB prompt: %.300s", m.raw)
	}
	p.notes = nil // they hold a copy of the answer, in this process
	pid := p.cmd.Process.Pid
	peak := vmKiB(t, pid, "VmHWM")
	start := time.Now()
	var rss int
	for {
		rss = vmKiB(t, pid, "VmRSS")
		if rss < 64<<10 {
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatalf("resident set still %d MiB 10 s after the 60 MiB prompt (peak %d MiB)", rss>>10, peak>>10)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("peak %d MiB; %d MiB %v after the answer", peak>>10, rss>>10, time.Since(start).Round(10*time.Millisecond))
	if got := p.prompt(3, sid, "small again"); got != "end_turn" {
		t.Fatalf("after the huge prompt: %s", got)
	}
}

// vmKiB reads one of the Vm* lines of /proc/<pid>/status, in KiB.
func vmKiB(t *testing.T, pid int, field string) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatalf("%s: %q", field, line)
			}
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}
