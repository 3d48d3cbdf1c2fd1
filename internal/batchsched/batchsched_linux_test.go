package batchsched

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// policy is the scheduling policy of thread tid of process pid (field 41
// of its stat).
func policy(t *testing.T, pid, tid int) int {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/stat", pid, tid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	n, _ := strconv.Atoi(f[38])
	return n
}

// Enable makes every thread of the process batch; a child started through
// Start has the default policy, and one started without it would have
// inherited batch.
func TestEnableAndStart(t *testing.T) {
	if !Enable() {
		t.Skip("sched_setattr refused here")
	}
	pid := os.Getpid()
	for _, tid := range threads() {
		if p := policy(t, pid, tid); p != 3 {
			t.Errorf("thread %d: policy %d after Enable, want 3 (batch)", tid, p)
		}
	}
	for _, reset := range []bool{true, false} {
		cmd := exec.Command("sleep", "5")
		start := cmd.Start
		if reset {
			start = func() error { return Start(cmd.Start) }
		}
		if err := start(); err != nil {
			t.Fatal(err)
		}
		got := policy(t, cmd.Process.Pid, cmd.Process.Pid)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if want := map[bool]int{true: 0, false: 3}[reset]; got != want {
			t.Errorf("child started with Start=%v: policy %d, want %d", reset, got, want)
		}
	}
	for _, tid := range threads() { // Start put its thread back
		if p := policy(t, pid, tid); p != 3 {
			t.Errorf("thread %d: policy %d after Start, want 3 (batch)", tid, p)
		}
	}
}
