package main

import (
	"fmt"
	"io"
	"os"
)

// stdinIsTerminal reports whether stdin is a terminal (a character device)
// rather than the pipe an editor connects.
func stdinIsTerminal(stdin io.Reader) bool {
	f, ok := stdin.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// banner is what a person who runs the binary in a terminal sees, on
// stderr, before it waits for JSON-RPC on stdin. Editors start it on pipes
// and never see it.
func banner(w io.Writer) {
	self := "claude-agent-acp"
	if exe, err := os.Executable(); err == nil {
		self = exe
	}
	fmt.Fprintf(w, "claude-agent-acp %s: an ACP agent for Claude Code. Editors (Zed, JetBrains, Neovim, …) start it and speak JSON-RPC on stdin/stdout; it is waiting for that now (Ctrl-C quits).\n", agentVersion())
	fmt.Fprintf(w, "Try it by hand: `claude-agent-acp doctor` checks your set-up; `npx acpx --agent %s exec \"hello\"` runs one prompt.\n", self)
}
