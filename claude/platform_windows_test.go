//go:build windows

package claude

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// wineFlake reports whether err is the transient failure Wine's
// CreateProcess now and then returns (ERROR_INTERNAL_ERROR, "Internal
// error": the new process died while Wine was setting it up). No process
// was started, so starting again is safe. CI saw it once; forty runs
// here, loaded or not, never did.
func wineFlake(err error) bool { return errors.Is(err, windows.ERROR_INTERNAL_ERROR) }

// startTestBinary starts the test binary itself playing scenario, with
// start (cmd.Start, or startProcess for one in its own job) and up to
// three tries where Wine's CreateProcess fails transiently.
func startTestBinary(scenario string, prepare func(*exec.Cmd), start func(*exec.Cmd) error) (*exec.Cmd, error) {
	var err error
	for try := 0; try < 3; try++ {
		if try > 0 {
			time.Sleep(50 * time.Millisecond)
		}
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "CLAUDE_FAKE_SCENARIO="+scenario)
		if prepare != nil {
			prepare(cmd)
		}
		if err = start(cmd); err == nil {
			return cmd, nil
		}
		if !wineFlake(err) {
			break
		}
	}
	return nil, fmt.Errorf("starting %s: %w", scenario, err)
}

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
