//go:build unix

package claude

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"testing"
)

// TestSessionLock: a CLI started with LockSession holds its session: a
// second start of that session (a new id, a resume, a fork into it) fails
// with ErrSessionLocked before any CLI runs, while other sessions start;
// once the first CLI has exited the session starts again, and no lock
// file is left behind.
func TestSessionLock(t *testing.T) {
	t.Parallel()
	cfg := t.TempDir()
	env := []string{"CLAUDE_CONFIG_DIR=" + cfg}
	first := startFake(t, "echo", Options{Env: env, LockSession: true, SessionID: "s1"})
	base := fakeOptions("echo")
	for _, o := range []Options{{SessionID: "s1"}, {Resume: "s1"}, {Resume: "s0", ForkSession: true, SessionID: "s1"}} {
		o.Executable, o.Env, o.LockSession = base.Executable, append(base.Env, env...), true
		if p, err := Start(context.Background(), o); !errors.Is(err, ErrSessionLocked) {
			if p != nil {
				p.Close()
			}
			t.Errorf("%+v while s1 runs: err %v, want ErrSessionLocked", o, err)
		}
	}
	startFake(t, "echo", Options{Env: env, LockSession: true, Resume: "s2"}) // another session
	startFake(t, "echo", Options{Env: env, SessionID: "s1"})                 // no lock asked
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again := startFake(t, "echo", Options{Env: env, LockSession: true, Resume: "s1"})
	again.Close()
	if _, err := os.Stat(sessionLockPath(env, "s1")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("lock file left behind: %v", err)
	}
}

// TestSessionLockWithoutConfigDir: where no lock can be made (a read-only
// config directory), the CLI starts without one.
func TestSessionLockWithoutConfigDir(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root writes into read-only directories")
	}
	cfg := t.TempDir()
	if err := os.Chmod(cfg, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(cfg, 0o700) })
	startFake(t, "echo", Options{Env: []string{"CLAUDE_CONFIG_DIR=" + cfg}, LockSession: true, SessionID: "s1"})
}
