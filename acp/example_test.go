package acp_test

import (
	"context"
	"fmt"
	"os"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
)

// A minimal agent and a minimal client, talking over real pipes: the
// client initializes, opens a session and sends a prompt; the agent
// streams one chunk of text back and ends the turn.
func Example() {
	agentIn, clientOut, _ := os.Pipe()
	clientIn, agentOut, _ := os.Pipe()

	// The agent.
	var agent *acp.Conn
	am := acp.NewMux()
	acp.On(am, acp.MethodInitialize, func(ctx context.Context, p *acp.InitializeRequest) (*acp.InitializeResponse, error) {
		v, err := acp.NegotiateVersion(int(p.ProtocolVersion), []int{1})
		if err != nil {
			return nil, err
		}
		return &acp.InitializeResponse{ProtocolVersion: acp.ProtocolVersion(v),
			AgentInfo: &acp.Implementation{Name: "echo-agent", Version: "1.0"}}, nil
	})
	acp.On(am, acp.MethodSessionNew, func(ctx context.Context, p *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
		return &acp.NewSessionResponse{SessionID: "s1"}, nil
	})
	acp.On(am, acp.MethodSessionPrompt, func(ctx context.Context, p *acp.PromptRequest) (*acp.PromptResponse, error) {
		acp.Async(ctx) // a turn takes a while: let a cancel behind it through
		text := "you said: " + p.Prompt[0].Text.Text
		err := agent.Notify(ctx, acp.MethodSessionUpdate, &acp.SessionNotification{SessionID: p.SessionID,
			Update: acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{
				Content: acp.ContentBlock{Text: &acp.TextContent{Text: text}}}}})
		if err != nil {
			return nil, err
		}
		return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
	})
	agent = acp.NewConn(agentIn, agentOut, acp.Options{Handler: am, InitializeMethod: acp.MethodInitialize})

	// The client.
	cm := acp.NewMux()
	acp.OnNotification(cm, acp.MethodSessionUpdate, func(ctx context.Context, n *acp.SessionNotification) error {
		if c := n.Update.AgentMessageChunk; c != nil {
			fmt.Println("agent:", c.Content.Text.Text)
		}
		return nil
	})
	client := acp.NewConn(clientIn, clientOut, acp.Options{Handler: cm})

	ctx := context.Background()
	var init acp.InitializeResponse
	if err := client.Call(ctx, acp.MethodInitialize, &acp.InitializeRequest{ProtocolVersion: 1}, &init); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("connected to", init.AgentInfo.Name)
	var ns acp.NewSessionResponse
	_ = client.Call(ctx, acp.MethodSessionNew, &acp.NewSessionRequest{Cwd: "/tmp", MCPServers: []acp.MCPServer{}}, &ns)
	var pr acp.PromptResponse
	_ = client.Call(ctx, acp.MethodSessionPrompt, &acp.PromptRequest{SessionID: ns.SessionID,
		Prompt: []acp.ContentBlock{{Text: &acp.TextContent{Text: "hello"}}}}, &pr)
	fmt.Println("stop reason:", pr.StopReason)

	// A request for an unknown method gets -32601.
	err := client.Call(ctx, "session/unknown", struct{}{}, nil)
	fmt.Println("error:", err.(*acp.Error).Code)

	clientOut.Close() // the agent sees EOF, answers what it read, and ends
	agent.Wait()
	client.Close()
	agentOut.Close()
	clientIn.Close()
	agentIn.Close()
	// Output:
	// connected to echo-agent
	// agent: you said: hello
	// stop reason: end_turn
	// error: -32601
}

// Calling the peer from inside a handler: the agent reads a file through
// the client before it answers (fs/read_text_file).
func ExampleConn_Call() {
	agentIn, clientOut, _ := os.Pipe()
	clientIn, agentOut, _ := os.Pipe()
	var agent *acp.Conn
	am := acp.NewMux()
	acp.On(am, "summarize", func(ctx context.Context, p *struct{ Path string }) (any, error) {
		var file acp.ReadTextFileResponse
		if err := agent.Call(ctx, acp.MethodFSReadTextFile, &acp.ReadTextFileRequest{SessionID: "s1", Path: p.Path}, &file); err != nil {
			return nil, err
		}
		return map[string]int{"bytes": len(file.Content)}, nil
	})
	agent = acp.NewConn(agentIn, agentOut, acp.Options{Handler: am})
	cm := acp.NewMux()
	acp.On(cm, acp.MethodFSReadTextFile, func(ctx context.Context, p *acp.ReadTextFileRequest) (*acp.ReadTextFileResponse, error) {
		return &acp.ReadTextFileResponse{Content: "hello, world"}, nil
	})
	client := acp.NewConn(clientIn, clientOut, acp.Options{Handler: cm})

	var out struct{ Bytes int }
	err := client.Call(context.Background(), "summarize", map[string]string{"path": "/tmp/x.txt"}, &out)
	fmt.Println(out.Bytes, err)

	clientOut.Close()
	agent.Wait()
	client.Close()
	agentOut.Close()
	clientIn.Close()
	agentIn.Close()
	// Output:
	// 12 <nil>
}
