package claude

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"syscall"
	"time"
)

// Shutdown timings of [Process.Close], the TypeScript SDK's values;
// Options.CloseGrace and TermGrace change them.
const (
	defaultCloseGrace = 2 * time.Second // after closing stdin, before SIGTERM
	defaultTermGrace  = 5 * time.Second // after SIGTERM, before SIGKILL
)

// Close stops the process the way the SDK does: close stdin and wait 2 s for
// the CLI to exit (it finishes a running turn first), then SIGTERM and wait
// 5 s, then SIGKILL — always to the whole process group. It returns once the
// process has ended, all goroutines of the Process are done, and the
// Messages channel is closed; frames not yet received by then are dropped.
// Callbacks must return when their context ends, or Close waits for them.
// Close returns an error only when the CLI had to be killed.
func (p *Process) Close() error {
	p.stopOnce(func() {
		p.beginShutdown()
		p.closeStdin()
		if !p.waitExit(cmp.Or(p.opts.CloseGrace, defaultCloseGrace)) {
			p.signal(syscall.SIGTERM)
			if !p.waitExit(cmp.Or(p.opts.TermGrace, defaultTermGrace)) {
				p.signal(syscall.SIGKILL)
				p.closeErr = errKilled
			}
		}
		p.finishShutdown()
	})
	<-p.initDone
	return p.closeErr
}

// Terminate stops the process now, for an agent that is itself being
// stopped: SIGTERM to the group (the CLI interrupts its turn and saves its
// transcript), SIGKILL after terminateGrace. Like Close it returns once
// everything has shut down; it never lets a running turn finish.
func (p *Process) Terminate() error {
	p.stopOnce(func() {
		p.beginShutdown()
		p.signal(syscall.SIGTERM)
		if !p.waitExit(terminateGrace) {
			p.signal(syscall.SIGKILL)
		}
		p.finishShutdown()
	})
	<-p.initDone
	return nil
}

// stopOnce runs the first shutdown; the others wait for it to be done.
func (p *Process) stopOnce(stop func()) {
	if !p.stopping.CompareAndSwap(false, true) {
		<-p.stopped
		return
	}
	defer close(p.stopped)
	stop()
}

// terminateGrace is how long Terminate lets the CLI handle SIGTERM; an
// editor that stops us expects us gone in well under a second.
const terminateGrace = 200 * time.Millisecond

// Abort stops the process for an owner that abandons the work under way
// (a session closed, or an editor gone, while a turn runs): nothing that
// work was about to do may happen, neither a tool call nor another model
// request. Close would let the turn finish; Abort asks the CLI to
// interrupt its turn first, so that it aborts the model request in flight
// and records the interruption in its transcript, then ends it with
// SIGTERM once it has (its result, or its session going idle) or after
// abortGrace, whichever comes first, and SIGKILL after terminateGrace.
// Like Close it returns once everything has shut down.
func (p *Process) Abort() error {
	p.stopOnce(func() {
		p.mu.Lock()
		p.aborting = make(chan struct{})
		quiet := p.aborting
		p.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), abortGrace)
		if call, err := p.Begin(ctx, "interrupt", nil); err == nil {
			waited := make(chan struct{})
			go func() { // the answer itself says nothing
				defer close(waited)
				_, _ = call.Wait(ctx)
			}()
			select {
			case <-quiet:
			case <-p.exited:
			case <-ctx.Done():
			}
			cancel()
			<-waited // its withdrawal, if any, is written before the shutdown waits for writers
		}
		cancel()
		p.beginShutdown()
		p.signal(syscall.SIGTERM)
		if !p.waitExit(terminateGrace) {
			p.signal(syscall.SIGKILL)
		}
		p.finishShutdown()
	})
	<-p.initDone
	return nil
}

// abortGrace bounds how long Abort waits for the CLI to interrupt its turn
// before SIGTERM: the CLI does it in a few milliseconds, and session/close
// is to be answered within 200 ms.
const abortGrace = 100 * time.Millisecond

// noteQuiet runs for every frame the reader delivers: while Abort waits
// for the CLI to stop its turn, a result or an idle session ends the wait.
func (p *Process) noteQuiet(m Message) {
	if p.aborting == nil {
		return
	}
	quiet := false
	switch b := m.Body.(type) {
	case *ResultMessage:
		quiet = true
	case *SessionStateChanged:
		quiet = b.State == StateIdle
	}
	if quiet && !p.abortedTurn {
		p.abortedTurn = true
		close(p.aborting)
	}
}

// Kill stops the process group at once with SIGKILL and, like Close, returns
// once everything has shut down.
func (p *Process) Kill() error {
	p.kill()
	<-p.initDone // a handshake in the background has ended too
	return nil
}

func (p *Process) kill() {
	p.beginShutdown()
	p.signal(syscall.SIGKILL)
	p.finishShutdown()
}

func (p *Process) beginShutdown() {
	p.closing.Store(true)
	p.mu.Lock()
	p.draining = true
	p.cond.Broadcast()
	p.mu.Unlock()
}

func (p *Process) finishShutdown() {
	<-p.exited
	p.closeStdin()
	<-p.done
	p.stopDelivery()
	<-p.deliveryDone
	p.bgMu.Lock()
	p.bgOver = true // no cancel writer starts after this: Add must not race Wait
	p.bgMu.Unlock()
	p.bg.Wait()
}

