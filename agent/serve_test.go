package agent_test

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent"
)

// TestServeManyConnections: an Agent is its configuration only. Serve can
// run on several connections at once and again afterwards; each has its
// own sessions (an id from one is unknown on the other).
func TestServeManyConnections(t *testing.T) {
	t.Parallel()
	a := agent.New(agent.Config{Executable: "/nonexistent/claude", Env: []string{"HOME=" + t.TempDir()}})
	type side struct {
		client *acp.Conn
		out    io.Closer
		served chan error
	}
	open := func() side {
		agentIn, clientOut := io.Pipe()
		clientIn, agentOut := io.Pipe()
		s := side{served: make(chan error, 1), out: clientOut}
		go func() { s.served <- a.Serve(context.Background(), agentIn, agentOut) }()
		s.client = acp.NewConn(clientIn, clientOut, acp.Options{})
		var init acp.InitializeResponse
		if err := s.client.Call(context.Background(), acp.MethodInitialize, &acp.InitializeRequest{ProtocolVersion: 1}, &init); err != nil {
			t.Fatalf("initialize: %v", err)
		}
		return s
	}
	closeSide := func(s side) {
		s.out.Close()
		if err := <-s.served; err != nil {
			t.Errorf("Serve: %v", err)
		}
		s.client.Close()
	}
	one, two := open(), open()
	var ns acp.NewSessionResponse
	if err := one.client.Call(context.Background(), acp.MethodSessionNew, &acp.NewSessionRequest{Cwd: t.TempDir(), MCPServers: []acp.MCPServer{}}, &ns); err != nil {
		t.Fatalf("session/new: %v", err)
	}
	err := two.client.Call(context.Background(), acp.MethodSessionSetMode, &acp.SetSessionModeRequest{SessionID: ns.SessionID, ModeID: "plan"}, &acp.SetSessionModeResponse{})
	var ae *acp.Error
	if !errors.As(err, &ae) || ae.Code != acp.CodeResourceNotFound {
		t.Fatalf("a session of another connection: got %v, want -32002", err)
	}
	closeSide(one)
	closeSide(two)
	again := open() // Serve once more, after the others ended
	closeSide(again)
}
