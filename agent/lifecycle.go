package agent

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
)

// Session lifecycle beyond session/new: resume (continue without replay),
// fork (a new id that continues a copy), close and delete. session/load is
// in load.go and session/list in list.go.

// errSessionClosed reports a session closed while a request waited for it.
var errSessionClosed = acp.NewInternalError("the session was closed")

// resumeSession is session/resume: the session continues from its
// transcript (the CLI runs with --resume) but nothing is replayed. A
// session that is already live keeps its CLI, or gets a new one if the
// request changes its cwd, directories or MCP servers (fingerprint.go).
func (a *connection) resumeSession(ctx context.Context, p *acp.ResumeSessionRequest) (*acp.ResumeSessionResponse, error) {
	s, _, err := a.reopen(ctx, string(p.SessionID), p.Cwd, p.AdditionalDirectories, p.MCPServers, p.Meta, nil)
	if err != nil {
		return nil, err
	}
	modes, opts := a.state(s)
	return &acp.ResumeSessionResponse{Modes: modes, ConfigOptions: acp.Some(opts)}, nil
}

// replayFunc replays a transcript into session/update notifications while
// the session's CLI starts; started is the outcome of that start.
type replayFunc func(ctx context.Context, s *session, path string, setup *sessionSetup, started *startOutcome) error

// reopen makes a stored session live again: it checks the request, finds
// the transcript in any project directory, registers the session and
// starts its CLI with --resume, runs replay (if any) meanwhile, and returns
// once the CLI is up. A failure unregisters the session and stops its CLI,
// so a failed load leaves nothing behind. fresh is false for a session
// that was live already.
func (a *connection) reopen(ctx context.Context, id, cwd string, addDirs []string, servers []acp.MCPServer, meta map[string]json.RawMessage, replay replayFunc) (s *session, fresh bool, err error) {
	setup, err := a.sessionSetup(cwd, addDirs, servers, meta)
	if err != nil {
		return nil, false, err
	}
	// From here on other messages may be served: a load can take a while,
	// and other sessions must not wait for it.
	acp.Async(ctx)
	unlock, err := a.idLocks.lock(ctx, id)
	if err != nil {
		return nil, false, err
	}
	defer unlock()
	defer a.adopt(id)() // shared.go: a session another connection has becomes this one's

	if s := a.liveSession(id); s != nil {
		// A session that runs already keeps its CLI unless the request
		// changes what the CLI was started with (fingerprint.go); a load
		// replays what it has stored (nothing before its first prompt).
		if _, err := s.reconfigure(ctx, setup); err != nil {
			return nil, false, startFailure(id, err)
		}
		if replay == nil {
			// session/resume: the CLI is up, restarting, or (hibernated)
			// resumes now; the answer waits for it.
			if err := s.waitStart().wait(ctx); err != nil {
				return nil, false, startFailure(id, err)
			}
			return s, false, nil
		}
		// session/load: the answer waits for the history, not for the
		// CLI (a hibernated one resumes in the background if it fits
		// under the cap, else with the first prompt).
		a.startAhead(s)
		s.waitCancelledWork(ctx)
		if path, err := a.findTranscript(id); err == nil {
			s.do(func() { s.q.replays++ })
			err := replay(ctx, s, path, setup, &startOutcome{quiet: true})
			s.replayDone()
			if err != nil {
				return nil, false, err
			}
		}
		return s, false, nil
	}
	path, err := a.findTranscript(id)
	if err != nil {
		return nil, false, err
	}
	setup.opts.Resume = id
	// A session another process runs (another editor window) is refused
	// before anything is replayed (sessionlock.go); the background resume
	// would fail only after the load was answered.
	if err := claude.CheckSessionLock(setup.opts); err != nil {
		return nil, false, startFailure(id, err)
	}
	setup.replaying = replay != nil // the replay holds prompts back from the start
	s, err = a.register(id, setup)
	if err != nil {
		return nil, false, err
	}
	if replay == nil {
		// session/resume (no history to show): answered once the CLI is up.
		err = s.waitStart().wait(ctx)
		if err == nil && !a.isLive(id, s) {
			err = errSessionClosed // closed (session/close, shutdown) meanwhile
		}
		if err != nil {
			a.drop(id, s)
			return nil, false, startFailure(id, err)
		}
		return s, true, nil
	}
	// session/load (and v2 resume with replay) is answered as soon as the
	// history is out: that is when the thread is usable. The CLI resumes
	// in the background, begun when the replay is done or its head start
	// is over (replayHeadStart), if it fits under the live-session cap;
	// otherwise the first prompt starts it. A prompt sent before the CLI is
	// up waits for it, as after session/new; a CLI that fails to resume
	// fails that prompt with the cause. So the replay does not stop for a
	// failed start either (the start is quiet).
	started := &startOutcome{quiet: true}
	if a.claimRoom(s) {
		started = s.deferStart()
	}
	if err = replay(ctx, s, path, setup, started); err != nil {
		// The load failed (cancelled, unreadable): the session goes
		// before the replay's hold ends, so a prompt sent during the
		// replay ends with it instead of running in a session the editor
		// was told did not load.
		a.drop(id, s)
		return nil, false, startFailure(id, err)
	}
	s.replayDone()
	started.begin()
	if !a.isLive(id, s) {
		a.drop(id, s)
		return nil, false, startFailure(id, errSessionClosed) // closed meanwhile
	}
	return s, true, nil
}

