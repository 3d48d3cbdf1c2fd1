package agent_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
)

// sim is an agent with fake CLIs (internal/test/clifake) and an ACP client, all
// in memory: run inside a testing/synctest bubble, a whole session life
// takes no real time, and every wait is an event, not a sleep.
type sim struct {
	t      testing.TB
	world  *clifake.World
	client *acp.Conn
	home   string
	dir    string // a working directory for sessions

	mu      sync.Mutex
	updates []acp.SessionNotification
	// permission answers session/request_permission (default: allow once).
	permission func(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error)
	asked      []*acp.RequestPermissionRequest
	wire       []simLine

	clientOut *io.PipeWriter // the agent's stdin: closing it is EOF
	agentOut  *io.PipeWriter // the agent's stdout
	served    chan error
	cancel    context.CancelFunc
}

// simLine is one line that crossed the connection.
type simLine struct {
	fromAgent bool
	line      string
}

// newSim starts an agent configured by cfg (Launch, Env and Version are
// set here) and a client connected to it.
func newSim(t testing.TB, world *clifake.World, cfg func(*agent.Config)) *sim {
	s := &sim{t: t, world: world, served: make(chan error, 1)}
	root := t.TempDir()
	s.home = filepath.Join(root, "home")
	s.dir = filepath.Join(root, "work")
	for _, d := range []string{s.home, s.dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	c := agent.Config{Launch: world.Launch, Env: []string{"HOME=" + s.home, "PATH=/usr/bin:/bin", "IS_SANDBOX=1"}, Version: "sim"}
	if cfg != nil {
		cfg(&c)
	}
	agentIn, clientOut := io.Pipe()
	clientIn, agentOut := io.Pipe()
	s.clientOut, s.agentOut = clientOut, agentOut
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	go func() { s.served <- agent.New(c).Serve(ctx, agentIn, agentOut) }()

	m := acp.NewMux()
	acp.OnNotification(m, acp.MethodSessionUpdate, func(ctx context.Context, n *acp.SessionNotification) error {
		s.mu.Lock()
		s.updates = append(s.updates, *n)
		s.mu.Unlock()
		return nil
	})
	acp.On(m, acp.MethodSessionRequestPermission, func(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		s.mu.Lock()
		s.asked = append(s.asked, req)
		answer := s.permission
		s.mu.Unlock()
		acp.Async(ctx)
		if answer == nil {
			return allowOnceSim(req), nil
		}
		return answer(ctx, req)
	})
	s.client = acp.NewConn(&simTap{r: clientIn, s: s, fromAgent: true}, &simTap{w: clientOut, s: s}, acp.Options{Handler: m})
	return s
}

func allowOnceSim(req *acp.RequestPermissionRequest) *acp.RequestPermissionResponse {
	for _, o := range req.Options {
		if o.Kind == acp.PermissionOptionKindAllowOnce {
			return &acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Selected: &acp.SelectedPermissionOutcome{OptionID: o.OptionID}}}
		}
	}
	return &acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Cancelled: &acp.RequestPermissionOutcomeCancelled{}}}
}

// eof closes the agent's stdin, as an editor going away does, and waits
// for Serve to return.
func (s *sim) eof() error {
	_ = s.clientOut.Close()
	err := <-s.served
	_ = s.agentOut.Close() // what the editor's end of stdout sees when the agent exits
	s.cancel()
	s.client.Close()
	_ = s.client.Wait()
	return err
}

func (s *sim) initialize() {
	var r acp.InitializeResponse
	if err := s.client.Call(context.Background(), acp.MethodInitialize, &acp.InitializeRequest{ProtocolVersion: 1}, &r); err != nil {
		s.t.Fatalf("initialize: %v", err)
	}
}

func (s *sim) newSession() string {
	var r acp.NewSessionResponse
	if err := s.client.Call(context.Background(), acp.MethodSessionNew, &acp.NewSessionRequest{Cwd: s.dir, MCPServers: []acp.MCPServer{}}, &r); err != nil {
		s.t.Fatalf("session/new: %v", err)
	}
	return string(r.SessionID)
}

func (s *sim) prompt(ctx context.Context, sid, text string) (*acp.PromptResponse, error) {
	var r acp.PromptResponse
	err := s.client.Call(ctx, acp.MethodSessionPrompt, &acp.PromptRequest{SessionID: acp.SessionID(sid),
		Prompt: []acp.ContentBlock{{Text: &acp.TextContent{Text: text}}}}, &r)
	if err != nil {
		return nil, err
	}
	return &r, nil
}

func (s *sim) agentText(sid string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := ""
	for _, n := range s.updates {
		if string(n.SessionID) == sid && n.Update.AgentMessageChunk != nil && n.Update.AgentMessageChunk.Content.Text != nil {
			out += n.Update.AgentMessageChunk.Content.Text.Text
		}
	}
	return out
}

// simTap records the lines crossing a pipe.
type simTap struct {
	r         io.Reader
	w         io.Writer
	s         *sim
	fromAgent bool
	pending   []byte
}

func (t *simTap) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.record(p[:n])
	return n, err
}

func (t *simTap) Write(p []byte) (int, error) {
	t.record(p)
	return t.w.Write(p)
}

func (t *simTap) record(b []byte) {
	t.pending = append(t.pending, b...)
	for {
		i := indexNL(t.pending)
		if i < 0 {
			return
		}
		line := string(t.pending[:i])
		t.pending = t.pending[i+1:]
		t.s.mu.Lock()
		t.s.wire = append(t.s.wire, simLine{fromAgent: t.fromAgent, line: line})
		t.s.mu.Unlock()
	}
}

func indexNL(b []byte) int {
	for i, c := range b {
		if c == '\n' {
			return i
		}
	}
	return -1
}

// wireMessage is the envelope of one line.
type wireMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *acp.Error      `json:"error"`
}
