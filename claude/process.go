package claude

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"

	"github.com/claude-agent-acp/claude-agent-acp/internal/rawio"
)

// ErrExited is returned by calls on a process that has exited on its own.
// The error wraps the process's exit error when there is one.
var ErrExited = errors.New("claude: Claude Code process has exited")

// errKilled is returned by Close when the CLI ignored stdin EOF and SIGTERM.
var errKilled = errors.New("claude: Claude Code process did not exit after SIGTERM and was killed")

// A Process is one running Claude Code CLI. Its methods are safe for
// concurrent use. See the package documentation for the model.
type Process struct {
	opts Options
	log  *slog.Logger
	cmd  *exec.Cmd
	pid  int
	// lifeline is our end of the reaper's pipe (reaper.go): the CLI's
	// process group is killed when it closes. Nil without a reaper.
	lifeline *os.File

	// The CLI's standard streams: pipes to an executable, or a Child's
	// (child.go). outPipe and errFile are the pipes, for read deadlines
	// (and pauses: reader.go's paceDeltas); nil for a Child.
	stdin          io.WriteCloser
	stdout, stderr io.ReadCloser
	outPipe        *rawio.PipeReader
	errFile        *os.File
	pacing         atomic.Bool // the reader paces a streamed block (pace.go)
	tail           *tailBuffer
	// child is the CLI an Options.Launch started (nil: an executable).
	child Child

	// writeSem serialises writes to stdin so that every line goes out
	// whole: a half line kills the CLI.
	writeSem    chan struct{}
	stdinClosed atomic.Bool

	// ctx ends when the process has ended; callback contexts derive from it.
	ctx    context.Context
	cancel context.CancelFunc

	idPrefix string
	nextID   atomic.Uint64

	mu     sync.Mutex
	cond   *sync.Cond // signals changes of queue, pending, eof, draining, abandon
	queue  msgQueue
	queued int // bytes in queue
	// delivering is set while deliverLoop holds a frame it took from the
	// queue and has not handed over yet.
	delivering bool
	deliverSeq uint64 // frames deliverLoop took from the queue
	// written counts the frames deliver was given: what Messages (with
	// TryMessage) gives, in order, unless the process is abandoned.
	// CanUseToolRequest.FramesBefore is its value when the CLI asked.
	written  uint64
	eof      bool // the reader has finished; nothing more will be queued
	draining bool // shutting down: the reader ignores the queue bound
	abandon  bool // the owner stopped the process: drop undelivered messages
	pending  map[string]chan controlReply
	incoming map[string]context.CancelFunc
	results  []*ResultMessage // error results seen before initialize finished
	started  bool             // initialize succeeded: frames may be delivered
	initOver bool             // initialize has ended, either way
	err      error

	// aborting is closed (abortedTurn set) once the CLI has stopped its
	// turn after Abort's interrupt; nil unless Abort runs. Under mu.
	aborting    chan struct{}
	abortedTurn bool

	closing atomic.Bool // Close or Kill was called
	// stopping is set by the first Close, Terminate or Abort, which closes
	// stopped when it is done; later calls wait for stopped (a channel, not
	// a sync.Once: a goroutine waiting for another's shutdown then waits
	// on a channel, which testing/synctest counts as durably blocked).
	stopping  atomic.Bool
	stopped   chan struct{}
	closeErr  error
	abandonCh chan struct{}
	abandonMu sync.Once

	sigMu     sync.Mutex // guards reaped against signalling a reused group
	reaped    bool
	exitedNow atomic.Bool
	exited    chan struct{}
	waitErr   error
	exit      *exitStatus // set before exited is closed; nil if the wait failed

	stderrDone   chan struct{}
	done         chan struct{}
	out          chan Message
	deliveryDone chan struct{}
	bg           sync.WaitGroup // callbacks and cancel writers
	bgMu         sync.Mutex     // guards bgOver against bg.Add
	bgOver       bool           // the shutdown waits for bg: no new cancel writer

	initResp *InitializeResponse
	// initDone is closed once the initialize handshake has ended, either
	// way; initErr is then its *StartupError, or nil. initKilled says the
	// handshake's failure stopped the process (not the owner), so that Err
	// reports the startup failure.
	initDone   chan struct{}
	initErr    error
	initKilled atomic.Bool
	// removeMCPConfig removes the file that passed the MCP servers
	// (mcpconfig.go).
	removeMCPConfig func()
	// unlockSession releases the session's lock once the CLI has exited
	// (sessionlock.go).
	unlockSession func()
}

// Start runs the CLI with opts, performs the initialize handshake and
// returns the running process.
//
// ctx bounds only the startup: once Start has returned, cancelling ctx does
// not affect the process (end it with Close or Kill). This lets a caller
// pass a request-scoped context. Startup failures are *StartupError values
// that carry the CLI's own explanation (error result text, stderr tail).
func Start(ctx context.Context, opts Options) (*Process, error) {
	return start(ctx, opts, false)
}