// startAhead starts the CLI of a live session that has none (it
// hibernated) ahead of its next prompt, if it fits under the cap.
func (a *connection) startAhead(s *session) {
	if a.roomFor(s) {
		s.do(func() {
			if s.cli.started {
				s.lastActive = time.Now()
				s.startCLI()
			}
		})
	}
}

// forkSession is session/fork: a new session id that starts as a copy of
// the source's stored conversation and continues independently. The CLI
// does the copying (--resume <source> --fork-session --session-id <new>);
// it writes the new transcript with the first prompt.
func (a *connection) forkSession(ctx context.Context, p *acp.ForkSessionRequest) (*acp.ForkSessionResponse, error) {
	setup, err := a.sessionSetup(p.Cwd, p.AdditionalDirectories, p.MCPServers, p.Meta)
	if err != nil {
		return nil, err
	}
	src := string(p.SessionID)
	srcPath, err := a.findTranscript(src)
	if err != nil {
		return nil, err
	}
	acp.Async(ctx)
	id := uuid.NewString()
	setup.opts.Resume, setup.opts.ForkSession, setup.opts.SessionID = src, true, id
	s, err := a.register(id, setup)
	if err != nil {
		return nil, err
	}
	if err := s.waitStart().wait(ctx); err != nil {
		a.drop(id, s)
		return nil, startFailure(src, err)
	}
	s.titleFork(srcPath) // title.go
	modes, opts := a.state(s)
	return &acp.ForkSessionResponse{SessionID: acp.SessionID(id), Modes: modes, ConfigOptions: acp.Some(opts)}, nil
}

// closeSession is session/close. It is idempotent: closing a session that
// is not live (or never was) succeeds. Open turns end as cancelled, open
// permission requests are withdrawn, and the CLI is stopped before the
// answer, so nothing of the session outlives it.
func (a *connection) closeSession(ctx context.Context, p *acp.CloseSessionRequest) (*acp.CloseSessionResponse, error) {
	a.mu.Lock()
	s := a.sessions[string(p.SessionID)]
	delete(a.sessions, string(p.SessionID))
	a.mu.Unlock()
	if s != nil {
		// Stopping a CLI takes a moment; other messages go on meanwhile.
		acp.Async(ctx)
		s.shutdown()
	}
	return &acp.CloseSessionResponse{}, nil
}

// deleteSession is session/delete: the session is closed if live and its
// transcripts are removed, so it no longer appears in session/list. A
// session with no transcript is deleted already.
func (a *connection) deleteSession(ctx context.Context, p *acp.DeleteSessionRequest) (*acp.DeleteSessionResponse, error) {
	id := string(p.SessionID)
	if !transcript.ValidSessionID(id) {
		return nil, acp.NewInvalidParams("sessionId", "is not a session id")
	}
	acp.Async(ctx)
	unlock, err := a.idLocks.lock(ctx, id)
	if err != nil {
		return nil, err
	}
	defer unlock()
	a.mu.Lock()
	s := a.sessions[id]
	delete(a.sessions, id)
	a.mu.Unlock()
	if s != nil {
		s.shutdown()
	}
	if err := transcript.Delete(a.configDir(), id); err != nil && !errors.Is(err, transcript.ErrNotFound) {
		a.log.Warn("session/delete failed", "session", id, "error", err)
		return nil, acp.NewInternalError("the session's files could not be deleted")
	}
	return &acp.DeleteSessionResponse{}, nil
}

// configDir is where the CLI this agent runs keeps its state: the CLI's
// own environment decides, not ours.
func (a *connection) configDir() string {
	if d := envValue(a.cfg.Env, "CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	if h := envValue(a.cfg.Env, "HOME"); h != "" {
		return filepath.Join(h, ".claude")
	}
	return transcript.ConfigDir()
}

