package agent_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test MCP server, built with the official Go MCP SDK. The test binary
// runs it over stdio when started with AGENT_TEST_MCP_SERVER=stdio (the
// CLI starts it as a client MCP server); the same server is served over
// streamable HTTP and SSE in-process.

const mcpServerEnv = "AGENT_TEST_MCP_SERVER"

// mcpServerMain runs the stdio server and exits when the binary was
// started as one; otherwise it returns at once.
func mcpServerMain() {
	var srv *mcp.Server
	switch os.Getenv(mcpServerEnv) {
	case "stdio":
		srv = newMCPServer("stdio")
	case "asker":
		srv = newAskerServer() // elicitation_e2e_test.go
	default:
		return
	}
	err := srv.Run(context.Background(), &mcp.StdioTransport{})
	if err != nil && !strings.Contains(err.Error(), "EOF") {
		os.Exit(1)
	}
	os.Exit(0)
}

type shoutIn struct {
	Text string `json:"text" jsonschema:"the text to shout"`
}

// newMCPServer has one tool, shout, which upper-cases its text and says
// which transport answered.
func newMCPServer(transport string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "shouter-" + transport, Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "shout", Description: "Shout the text back"},
		func(ctx context.Context, req *mcp.CallToolRequest, in shoutIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: strings.ToUpper(in.Text) + "! (" + transport + ")"},
			}}, nil, nil
		})
	return s
}

// serveMCP serves the test server over HTTP (streamable or SSE) on
// 127.0.0.1 until the test ends.
func serveMCP(t *testing.T, sse bool) string {
	t.Helper()
	var h http.Handler
	var srv *mcp.Server
	if sse {
		srv = newMCPServer("sse")
		h = mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	} else {
		srv = newMCPServer("http")
		h = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		for ss := range srv.Sessions() {
			_ = ss.Close()
		}
		ts.CloseClientConnections()
		ts.Close()
	})
	return ts.URL
}
