package agent

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/config"
	"github.com/claude-agent-acp/claude-agent-acp/agent/failure"
	"github.com/claude-agent-acp/claude-agent-acp/agent/translate"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// session is one ACP session and the CLI process behind it. Its fields
// below the line are owned by the run goroutine; everyone else talks to it
// through do.
type session struct {
	a   *connection
	id  string
	log *slog.Logger

	inbox *mailbox      // closures for the session goroutine, in order
	quit  chan struct{} // closed when run ends
	// efs is the file tools through the editor, nil when off; set before
	// the goroutine starts (editorfs_wire.go).
	efs  *editorFS
	once sync.Once
	// starts counts CLI starts in progress; close waits for them.
	starts sync.WaitGroup

	// owned by run:
	closed bool
	// lastActive is the last prompt, answer or sign of intent (hibernate.go).
	lastActive time.Time
	cli        cliState // the CLI process behind the session
	lastDelta  deltaKey // the text delta the session handled last (burst.go)
	// merged is burst's scratch list of the frames it merges into one
	// chunk: empty between bursts, nil while one uses it.
	merged []claude.Message
	q      turnQueue             // the prompts (turn.go)
	stored storedState           // whether the turns are saved (stored.go)
	conf   config.Session        // mode, model and the rest of what the CLI runs with (config.go)
	tr     *translate.Translator // the CLI's output as updates (agent/translate)
	cmds   commandState          // slash commands (commands.go)
	fail   failure.State         // the session failure extension (agent/failure)
	adv    failure.Advisor       // what the user is told besides Claude's answer (agent/failure)
	goal   goalState             // the session's /goal (goal.go)
	title  titleState            // what the client was told of the title (title.go)
}

// cliState is the CLI process behind a session, owned by its goroutine.
type cliState struct {
	proc     *claude.Process
	msgs     <-chan claude.Message
	taken    *takenFrames // what the session took of proc's frames (catchup.go)
	starting bool
	// stopStart abandons the CLI start in progress (set with starting).
	stopStart context.CancelFunc
	// retired is a CLI replaced by new settings (fingerprint.go); the
	// next start stops it before it starts its successor.
	retired *claude.Process
	started bool // a CLI was started at least once for this id
	// prompted: a prompt was written to a CLI of this session, so the CLI
	// has a transcript to resume (a session hibernated before its first
	// prompt has none, and starts afresh with its own id).
	prompted bool
	// hibernated: the CLI was closed while the session was idle; the next
	// start must resume its transcript (hibernate.go).
	hibernated bool
	// spawnedWith is what the CLI being started was given; settings the
	// user changes meanwhile are sent to it once it is up.
	spawnedWith claude.Options
	// early is a CLI spawned with its handshake still under way
	// (claude.StartAsync): prompts go to it already, right behind the
	// handshake, as long as no setting changed since the spawn. Set
	// between onSpawned and onStarted; proc is nil meanwhile.
	early *claude.Process
	// startWaiters are told how the next CLI start ends (session/resume
	// and fork answer only once the CLI is up; see lifecycle.go).
	startWaiters []chan error
	// windowFrom is a CLI to ask for its context window once it has begun
	// answering the turn it prepares (askContextWindow, config.go).
	windowFrom *claude.Process
}

// turnQueue is a session's prompts, owned by its goroutine (turn.go).
type turnQueue struct {
	turns    []*turn // unsettled turns, oldest first
	accepted int     // prompts accepted so far
	// current is the turn the CLI is working on (nil: none); its Turn is
	// the translator's Current (session.setCurrent).
	current *turn
	// interrupting counts interrupts not yet answered by the CLI.
	interrupting int
	// cancelledIDs are turns answered while queued in the CLI; if the CLI
	// starts one anyway its output is dropped.
	cancelledIDs map[string]bool
	// openRequests are client requests (permission prompts) per turn.
	openRequests map[*translate.Turn][]*openRequest
	// v2 reports the session's activity on v2 connections (v2turns.go).
	v2 *v2Lifecycle
	// waiters wait, outside the session goroutine, for a condition on
	// its state (session.waitFor): a load for the end of cancelled work,
	// a permission request for the end of a replay.
	waiters []waiter
	// replays counts session/load replays under way. A prompt sent
	// meanwhile (a client that did not wait for the load's answer) is
	// accepted and waits in the queue: its turn's updates would otherwise
	// land in the middle of the history.
	replays int
}

