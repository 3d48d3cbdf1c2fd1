package bench

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of the CPU times in /proc/<pid>/stat. It
// is 100 on every Linux configuration Go supports.
const clockTicks = 100

// procStat is what /proc/<pid>/stat and /proc/<pid>/status tell about one
// process at one moment.
type procStat struct {
	pid, ppid int
	// started is the start time in clock ticks after boot: with pid, it
	// names the process even after the pid could have been reused.
	started int64
	// cpu is user+system time of the process (all its threads, living or
	// not); childCPU that of its children it has waited for.
	cpu, childCPU time.Duration
	rss, hwm      int64 // bytes: VmRSS now, VmHWM the peak so far
	// minflt counts the minor page faults of the process: memory it
	// touched for the first time (or again after giving it back).
	minflt int64
	// syscr and syscw count the read and write system calls of the
	// process (/proc/<pid>/io; zero where it cannot be read): what relaying
	// costs in wake-ups, next to its CPU time.
	syscr, syscw int64
}

// readStat reads one process. The comm field may hold spaces and
// parentheses, so the fields are counted from the last ')'.
func readStat(pid int) (procStat, error) {
	st := procStat{pid: pid}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return st, err
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return st, errors.New("bench: malformed /proc stat")
	}
	f := strings.Fields(string(data[i+1:]))
	// f[0] is field 3 (state); ppid is field 4, utime..cstime fields 14–17.
	if len(f) < 15 {
		return st, errors.New("bench: short /proc stat")
	}
	st.ppid, _ = strconv.Atoi(f[1])
	st.minflt, _ = strconv.ParseInt(f[7], 10, 64) // field 10
	if len(f) > 19 {
		st.started, _ = strconv.ParseInt(f[19], 10, 64) // field 22
	}
	ticks := func(s string) time.Duration {
		n, _ := strconv.ParseInt(s, 10, 64)
		return time.Duration(n) * time.Second / clockTicks
	}
	st.cpu = ticks(f[11]) + ticks(f[12])
	st.childCPU = ticks(f[13]) + ticks(f[14])
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return st, err
	}
	st.rss = statusKB(status, "VmRSS:")
	st.hwm = statusKB(status, "VmHWM:")
	if io, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid)); err == nil {
		st.syscr, st.syscw = ioCount(io, "syscr:"), ioCount(io, "syscw:")
	}
	return st, nil
}

// statusKB returns a "Key:   123 kB" line of /proc/<pid>/status in bytes.
func statusKB(status []byte, key string) int64 { return procField(status, key) * 1024 }

// ioCount returns a "key: 123" line of /proc/<pid>/io.
func ioCount(io []byte, key string) int64 { return procField(io, key) }

// procField returns the number that follows key on its line of a /proc
// file, 0 if there is none.
func procField(data []byte, key string) int64 {
	i := bytes.Index(data, []byte(key))
	if i < 0 {
		return 0
	}
	line := data[i+len(key):]
	if j := bytes.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	f := strings.Fields(string(line))
	if len(f) == 0 {
		return 0
	}
	n, _ := strconv.ParseInt(f[0], 10, 64)
	return n
}

// treeUsage is a snapshot of a process and all its descendants.
type treeUsage struct {
	self procStat
	// procs counts the processes of the tree, the root included.
	procs int
	// rss and hwm add up VmRSS and VmHWM over the tree; the sum of the
	// peaks bounds the tree's simultaneous peak from above.
	rss, hwm int64
	// cpu is the CPU time of the whole tree: every process's own time plus
	// what its waited-for children used.
	cpu time.Duration
	// selfNS is the root's CPU time from its threads' schedstat, in
	// nanoseconds where self.cpu counts 10 ms ticks (its living threads
	// only; see cpuBetween).
	selfNS time.Duration
	// selfRuns counts how often the root's threads were put on a CPU
	// (schedstat's timeslices): its wake-ups, and its returns after being
	// preempted.
	selfRuns int64
	// selfPreempted counts the root's threads' involuntary context
	// switches (schedTotal.involuntary).
	selfPreempted int64
}

// snapshotTree measures root and its descendants.
func snapshotTree(root int) (treeUsage, error) {
	self, err := readStat(root)
	if err != nil {
		return treeUsage{}, err
	}
	u := treeUsage{self: self, procs: 1, rss: self.rss, hwm: self.hwm, cpu: self.cpu + self.childCPU}
	for _, st := range descendants(root) {
		u.procs++
		u.rss += st.rss
		u.hwm += st.hwm
		u.cpu += st.cpu + st.childCPU
	}
	return u, nil
}

