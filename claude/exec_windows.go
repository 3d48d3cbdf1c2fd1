//go:build windows

package claude

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// isExecutable reports whether the regular file p, with info st, may be run.
// Windows has no execute bit: a file runs when its extension is in PATHEXT
// (claude.exe, claude.cmd). A name without an extension counts when Windows
// would find an extension for it (npm's node_modules/.bin/claude has a
// claude.cmd beside it, and exec.Command picks that one).
func isExecutable(p string, st os.FileInfo) bool {
	ext := strings.ToLower(filepath.Ext(p))
	if ext == "" {
		_, err := exec.LookPath(p)
		return err == nil
	}
	for _, e := range pathExt() {
		if ext == e {
			return true
		}
	}
	return false
}

// pathExt lists the executable extensions, lower case, as exec.LookPath
// does.
func pathExt() []string {
	var exts []string
	for _, e := range strings.Split(strings.ToLower(os.Getenv("PATHEXT")), ";") {
		if e == "" {
			continue
		}
		if e[0] != '.' {
			e = "." + e
		}
		exts = append(exts, e)
	}
	if len(exts) == 0 {
		exts = []string{".com", ".exe", ".bat", ".cmd"}
	}
	return exts
}