// newSession starts the session goroutine; the CLI itself starts in the
// background (startCLI), so session/new answers without waiting for it.
func newSession(a *connection, id string, opts claude.Options, modeID string) *session {
	s := &session{
		a: a, id: id,
		conf:  config.Session{Opts: opts, ModeID: modeID},
		q:     turnQueue{cancelledIDs: map[string]bool{}},
		log:   a.log.With("session", id),
		inbox: newMailbox(),
		quit:  make(chan struct{}),
	}
	a.mu.Lock()
	if c := a.client.raw.Session; c != nil && c.ConfigOptions != nil && c.ConfigOptions.Boolean != nil {
		s.conf.Booleans = true
	}
	editorFiles := a.client.editorFS
	if a.protocol() >= acp.ProtocolV2 {
		s.q.v2 = newV2Lifecycle(a, id)
	}
	a.mu.Unlock()
	s.tr = a.newTranslator(id, opts.Dir, s.log, now{s})
	s.adv = newFailures(a, id, s.log, &s.fail)
	// Everything the goroutine owns is set before it starts.
	s.conf.Opts.CanUseTool = s.canUseTool
	// elicitation.go: MCP servers' elicitations and the CLI's dialogs.
	s.conf.Opts.OnControlRequest = s.onControlRequest
	a.subagentOptions(&s.conf.Opts) // subagents.go: what the client can show of subagents
	s.editorOptions(editorFiles)    // editorfs_wire.go: Claude's files through the editor
	go s.run()
	return s
}

// do runs fn on the session goroutine and waits for it. It reports false
// if the session has ended (fn did not run).
func (s *session) do(fn func()) bool {
	done := make(chan bool, 1)
	if !s.inbox.put(mail{fn: fn, done: done}) {
		return false
	}
	return <-done
}

// post runs fn on the session goroutine without waiting, after everything
// put before it.
func (s *session) post(fn func()) {
	s.inbox.put(mail{fn: fn})
}

func (s *session) run() {
	var left []mail
	defer func() {
		s.inbox.close(left)
		close(s.quit)
	}()
	for !s.closed {
		// While a load replays the history, the CLI's output waits in its
		// reader (which holds the CLI back once enough has queued): a
		// turn running in a live session goes on after the history, not
		// in the middle of it.
		msgs := s.cli.msgs
		if s.q.replays > 0 {
			msgs = nil
		}
		select {
		case <-s.inbox.wake:
			items := s.inbox.take()
			for i, m := range items {
				if s.closed {
					left = items[i:]
					return
				}
				ran := s.guard(m.fn) // crash.go: a panic stops this session, not the agent
				if m.done != nil {
					m.done <- ran
				}
			}
		case m, ok := <-msgs:
			if !ok {
				s.guard(s.onExit)
				continue
			}
			s.cli.taken.n++                      // catchup.go
			s.guard(func() { s.handleFrame(m) }) // burst.go: with what queued up behind it, in as few writes as it takes
		}
		if s.a.overCap() && s.cli.proc != nil && !s.busy() {
			s.a.wantRoom() // hibernate.go: idle now, while there are more CLIs than the cap allows
		}
	}
}

// target is the CLI the session's messages go to: the running one, or
// the one starting whose handshake the first prompts follow (early).
func (c *cliState) target() *claude.Process {
	if c.proc != nil {
		return c.proc
	}
	return c.early
}

