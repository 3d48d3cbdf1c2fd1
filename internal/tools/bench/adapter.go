package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
)

// adapter is one running adapter process and the scripted ACP client that
// drives it over its stdio.
type adapter struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	conn   *acp.Conn
	start  time.Time
	stderr *tail

	unkill func() bool // stops the kill of the group when the run's context ends

	mu       sync.Mutex
	sessions map[string]*chunkCount
	updates  map[string]int // session/update notifications by session
}

// replayKinds are the session/update kinds a replay is made of: the
// conversation itself, not the command list or title an adapter sends when
// its CLI is up.
var replayKinds = map[string]bool{
	"user_message_chunk": true, "agent_message_chunk": true, "agent_thought_chunk": true,
	"tool_call": true, "tool_call_update": true, "plan": true,
}

// chunkCount tracks the agent_message_chunk updates of one session's turn.
type chunkCount struct {
	n           int
	first, last time.Time
}

// startAdapter runs argv in the sandbox, in its own process group, and
// connects the client. The start time is taken right before the fork. The
// end of ctx kills the group (a stuck adapter fails its run instead of
// hanging the harness); close ends that.
func startAdapter(ctx context.Context, argv []string, sb *sandbox) (*adapter, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = sb.env
	cmd.Dir = sb.work
	setGroup(cmd)
	a := &adapter{cmd: cmd, stderr: &tail{max: 8 << 10}, sessions: map[string]*chunkCount{}, updates: map[string]int{}}
	cmd.Stderr = a.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	a.stdin = stdin
	a.start = time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	a.unkill = context.AfterFunc(ctx, func() { killGroup(cmd.Process.Pid) })
	a.conn = acp.NewConn(stdout, stdin, acp.Options{Handler: acp.HandlerFunc(a.handle)})
	return a, nil
}

// update is the part of a session/update the client looks at; decoding
// only this keeps the client's own cost per chunk small and equal for both
// adapters.
type update struct {
	SessionID string `json:"sessionId"`
	Update    struct {
		Kind string `json:"sessionUpdate"`
	} `json:"update"`
}

// scanUpdate finds the session id and the update kind of a session/update
// by a byte search, the least a client can do (the bare CLI's reader does
// as little), and decodes the params only when that fails: at 20,000 chunks
// a turn, a full decode per chunk would make the client, not the adapter,
// set the pace of the streaming turn.
func scanUpdate(params []byte) (update, bool) {
	var u update
	field := func(key string) (string, bool) {
		i := bytes.Index(params, []byte(key))
		if i < 0 {
			return "", false
		}
		rest := params[i+len(key):]
		j := bytes.IndexByte(rest, '"')
		if j < 0 || bytes.IndexByte(rest[:j], '\\') >= 0 {
			return "", false
		}
		return string(rest[:j]), true
	}
	sid, ok1 := field(`"sessionId":"`)
	kind, ok2 := field(`"sessionUpdate":"`)
	if ok1 && ok2 {
		u.SessionID, u.Update.Kind = sid, kind
		return u, true
	}
	return u, json.Unmarshal(params, &u) == nil
}

func (a *adapter) handle(ctx context.Context, req *acp.Request) (any, error) {
	switch req.Method {
	case acp.MethodSessionUpdate:
		now := time.Now()
		u, ok := scanUpdate(req.Params)
		if !ok {
			return nil, nil
		}
		a.mu.Lock()
		a.updates[u.SessionID]++
		if u.Update.Kind != "agent_message_chunk" {
			a.mu.Unlock()
			return nil, nil
		}
		c := a.sessions[u.SessionID]
		if c == nil {
			c = &chunkCount{}
			a.sessions[u.SessionID] = c
		}
		if c.n == 0 {
			c.first = now
		}
		c.n++
		c.last = now
		a.mu.Unlock()
		return nil, nil
	case acp.MethodSessionRequestPermission:
		var p acp.RequestPermissionRequest
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, err
		}
		for _, o := range p.Options {
			if o.Kind == acp.PermissionOptionKindAllowOnce {
				return &acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{
					Selected: &acp.SelectedPermissionOutcome{OptionID: o.OptionID}}}, nil
			}
		}
		return &acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{
			Cancelled: &acp.RequestPermissionOutcomeCancelled{}}}, nil
	}
	if req.IsNotification() {
		return nil, nil
	}
	return nil, acp.NewMethodNotFound(req.Method)
}

// initialize sends initialize and returns the time since process start.
func (a *adapter) initialize(ctx context.Context) (time.Duration, error) {
	var resp acp.InitializeResponse
	err := a.conn.Call(ctx, acp.MethodInitialize, &acp.InitializeRequest{ProtocolVersion: 1}, &resp)
	return time.Since(a.start), a.wrap("initialize", err)
}

// newSession opens a session in dir.
func (a *adapter) newSession(ctx context.Context, dir string) (string, error) {
	var resp acp.NewSessionResponse
	err := a.conn.Call(ctx, acp.MethodSessionNew, &acp.NewSessionRequest{Cwd: dir, MCPServers: []acp.MCPServer{}}, &resp)
	return string(resp.SessionID), a.wrap("session/new", err)
}

// turn is the timing of one prompt.
type turn struct {
	sent, first, done time.Time
	chunks            int
}

func (t turn) toFirst() time.Duration { return t.first.Sub(t.sent) }
func (t turn) toDone() time.Duration  { return t.done.Sub(t.sent) }

// prompt sends one text prompt and waits for its answer. The connection
// delivers every notification sent before the answer first, so the chunk
// count is complete when Call returns.
func (a *adapter) prompt(ctx context.Context, sid, text string) (turn, error) {
	a.mu.Lock()
	a.sessions[sid] = &chunkCount{}
	a.mu.Unlock()
	req := &acp.PromptRequest{SessionID: acp.SessionID(sid), Prompt: []acp.ContentBlock{{Text: &acp.TextContent{Text: text}}}}
	var resp acp.PromptResponse
	t := turn{sent: time.Now()}
	err := a.conn.Call(ctx, acp.MethodSessionPrompt, req, &resp)
	t.done = time.Now()
	if err == nil && resp.StopReason != acp.StopReasonEndTurn {
		err = fmt.Errorf("stop reason %q", resp.StopReason)
	}
	a.mu.Lock()
	c := a.sessions[sid]
	t.first, t.chunks = c.first, c.n
	a.mu.Unlock()
	if err == nil && t.chunks == 0 {
		err = errors.New("no agent_message_chunk")
	}
	return t, a.wrap("session/prompt", err)
}

func (a *adapter) wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w (stderr: %s)", what, err, a.stderr)
}

// usage measures the adapter and its descendants now.
func (a *adapter) usage() (treeUsage, error) { return usageOf(a.cmd.Process.Pid) }

// close ends the connection the way an editor does, by closing stdin, and
// waits for the adapter to exit; whatever is left of its process group or
// of the descendants seen last is killed.
func (a *adapter) close(timeout time.Duration) {
	a.unkill()
	pid := a.cmd.Process.Pid
	before := descendants(pid)
	_ = a.stdin.Close()
	done := make(chan struct{})
	go func() { _ = a.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeout):
		killGroup(pid)
		<-done
	}
	a.conn.Close()
	_ = a.conn.Wait()
	killGroup(pid)
	killLeftovers(before)
}

// tail keeps the last max bytes written, for error messages.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
