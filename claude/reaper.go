package claude

import (
	"os"
	"sync/atomic"
)

// The reaper is what keeps the promise that no CLI outlives the agent,
// however the agent dies. A process cannot clean up after a SIGKILL, and a
// client that closes often kills the agent's whole process group at once,
// so the cleanup has to live in a process that survives both: a tiny copy
// of the agent's own executable that starts the CLI in a new process group
// and holds one end of a pipe (the lifeline) whose other end only the agent
// holds. When the agent ends, for any reason, the kernel closes its end;
// the reaper reads EOF and SIGKILLs its group: the CLI and everything the
// CLI started (tool shells, MCP servers). While the agent lives the reaper
// does nothing but wait and pass on the CLI's exit status.
//
// The reaper is this executable started with reaperArg as its first
// argument; [ReaperMain] is its entry point. A program that never calls
// ReaperMain (a test binary that does not) falls back to what the kernel
// alone offers: on Linux the CLI is SIGKILLed when the agent dies
// (PR_SET_PDEATHSIG), but what the CLI started at that moment is not.

// reaperArg is the first argument that makes this executable a reaper.
const reaperArg = "__claude-agent-acp-reaper"

// reaperReady is set by ReaperMain: this executable can run as a reaper.
var reaperReady atomic.Bool

// ReaperMain must be called first thing in main (and in TestMain of test
// binaries that start the CLI): when this process was started as a reaper
// it runs the CLI and exits with the CLI's status; otherwise it returns at
// once and records that this executable can serve as the reaper.
func ReaperMain() {
	if len(os.Args) > 2 && os.Args[1] == reaperArg {
		os.Exit(runReaper(os.Args[2:]))
	}
	reaperReady.Store(reaperSupported)
}