// startCLI starts the CLI in the background unless it runs or is starting.
func (s *session) startCLI() {
	if s.cli.proc != nil || s.cli.starting || s.closed {
		return
	}
	opts := s.conf.Opts
	restart := s.cli.started
	if restart {
		// A CLI for this id ran before: continue its transcript.
		opts = s.restartOptions(opts)
		if s.cli.hibernated && s.cli.prompted && opts.Resume == "" {
			// The transcript went away while the session hibernated:
			// starting afresh would silently lose the conversation.
			err := errors.New("the session's transcript was deleted while the session was idle; its history cannot be resumed")
			s.log.Warn("hibernated session cannot resume", "error", err)
			for _, t := range slices.Clone(s.q.turns) { // settle edits s.q.turns
				s.settleStartFailure(t, err)
			}
			return
		}
	}
	s.efs.startOptions(&opts) // editorfs_wire.go: Claude's files through the editor
	s.cli.starting = true
	s.cli.spawnedWith = opts // afterStart applies what changes while it starts
	s.a.liveChanged(s, true) // hibernate.go: it counts against the cap from now on
	s.cli.started = true
	old := s.cli.retired
	s.cli.retired = nil
	// The startup timeout is the claude package's, so a hang is reported as
	// such; the context only lets close abandon a start in progress.
	opts.StartupTimeout = s.a.startupTimeout()
	ctx, cancel := context.WithCancel(context.Background())
	s.cli.stopStart = cancel
	s.starts.Add(1)
	go func() {
		defer s.starts.Done()
		defer cancel()
		if old != nil {
			_ = old.Close() // two CLIs must not continue one transcript
		}
		var p *claude.Process
		var err error
		var st *claude.AppliedSettings
		if restart {
			p, st, err = startAgain(ctx, s.id, opts)
		} else {
			p, st, err = s.startPipelined(ctx, opts)
		}
		if !s.do(func() { s.onStarted(p, st, err) }) && p != nil {
			// The session closed while the CLI started: nobody owns it,
			// and a prompt written behind its handshake must not run.
			_ = p.Terminate()
		}
	}()
}

// startPipelined starts a session's first CLI without making its first
// prompt wait for the handshake: the initialize and get_settings requests
// are written, the prompts waiting for this CLI go right behind them
// (onSpawned), and only then does it wait for the CLI's answers. The CLI
// reads its stdin when it is ready and handles the requests first, so the
// prompt is answered as soon as the CLI could answer it at all (issue 16:
// the cold first answer). A failed handshake fails those prompts as a
// failed start does.
func (s *session) startPipelined(ctx context.Context, opts claude.Options) (*claude.Process, *claude.AppliedSettings, error) {
	p, err := claude.StartAsync(ctx, opts)
	if err != nil {
		return nil, nil, err
	}
	settings, serr := p.BeginGetSettings(ctx)
	s.do(func() { s.onSpawned(p) })
	if _, err := p.WaitInitialized(ctx); err != nil {
		// A failed handshake stopped the CLI already; a start abandoned
		// (the session closed) stops it now, at once: a prompt written
		// behind the handshake must not run.
		_ = p.Terminate()
		return nil, nil, err
	}
	return p, applied(ctx, settings, serr), nil
}

// applied collects the answer to get_settings: what the CLI applies
// (effort, ultracode), so that the first config list the client gets is
// whole. Asked off the session goroutine, a local round trip; nil if the
// CLI does not answer within 5 s.
func applied(ctx context.Context, call *claude.SettingsCall, err error) *claude.AppliedSettings {
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	st, _ := call.Wait(ctx)
	return st
}

// startAgain starts a CLI for session id, which had one. Whether its
// transcript exists yet (the CLI may have died before saving, or saved
// only now) decides between --resume and --session-id; the CLI's answer to
// the handshake is the authority, so this start waits for it. (A load of a
// transcript the CLI refuses is not a restart and keeps its error.)
func startAgain(ctx context.Context, id string, opts claude.Options) (*claude.Process, *claude.AppliedSettings, error) {
	p, err := claude.Start(ctx, opts)
	for try := 0; try < 2 && !opts.ForkSession; try++ {
		switch {
		case errors.Is(err, claude.ErrSessionNotFound) && opts.Resume == id:
			opts.SessionID, opts.Resume = id, ""
		case errors.Is(err, claude.ErrSessionInUse) && opts.SessionID == id:
			opts.SessionID, opts.Resume = "", id
		default:
			try = 2
			continue
		}
		p, err = claude.Start(ctx, opts)
	}
	if err != nil {
		return nil, nil, err
	}
	settings, serr := p.BeginGetSettings(ctx)
	return p, applied(ctx, settings, serr), nil
}

