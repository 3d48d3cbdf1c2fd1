// Package agent is the adapter between ACP and Claude Code: it serves one
// ACP connection and runs one Claude Code CLI process per session,
// translating prompts into CLI user messages and CLI output into
// session/update notifications. It is the only package that knows both the
// acp and the claude packages.
//
// # Model
//
// Every ACP method the agent serves is in one table (methods.go). Each
// session is owned by one goroutine (session.go): ACP handlers and CLI
// callbacks never touch session state directly; they send it closures
// through the session's inbox, in order. A prompt registers its turn with
// the session before the connection dispatches the next message, so a
// session/cancel written right behind a prompt always finds that turn. A
// turn's progress is an explicit state (turn.go).
//
// The CLI's output is turned into updates by a translator (agent/translate),
// which the live session owns and session/load's replay owns another of:
// history is replayed through the same code that showed it live.
//
// docs/design.md draws the whole picture.
package agent

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/acp/acpv2"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/scrub"
	"github.com/claude-agent-acp/claude-agent-acp/agent/v2conv"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// Name and Title identify the agent in initialize.
const (
	Name  = "claude-agent-acp"
	Title = "Claude Agent"
)

// Config configures an Agent. The zero value runs the `claude` found by
// claude.FindExecutable with this process's environment.
type Config struct {
	// Executable is the Claude Code CLI; empty finds it on first use.
	Executable string
	// Launch, when set, starts each CLI instead of running Executable
	// (claude.Options.Launch): tests run a fake CLI in memory with it
	// (internal/test/clifake).
	Launch claude.Launcher
	// Env is the environment the CLI runs with; nil means os.Environ().
	Env []string
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
	// Version is reported in agentInfo.
	Version string
	// StartupTimeout bounds a CLI's initialize handshake (default 60 s).
	StartupTimeout time.Duration
	// MaxLiveSessions caps the sessions with a CLI running (0: no cap);
	// past it the least recently used idle session hibernates.
	MaxLiveSessions int
	// IdleTimeout hibernates a session idle for that long (0: never).
	IdleTimeout time.Duration
	// SharedSessions makes the connections Serve runs share their live
	// sessions, which then outlive the connection that opened them: a
	// later connection's session/load or session/resume takes one over,
	// turn and all (shared.go). For servers of many connections (`serve`);
	// call Close when done. On stdio a client that goes away ends its
	// sessions.
	SharedSessions bool
	// EditorFS gives Claude's file reads and writes to clients that offer
	// fs/read_text_file and fs/write_text_file (CLAUDE_AGENT_ACP_EDITOR_FS=1;
	// a client may also ask with _meta.claudeCode.editorFileSystem).
	EditorFS bool
}

// An Agent serves ACP for Claude Code. It holds only its configuration:
// each call of Serve is one editor connection with its own sessions, and
// Serve may be called again, or on several connections at once.
type Agent struct {
	cfg   Config
	log   *slog.Logger
	store *sessionStore // SharedSessions (shared.go)
}

// A connection is one editor connection and what lives in it: the
// client's capabilities, the sessions and their CLIs, the model list.
type connection struct {
	cfg       Config
	log       *slog.Logger
	conn      *acp.Conn
	connReady chan struct{} // closed once conn is set
	// version is the protocol version initialize chose (0 before); read
	// for every update, so without the lock.
	version atomic.Int32

	mu       sync.Mutex
	client   clientCaps
	v2       map[string]*v2conv.Updates // v2 connections: each session's update converter (v2.go)
	sessions map[string]*session
	models   []claude.ModelInfo // the CLI's model list, learnt from the first session
	closing  bool
	live     map[*session]bool // sessions with a CLI up or starting (hibernate.go)
	// liveCount is len(live), read without the lock on every session
	// step (overCap); capWake asks the cap keeper for a round, capWarned
	// says the cap's warning was logged for the present excess.
	liveCount atomic.Int32
	capWake   chan struct{}
	capWarned atomic.Bool

	// idLocks serialize load, resume and delete of one session id
	// (lifecycle.go), so that two requests never start two CLIs for it.
	idLocks idLocks

	store *sessionStore // shared with the agent's other connections, or nil (shared.go)
}

// New returns an Agent with cfg (defaults filled in); Serve runs it.
func New(cfg Config) *Agent {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = slog.New(scrub.NewHandler(log.Handler())) // no secrets in the log (agent/internal/scrub)
	if cfg.Env == nil {
		cfg.Env = os.Environ()
	}
	// The credentials the CLI gets are redacted wherever they show up,
	// whatever their shape (a gateway may echo them back).
	scrub.Known.AddEnv(cfg.Env)
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	a := &Agent{cfg: cfg, log: log}
	if cfg.SharedSessions {
		a.store = newSessionStore(cfg.IdleTimeout)
	}
	return a
}