// findTranscript returns the transcript of a session in any project
// directory, or -32002 with data.sessionId.
func (a *connection) findTranscript(id string) (string, error) {
	path, err := transcript.Find(a.configDir(), id)
	switch {
	case err == nil:
		return path, nil
	case errors.Is(err, transcript.ErrNotFound), errors.Is(err, transcript.ErrInvalidID):
		return "", acp.NewSessionNotFound(id)
	}
	a.log.Warn("transcript lookup failed", "session", id, "error", err)
	return "", acp.NewInternalError("the session's transcript could not be read")
}

// register adds a session for a stored id; waitStart then starts its CLI.
// A shutdown that began meanwhile wins: the session is not left running
// behind it.
func (a *connection) register(id string, setup *sessionSetup) (*session, error) {
	s := a.addSession(id, setup)
	a.mu.Lock()
	closing := a.closing
	a.mu.Unlock()
	if closing {
		a.drop(id, s)
		return nil, acp.NewInternalError("the agent is shutting down")
	}
	return s, nil
}

func (a *connection) liveSession(id string) *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[id]
}

func (a *connection) isLive(id string, s *session) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[id] == s
}

// drop unregisters s (if still registered) and stops it.
func (a *connection) drop(id string, s *session) {
	a.mu.Lock()
	if a.sessions[id] == s {
		delete(a.sessions, id)
		delete(a.v2, id) // v2.go: its update converter
	}
	a.mu.Unlock()
	s.shutdown()
}

// startFailure turns a failed CLI start of a stored session into the
// request's error: a session the CLI does not know is -32002.
func startFailure(id string, err error) error {
	var rpc *acp.Error
	switch {
	case errors.Is(err, claude.ErrSessionNotFound):
		return acp.NewSessionNotFound(id)
	case errors.As(err, &rpc):
		return err
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return acp.NewInternalError("the request was cancelled")
	}
	return startError(err)
}

// state is the session's modes and config options, read on its goroutine.
func (a *connection) state(s *session) (modes *acp.SessionModeState, opts []acp.SessionConfigOption) {
	s.do(func() { modes, opts = s.configSnapshot() })
	return modes, opts
}

// shutdown withdraws the session's open permission requests and closes it
// (open turns end as cancelled; the CLI is stopped).
func (s *session) shutdown() {
	s.do(func() {
		for _, t := range s.q.turns {
			s.q.cancelOpenRequests(&t.Turn)
		}
	})
	s.close()
}

// waitCancelledWork waits (a few seconds at most) until the CLI is done
// with the turns a cancel stopped: the CLI writes the interrupted turn to
// its transcript as it stops it, so a replay right after a cancel would
// otherwise miss the cancelled prompt.
func (s *session) waitCancelledWork(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	s.waitFor(ctx, func() bool { return !s.q.holdSends(s.q.current) })
}

// replayDone ends a replay's hold on the session's prompts: those sent
// meanwhile go to the CLI now, or once it is up.
func (s *session) replayDone() {
	s.do(func() {
		s.q.replays--
		s.flushHeld()
	})
}

// waitReplays waits until no load replays the session's history, so that
// what the session sends the editor comes after the history: the CLI's
// output waits meanwhile (session.run), and so does a permission request
// it sends, whose tool call the editor would otherwise see in the middle
// of the history. false if the session closed or ctx ended first.
func (s *session) waitReplays(ctx context.Context) bool {
	return s.waitFor(ctx, func() bool { return s.q.replays == 0 })
}

// A waiter is a goroutine outside the session waiting for ready to hold.
type waiter struct {
	ready func() bool // read on the session goroutine
	ch    chan struct{}
}

// waitFor waits until ready holds on the session goroutine: at once, or
// when releaseWaiters finds it so. Every change of what the conditions
// read (replays, interrupts, cancelled work) ends in flushHeld, which
// releases them. false if the session closed or ctx ended first.
func (s *session) waitFor(ctx context.Context, ready func() bool) bool {
	w := waiter{ready: ready, ch: make(chan struct{})}
	if !s.do(func() {
		s.q.waiters = append(s.q.waiters, w)
		s.releaseWaiters()
	}) {
		return false
	}
	select {
	case <-w.ch:
		return true
	case <-s.quit:
		return false
	case <-ctx.Done():
		return false
	}
}

// releaseWaiters wakes the waiters whose condition holds now.
func (s *session) releaseWaiters() {
	kept := s.q.waiters[:0]
	for _, w := range s.q.waiters {
		if w.ready() {
			close(w.ch)
		} else {
			kept = append(kept, w)
		}
	}
	clear(s.q.waiters[len(kept):])
	s.q.waiters = kept
}