// onSpawned runs once a first CLI is spawned and its handshake written:
// the prompts waiting for it are sent at once, unless a setting changed
// since the spawn (those changes must reach the CLI before the prompts,
// and they go once the handshake is done, in afterStart).
func (s *session) onSpawned(p *claude.Process) {
	if s.closed || !s.cli.starting || !s.unchangedSinceSpawn() {
		return
	}
	s.cli.early = p
	for _, t := range slices.Clone(s.q.turns) { // a failed send edits s.q.turns
		if t.phase == turnQueued && !t.Settled && s.earlyOpen(t) {
			s.sendEarly(t)
		}
	}
}

// earlyOpen reports whether turn t may go to the starting CLI now: one is
// starting (early), no setting changed since its spawn, nothing cancelled
// waits in it, and no earlier prompt is still held (prompts reach the CLI
// in order).
func (s *session) earlyOpen(t *turn) bool {
	if s.cli.early == nil || !s.unchangedSinceSpawn() || s.q.holdSends(s.q.current) || s.q.oneAtATime(s.q.current) {
		return false
	}
	for _, o := range s.q.turns {
		if o == t {
			return true
		}
		if o.phase == turnQueued && !o.Settled {
			return false
		}
	}
	return true
}

// maxEarlyMessage bounds a user message written to a CLI that is still
// starting: the CLI does not read its stdin yet, so the message must fit
// in the pipe's buffer (64 KiB on Linux) or the session goroutine would
// wait for the CLI's start-up.
const maxEarlyMessage = 32 << 10

// sendEarly writes t to the starting CLI (s.cli.early) if it is small
// enough; otherwise it stays queued until the CLI is up, and so do the
// prompts after it (earlyOpen).
func (s *session) sendEarly(t *turn) {
	if b, err := json.Marshal(t.msg.Content); err == nil && len(b) <= maxEarlyMessage {
		s.sendTo(s.cli.early, t)
	}
}

// unchangedSinceSpawn reports whether the session's settings are still
// those its starting CLI was spawned with.
func (s *session) unchangedSinceSpawn() bool {
	sp, now := s.cli.spawnedWith, s.conf.Opts
	return now.Model == sp.Model && now.Effort == sp.Effort && now.PermissionMode == sp.PermissionMode &&
		s.conf.FastWanted() == nil && s.conf.UltraWanted() == nil
}

func (s *session) onStarted(p *claude.Process, st *claude.AppliedSettings, err error) {
	s.cli.starting = false
	s.cli.early = nil
	s.tellStarted(err)
	if s.closed {
		if p != nil {
			go p.Terminate() // see startCLI: nothing sent to it may run
		}
		return
	}
	if err != nil {
		s.a.liveChanged(s, false)
		s.log.Warn("Claude Code did not start", "error", err)
		// Prompts withdrawn from it (sent early, then cancelled) went with
		// it: nothing cancelled is left in a CLI.
		clear(s.q.cancelledIDs)
		// Every prompt waiting for this CLI fails with the reason; the next
		// prompt tries again.
		for _, t := range slices.Clone(s.q.turns) { // settle edits s.q.turns
			s.settleStartFailure(t, err)
		}
		return
	}
	s.cli.proc, s.cli.msgs, s.cli.taken = p, p.Messages(), &takenFrames{p: p}
	s.cli.hibernated = false
	s.a.liveChanged(s, true)
	s.lastActive = time.Now() // hibernate.go
	s.fail.Started()
	if init := p.InitializeResponse(); init != nil {
		s.observeFastMode(init.FastModeState, init.Raw)
	}
	s.a.learnModels(p.InitializeResponse())
	s.afterStart(p, st) // config.go: pending settings, config and command lists
	s.sendQueued()      // turn.go: now, or once what holds them back is over
}

