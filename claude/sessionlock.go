package claude

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// ErrSessionLocked means another process (another agent, another editor
// window) runs a CLI on the session Start was asked to run: two CLIs that
// continue one transcript fork its history, and the turns of one are lost
// to the other on the next load. See Options.LockSession.
var ErrSessionLocked = errors.New("claude: the session is open in another process")

// A session lock is an advisory lock (flock) on a file named after the
// session, in the config directory the CLI uses
// (<config>/claude-agent-acp/locks/<session id>.lock), held for the life of
// the CLI that writes the session's transcript and released when it exits:
// a session can be resumed as soon as the CLI that ran it is gone,
// whichever process ran it. The kernel releases it when the process that
// holds it dies, however it dies; the file itself is removed on release
// (sessionlock_unix.go). Where the lock cannot be taken for any other
// reason (a read-only config directory, a platform without flock), the
// CLI starts without one.

// lockedSession is the session a CLI started with o writes: the new id
// (--session-id, a fork's too), else the one it resumes.
func (o *Options) lockedSession() string {
	if !o.LockSession {
		return ""
	}
	if o.SessionID != "" {
		return o.SessionID
	}
	return o.Resume
}

// sessionLockPath is the lock file of session id for a CLI with env.
func sessionLockPath(env []string, id string) string {
	if id == "" || strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
		return ""
	}
	dir := configDirOf(env)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "claude-agent-acp", "locks", id+".lock")
}

// configDirOf is the CLI's config directory for environment env:
// CLAUDE_CONFIG_DIR, else ~/.claude.
func configDirOf(env []string) string {
	get := func(key string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], key+"="); ok {
				return v
			}
		}
		return ""
	}
	if d := get("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	if h := get("HOME"); h != "" {
		return filepath.Join(h, ".claude")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".claude")
	}
	return ""
}

// ours are the session locks this process holds, by path, each with a
// channel closed once it is released. A CLI of ours for a session whose
// previous CLI of ours is still on its way out (a session closed and
// loaded again at once, a hibernated one resumed) waits for that one to be
// gone, instead of failing as it does when another process holds the
// lock: the agent is the one process that knows both.
var ours = struct {
	mu   sync.Mutex
	held map[string]chan struct{}
}{held: map[string]chan struct{}{}}

// ownLockWait bounds the wait for a CLI of ours to release a lock.
const ownLockWait = 30 * time.Second

// lockOwnSession is lockSession that first waits (for ctx, at most
// ownLockWait) while a CLI of this process holds the lock.
func lockOwnSession(ctx context.Context, path string) (release func(), err error) {
	if path == "" {
		return nil, nil
	}
	timeout := time.NewTimer(ownLockWait)
	defer timeout.Stop()
	for {
		ours.mu.Lock()
		gone := ours.held[path]
		if gone == nil {
			release, err := lockSession(path)
			if err != nil || release == nil {
				ours.mu.Unlock()
				return release, err
			}
			done := make(chan struct{})
			ours.held[path] = done
			ours.mu.Unlock()
			return func() {
				release() // first: a waiter woken by done must find the file free
				ours.mu.Lock()
				delete(ours.held, path)
				ours.mu.Unlock()
				close(done)
			}, nil
		}
		ours.mu.Unlock()
		select {
		case <-gone:
		case <-ctx.Done():
			return nil, ErrSessionLocked
		case <-timeout.C:
			return nil, ErrSessionLocked
		}
	}
}

// CheckSessionLock says, without waiting, whether a CLI started with opts
// would find its session held by another process: ErrSessionLocked if so,
// nil if it is free, held by a CLI of this process (which Start waits
// for), or not locked at all. A session/load asks before it replays, so
// that a session open in another window is refused at once instead of
// when its CLI starts in the background; another process may still take
// the session between this check and Start, which then fails as always.
func CheckSessionLock(opts Options) error {
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	path := sessionLockPath(env, opts.lockedSession())
	if path == "" {
		return nil
	}
	ours.mu.Lock()
	defer ours.mu.Unlock()
	if ours.held[path] != nil {
		return nil
	}
	release, err := lockSession(path)
	if release != nil {
		release()
	}
	return err
}
