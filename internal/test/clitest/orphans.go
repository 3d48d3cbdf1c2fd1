package clitest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// NoOrphans fails the test if a claude process started by it is still alive. It looks
// through /proc for processes running the CLI executable that either carry this test's
// marker in their environment (set by [Env]) or, lacking any marker, descend from the
// test process. Processes of other tests running in parallel carry other markers and are
// ignored. Exiting processes get a short grace period before they count.
//
// Register it first, with t.Cleanup(func() { clitest.NoOrphans(t) }), so that it runs
// after every other cleanup has stopped its processes. Without /proc it does nothing.
func NoOrphans(t testing.TB) {
	t.Helper()
	cli, err := findCLI()
	if err != nil {
		return // no CLI, so none can have been started
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		return
	}
	var left []proc
	deadline := time.Now().Add(5 * time.Second)
	for {
		left = orphans(cli, ownerMark(t), os.Getpid())
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, p := range left {
		t.Errorf("stray claude process %d (state %s): %s", p.pid, p.state, p.cmdline)
	}
}

// proc is what NoOrphans reports about a process.
type proc struct {
	pid     int
	ppid    int
	state   string
	cmdline string
}

// orphans lists live processes running cli that belong to the test marked mark, or that
// have no marker and descend from the process self. Zombies are dead and do not count.
func orphans(cli, mark string, self int) []proc {
	want := resolve(cli)
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err != nil || resolve(exe) != want {
			continue
		}
		p, ok := readStat(pid)
		if !ok || p.state == "Z" || p.state == "X" {
			continue
		}
		owner, marked := envValue(pid, ownerVar)
		switch {
		case marked && owner != mark:
			continue
		case !marked && !descendsFrom(pid, self):
			continue
		}
		p.cmdline = cmdline(pid)
		out = append(out, p)
	}
	return out
}

// resolve follows symlinks so that .bin/claude and the binary it points to compare equal.
func resolve(path string) string {
	path = strings.TrimSuffix(path, " (deleted)")
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	return path
}

// readStat parses the state and parent of pid from /proc/PID/stat.
func readStat(pid int) (proc, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return proc{}, false
	}
	// The command name is in parentheses and may contain spaces; fields follow the last ')'.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return proc{}, false
	}
	fields := strings.Fields(string(data[i+1:]))
	if len(fields) < 2 {
		return proc{}, false
	}
	ppid, _ := strconv.Atoi(fields[1])
	return proc{pid: pid, ppid: ppid, state: fields[0]}, true
}

// descendsFrom reports whether ancestor is on pid's parent chain.
func descendsFrom(pid, ancestor int) bool {
	for range 64 {
		p, ok := readStat(pid)
		if !ok || p.ppid <= 1 {
			return false
		}
		if p.ppid == ancestor {
			return true
		}
		pid = p.ppid
	}
	return false
}

// envValue reads one variable from /proc/PID/environ.
func envValue(pid int, key string) (string, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return "", false
	}
	prefix := []byte(key + "=")
	for _, kv := range bytes.Split(data, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, prefix); ok {
			return string(v), true
		}
	}
	return "", false
}

func cmdline(pid int) string {
	data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	s := strings.TrimSpace(string(bytes.ReplaceAll(data, []byte{0}, []byte{' '})))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// waitGone waits until pid has exited (gone or a zombie), or d passes.
func waitGone(pid int, d time.Duration) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		p, ok := readStat(pid)
		if !ok || p.state == "Z" || p.state == "X" {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// LivePIDs lists the claude processes this test has running, for tests
// that inject faults (kill one mid-turn). Without /proc it returns nil.
func LivePIDs(t testing.TB) []int {
	cli, err := findCLI()
	if err != nil {
		return nil
	}
	var pids []int
	for _, p := range orphans(cli, ownerMark(t), os.Getpid()) {
		pids = append(pids, p.pid)
	}
	return pids
}