// StartAsync is Start without the wait for the CLI's answer to initialize:
// it returns as soon as the CLI runs and the initialize request is written
// to its stdin. Whatever the caller writes next (a user message with Send,
// control requests) follows the initialize request on stdin, in order; the
// CLI reads its stdin when it is ready and handles the handshake first, so
// a prompt sent at once is answered as under Start, without the round trip
// of the handshake in front of it.
//
// The handshake goes on in the background, bounded by ctx and
// Options.StartupTimeout as in Start. [Process.Initialized] is closed when
// it has ended; [Process.WaitInitialized] returns its outcome. Frames the
// CLI writes meanwhile are held back from Messages until the handshake has
// succeeded (the CLI answers initialize before it streams anything, so this
// delays nothing). If the handshake fails, the process is killed, its
// frames are dropped, Messages is closed, and WaitInitialized and Err
// return the *StartupError, as Start would have.
//
// Errors that occur before the CLI runs (no executable, bad options) and a
// failure to write the initialize request are returned at once, as by
// Start.
func StartAsync(ctx context.Context, opts Options) (*Process, error) {
	return start(ctx, opts, true)
}

func start(ctx context.Context, opts Options, async bool) (*Process, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	exe := opts.Executable
	if exe == "" && opts.Launch == nil {
		var err error
		if exe, err = FindExecutable(); err != nil {
			return nil, err
		}
	}
	base := opts.Env
	if base == nil {
		base = os.Environ()
	}
	unlock, err := lockOwnSession(ctx, sessionLockPath(base, opts.lockedSession()))
	if err != nil {
		return nil, &StartupError{Reason: err}
	}
	if unlock == nil {
		unlock = func() {}
	}
	mcpConfig, removeMCPConfig, err := opts.mcpConfigFile()
	if err != nil {
		unlock()
		return nil, &StartupError{Err: err}
	}
	args, err := opts.args(mcpConfig)
	if err != nil {
		unlock()
		removeMCPConfig()
		return nil, err
	}
	var cmd *exec.Cmd
	var lifeline *os.File
	if opts.Launch == nil {
		cmd, lifeline, err = cliCommand(exe, args)
		if err != nil {
			unlock()
			removeMCPConfig()
			return nil, &StartupError{Err: fmt.Errorf("claude: cannot run the Claude Code CLI: %w", pathless(err))}
		}
		cmd.Dir = opts.Dir
		cmd.Env = opts.env(base)
	}

	p := &Process{
		opts:         opts,
		log:          opts.Logger,
		cmd:          cmd,
		lifeline:     lifeline,
		tail:         newTailBuffer(stderrTailSize),
		writeSem:     make(chan struct{}, 1),
		pending:      make(map[string]chan controlReply),
		incoming:     make(map[string]context.CancelFunc),
		abandonCh:    make(chan struct{}),
		exited:       make(chan struct{}),
		stderrDone:   make(chan struct{}),
		done:         make(chan struct{}),
		out:          make(chan Message),
		deliveryDone: make(chan struct{}),
		stopped:      make(chan struct{}),
		initDone:     make(chan struct{}),
		// The CLI has read its MCP configuration once it has answered
		// initialize: the file goes then, or when the start fails.
		removeMCPConfig: removeMCPConfig,
		unlockSession:   unlock,
	}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	p.cond = sync.NewCond(&p.mu)
	var idb [4]byte
	_, _ = rand.Read(idb[:])
	p.idPrefix = hex.EncodeToString(idb[:])

	if opts.Launch != nil {
		err = p.launchChild(exe, args, opts.env(base))
	} else {
		err = p.startCmd()
	}
	if err != nil {
		p.closeLifeline()
		removeMCPConfig()
		unlock()
		return nil, &StartupError{Err: fmt.Errorf("claude: cannot run the Claude Code CLI: %w", pathless(err))}
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	if p.child != nil {
		go p.waitChild()
	} else {
		go p.waitLoop()
	}
	go p.stderrLoop()
	go p.readLoop()
	go p.deliverLoop()

	if err := p.initialize(ctx, async); err != nil {
		return nil, err
	}
	return p, nil
}

// startCmd creates the three pipes and starts the command. We make the
// pipes ourselves instead of using exec's StdoutPipe so that exec.Cmd.Wait
// never closes a pipe we are still reading.
func (p *Process) startCmd() (err error) {
	var closers []*os.File
	defer func() {
		for _, f := range closers {
			f.Close()
		}
	}()
	inR, inW, err := os.Pipe()
	if err != nil {
		return err
	}
	outR, outW, err := rawio.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return err
	}
	// The child's ends are closed in the parent whatever happens.
	closers = append(closers, inR, outW, errW)
	closers = append(closers, p.cmd.ExtraFiles...) // the reaper's end of the lifeline
	p.cmd.Stdin, p.cmd.Stdout, p.cmd.Stderr = inR, outW, errW
	if err := startProcess(p.cmd); err != nil {
		closers = append(closers, inW, errR)
		outR.Close()
		return err
	}
	p.pid = p.cmd.Process.Pid
	p.stdin, p.stdout, p.stderr = inW, outR, errR
	p.outPipe, p.errFile = outR, errR
	return nil
}

