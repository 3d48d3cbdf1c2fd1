package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"time"

	"github.com/google/uuid"
)

// bareCLI is the Claude Code CLI driven directly over stream-json with no
// adapter: the baseline. Its reader does the least a client can, a
// prefix test per line.
type bareCLI struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader
	start  time.Time
	stderr *tail
	unkill func() bool // as adapter's
}

// startBare runs the CLI with the argv and the environment additions our
// adapter gives it (probeAgentCLI), in sandbox sb; the end of ctx kills
// its group, as startAdapter's.
func startBare(ctx context.Context, cli string, inv cliInvocation, sb *sandbox) (*bareCLI, error) {
	args := inv.argv()
	if inv.resume != "" {
		args = inv.resumeArgv(inv.resume)
	}
	cmd := exec.Command(cli, args...)
	cmd.Env = append(append([]string(nil), sb.env...), inv.env...)
	start := time.Now()
	p, err := startPiped(cmd, sb, 1<<20)
	if err != nil {
		return nil, err
	}
	b := &bareCLI{cmd: cmd, stdin: p.stdin, out: p.out, stderr: p.stderr, start: start,
		unkill: context.AfterFunc(ctx, func() { killGroup(cmd.Process.Pid) })}
	// The handshake every SDK client performs first, and the settings query
	// our adapter makes once the CLI is up.
	_, err = io.WriteString(b.stdin, `{"type":"control_request","request_id":"init","request":{"subtype":"initialize"}}`+"\n"+
		`{"type":"control_request","request_id":"settings","request":{"subtype":"get_settings"}}`+"\n")
	return b, err
}

var (
	streamEvent = []byte(`"type":"stream_event"`)
	textDelta   = []byte(`"text_delta"`)
)

// turn sends a user message and reads until its result.
func (b *bareCLI) turn(text string) (turn, error) {
	msg, _ := json.Marshal(map[string]any{"type": "user", "session_id": "", "parent_tool_use_id": nil, "uuid": uuid.NewString(),
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": text}}}})
	t := turn{sent: time.Now()}
	if _, err := b.stdin.Write(append(msg, '\n')); err != nil {
		return t, b.wrap(err)
	}
	for {
		line, err := b.readLine()
		if err != nil {
			return t, b.wrap(err)
		}
		if bytes.Contains(line, textDelta) && bytes.Contains(line, streamEvent) {
			if t.chunks == 0 {
				t.first = time.Now()
			}
			t.chunks++
			continue
		}
		var f struct{ Type, Subtype string }
		if json.Unmarshal(line, &f) != nil || f.Type != "result" {
			continue
		}
		t.done = time.Now()
		if f.Subtype != "success" {
			return t, b.wrap(fmt.Errorf("turn failed: %.300s", line))
		}
		if t.chunks == 0 {
			return t, b.wrap(errors.New("no text delta"))
		}
		return t, nil
	}
}

// readLine returns the next line; it is valid until the next call.
func (b *bareCLI) readLine() ([]byte, error) {
	line, err := b.out.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return line, err
	}
	long := append([]byte(nil), line...)
	for errors.Is(err, bufio.ErrBufferFull) {
		line, err = b.out.ReadSlice('\n')
		long = append(long, line...)
	}
	return long, err
}

func (b *bareCLI) wrap(err error) error {
	return fmt.Errorf("bare CLI: %w (stderr: %s)", err, b.stderr)
}

func (b *bareCLI) usage() (treeUsage, error) { return usageOf(b.cmd.Process.Pid) }

// close ends the CLI by closing its stdin, as the SDK does.
func (b *bareCLI) close(timeout time.Duration) {
	b.unkill()
	closeByStdin(b.cmd, b.stdin, b.out, timeout)
}

// closeByStdin ends a process the way an editor ends an agent and the SDK
// a CLI: stdin closed, its output drained until it exits, its group killed
// after timeout, and nothing it started left behind.
func closeByStdin(cmd *exec.Cmd, stdin io.Closer, out io.Reader, timeout time.Duration) {
	pid := cmd.Process.Pid
	before := descendants(pid)
	_ = stdin.Close()
	done := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, out); _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeout):
		killGroup(pid)
		<-done
	}
	killGroup(pid)
	killLeftovers(before)
}
