// Command faultcli is the fake Claude Code CLI of package faultcli as a
// program of its own. Tests of the agent binary build it without the race
// detector, so that megabyte-sized prompts stay cheap to fake.
package main

import (
	"fmt"
	"os"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/faultcli"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == "--version" {
		os.Setenv(faultcli.EnvScenario, "serve")
	}
	faultcli.Main()
	fmt.Fprintf(os.Stderr, "faultcli: a fake Claude Code CLI for tests; run it with %s=serve (see package faultcli)\n", faultcli.EnvScenario)
	os.Exit(2)
}