// initialize performs the handshake and turns every failure into a
// *StartupError after stopping the process. With async it returns once the
// request is written and settles the handshake in the background.
func (p *Process) initialize(ctx context.Context, async bool) error {
	timeout := p.opts.StartupTimeout
	if timeout <= 0 {
		timeout = DefaultStartupTimeout
	}
	ictx, cancel := context.WithTimeoutCause(ctx, timeout, ErrStartupTimeout)
	call, err := p.Begin(ictx, "initialize", p.opts.initializeRequest())
	if err != nil {
		defer cancel()
		return p.settleInit(ctx, ictx, nil, err)
	}
	if !async {
		defer cancel()
		raw, err := call.Wait(ictx)
		return p.settleInit(ctx, ictx, raw, err)
	}
	go func() {
		defer cancel()
		raw, err := call.Wait(ictx)
		_ = p.settleInit(ctx, ictx, raw, err)
	}()
	return nil
}

// settleInit records the outcome of the handshake and closes initDone.
func (p *Process) settleInit(ctx, ictx context.Context, raw json.RawMessage, err error) error {
	defer close(p.initDone)
	p.removeMCPConfig() // read by now (mcpconfig.go)
	if err == nil {
		resp := &InitializeResponse{Raw: raw}
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, resp); err != nil {
				p.log.Debug("claude: initialize response did not fully decode", "err", err)
			}
		}
		p.mu.Lock()
		p.initResp = resp
		p.started = true
		p.initOver = true
		p.results = nil
		p.cond.Broadcast() // deliverLoop holds frames back until now
		p.mu.Unlock()
		return nil
	}

	se := &StartupError{}
	switch {
	case errors.Is(err, ErrExited):
		// The CLI exited: its exit status, error result and stderr say why.
		<-p.done
		se.Err = p.Err()
		if se.Err == nil {
			se.Err = errors.New("claude: the CLI exited before answering initialize")
		}
	case errors.Is(context.Cause(ictx), ErrStartupTimeout) && ctx.Err() == nil:
		se.Reason = ErrStartupTimeout
	case ctx.Err() != nil:
		se.Err = context.Cause(ctx)
	default:
		se.Err = err // for example a *ControlError
	}
	p.initKilled.Store(!p.closing.Load())
	p.kill()
	p.mu.Lock()
	for _, r := range p.results {
		se.Errors = append(se.Errors, r.Errors...)
		if r.StartupFailureReason != "" {
			se.FailureReason = r.StartupFailureReason
		}
	}
	se.Stderr = p.tail.String()
	if se.Reason == nil {
		se.Reason = classifyStartup(se.FailureReason, se.Errors, se.Stderr)
	}
	p.initErr = se
	p.initOver = true
	p.cond.Broadcast()
	p.mu.Unlock()
	return se
}

// Initialized returns a channel that is closed once the initialize
// handshake has ended, successfully or not (at once for a Process from
// Start). InitializeResponse and InitErr are final then.
func (p *Process) Initialized() <-chan struct{} { return p.initDone }

// InitErr returns the *StartupError the initialize handshake failed with;
// nil while it runs and after it succeeded.
func (p *Process) InitErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.initErr
}

// WaitInitialized waits for the initialize handshake of a Process from
// StartAsync and returns the CLI's answer, or the *StartupError it failed
// with. ctx bounds only this wait, not the handshake.
func (p *Process) WaitInitialized(ctx context.Context) (*InitializeResponse, error) {
	select {
	case <-p.initDone:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if err := p.InitErr(); err != nil {
		return nil, err
	}
	return p.InitializeResponse(), nil
}

// pathless leaves the path out of a start error's message (it may be
// private); the caller knows which executable it asked for.
func pathless(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
}

func (p *Process) closeLifeline() {
	if p.lifeline != nil {
		_ = p.lifeline.Close()
	}
}

// PID returns the id of the CLI's process group: the CLI's own pid, or the
// reaper's when the CLI runs under one (reaper.go).
func (p *Process) PID() int { return p.pid }

// InitializeResponse returns the CLI's answer to initialize.
func (p *Process) InitializeResponse() *InitializeResponse {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.initResp
}

// Messages returns the frames the CLI writes, in wire order. The channel is
// unbuffered: a consumer that does not receive slows the reading of the
// CLI's output (and so the CLI) down, and nothing is ever dropped while the
// process runs. It is closed after the process has ended and every frame has
// been received, or when Close or Kill has stopped the process; Err then
// says why the process ended.
func (p *Process) Messages() <-chan Message { return p.out }

// Done returns a channel that is closed when the process has ended and all
// its output has been read. Err is final then.
func (p *Process) Done() <-chan struct{} { return p.done }

// Wait waits for the process to end and returns Err.
func (p *Process) Wait() error {
	<-p.done
	return p.Err()
}

// Err returns why the process ended: nil while it runs and after a clean
// exit with status 0, ErrClosed when Close or Kill ended it, an *ExitError
// (with the stderr tail) when it failed on its own, and the *StartupError
// when the initialize handshake of StartAsync failed.
func (p *Process) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.initKilled.Load() && p.initErr != nil {
		return p.initErr
	}
	return p.err
}
