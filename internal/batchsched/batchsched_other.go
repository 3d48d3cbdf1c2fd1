//go:build !linux

package batchsched

// Enable does nothing here: batch scheduling is Linux's.
func Enable() bool { return false }

// Start runs start.
func Start(start func() error) error { return start() }
