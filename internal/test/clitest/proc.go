package clitest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Frame is one NDJSON line the CLI wrote on stdout.
type Frame struct {
	Raw     json.RawMessage
	Type    string
	Subtype string
	Fields  map[string]any
}

// Proc is a CLI running in bidirectional stream-json mode
// (--output-format stream-json --verbose --input-format stream-json).
type Proc struct {
	Cmd *exec.Cmd

	stdin   io.WriteCloser
	writeMu sync.Mutex // one whole line per Write, never interleaved
	frames  chan Frame
	readErr error // set before frames is closed
	stderr  lockedBuffer

	closeOnce sync.Once
	waitErr   error
}

// StartStreamJSON starts the CLI in bidirectional stream-json mode with extra args and
// registers its shutdown with the test. Failure to start fails the test.
func (s *Sandbox) StartStreamJSON(ctx context.Context, t testing.TB, args ...string) *Proc {
	t.Helper()
	base := []string{"--output-format", "stream-json", "--verbose", "--input-format", "stream-json"}
	cmd := s.Command(ctx, t, append(base, args...)...)
	p := &Proc{Cmd: cmd, frames: make(chan Frame, 256)}
	cmd.Stderr = &p.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatalf("clitest: %v", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("clitest: %v", err)
	}
	p.stdin = stdin
	if err := cmd.Start(); err != nil {
		t.Fatalf("clitest: start CLI: %v", err)
	}
	go p.read(stdout)
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// read turns stdout lines into frames until EOF. Non-JSON lines are kept with an empty
// Type, because they are a protocol violation a test may want to see.
func (p *Proc) read(stdout io.Reader) {
	defer close(p.frames)
	br := bufio.NewReaderSize(stdout, 1<<16)
	for {
		line, err := br.ReadBytes('\n')
		if line = bytes.TrimSpace(line); len(line) > 0 {
			f := Frame{Raw: json.RawMessage(line)}
			if json.Unmarshal(line, &f.Fields) == nil {
				f.Type, _ = f.Fields["type"].(string)
				f.Subtype, _ = f.Fields["subtype"].(string)
			}
			p.frames <- f
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				p.readErr = err
			}
			return
		}
	}
}

// Send writes v as one JSON line on the CLI's stdin.
func (p *Proc) Send(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	_, err = p.stdin.Write(append(data, '\n'))
	return err
}

// SendUser writes a user message with plain text content.
func (p *Proc) SendUser(text string) error {
	return p.Send(map[string]any{"type": "user", "session_id": "", "parent_tool_use_id": nil,
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": text}}}})
}

// Next returns the next frame. At the end of stdout it returns io.EOF.
func (p *Proc) Next(ctx context.Context) (Frame, error) {
	select {
	case f, ok := <-p.frames:
		if !ok {
			if p.readErr != nil {
				return Frame{}, p.readErr
			}
			return Frame{}, io.EOF
		}
		return f, nil
	case <-ctx.Done():
		return Frame{}, ctx.Err()
	}
}

// ReadUntil reads frames up to and including the first one of type typ and returns them
// all. On EOF or ctx end it returns what it read with the error, plus the CLI's stderr.
func (p *Proc) ReadUntil(ctx context.Context, typ string) ([]Frame, error) {
	var out []Frame
	for {
		f, err := p.Next(ctx)
		if err != nil {
			return out, fmt.Errorf("waiting for %q: %w (stderr: %s)", typ, err, p.Stderr())
		}
		out = append(out, f)
		if f.Type == typ {
			return out, nil
		}
	}
}

// CloseStdin ends the input; an idle CLI then exits (0, or 1 after an error result).
func (p *Proc) CloseStdin() error {
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	return p.stdin.Close()
}

// Close shuts the CLI down the way the SDK does: close stdin, wait 2 s, SIGTERM the
// process group, wait 5 s, SIGKILL it. It drains unread frames and returns the Wait
// error (an *exec.ExitError for a non-zero exit). It is safe to call more than once.
func (p *Proc) Close() error {
	p.closeOnce.Do(func() {
		_ = p.CloseStdin()
		exited := make(chan struct{})
		go func() {
			for range p.frames { // unblock the reader so the process can finish writing
			}
			close(exited)
		}()
		waitc := make(chan error, 1)
		go func() {
			<-exited
			waitc <- p.Cmd.Wait()
		}()
		for _, step := range []struct {
			wait time.Duration
			sig  syscall.Signal
		}{{2 * time.Second, syscall.SIGTERM}, {5 * time.Second, syscall.SIGKILL}} {
			select {
			case p.waitErr = <-waitc:
				return
			case <-time.After(step.wait):
				SignalGroup(p.Cmd, step.sig)
			}
		}
		p.waitErr = <-waitc
	})
	return p.waitErr
}

// ExitCode is the exit status after Close, or -1 while running or when killed by a signal.
func (p *Proc) ExitCode() int {
	if p.Cmd.ProcessState == nil {
		return -1
	}
	return p.Cmd.ProcessState.ExitCode()
}

// Stderr returns what the CLI wrote on stderr so far.
func (p *Proc) Stderr() string { return p.stderr.String() }

// lockedBuffer is a bytes.Buffer safe for the copying goroutine and readers.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
