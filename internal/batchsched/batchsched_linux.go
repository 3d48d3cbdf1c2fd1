package batchsched

import (
	"errors"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// enabled is set once Enable has made the process's threads batch tasks.
var enabled atomic.Bool

// Enable makes every thread of the process a batch task. Threads the Go
// runtime starts later are created by these and inherit the policy. It
// reports whether the kernel took it for all of them (a seccomp filter
// may refuse sched_setattr; the threads then keep their policy).
func Enable() bool {
	ok, some := true, false
	// Twice: a thread the runtime started during the first pass, from a
	// thread not yet changed, is caught by the second.
	for range 2 {
		for _, tid := range threads() {
			switch err := setPolicy(tid, unix.SCHED_BATCH); {
			case err == nil:
				some = true
			case errors.Is(err, unix.ESRCH): // the thread ended meanwhile
			default:
				ok = false
			}
		}
	}
	if some {
		// Children must be started on the default policy as soon as
		// any thread may fork with the batch one.
		enabled.Store(true)
	}
	return ok && some
}

// Start runs start, which starts a child process, on a thread with the
// default policy, so that the child does not inherit the agent's: a child
// inherits the policy of the thread that forks it, and Go forks on the
// calling goroutine's thread.
func Start(start func() error) error {
	if !enabled.Load() {
		return start()
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := unix.Gettid()
	if setPolicy(tid, unix.SCHED_NORMAL) != nil {
		return start() // the child inherits batch; nothing better to do
	}
	defer setPolicy(tid, unix.SCHED_BATCH) //nolint:errcheck // it was batch a moment ago
	return start()
}

// setPolicy gives thread tid the policy (a normal one: nice and priority
// stay as they are).
func setPolicy(tid, policy int) error {
	return unix.SchedSetAttr(tid, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: uint32(policy)}, 0)
}

// threads lists the ids of the process's threads.
func threads() []int {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return []int{unix.Gettid()}
	}
	tids := make([]int, 0, len(ents))
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids
}
