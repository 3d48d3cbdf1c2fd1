//go:build !linux

package agent

// freeSpace is not measured here: a full disk is not reported.
func freeSpace(string) (uint64, bool) { return 0, false }
