package agent_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/claude-agent-acp/claude-agent-acp/claude"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/faultcli"
)

// TestMain doubles the test binary as a fake Claude Code CLI (see
// faultcli) and as a stdio MCP server (mcpServerMain): the tests start it
// so with a scenario in the environment. Otherwise it runs the tests and then fails if any goroutine
// outlived them: an agent that leaks per session leaks per editor window.
func TestMain(m *testing.M) {
	claude.ReaperMain() // first: a reaper carries the fake CLI's environment too
	mcpServerMain()     // the test MCP server of mcp_e2e_test.go
	faultcli.Main()
	goleak.VerifyTestMain(m)
}
