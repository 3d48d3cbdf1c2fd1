//go:build unix

package agent

import "syscall"

// writable reports why dir cannot be written (EROFS, EACCES), or nil.
func writable(dir string) error { return syscall.Access(dir, 2 /* W_OK */) }