// onExit handles the CLI ending on its own: open turns fail with the
// reason, and the next prompt starts a new CLI that resumes the session.
func (s *session) onExit() {
	err := s.cli.proc.Err()
	s.cli.proc, s.cli.msgs = nil, nil
	s.a.liveChanged(s, false)
	s.tr.FlushHeld()                            // what it streamed last goes first
	s.tr.CLIGone()                              // its session-only jobs and its subagents died with it
	s.tr.SettleOpen(nil, "Claude Code exited.") // and its commands and tool calls
	s.setCurrent(nil)
	s.tr.Reset()
	if len(s.q.turns) > 0 {
		s.log.Warn("Claude Code exited during a turn", "error", err)
	}
	if len(s.q.turns) == 0 {
		s.fail.ExitIdle(err)
	}
	clear(s.q.cancelledIDs) // the next CLI never saw them

	for _, t := range slices.Clone(s.q.turns) { // settle edits s.q.turns
		if t.phase != turnQueued {
			s.settleLost(t, err)
		}
	}
	if len(s.q.turns) > 0 {
		s.startCLI() // prompts held back (holdSends) go to a new CLI
	}
	s.fail.Disarm()
}

// close stops the CLI and ends the session goroutine (session/close, the
// editor gone). Open turns end as cancelled. An idle CLI is closed the
// SDK's way (stdin EOF), so that its transcript is complete; a CLI with
// work of the session in flight is aborted (claude.Process.Abort:
// interrupt, SIGTERM, SIGKILL), so that nothing of that work runs after
// the close: Close would let the turn finish, tools and all. It is
// idempotent.
func (s *session) close() { s.stop(false) }

// terminate is close for an agent being stopped: the CLI gets no time to
// finish anything (claude.Process.Terminate).
func (s *session) terminate() { s.stop(true) }

func (s *session) stop(fast bool) {
	s.once.Do(func() {
		var p, retired *claude.Process
		inFlight := false
		s.do(func() {
			inFlight = s.inFlight()
			s.tr.SettleOpen(nil, "the session was closed") // agent/translate
			for _, t := range slices.Clone(s.q.turns) {    // settle edits s.q.turns
				s.q.settle(t, &acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil)
			}
			p, retired = s.detachCLIs()
			s.closed = true
		})
		var wg sync.WaitGroup
		stopCLI := func(p *claude.Process, working bool) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				switch {
				case fast:
					_ = p.Terminate()
				case working:
					_ = p.Abort()
				default:
					_ = p.Close()
				}
			}()
		}
		if p != nil {
			stopCLI(p, inFlight)
		}
		if retired != nil {
			stopCLI(retired, false) // a hibernated CLI still closing
		}
		wg.Wait()
		s.efs.close()
	})
	<-s.quit
	s.starts.Wait() // a CLI still starting is stopped too
}

// detachCLIs takes the session's CLIs (the running one and a hibernated
// one still closing) for the caller to stop, abandons a start in progress,
// and stops counting the session against the live cap (close, and a
// session stopped by a panic: crash.go).
func (s *session) detachCLIs() (p, retired *claude.Process) {
	p, retired = s.cli.proc, s.cli.retired
	s.cli.proc, s.cli.msgs, s.cli.retired = nil, nil, nil
	if s.cli.stopStart != nil {
		s.cli.stopStart()
	}
	s.a.liveChanged(s, false)
	return p, retired
}

// inFlight reports whether the session's CLI holds work of the session
// that has not ended: a prompt written to it (sent, running, cancelled but
// not yet over), an interrupt or a permission request open, a command or
// subagent running in the background.
func (s *session) inFlight() bool {
	return s.q.inFlight() || s.tr.Running()
}

func (a *connection) startupTimeout() time.Duration {
	if a.cfg.StartupTimeout > 0 {
		return a.cfg.StartupTimeout
	}
	return claude.DefaultStartupTimeout
}
