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
// background, a goal active, scheduled work (agent/translate/schedule.go), or its CLI
// starting. When every live session is busy and the cap is reached, the new
// CLI starts anyway (the cap is exceeded, and the log says so): an editor
// user waiting for a prompt to start is worse than memory over a soft
// bound. As soon as a live session stops being busy while the count is
// over the cap, the keeper (keepCap) brings the count back.

// busy reports whether the session must keep its CLI. Each concern says
// for itself: the CLI's start, the prompts (turn.go), the goal (goal.go),
// and what the translator follows (commands and subagents in the
// background, scheduled work: agent/translate).
func (s *session) busy() bool {
	return s.cli.starting || s.q.busy() || s.goal.busy() || s.tr.Busy(time.Now())
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
	s.setCurrent(nil)
	s.tr.Reset()
	clear(s.q.cancelledIDs)
	s.a.liveChanged(s, false)
	go p.Close()
	return true
}

// wake starts the CLI of a hibernated session ahead of the prompt, when
// the editor shows intent (load, resume, a mode or model change).
func (s *session) wake() {
	s.lastActive = time.Now()
	if s.cli.proc == nil && s.cli.started && !s.cli.starting && !s.closed && s.a.roomLeft() {
		s.startCLI()
	}
}

// roomLeft reports, without asking any session, whether one more CLI fits
// under the cap. A session's own goroutine asks it (it must not wait for
// another session, as roomFor does).
func (a *connection) roomLeft() bool {
	max := a.cfg.MaxLiveSessions
	return max <= 0 || int(a.liveCount.Load()) < max
}

// liveChanged keeps the connection's set of sessions that hold a CLI, up
// or starting: a starting CLI takes its ~200 MiB as soon as it runs, so it
// counts against the cap from its spawn. A session that becomes live may
// take the cap over: the keeper is asked to make room.
func (a *connection) liveChanged(s *session, live bool) {
	a.mu.Lock()
	if a.live == nil {
		a.live = map[*session]bool{}
	}
	if live {
		a.live[s] = true
	} else {
		delete(a.live, s)
	}
	a.liveCount.Store(int32(len(a.live)))
	a.mu.Unlock()
	if live {
		a.wantRoom()
	}
}

// overCap reports, without a lock, whether more sessions hold a CLI than
// the cap allows.
func (a *connection) overCap() bool {
	max := a.cfg.MaxLiveSessions
	return max > 0 && int(a.liveCount.Load()) > max
}

// wantRoom asks the cap keeper (keepCap) to bring the live count back to
// the cap, if it is over. It never waits.
func (a *connection) wantRoom() {
	if !a.overCap() {
		return
	}
	select {
	case a.capWake <- struct{}{}:
	default: // the keeper has a request already
	}
}

// keepCap runs while the connection lives when a cap is set. Whenever it
// is asked (a CLI starts, a live session stops being busy while the count
// is over the cap) it hibernates the least recently used idle live
// sessions until the count is back at the cap. It runs on a goroutine of
// its own: a session never waits for another one.
func (a *connection) keepCap(done <-chan struct{}) {
	if a.cfg.MaxLiveSessions <= 0 {
		return
	}
	for {
		select {
		case <-done:
			return
		case <-a.capWake:
		}
		a.enforceCap()
	}
}

// enforceCap is one round of keepCap. Each candidate decides on its own
// goroutine whether it is idle; sessions busy now ask again once they are
// not (session.run). The warning is logged once per time the cap is
// exceeded because every live session is busy.
func (a *connection) enforceCap() {
	max := a.cfg.MaxLiveSessions
	a.mu.Lock()
	live := make([]*session, 0, len(a.live))
	for s := range a.live {
		live = append(live, s)
	}
	a.mu.Unlock()
	excess := len(live) - max
	if excess <= 0 {
		a.capWarned.Store(false)
		return
	}
	type candidate struct {
		s    *session
		last time.Time
	}
	var idle []candidate
	for _, s := range live {
		c := candidate{s: s}
		ok := false
		s.do(func() {
			ok = s.cli.proc != nil && !s.closed && !s.busy()
			c.last = s.lastActive
		})
		if ok {
			idle = append(idle, c)
		}
	}
	slices.SortFunc(idle, func(x, y candidate) int { return x.last.Compare(y.last) })
	for _, c := range idle {
		if excess == 0 {
			break
		}
		done := false
		c.s.do(func() { done = c.s.hibernate("live session cap") })
		if done {
			excess--
		}
	}
	switch {
	case excess <= 0:
		a.capWarned.Store(false)
	case !a.capWarned.Swap(true):
		a.log.Warn("live session cap exceeded: every live session is busy", "cap", max, "live", max+excess)
	}
}

// roomFor reports whether a CLI started ahead of need (a new session's,
// or one woken by a sign of intent) fits under the cap: there is room, or
// an idle live session that the keeper can hibernate to make some.
// Otherwise the session's first prompt starts its CLI, and the cap makes
// room then: starting a CLI only to hibernate it again costs a CLI's
// start-up for nothing. It is asked from a handler's goroutine (it asks
// the live sessions whether they are idle).
func (a *connection) roomFor(s *session) bool {
	max := a.cfg.MaxLiveSessions
	if max <= 0 {
		return true
	}
	a.mu.Lock()
	others := make([]*session, 0, len(a.live))
	for o := range a.live {
		if o != s {
			others = append(others, o)
		}
	}
	a.mu.Unlock()
	if len(others) < max {
		return true
	}
	for _, o := range others {
		idle := false
		o.do(func() { idle = o.cli.proc != nil && !o.closed && !o.busy() })
		if idle {
			return true
		}
	}
	return false
}

// claimRoom is roomFor for the CLI a load resumes in the background, and
// takes the room at once: s counts as live from here on (until its start
// fails or it closes), not from its spawn after the replay. Loads sent
// together, as when an editor restores its threads, would otherwise all
// see room for themselves and start a CLI each, and the cap would only
// hibernate the extra ones once they were up.
func (a *connection) claimRoom(s *session) bool {
	max := a.cfg.MaxLiveSessions
	if max <= 0 {
		return true
	}
	a.mu.Lock()
	if a.live == nil {
		a.live = map[*session]bool{}
	}
	if !a.live[s] && len(a.live) < max {
		a.live[s] = true
		a.liveCount.Store(int32(len(a.live)))
		a.mu.Unlock()
		return true
	}
	a.mu.Unlock()
	if !a.roomFor(s) {
		return false
	}
	a.liveChanged(s, true) // an idle session hibernates to make the room
	return true
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
