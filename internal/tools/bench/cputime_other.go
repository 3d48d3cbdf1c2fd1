//go:build !linux

package bench

import (
	"io"
	"os"
	"time"
)

// ownThreadCPU is wall time where the thread's CPU clock is not read: the
// harness measures on Linux only.
func ownThreadCPU() time.Duration { return time.Duration(time.Now().UnixNano()) }

// blockingPipe is os.Pipe where the harness does not measure.
func blockingPipe() (r io.ReadCloser, w *os.File, err error) { return os.Pipe() }
