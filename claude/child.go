package claude

import (
	"io"
	"os"
	"sync/atomic"
	"syscall"
)

// A Launcher starts the CLI for a Process instead of running an
// executable. Tests run a fake CLI in this process with one, so that whole
// sessions run in memory, under testing/synctest and in its fake time. The
// Process treats what it returns like the child it would have started: it
// writes its stdin, reads its stdout and stderr, signals it (SIGTERM and
// SIGKILL, which for a real CLI go to its process group) and waits for its
// exit. There is no reaper: a Child ends with the program.
type Launcher func(cmd Command) (Child, error)

// Command is what a Process would have run.
type Command struct {
	Path string   // the executable (Options.Executable, possibly empty)
	Args []string // the arguments, without the executable
	Env  []string // the complete environment
	Dir  string   // the working directory
}

// A Child is a running CLI started by a [Launcher].
type Child interface {
	Stdin() io.WriteCloser
	Stdout() io.ReadCloser
	Stderr() io.ReadCloser
	// Signal delivers SIGTERM or SIGKILL.
	Signal(sig syscall.Signal)
	// Wait waits for the exit and returns its status: the exit code, or
	// the signal that ended it (then code is -1).
	Wait() (code int, sig syscall.Signal)
}

// exitStatus is how the CLI ended, whichever way it was started.
type exitStatus struct {
	code int
	sig  syscall.Signal // non-zero: killed by it
}

func (e exitStatus) success() bool { return e.sig == 0 && e.code == 0 }

// exitStatusOf reads an exec'd process's exit.
func exitStatusOf(st *os.ProcessState) exitStatus {
	e := exitStatus{code: st.ExitCode()}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		e.sig = ws.Signal()
	}
	return e
}

// launchChild starts the CLI through opts.Launch and wires its streams.
func (p *Process) launchChild(exe string, args, env []string) error {
	c, err := p.opts.Launch(Command{Path: exe, Args: args, Env: env, Dir: p.opts.Dir})
	if err != nil {
		return err
	}
	p.child = c
	p.stdin, p.stdout, p.stderr = c.Stdin(), c.Stdout(), c.Stderr()
	p.pid = int(fakePIDs.Add(1))
	return nil
}

// waitChild is waitLoop for a launched Child.
func (p *Process) waitChild() {
	code, sig := p.child.Wait()
	p.unlockSession() // the session can be resumed elsewhere (sessionlock.go)
	p.sigMu.Lock()
	p.reaped = true
	p.sigMu.Unlock()
	p.exit = &exitStatus{code: code, sig: sig}
	p.exitedNow.Store(true)
	close(p.exited)
}

// fakePIDs numbers the Children of this program (PID has no meaning for
// them; negative, so that nothing mistakes one for a process).
var fakePIDs atomic.Int64

func init() { fakePIDs.Store(-1 << 20) }
