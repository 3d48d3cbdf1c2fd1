// Command claude-agent-acp is an ACP (Agent Client Protocol) agent that drives the
// Claude Code CLI. An editor starts it and speaks JSON-RPC 2.0 over stdio.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "claude-agent-acp: not wired yet")
	os.Exit(1)
}
