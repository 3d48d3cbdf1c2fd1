package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/faultcli"
)

// schedPolicies gives the scheduling policy of each thread of pid (field
// 41 of its stat: 0 normal, 3 batch).
func schedPolicies(t *testing.T, pid int) map[int]int {
	t.Helper()
	out := map[int]int{}
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, e.Name()))
		if err != nil {
			continue // the thread ended
		}
		f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
		policy, _ := strconv.Atoi(f[38]) // field 41; f[0] is field 3
		tid, _ := strconv.Atoi(e.Name())
		out[tid] = policy
	}
	return out
}

const schedNormal, schedBatch = 0, 3

// The agent runs as a batch task (internal/batchsched): every one of its
// threads, those the runtime started after the switch included; the CLI
// it starts, through its reaper, keeps the default policy, as it would
// have without the agent. CLAUDE_AGENT_ACP_SCHED=normal leaves the agent
// on the default policy too.
func TestTheAgentIsABatchTaskAndTheCLIIsNot(t *testing.T) {
	t.Parallel()
	// Where sched_setattr is refused (a seccomp filter) the agent keeps
	// the default policy, and there is nothing to check.
	tid := unix.Gettid()
	if err := unix.SchedSetAttr(tid, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_NORMAL}, 0); err != nil {
		t.Skipf("sched_setattr refused here: %v", err)
	}
	for _, tc := range []struct {
		env   []string
		agent int
	}{
		{nil, schedBatch},
		{[]string{"CLAUDE_AGENT_ACP_SCHED=normal"}, schedNormal},
	} {
		t.Run(fmt.Sprint(tc.env), func(t *testing.T) {
			p := startAgent(t, tc.env...)
			p.initialize()
			sid := p.newSession(1)
			if got := p.prompt(2, sid, "hello"); got != "end_turn" {
				t.Fatalf("stop reason %q", got)
			}
			for tid, policy := range schedPolicies(t, p.cmd.Process.Pid) {
				if policy != tc.agent {
					t.Errorf("agent thread %d: policy %d, want %d", tid, policy, tc.agent)
				}
			}
			pids := faultcli.PIDs(p.dir)
			if len(pids) == 0 {
				t.Fatal("no CLI started")
			}
			for _, pid := range pids {
				reaper := ppid(t, pid)
				for who, pid := range map[string]int{"CLI": pid, "reaper": reaper} {
					for tid, policy := range schedPolicies(t, pid) {
						if policy != schedNormal {
							t.Errorf("%s thread %d: policy %d, want the default (0)", who, tid, policy)
						}
					}
				}
			}
			p.in.Close()
			p.waitExit(10e9)
		})
	}
}

// ppid is the parent of pid.
func ppid(t *testing.T, pid int) int {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	n, _ := strconv.Atoi(f[1])
	return n
}
