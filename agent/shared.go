package agent

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/acp/acpv2"
	"github.com/claude-agent-acp/claude-agent-acp/agent/v2conv"
)

// Sessions that outlive their connection (Config.SharedSessions, for
// `serve`: remote clients whose network drops).
//
// On stdio a client that goes away ends its sessions. When the agent
// serves many connections that share a session store, a connection that
// ends (a dropped network, a closed laptop) leaves its sessions running:
// their CLIs, the turn in progress, a permission request the CLI is
// waiting on. What they send meanwhile goes nowhere (ACP v1 replays
// nothing a client missed; the history does, once a message is complete).
// A connection's session/load (v1) or session/resume (v2) of such a
// session takes it over: the session moves to the new connection, which
// from then on gets its updates and its permission requests, and the
// load's replay and the running turn's rest reach it in order, as a load
// of a live session on one connection does (reopen). A session still
// owned by a connection that looks alive is taken over the same way: the
// newest client wins (a half-open old connection may not know it is gone).
//
// An abandoned session hibernates as idle sessions do: after
// Config.IdleTimeout without a turn it is closed (its transcript stays;
// session/load opens it again). Agent.Close ends every one at once.

// sessionStore is the state the connections of a shared Agent share.
type sessionStore struct {
	idle time.Duration

	mu      sync.Mutex
	conns   map[*connection]bool // serving now
	orphans map[string]orphan    // sessions whose connection ended, by id
	moved   chan struct{}        // closed and replaced when a session changes hands
	// settling: sessions taken over by a load or resume still under way.
	settling map[*session]chan struct{}
	closed   bool
	stop     chan struct{} // ends the sweeper (Close)
}

// An orphan is a session without a connection, and the one it had.
type orphan struct {
	s    *session
	from *connection
	at   time.Time
}

func newSessionStore(idle time.Duration) *sessionStore {
	st := &sessionStore{
		idle:     idle,
		conns:    map[*connection]bool{},
		orphans:  map[string]orphan{},
		moved:    make(chan struct{}),
		stop:     make(chan struct{}),
		settling: map[*session]chan struct{}{},
	}
	go st.sweep()
	return st
}

// join registers a connection that starts serving.
func (st *sessionStore) join(a *connection) {
	st.mu.Lock()
	st.conns[a] = true
	st.mu.Unlock()
}

// detach is the end of a shared connection whose client went away: its
// sessions are kept running as orphans, for a later connection to take
// over. It reports false when the store is closing (the sessions must
// end with the connection, as on stdio).
func (a *connection) detach() bool {
	st := a.store
	st.mu.Lock()
	defer st.mu.Unlock()
	delete(st.conns, a)
	if st.closed {
		return false
	}
	a.mu.Lock()
	a.closing = true // nothing new registers here any more
	now := time.Now()
	for id, s := range a.sessions {
		st.orphans[id] = orphan{s: s, from: a, at: now}
		a.log.Info("session outlives its connection", "session", id)
	}
	a.mu.Unlock()
	st.changed()
	return true
}

// changed wakes whoever waits for a session to change hands. st.mu is
// held.
func (st *sessionStore) changed() {
	close(st.moved)
	st.moved = make(chan struct{})
}

// adopt makes the session id, if another connection of the store has it
// (live or orphaned), this connection's: it leaves the other one's table,
// its updates and requests come here from now on, and its live CLI counts
// here. reopen calls it (under the id's lock) before it looks for a live
// session, so a load or resume of a session that outlived its connection
// finds it running; reopen calls the function it returns when it is done,
// and a permission request waiting for the session's next connection is
// asked only then, after the load's history and answer.
func (a *connection) adopt(id string) (done func()) {
	st := a.store
	if st == nil {
		return func() {}
	}
	s, ok := a.takeOver(id)
	if s == nil {
		return func() {}
	}
	if !ok {
		s.close() // see takeOver; the load opens it again from its transcript
		return func() {}
	}
	return func() {
		st.mu.Lock()
		if ch := st.settling[s]; ch != nil {
			close(ch)
			delete(st.settling, s)
		}
		st.mu.Unlock()
	}
}

