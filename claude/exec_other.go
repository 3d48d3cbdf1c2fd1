//go:build !windows

package claude

import "os"

// isExecutable reports whether the regular file p, with info st, may be run:
// on Unix, whether any execute bit is set.
func isExecutable(p string, st os.FileInfo) bool { return st.Mode().Perm()&0o111 != 0 }
