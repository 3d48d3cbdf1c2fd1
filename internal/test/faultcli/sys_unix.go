//go:build unix

package faultcli

import "syscall"

// processExists reports whether pid exists (a zombie counts).
func processExists(pid int) bool { return syscall.Kill(pid, 0) == nil }

// killPID sends SIGKILL to pid.
func killPID(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }
