// Package clitape tapes a real CLI's run (Taping) for internal/test/clifake to play back
// to another agent (clifake.Replay). It is apart from clitest, which the
// claude package's own tests import, because it imports claude.
package clitape

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/claude"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
)

// A Tape is what crossed a real CLI's stdin and stdout, line by line: a
// line the agent wrote is taped as it writes it, before the CLI can read
// it, and a line of the CLI's as soon as it comes out of the CLI's pipe,
// before the agent can read it. So a line the agent wrote after reading
// one of the CLI's comes after it on the tape, and a line the CLI wrote
// after reading one of the agent's too: the tape keeps every cause before
// its effect. internal/test/clifake plays one back (clifake.Replay).
type Tape struct {
	mu     sync.Mutex
	lines  []TapeLine
	stderr bytes.Buffer
	cmd    claude.Command
	start  time.Time
	done   chan struct{} // closed when the CLI has exited and its output is taped
}

// A TapeLine is one line of a Tape, without its newline.
type TapeLine struct {
	FromCLI bool // the CLI wrote it (else the agent did)
	Line    string
	// EOF marks where the agent closed the CLI's stdin (Line is empty).
	EOF bool
	// At is when it was taped, from the CLI's start.
	At time.Duration
}

// Lines returns the tape so far.
func (tp *Tape) Lines() []TapeLine {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return append([]TapeLine(nil), tp.lines...)
}

// Stderr is what the CLI wrote on stderr.
func (tp *Tape) Stderr() string {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return tp.stderr.String()
}

// Wait waits until the taped CLI has exited and all its output is on the
// tape; false if none was started.
func (tp *Tape) Wait() bool {
	tp.mu.Lock()
	done := tp.done
	tp.mu.Unlock()
	if done == nil {
		return false
	}
	<-done
	return true
}

// Command is what the CLI was run with.
func (tp *Tape) Command() claude.Command {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return tp.cmd
}

func (tp *Tape) add(l TapeLine) {
	tp.mu.Lock()
	l.At = time.Since(tp.start)
	tp.lines = append(tp.lines, l)
	tp.mu.Unlock()
}

// Taping returns a claude.Launcher (agent.Config.Launch) that runs the real
// CLI as the agent would (cmd.Path with its arguments, environment and
// directory, in a process group of its own) and tapes its run on tp. It
// is for one CLI: a second start panics.
func Taping(tp *Tape) claude.Launcher {
	started := false
	var mu sync.Mutex
	return func(cmd claude.Command) (claude.Child, error) {
		mu.Lock()
		defer mu.Unlock()
		if started {
			panic("clitape: Taping tapes one CLI; the agent started a second")
		}
		started = true
		c := exec.Command(cmd.Path, cmd.Args...)
		c.Env, c.Dir = cmd.Env, cmd.Dir
		clitest.SetGroup(c)
		inR, inW, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		outR, outW, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		errR, errW, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		c.Stdin, c.Stdout, c.Stderr = inR, outW, errW
		tp.mu.Lock()
		tp.cmd, tp.start = cmd, time.Now()
		tp.mu.Unlock()
		err = c.Start()
		for _, f := range []*os.File{inR, outW, errW} {
			_ = f.Close()
		}
		if err != nil {
			_, _, _ = inW.Close(), outR.Close(), errR.Close()
			return nil, err
		}
		done := make(chan struct{})
		tp.mu.Lock()
		tp.done = done
		tp.mu.Unlock()
		ch := &tapedChild{cmd: c, tp: tp, done: make(chan struct{})}
		ch.in = &lineTap{w: inW, tp: tp}
		// stdout and stderr are read here as they come (stdout taped line
		// by line), and handed on through pipes of the same size.
		ch.outR, ch.errR = copied(outR, (&lineTap{tp: tp, fromCLI: true}).tape), copied(errR, tp.addStderr)
		go func() {
			_ = c.Wait()
			close(ch.done)
			<-ch.outR.copied
			<-ch.errR.copied
			close(done)
		}()
		return ch, nil
	}
}

func (tp *Tape) addStderr(b []byte) {
	tp.mu.Lock()
	tp.stderr.Write(b)
	tp.mu.Unlock()
}

// copiedReader is the agent's end of a CLI stream copied by copied.
type copiedReader struct {
	*os.File
	copied chan struct{} // closed when the CLI's end reached EOF
}

// copied reads r until EOF, passing each piece to tape, and writes it
// on to the pipe the agent reads.
func copied(r *os.File, tape func([]byte)) copiedReader {
	pr, pw, err := os.Pipe()
	if err != nil {
		panic(err)
	}
	cr := copiedReader{File: pr, copied: make(chan struct{})}
	go func() {
		defer close(cr.copied)
		defer r.Close()
		defer pw.Close()
		buf := make([]byte, 64<<10)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				tape(buf[:n])
				_, _ = pw.Write(buf[:n]) // fails once the agent closed its end: read on
			}
			if err != nil {
				return
			}
		}
	}()
	return cr
}

type tapedChild struct {
	cmd        *exec.Cmd
	tp         *Tape
	in         *lineTap
	outR, errR copiedReader
	done       chan struct{}
}

func (c *tapedChild) Stdin() io.WriteCloser   { return c.in }
func (c *tapedChild) Stdout() io.ReadCloser   { return c.outR }
func (c *tapedChild) Stderr() io.ReadCloser   { return c.errR }
func (c *tapedChild) Signal(s syscall.Signal) { clitest.SignalGroup(c.cmd, s) }

func (c *tapedChild) Wait() (int, syscall.Signal) {
	<-c.done
	st := c.cmd.ProcessState
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, ws.Signal()
	}
	return st.ExitCode(), 0
}

// lineTap tapes the lines the agent writes to the CLI, or (tape) the
// CLI writes.
type lineTap struct {
	w       io.WriteCloser
	tp      *Tape
	fromCLI bool
	mu      sync.Mutex
	partial []byte
}

func (l *lineTap) Write(p []byte) (int, error) {
	l.tape(p) // before the CLI can read it, and so answer it
	return l.w.Write(p)
}

func (l *lineTap) tape(p []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			return
		}
		if line := bytes.TrimSpace(l.partial[:i]); len(line) > 0 {
			l.tp.add(TapeLine{FromCLI: l.fromCLI, Line: string(line)})
		}
		l.partial = l.partial[i+1:]
	}
}

// Close closes the CLI's stdin: the tape marks it.
func (l *lineTap) Close() error {
	l.tp.add(TapeLine{EOF: true})
	return l.w.Close()
}

// NewTape is a tape of a run that cmd made, with lines, for tests of what
// plays tapes back.
func NewTape(cmd claude.Command, lines ...TapeLine) *Tape {
	done := make(chan struct{})
	close(done)
	return &Tape{lines: lines, cmd: cmd, done: done}
}
