package interop

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// TestRemoteBench compares, in one run, the same agent binary over stdio
// and over WebSocket (`serve`): a warm turn's first text (prompt →
// first agent_message_chunk) and a streamed turn's cost per chunk (wall
// time from the first chunk to the last, and the agent process's CPU, all
// its threads, from /proc/<pid>/task/*/schedstat), against the real CLI
// and the fake API, alternating the transports each iteration. It prints
// a Markdown table (BENCHMARKS.md, "Remote transport"). Opt-in:
//
//	CLAUDE_AGENT_ACP_REMOTE_BENCH=1 go test -run TestRemoteBench -v ./internal/test/interop/
func TestRemoteBench(t *testing.T) {
	t.Parallel()
	if os.Getenv("CLAUDE_AGENT_ACP_REMOTE_BENCH") == "" {
		t.Skip("set CLAUDE_AGENT_ACP_REMOTE_BENCH=1 to run the remote transport benchmark")
	}
	iters, deltas := 7, 5000
	if v, err := strconv.Atoi(os.Getenv("CLAUDE_AGENT_ACP_REMOTE_BENCH")); err == nil && v > 1 {
		iters = v
	}
	sb := clitest.NewSandbox(t)
	main := func(marker string) *fakeapi.Match {
		return &fakeapi.Match{HasTools: fakeapi.Bool(true), LastUserContains: marker}
	}
	sb.API.Script(
		fakeapi.Step{Kind: fakeapi.KindText, Text: "Hello there.", Match: main("first text"), Repeat: -1},
		fakeapi.Step{Kind: fakeapi.KindText, Text: strings.Repeat("word ", deltas), Chunks: deltas, Match: main("stream"), Repeat: -1},
	)
	ws := startBenchWS(t, sb)       // (its cleanup checks that no CLI is left:
	stdio := startBenchStdio(t, sb) // this one's cleanup, which runs first, ends its CLI)
	type result struct{ first, in, out, wall, cpu []float64 }
	results := map[string]*result{"stdio": {}, "websocket": {}}
	clients := map[string]*benchClient{"stdio": stdio, "websocket": ws}
	order := []string{"stdio", "websocket"}
	for i := 0; i < iters+1; i++ { // the first round warms up both
		for _, name := range order {
			c := clients[name]
			sent := time.Now()
			first, _, _ := c.turn(t, "first text")
			var in time.Duration
			for _, r := range sb.API.Requests() {
				if r.IsMain() && r.Time.After(sent) {
					in = r.Time.Sub(sent)
					break
				}
			}
			_, wall, cpu := c.turn(t, "stream")
			if i == 0 {
				continue
			}
			r := results[name]
			r.first = append(r.first, first.Seconds()*1e3)
			r.in = append(r.in, in.Seconds()*1e3)
			r.out = append(r.out, (first-in).Seconds()*1e3)
			r.wall = append(r.wall, wall.Seconds()*1e6/float64(deltas))
			r.cpu = append(r.cpu, cpu.Seconds()*1e6/float64(deltas))
		}
		slices.Reverse(order)
	}
	med := func(v []float64) string {
		s := slices.Clone(v)
		slices.Sort(s)
		return fmt.Sprintf("%.2f (%.2f–%.2f)", s[len(s)/2], s[0], s[len(s)-1])
	}
	var out strings.Builder
	fmt.Fprintf(&out, "| transport | first text, ms | prompt → model request, ms | model request → first text, ms | streamed turn, wall per delta, µs | agent CPU per delta, µs |\n|---|---|---|---|---|---|\n")
	for _, name := range []string{"stdio", "websocket"} {
		r := results[name]
		fmt.Fprintf(&out, "| %s | %s | %s | %s | %s | %s |\n", name, med(r.first), med(r.in), med(r.out), med(r.wall), med(r.cpu))
	}
	fmt.Fprintf(&out, "\n%d iterations after one warm-up, %d deltas per streamed turn; medians (min–max).\n", iters, deltas)
	t.Logf("\n%s", out.String())
}

// benchClient is one agent process and our acp.Conn driving it.
type benchClient struct {
	pid  int
	conn *acp.Conn
	sid  string

	mu          sync.Mutex
	chunks      int
	first, last time.Time
}

