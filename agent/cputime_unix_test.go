//go:build unix

package agent

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system) the test process used so
// far, every thread and the garbage collector included.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