// stopDelivery makes the delivery goroutine drop what is left and close the
// Messages channel, so that no goroutine waits for a consumer that is gone.
func (p *Process) stopDelivery() {
	p.abandonMu.Do(func() {
		p.mu.Lock()
		p.abandon = true
		p.cond.Broadcast()
		p.mu.Unlock()
		close(p.abandonCh)
	})
}

func (p *Process) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// signal sends sig to the process group unless the leader has been reaped
// (after which the group id could belong to someone else).
func (p *Process) signal(sig syscall.Signal) {
	p.sigMu.Lock()
	defer p.sigMu.Unlock()
	switch {
	case p.reaped:
	case p.child != nil:
		p.child.Signal(sig)
	default:
		signalGroup(p.pid, sig)
	}
}

func (p *Process) closeStdin() {
	if p.stdinClosed.CompareAndSwap(false, true) {
		p.stdin.Close()
	}
}

// waitLoop waits for the CLI to exit, kills what is left of its process
// group, reaps it, and bounds how long the readers wait for EOF afterwards.
func (p *Process) waitLoop() {
	if err := waitExited(p.pid); err == nil {
		p.sigMu.Lock()
		signalGroup(p.pid, syscall.SIGKILL)
		p.reaped = true
		p.sigMu.Unlock()
		p.waitErr = p.cmd.Wait()
	} else {
		p.waitErr = p.cmd.Wait()
		p.sigMu.Lock()
		signalGroup(p.pid, syscall.SIGKILL)
		p.reaped = true
		p.sigMu.Unlock()
	}
	p.closeLifeline() // its reaper is gone too
	p.unlockSession() // the session can be resumed elsewhere (sessionlock.go)
	if st := p.cmd.ProcessState; st != nil {
		e := exitStatusOf(st)
		p.exit = &e
	}
	p.exitedNow.Store(true)
	// A descendant that left the group could keep our pipes open forever;
	// once the CLI is gone, stop reading after a quiet moment.
	deadline := time.Now().Add(exitReadGrace)
	if p.outPipe != nil {
		_ = p.outPipe.SetReadDeadline(deadline)
	}
	_ = p.errFile.SetReadDeadline(deadline)
	close(p.exited)
}

// exitReadGrace is how long the readers keep waiting for more output after
// the CLI has exited, when the pipe is empty.
const exitReadGrace = 500 * time.Millisecond

// afterExitReader refreshes the read deadline before each read once the
// process has exited, so buffered output is always read in full but an
// empty pipe held open by a stray descendant ends the read.
type afterExitReader struct {
	f      deadliner // nil for a Child's stream, which ends with the Child
	r      io.Reader // f, or its raw reader (internal/rawio)
	exited *atomic.Bool
}

// A deadliner is a pipe with read deadlines: an *os.File or a
// *rawio.PipeReader.
type deadliner interface{ SetReadDeadline(time.Time) error }

func (r afterExitReader) Read(b []byte) (int, error) {
	if r.f != nil && r.exited.Load() {
		_ = r.f.SetReadDeadline(time.Now().Add(exitReadGrace))
	}
	n, err := r.r.Read(b)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = io.EOF
	}
	return n, err
}

func (p *Process) stderrLoop() {
	defer close(p.stderrDone)
	defer p.stderr.Close()
	var w io.Writer = p.tail
	if p.opts.Stderr != nil {
		w = io.MultiWriter(p.tail, p.opts.Stderr)
	}
	buf := make([]byte, 32<<10)
	r := afterExitReader{r: p.stderr, exited: &p.exitedNow}
	if p.errFile != nil {
		r.f = p.errFile
	}
	for {
		n, err := r.Read(buf)
		if n > 0 {
			_, _ = w.Write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// finish runs when stdout is at EOF: it records why the process ended,
// fails the pending requests and ends the callback contexts.
func (p *Process) finish() {
	<-p.stderrDone
	<-p.exited
	err := p.exitError()
	p.mu.Lock()
	p.err = err
	p.eof = true
	pending := p.pending
	p.pending = nil
	p.cond.Broadcast()
	p.mu.Unlock()
	for _, ch := range pending {
		ch <- controlReply{err: p.deadError()}
	}
	p.cancel()
	close(p.done)
}

func (p *Process) exitError() error {
	if p.closing.Load() {
		return ErrClosed
	}
	st := p.exit
	if st == nil {
		return fmt.Errorf("claude: waiting for the CLI: %w", p.waitErr)
	}
	if st.success() {
		return nil
	}
	return &ExitError{ExitCode: st.code, Signal: st.sig, Stderr: p.tail.String()}
}

// deadError is the error for a call on a process that has ended.
func (p *Process) deadError() error {
	if p.initKilled.Load() {
		// StartAsync's handshake failed and stopped the process.
		return fmt.Errorf("%w: %w", ErrExited, p.Err())
	}
	if p.closing.Load() {
		return ErrClosed
	}
	p.mu.Lock()
	err := p.err
	p.mu.Unlock()
	if err != nil && err != ErrClosed {
		return fmt.Errorf("%w: %w", ErrExited, err)
	}
	return ErrExited
}