// startOutcome is the awaited outcome of one CLI start: nil once the CLI
// is up. A replay polls it so that a failed start ends the replay early;
// the request then waits for it. A deferred start (deferStart) begins at
// begin or wait.
type startOutcome struct {
	deferred *session // the session whose start is still to begin
	// quiet: failed reports the session's close, not a failed start (the
	// start goes on in the background; a prompt that needs the CLI learns
	// of its failure). The zero outcome with quiet set is no start at all.
	quiet bool
	ch    chan error
	quit  <-chan struct{}
	got   bool
	err   error
}

// replayHeadStart is how long a session/load's replay runs before the
// CLI it resumes is started. Both are CPU-bound at first (the CLI's
// start-up keeps two cores busy for a few hundred milliseconds), so run
// side by side the history, which is what the editor shows first, took
// up to twice as long; run first, the replay of a few thousand messages
// (20–50 ms) is done before the CLI starts. A longer replay overlaps the
// CLI's start from here on. (The load's answer does not wait for the CLI:
// see reopen.)
var replayHeadStart = 50 * time.Millisecond // a variable for tests, which then are not parallel

// deferStart returns the outcome of a CLI start that has not begun:
// begin (or wait) begins it. Its failures are quiet (see reopen).
func (s *session) deferStart() *startOutcome {
	return &startOutcome{deferred: s, quiet: true}
}

// begin begins a deferred start; it does nothing once begun.
func (o *startOutcome) begin() {
	if s := o.deferred; s != nil {
		quiet := o.quiet
		*o = *s.waitStart()
		o.quiet = quiet
	}
}

// waitStart returns the outcome of the CLI start under way, or of the next
// one (which it begins).
func (s *session) waitStart() *startOutcome {
	o := &startOutcome{ch: make(chan error, 1), quit: s.quit}
	if !s.do(func() {
		switch {
		case s.closed:
			o.ch <- errSessionClosed
		case s.cli.proc != nil:
			o.ch <- nil
		default:
			s.cli.startWaiters = append(s.cli.startWaiters, o.ch)
			s.startCLI()
		}
	}) {
		o.ch <- errSessionClosed
	}
	return o
}

// failed reports, without waiting, a start that has failed, or a
// deferred start's session that closed.
func (o *startOutcome) failed() error {
	if s := o.deferred; s != nil {
		select {
		case <-s.quit:
			return errSessionClosed
		default:
			return nil
		}
	}
	if o.quiet { // a failed start is for a prompt to report; a closed session ends the load
		select {
		case <-o.quit:
			return errSessionClosed
		default:
			return nil
		}
	}
	if !o.got {
		select {
		case o.err = <-o.ch:
			o.got = true
		case <-o.quit:
			o.got, o.err = true, errSessionClosed
		default:
		}
	}
	return o.err
}

// wait waits for the outcome.
func (o *startOutcome) wait(ctx context.Context) error {
	o.begin()
	if o.got {
		return o.err
	}
	select {
	case o.err = <-o.ch:
	case <-o.quit:
		o.err = errSessionClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	o.got = true
	return o.err
}

// tellStarted gives the waiting requests the outcome of a CLI start; it
// runs on the session goroutine (onStarted).
func (s *session) tellStarted(err error) {
	if err == nil && s.closed {
		err = errSessionClosed
	}
	for _, w := range s.cli.startWaiters {
		w <- err
	}
	s.cli.startWaiters = nil
}

// restartOptions are the options of a later CLI start of this session:
// continue the transcript. While the transcript does not exist yet (the CLI
// writes it with the first prompt) the first start is repeated instead: a
// new session takes its id again, a fork forks again.
func (s *session) restartOptions(opts claude.Options) claude.Options {
	if opts.SessionID == s.id {
		if _, err := transcript.Find(s.a.configDir(), s.id); err != nil {
			return opts
		}
	}
	opts.SessionID, opts.Resume, opts.ForkSession = "", s.id, false
	return opts
}

// idLocks is a mutex per session id.
type idLocks struct {
	mu sync.Mutex
	m  map[string]*idLock
}

type idLock struct {
	sem  chan struct{}
	refs int
}

// lock locks id, waiting at most until ctx ends.
func (l *idLocks) lock(ctx context.Context, id string) (unlock func(), err error) {
	l.mu.Lock()
	if l.m == nil {
		l.m = map[string]*idLock{}
	}
	e := l.m[id]
	if e == nil {
		e = &idLock{sem: make(chan struct{}, 1)}
		l.m[id] = e
	}
	e.refs++
	l.mu.Unlock()
	release := func() {
		l.mu.Lock()
		if e.refs--; e.refs == 0 {
			delete(l.m, id)
		}
		l.mu.Unlock()
	}
	select {
	case e.sem <- struct{}{}:
		return func() { <-e.sem; release() }, nil
	case <-ctx.Done():
		release()
		return nil, ctx.Err()
	}
}
