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
	"strconv"
	"time"
)

// leanClient is an ACP client that does the least a client can, for the
// session/load runs: it frames lines and looks at a few bytes of each
// (like the bare CLI's reader), instead of validating and decoding every
// notification as acp.Conn does. A replay of big tool results is a few
// hundred kilobytes of notifications per second, and a full decode of
// each would make the client, not the adapter, set the pace.
type leanClient struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader
	stderr *tail
	nextID int
	unkill func() bool // as adapter's
	// perLine, if set, is the client's own work on every line it reads,
	// before it reads the next (the slow reader, slow.go).
	perLine func(line []byte)
	// closeOut, if set, is closed once the adapter has exited: the read
	// end of its stdout, where exec does not own it (startSlow).
	closeOut io.Closer
}

// startLean starts argv as startAdapter does (the end of ctx kills its
// group), with the lean client.
func startLean(ctx context.Context, argv []string, sb *sandbox) (*leanClient, error) {
	return startLeanBuffered(ctx, argv, sb, 1<<20)
}

// startLeanBuffered is startLean reading through a buffer of bufSize bytes.
func startLeanBuffered(ctx context.Context, argv []string, sb *sandbox, bufSize int) (*leanClient, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = sb.env
	p, err := startPiped(cmd, sb, bufSize)
	if err != nil {
		return nil, err
	}
	return &leanClient{cmd: cmd, stdin: p.stdin, out: p.out, stderr: p.stderr,
		unkill: context.AfterFunc(ctx, func() { killGroup(cmd.Process.Pid) })}, nil
}

// piped is a child started by startPiped: its stdin, its stdout read
// through a large buffer, and the tail of its stderr.
type piped struct {
	stdin  io.WriteCloser
	out    *bufio.Reader
	stderr *tail
}

// startPiped starts cmd in sandbox sb's work directory and its own
// process group, with its standard streams piped and its stdout read
// through a buffer of bufSize bytes.
func startPiped(cmd *exec.Cmd, sb *sandbox, bufSize int) (piped, error) {
	cmd.Dir = sb.work
	setGroup(cmd)
	p := piped{stderr: &tail{max: 8 << 10}}
	cmd.Stderr = p.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return p, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return p, err
	}
	p.stdin, p.out = stdin, bufio.NewReaderSize(stdout, bufSize)
	return p, cmd.Start()
}

// leanUpdates is what a call saw before its answer.
type leanUpdates struct {
	n      int       // session/update notifications
	first  time.Time // arrival of the first session/update
	last   time.Time // arrival of the last history update (replayKinds)
	answer []byte    // the response
	// chunks counts the agent_message_chunk updates, the first of which
	// arrived at firstChunk.
	chunks     int
	firstChunk time.Time
}

var (
	sessionUpdateMethod = []byte(`"method":"session/update"`)
	sessionUpdateKind   = []byte(`"sessionUpdate":"`)
	methodKey           = []byte(`"method":`)
)

// call sends a request and reads until its answer, counting the
// session/update notifications on the way. Requests of the adapter are
// answered with method-not-found.
func (c *leanClient) call(method string, params any) (leanUpdates, error) {
	var seen leanUpdates
	c.nextID++
	id := c.nextID
	line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return seen, err
	}
	if _, err := c.stdin.Write(append(line, '\n')); err != nil {
		return seen, c.wrap(method, err)
	}
	idKey := []byte(`"id":` + strconv.Itoa(id) + `,`)
	idEnd := []byte(`"id":` + strconv.Itoa(id) + `}`)
	for {
		l, err := c.readLine()
		if err != nil {
			return seen, c.wrap(method, err)
		}
		if c.perLine != nil {
			c.perLine(l)
		}
		if bytes.Contains(l, sessionUpdateMethod) {
			now := time.Now()
			if seen.n == 0 {
				seen.first = now
			}
			seen.n++
			if i := bytes.Index(l, sessionUpdateKind); i >= 0 {
				kind := l[i+len(sessionUpdateKind):]
				j := bytes.IndexByte(kind, '"')
				if j >= 0 && replayKinds[string(kind[:j])] {
					seen.last = now
				}
				if j >= 0 && string(kind[:j]) == "agent_message_chunk" {
					if seen.chunks == 0 {
						seen.firstChunk = now
					}
					seen.chunks++
				}
			}
			continue
		}
		isResponse := !bytes.Contains(l, methodKey)
		if isResponse && (bytes.Contains(l, idKey) || bytes.Contains(l, idEnd)) {
			if bytes.Contains(l, []byte(`"error":`)) && !bytes.Contains(l, []byte(`"result":`)) {
				return seen, c.wrap(method, fmt.Errorf("error answer: %.300s", l))
			}
			seen.answer = append([]byte(nil), l...)
			return seen, nil
		}
		if !isResponse {
			c.refuse(l)
		}
	}
}

// refuse answers a request of the adapter with method-not-found.
func (c *leanClient) refuse(line []byte) {
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &req) != nil || len(req.ID) == 0 {
		return // a notification
	}
	resp := `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"error":{"code":-32601,"message":"method not found"}}` + "\n"
	_, _ = io.WriteString(c.stdin, resp)
}

func (c *leanClient) readLine() ([]byte, error) {
	line, err := c.out.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return line, err
	}
	long := append([]byte(nil), line...)
	for errors.Is(err, bufio.ErrBufferFull) {
		line, err = c.out.ReadSlice('\n')
		long = append(long, line...)
	}
	return long, err
}

func (c *leanClient) wrap(what string, err error) error {
	return fmt.Errorf("%s: %w (stderr: %s)", what, err, c.stderr)
}

// close ends the adapter as an editor does, by closing stdin.
func (c *leanClient) close(timeout time.Duration) {
	c.unkill()
	closeByStdin(c.cmd, c.stdin, c.out, timeout)
	if c.closeOut != nil {
		_ = c.closeOut.Close()
	}
}
