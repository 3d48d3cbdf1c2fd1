//go:build unix

package main

import (
	"os"
	"syscall"
)

// execCLI replaces this process with exe and args; it returns only on
// failure.
func execCLI(exe string, args []string) (int, error) {
	return 1, syscall.Exec(exe, append([]string{exe}, args...), os.Environ())
}
