//go:build !unix

package agent

import "time"

// processCPU is not measured here.
func processCPU() time.Duration { return 0 }
