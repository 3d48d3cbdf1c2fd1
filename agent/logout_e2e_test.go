package agent_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
)

// TestLogoutRealCLI: v1's logout is declared (agentCapabilities.auth.logout)
// and runs the real CLI's `claude auth logout`; the session goes on.
func TestLogoutRealCLI(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	init := h.Initialize(acp.ClientCapabilities{})
	if init.AgentCapabilities.Auth.Logout == nil {
		t.Error("logout is not declared")
	}
	if err := h.Client.Call(h.Ctx(), acp.MethodLogout, &acp.LogoutRequest{}, &acp.LogoutResponse{}); err != nil {
		t.Fatalf("logout: %v", err)
	}
}

// TestLogoutFails: a logout the CLI refuses is -32603 with its first line,
// scrubbed of secrets and private paths, and the connection goes on.
func TestLogoutFails(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("a shell script stands in for the CLI")
	}
	bin := filepath.Join(t.TempDir(), "claude")
	script := "#!/bin/sh\necho \"cannot log out: token sk-ant-api03-abcdefghijklmnopqrstuvwxyz in /home/someone/.claude\" >&2\nexit 3\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	h := agenttest.Start(t, agenttest.Options{Config: func(c *agent.Config) { c.Executable = bin }})
	h.Initialize(acp.ClientCapabilities{})
	var e *acp.Error
	err := h.Client.Call(h.Ctx(), acp.MethodLogout, &acp.LogoutRequest{}, &acp.LogoutResponse{})
	if !errors.As(err, &e) || e.Code != acp.CodeInternalError || !strings.Contains(e.Message, "cannot log out") ||
		strings.Contains(e.Message, "sk-ant-api03") || strings.Contains(e.Message, "/home/someone") {
		t.Fatalf("logout: %v", err)
	}
	if err := h.Client.Call(h.Ctx(), acp.MethodSessionList, &acp.ListSessionsRequest{}, &acp.ListSessionsResponse{}); err != nil {
		t.Fatalf("the connection goes on: %v", err)
	}
}
