//go:build windows

package claude

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// newSession does nothing on Windows: a child cannot leave the CLI's job
// (it does not allow breakaway), so the "escaped" scenario stays inside.
func newSession(cmd *exec.Cmd) {}

// tempDir is t.TempDir without its cleanup, which fails under Wine 8 (Go's
// RemoveAll uses a file disposition class Wine does not implement); files
// are removed one by one instead.
func tempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "claude-win-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeTree(dir) })
	return dir
}

func removeTree(path string) {
	entries, _ := os.ReadDir(path)
	for _, e := range entries {
		removeTree(filepath.Join(path, e.Name()))
	}
	_ = os.Remove(path)
}