// cpuBetween is the root's CPU time from before to after: from its
// threads' schedstat, exact where /proc's ticks count 10 ms at a time
// (a turn of 0.1 s of CPU is about ten ticks, so ±10% from the ticks
// alone), unless a thread ended meanwhile and took its time with it (the
// ticks then say more than sampling can explain), and from the ticks then.
func cpuBetween(before, after treeUsage) time.Duration {
	ticks := after.self.cpu - before.self.cpu
	ns := after.selfNS - before.selfNS
	if before.selfNS == 0 || ns < 0 || ticks-ns > 2*time.Second/clockTicks {
		return ticks
	}
	return ns
}

// usageOf is snapshotTree with the root's schedstat time (selfNS), for
// the snapshots a measurement compares; settle's polls, every 50 ms, need
// only the tree's ticks and skip reading every thread's schedstat.
func usageOf(root int) (treeUsage, error) {
	u, err := snapshotTree(root)
	if err == nil {
		st := schedTotals(root)
		u.selfNS, u.selfRuns, u.selfPreempted = st.cpu, st.runs, st.involuntary
	}
	return u, err
}

// descendants returns the living descendants of root, found by their
// parent links in /proc.
func descendants(root int) []procStat {
	children := map[int][]procStat{}
	entries, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, e := range entries {
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(e)))
		if err != nil || pid == root {
			continue
		}
		st, err := readStat(pid)
		if err != nil {
			continue // gone meanwhile
		}
		children[st.ppid] = append(children[st.ppid], st)
	}
	var out []procStat
	queue := children[root]
	for len(queue) > 0 {
		st := queue[0]
		queue = append(queue[1:], children[st.pid]...)
		out = append(out, st)
	}
	return out
}

// killLeftovers kills the processes of procs that still run, checking
// their start time so a reused pid is never hit.
func killLeftovers(procs []procStat) {
	for _, p := range procs {
		if st, err := readStat(p.pid); err == nil && st.started == p.started {
			killPID(p.pid)
		}
	}
}

// settle waits until root's process tree has used no CPU for a while (the
// CLI finishes its post-turn work: transcript writes, background
// requests), so that the next measurement does not pay for the previous
// one. It gives up after max.
func settle(root int, max time.Duration) {
	const poll, quietPolls = 50 * time.Millisecond, 4
	last, quiet := time.Duration(-1), 0
	for deadline := time.Now().Add(max); time.Now().Before(deadline) && quiet < quietPolls; {
		u, err := snapshotTree(root)
		if err != nil {
			return
		}
		if u.cpu == last {
			quiet++
		} else {
			last, quiet = u.cpu, 0
		}
		time.Sleep(poll)
	}
}

// schedNS is the CPU time of the living threads of a process, in
// nanoseconds (/proc/<pid>/task/*/schedstat), finer than /proc's ticks,
// and the time they were runnable but waited for a CPU.
func schedNS(pid int) (cpu, waited time.Duration) {
	st := schedTotals(pid)
	return st.cpu, st.waited
}

// A schedTotal adds up the schedstat of a process's living threads.
type schedTotal struct {
	cpu, waited time.Duration
	// runs counts how often the threads were put on a CPU (timeslices).
	runs int64
	// involuntary counts the threads' involuntary context switches
	// (/proc/<pid>/task/*/status): preempted by another task, where a
	// voluntary switch is a sleep (waiting for input, say).
	involuntary int64
}

// schedTotals reads the schedstat of each living thread of pid once.
func schedTotals(pid int) schedTotal {
	var st schedTotal
	dirs, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, d := range dirs {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, d.Name()))
		if err != nil {
			continue
		}
		f := strings.Fields(string(data))
		field := func(i int) int64 {
			if i >= len(f) {
				return 0
			}
			n, _ := strconv.ParseInt(f[i], 10, 64)
			return n
		}
		st.cpu += time.Duration(field(0))
		st.waited += time.Duration(field(1))
		st.runs += field(2)
		if status, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/status", pid, d.Name())); err == nil {
			st.involuntary += procField(status, "nonvoluntary_ctxt_switches:")
		}
	}
	return st
}