func (c *benchClient) handle(_ context.Context, req *acp.Request) (any, error) {
	if req.Method != acp.MethodSessionUpdate || !bytes.Contains(req.Params, []byte(`"agent_message_chunk"`)) {
		return nil, nil
	}
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.chunks++
	if c.chunks == 1 {
		c.first = now
	}
	c.last = now
	return nil, nil
}

func (c *benchClient) start(t *testing.T, sb *clitest.Sandbox) {
	t.Helper()
	ctx := context.Background()
	var init acp.InitializeResponse
	if err := c.conn.Call(ctx, acp.MethodInitialize, &acp.InitializeRequest{ProtocolVersion: 1}, &init); err != nil {
		t.Fatal(err)
	}
	var ns acp.NewSessionResponse
	if err := c.conn.Call(ctx, acp.MethodSessionNew, &acp.NewSessionRequest{Cwd: sb.WorkDir, MCPServers: []acp.MCPServer{}}, &ns); err != nil {
		t.Fatal(err)
	}
	c.sid = string(ns.SessionID)
}

// turn sends a prompt and returns the time to its first chunk, the time
// from its first chunk to its last, and the agent's CPU over the turn.
// The answer comes after every update sent before it (acp.Conn's
// barrier), so the turn's chunks are all in when Call returns. (The agent
// merges deltas that queued up into one chunk: a streamed turn's cost is
// counted per delta of the CLI.)
func (c *benchClient) turn(t *testing.T, text string) (first, stream, cpu time.Duration) {
	t.Helper()
	c.mu.Lock()
	c.chunks = 0
	c.mu.Unlock()
	cpu0 := taskCPU(c.pid)
	sent := time.Now()
	var resp acp.PromptResponse
	if err := c.conn.Call(context.Background(), acp.MethodSessionPrompt, &acp.PromptRequest{SessionID: acp.SessionID(c.sid), Prompt: []acp.ContentBlock{{Text: &acp.TextContent{Text: text}}}}, &resp); err != nil {
		t.Fatal(err)
	}
	cpu = taskCPU(c.pid) - cpu0
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.first.Sub(sent), c.last.Sub(c.first), cpu
}

// taskCPU is the CPU time of every thread of process pid so far.
func taskCPU(pid int) time.Duration {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var ns int64
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if v, err := strconv.ParseInt(strings.Fields(string(b))[0], 10, 64); err == nil {
			ns += v
		}
	}
	return time.Duration(ns)
}

func startBenchStdio(t *testing.T, sb *clitest.Sandbox) *benchClient {
	t.Helper()
	cmd := exec.Command(agentBin)
	cmd.Env = sb.With("CLAUDE_CODE_EXECUTABLE=" + sb.CLI)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &benchClient{pid: cmd.Process.Pid}
	c.conn = acp.NewConn(out, in, acp.Options{Handler: acp.HandlerFunc(c.handle)})
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	c.start(t, sb)
	return c
}

func startBenchWS(t *testing.T, sb *clitest.Sandbox) *benchClient {
	t.Helper()
	srv := startServe(t, sb)
	ws, _, err := websocket.Dial(context.Background(), strings.Replace(srv.URL, "http", "ws", 1), &websocket.DialOptions{HTTPHeader: bearer()})
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadLimit(64 << 20)
	c := &benchClient{pid: srv.cmd.Process.Pid}
	s := &wsStream{c: ws}
	c.conn = acp.NewConn(s, s, acp.Options{Handler: acp.HandlerFunc(c.handle)})
	t.Cleanup(func() { ws.CloseNow() })
	c.start(t, sb)
	return c
}

func bearer() map[string][]string {
	return map[string][]string{"Authorization": {"Bearer " + remoteToken}}
}

// wsStream is a WebSocket as the newline-delimited stream acp.Conn reads
// and writes: one message per line.
type wsStream struct {
	c   *websocket.Conn
	buf []byte
}

func (s *wsStream) Read(p []byte) (int, error) {
	if len(s.buf) == 0 {
		_, b, err := s.c.Read(context.Background())
		if err != nil {
			return 0, io.EOF
		}
		s.buf = append(b, '\n')
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}

func (s *wsStream) Write(p []byte) (int, error) {
	for _, line := range bytes.Split(bytes.TrimSuffix(p, []byte("\n")), []byte("\n")) {
		if err := s.c.Write(context.Background(), websocket.MessageText, line); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}