// takeOver is adopt's move, under the store's lock. ok is false for a
// session the connection cannot take (another protocol version: a v1
// session's state cannot serve a v2 client, or the reverse), which the
// caller closes.
func (a *connection) takeOver(id string) (s *session, ok bool) {
	st := a.store
	st.mu.Lock()
	defer st.mu.Unlock()
	var from *connection
	if o, found := st.orphans[id]; found {
		s, from = o.s, o.from
		delete(st.orphans, id)
	} else {
		for c := range st.conns {
			if c == a {
				continue
			}
			c.mu.Lock()
			s = c.sessions[id]
			c.mu.Unlock()
			if s != nil {
				from = c
				break
			}
		}
	}
	if s == nil {
		return nil, false
	}
	from.mu.Lock()
	if from.sessions[id] == s {
		delete(from.sessions, id)
		delete(from.v2, id)
	}
	live := from.live[s]
	delete(from.live, s)
	from.mu.Unlock()
	if from.protocol() != a.protocol() {
		a.log.Info("session taken over by a connection of another protocol version: restarted from its transcript", "session", id)
		return s, false
	}
	// The client's capabilities, read before the session goroutine runs
	// (they take a.mu).
	terminals, subagents := a.terminalClient(), a.subagentMode()
	a.mu.Lock()
	failures := a.client.sessionFailure
	notices := a.client.raw.Session != nil && a.client.raw.Session.Notices != nil
	v2 := a.v2 != nil
	a.mu.Unlock()
	var dir string
	if !s.do(func() {
		s.a = a
		s.tr.Rebind(a.notify, terminals, subagents)
		s.fail.Rebind(failures, a.send)
		s.adv.Rebind(notices, a.notify)
		if s.q.v2 != nil {
			s.q.v2.sink = func(us ...acpv2.SessionUpdate) { a.sendStateV2(id, us...) }
		}
		dir = s.conf.Opts.Dir
	}) {
		return nil, false // it ended meanwhile: the load opens it from its transcript
	}
	a.mu.Lock()
	a.sessions[id] = s
	if v2 && a.v2[id] == nil {
		a.v2[id] = v2conv.NewUpdates(dir)
	}
	if live {
		if a.live == nil {
			a.live = map[*session]bool{}
		}
		a.live[s] = true
	}
	a.mu.Unlock()
	a.log.Info("session taken over by a new connection", "session", id)
	st.settling[s] = make(chan struct{})
	st.changed()
	return s, true
}

// owner is the connection session s has now (nil for none), a channel
// closed when that may change, and one closed when the load or resume
// that gave it to that connection is done (nil when none is under way).
func (st *sessionStore) owner(s *session) (c *connection, moved, settled <-chan struct{}) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, o := range st.orphans {
		if o.s == s {
			return nil, st.moved, nil
		}
	}
	for c := range st.conns {
		c.mu.Lock()
		has := c.sessions[s.id] == s
		c.mu.Unlock()
		if has {
			return c, st.moved, st.settling[s]
		}
	}
	return nil, st.moved, nil
}

// askPermission asks the session's client for permission. A connection
// that goes away while it asks (or before) does not deny the tool when
// sessions outlive connections: the request waits for the client's next
// connection to take the session over and is asked there, until the turn
// is cancelled or the session ends.
func (s *session) askPermission(ctx context.Context, a *connection, params *acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	var resp acp.RequestPermissionResponse
	err := s.askClient(ctx, a, "permission request", func(a *connection) (err error) {
		resp, err = a.requestPermission(ctx, s, params)
		return err
	})
	return resp, err
}

