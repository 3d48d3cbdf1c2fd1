package agent

import (
	"slices"
	"time"
)

// Hibernation. Each live session holds a Claude Code CLI of ~200 MiB, idle
// or not; editors keep many threads open. A session that has been idle for
// Config.IdleTimeout, or the least recently used idle one when a new CLI
// is needed and Config.MaxLiveSessions are live, hibernates: its CLI is
// closed the SDK's way (stdin EOF, so the transcript is complete) and the
// ACP session stays open and unchanged. The next thing that needs the CLI
// (a prompt, a mode or model change, a load or resume) starts it again
// with --resume: same history, mode, model, effort, directories, MCP
// servers and "always allow" rules (kept in the session's options).
//
// A session is never hibernated while it is busy: a turn running or
// queued, a permission request open, a command or subagent running in the
// background, a goal active, or its CLI starting. When every live session
// is busy and the cap is reached, the new CLI starts anyway (the cap is
// exceeded, and the log says so): an editor user waiting for a prompt to
// start is worse than memory over a soft bound.

// busy reports whether the session must keep its CLI.
func (s *session) busy() bool {
	switch {
	case s.cli.starting, len(s.q.turns) > 0, len(s.q.openRequests) > 0, len(s.tr.bgTasks) > 0:
		return true
	case s.goal.snap != nil && s.goal.snap.Status == "active", s.goal.pending != nil:
		return true
	}
	for _, c := range s.tr.sub.byLaunch {
		if !c.done {
			return true
		}
	}
	return false
}

// hibernate closes the session's CLI if it is live and the session idle,
// and reports whether it did. The close finishes in the background; the
// next start waits for it (two CLIs must not continue one transcript).
func (s *session) hibernate(why string) bool {
	p := s.cli.proc
	if p == nil || s.closed || s.busy() {
		return false
	}
	s.log.Info("session hibernates", "reason", why)
	s.cli.proc, s.cli.msgs = nil, nil
	s.cli.retired = p
	s.cli.hibernated = true
	s.tr.current = nil
	s.tr.out.reset()
	clear(s.q.cancelledIDs)
	s.a.liveChanged(s, false)
	go p.Close()
	return true
}

// wake starts the CLI of a hibernated session ahead of the prompt, when
// the editor shows intent (load, resume, a mode or model change).
func (s *session) wake() {
	s.lastActive = time.Now()
	if s.cli.proc == nil && s.cli.started && !s.cli.starting && !s.closed {
		s.startCLI()
	}
}

// liveChanged keeps the connection's count of live CLIs.
func (a *connection) liveChanged(s *session, live bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.live == nil {
		a.live = map[*session]bool{}
	}
	if live {
		a.live[s] = true
	} else {
		delete(a.live, s)
	}
}

// makeRoom is called before a session starts a CLI: with the cap reached,
// the least recently used idle live session is asked to hibernate. It
// never waits for that: the start goes on, and the cap is exceeded only
// while every live session is busy.
func (a *connection) makeRoom(starting *session) {
	max := a.cfg.MaxLiveSessions
	if max <= 0 {
		return
	}
	a.mu.Lock()
	var others []*session
	for s := range a.live {
		if s != starting {
			others = append(others, s)
		}
	}
	a.mu.Unlock()
	if len(others) < max {
		return
	}
	// In a goroutine of its own: a session never waits on another one (two
	// could be starting at once). Oldest first; each candidate decides on
	// its own goroutine whether it is idle.
	go func() {
		seen := make(map[*session]time.Time, len(others))
		for _, s := range others {
			seen[s] = a.lastActive(s)
		}
		slices.SortFunc(others, func(x, y *session) int { return seen[x].Compare(seen[y]) })
		excess := len(others) - max + 1
		for _, s := range others {
			if excess == 0 {
				return
			}
			done := false
			s.do(func() { done = s.hibernate("live session cap") })
			if done {
				excess--
			}
		}
		a.log.Warn("live session cap exceeded: every live session is busy", "cap", max)
	}()
}

// lastActive is when session s was last active, read from any goroutine.
func (a *connection) lastActive(s *session) time.Time {
	var t time.Time
	if !s.do(func() { t = s.lastActive }) {
		return time.Time{}
	}
	return t
}

// hibernateIdle runs while the connection lives when an idle timeout is
// set: every so often, sessions idle for longer hibernate.
func (a *connection) hibernateIdle(done <-chan struct{}) {
	idle := a.cfg.IdleTimeout
	if idle <= 0 {
		return
	}
	tick := time.NewTicker(min(max(idle/4, 10*time.Millisecond), time.Minute))
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		a.mu.Lock()
		var live []*session
		for s := range a.live {
			live = append(live, s)
		}
		a.mu.Unlock()
		for _, s := range live {
			s.post(func() {
				if time.Since(s.lastActive) >= idle {
					s.hibernate("idle")
				}
			})
		}
	}
}
