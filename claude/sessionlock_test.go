//go:build unix

package claude

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"testing"
)

// TestSessionLock: a session whose lock another process holds (here the
// lock taken directly, as another agent's is) cannot start: a new id, a
// resume, a fork into it fail with ErrSessionLocked before any CLI runs,
// while other sessions start; once the other process lets go the session
// starts, and no lock file is left behind.
func TestSessionLock(t *testing.T) {
	t.Parallel()
	cfg := t.TempDir()
	env := []string{"CLAUDE_CONFIG_DIR=" + cfg}
	other, err := lockSession(sessionLockPath(env, "s1")) // not ours: another process's
	if err != nil || other == nil {
		t.Fatalf("lock: %v", err)
	}
	base := fakeOptions("echo")
	for _, o := range []Options{{SessionID: "s1"}, {Resume: "s1"}, {Resume: "s0", ForkSession: true, SessionID: "s1"}} {
		o.Executable, o.Env, o.LockSession = base.Executable, append(base.Env, env...), true
		if p, err := Start(context.Background(), o); !errors.Is(err, ErrSessionLocked) {
			if p != nil {
				p.Close()
			}
			t.Errorf("%+v while another process holds s1: err %v, want ErrSessionLocked", o, err)
		}
	}
	startFake(t, "echo", Options{Env: env, LockSession: true, Resume: "s2"}) // another session
	startFake(t, "echo", Options{Env: env, SessionID: "s1"})                 // no lock asked
	other()
	again := startFake(t, "echo", Options{Env: env, LockSession: true, Resume: "s1"})
	again.Close()
	if _, err := os.Stat(sessionLockPath(env, "s1")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("lock file left behind: %v", err)
	}
}

// TestOwnSessionLockWaits: a second CLI of this process for a session whose
// first CLI of ours still runs (a session closed and loaded again at once)
// waits for that one to exit, then starts; it does not fail as it does when
// another process holds the session.
func TestOwnSessionLockWaits(t *testing.T) {
	t.Parallel()
	env := []string{"CLAUDE_CONFIG_DIR=" + t.TempDir()}
	first := startFake(t, "echo", Options{Env: env, LockSession: true, SessionID: "s1"})
	started := make(chan *Process, 1)
	go func() {
		base := fakeOptions("echo")
		p, err := Start(context.Background(), Options{Executable: base.Executable, Env: append(base.Env, env...), LockSession: true, Resume: "s1", StartupTimeout: hangGuard})
		if err != nil {
			t.Errorf("the second start: %v", err)
		}
		started <- p
	}()
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if p := <-started; p != nil {
		p.Close()
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