// askClient runs ask, a request to the session's client on connection a,
// with askPermission's rule: when the connection goes away and sessions
// outlive connections, it is asked again on the connection that takes the
// session over. what names the request in the log.
func (s *session) askClient(ctx context.Context, a *connection, what string, ask func(*connection) error) error {
	for {
		err := ask(a)
		if err == nil || a.store == nil || ctx.Err() != nil || !connectionGone(err) {
			return err
		}
		st := a.store
		for {
			next, moved, settled := st.owner(s)
			if next != nil && next != a {
				a = next
				if settled != nil {
					// The load that took the session over answers first.
					select {
					case <-settled:
					case <-ctx.Done():
						return err
					}
				}
				break
			}
			select {
			case <-moved:
			case <-ctx.Done():
				return err
			case <-s.quit:
				return err
			}
		}
		if !s.waitReplays(ctx) {
			return err
		}
		s.log.Info(what + " asked again on the session's new connection")
	}
}

// connectionGone reports an error of a call whose connection ended.
func connectionGone(err error) bool {
	return errors.Is(err, acp.ErrPeerClosed) || errors.Is(err, acp.ErrShutdown) || errors.Is(err, acp.ErrTransport)
}

// outlivesKey marks the contexts of a shared connection's handlers.
type outlivesKey struct{}

// sharedHandler marks every handler context of a shared connection, so
// that a turn can tell the connection's end from its own cancellation.
func sharedHandler(h acp.Handler) acp.Handler {
	return acp.HandlerFunc(func(ctx context.Context, req *acp.Request) (any, error) {
		return h.Handle(context.WithValue(ctx, outlivesKey{}, true), req)
	})
}

// outlives reports that ctx, a prompt's, ended because its connection did
// and the prompt's turn goes on without it: the handler returns (its
// answer has nowhere to go) and leaves the turn to the client's next
// connection.
func outlives(ctx context.Context) bool {
	return ctx.Value(outlivesKey{}) != nil && connectionGone(context.Cause(ctx))
}

// errTurnOutlives answers a prompt whose connection ended while its turn
// goes on (the answer has nowhere to go; an *acp.Error keeps it out of the
// connection's log of failed handlers).
var errTurnOutlives = acp.NewInternalError("the connection ended; the turn goes on for the session's next connection")

// withdrawal is the channel a turn treats as its client giving up on the
// prompt ($/cancel_request): ctx.Done(), except on a shared connection,
// whose end is not the client giving up.
func withdrawal(ctx context.Context) <-chan struct{} {
	if ctx.Value(outlivesKey{}) == nil {
		return ctx.Done()
	}
	ch := make(chan struct{})
	context.AfterFunc(ctx, func() {
		if !connectionGone(context.Cause(ctx)) {
			close(ch)
		}
	})
	return ch
}

// sweep closes orphans idle for IdleTimeout (their transcripts stay for
// session/load) and forgets those that ended.
func (st *sessionStore) sweep() {
	period := time.Minute
	if st.idle > 0 {
		period = min(max(st.idle/4, 10*time.Millisecond), time.Minute)
	}
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		select {
		case <-st.stop:
			return
		case <-tick.C:
		}
		st.mu.Lock()
		var idle []orphan
		for id, o := range st.orphans {
			select {
			case <-o.s.quit:
				delete(st.orphans, id)
				continue
			default:
			}
			idle = append(idle, o)
		}
		st.mu.Unlock()
		for _, o := range idle {
			if st.idle <= 0 || time.Since(o.from.lastActive(o.s)) < st.idle {
				continue
			}
			busy := true
			o.s.do(func() { busy = o.s.busy() })
			if busy {
				continue
			}
			st.mu.Lock()
			still := st.orphans[o.s.id].s == o.s
			if still {
				delete(st.orphans, o.s.id)
			}
			st.mu.Unlock()
			if still {
				o.s.log.Info("abandoned session closed after the idle timeout; session/load opens it again")
				o.s.close()
			}
		}
	}
}

// close ends every orphan at once (the agent is stopping) and the
// sweeper; connections still serving end their own sessions.
func (st *sessionStore) close() {
	st.mu.Lock()
	if st.closed {
		st.mu.Unlock()
		return
	}
	st.closed = true
	close(st.stop)
	orphans := st.orphans
	st.orphans = map[string]orphan{}
	st.mu.Unlock()
	var wg sync.WaitGroup
	for _, o := range orphans {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o.s.terminate()
		}()
	}
	wg.Wait()
}