// Close ends the sessions that outlived their connections (SharedSessions)
// at once, as a stopped agent ends every CLI; connections still serving
// end theirs when their Serve's context ends. Without SharedSessions it
// does nothing.
func (a *Agent) Close() {
	if a.store != nil {
		a.store.close()
	}
}

// newConnection is the state of one editor connection.
func (a *Agent) newConnection() *connection {
	return &connection{cfg: a.cfg, log: a.log, sessions: map[string]*session{}, connReady: make(chan struct{}), capWake: make(chan struct{}, 1), store: a.store}
}

// attach runs the connection on conn, as serve does, for tests that drive
// one half of it by hand.
func (a *connection) attach(conn *acp.Conn, caps clientCaps) {
	a.conn = conn
	a.client = caps
	close(a.connReady)
}

// Serve speaks ACP on r/w until the client goes away (EOF) or ctx ends,
// then stops every CLI it started. A client that disappears is a normal
// end: Serve returns nil.
func (a *Agent) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	return a.newConnection().serve(ctx, r, w)
}

func (a *connection) serve(ctx context.Context, r io.Reader, w io.Writer) error {
	handler := a.methods()
	if a.store != nil {
		handler = sharedHandler(handler) // shared.go: turns outlive the connection
		a.store.join(a)
	}
	a.conn = acp.NewConn(r, w, acp.Options{
		Handler:          handler,
		Logger:           a.log,
		InitializeMethod: acp.MethodInitialize,
		// The last line of defence: no frame leaves with a secret the
		// agent knows, whichever path it took (errors, text, titles, tool
		// output, permission requests).
		OutputFilter: scrub.Known.RedactJSON,
		CancelledResult: func(method string) (any, bool) {
			if method == acp.MethodSessionPrompt && a.protocol() < acp.ProtocolV2 {
				return &acp.PromptResponse{StopReason: acp.StopReasonCancelled}, true
			}
			return nil, false
		},
	})
	close(a.connReady)
	go a.hibernateIdle(a.conn.Done())
	go a.keepCap(a.conn.Done())
	fast := false
	select {
	case <-a.conn.Done():
	case <-ctx.Done():
		// Stopped (SIGTERM and the like): nothing may keep running, not
		// even the turn in flight.
		fast = true
	}
	if fast || a.store == nil || !a.detach() { // shared.go: the sessions outlive a client that went away
		a.shutdown(fast)
	}
	a.conn.Close()
	err := a.conn.Wait()
	if errors.Is(err, acp.ErrPeerClosed) || errors.Is(err, acp.ErrShutdown) {
		return nil
	}
	return err
}

// shutdown stops every session's CLI, in parallel: gently (Close: a turn
// may finish within the grace) when the client went away, at once
// (Terminate) when the agent itself is being stopped.
func (a *connection) shutdown(fast bool) {
	a.mu.Lock()
	a.closing = true
	sessions := make([]*session, 0, len(a.sessions))
	for _, s := range a.sessions {
		sessions = append(sessions, s)
	}
	a.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if fast {
				s.terminate()
			} else {
				s.close()
			}
		}()
	}
	wg.Wait()
}

// editor is the connection to the editor. Handlers run only after it is
// set; the wait makes that ordering visible to the race detector.
func (a *connection) editor() *acp.Conn {
	<-a.connReady
	return a.conn
}

func (a *connection) session(id acp.SessionID) (*session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.sessions[string(id)]
	if s == nil {
		return nil, acp.NewSessionNotFound(string(id))
	}
	return s, nil
}

// notify sends a session/update. Errors mean the client is gone; the
// connection then shuts everything down, so they are only logged.
// send is notify for updates whose delivery matters to the caller.
// On a v2 connection the update goes out as what v2 makes of it
// (agent/v2conv).
func (a *connection) send(sessionID string, u acp.SessionUpdate) error {
	if a.protocol() >= acp.ProtocolV2 {
		return a.updatesV2(sessionID).Send(u, func(us ...acpv2.SessionUpdate) error { return a.sendV2(sessionID, us...) })
	}
	n := notifications.Get().(*acp.SessionNotification)
	*n = acp.SessionNotification{SessionID: acp.SessionID(sessionID), Update: u}
	err := a.editor().Notify(context.Background(), acp.MethodSessionUpdate, n)
	*n = acp.SessionNotification{} // Notify encoded it: nothing keeps it
	notifications.Put(n)
	return err
}

// notifications recycles the params of session/update: one is boxed for
// Notify per update, and a streamed turn sends thousands.
var notifications = sync.Pool{New: func() any { return new(acp.SessionNotification) }}

func (a *connection) notify(sessionID string, u acp.SessionUpdate) {
	if err := a.send(sessionID, u); err != nil {
		a.log.Debug("session/update not sent", "error", err)
	}
}
