package claude

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"syscall"
	"time"
)

// maxCommandOutput bounds what RunCommand keeps of a command's output.
const maxCommandOutput = 64 << 10

// RunCommand runs one of the CLI's own short commands (`claude auth
// logout`) and returns what it printed, stdout and stderr together (the
// first 64 KiB). It runs the way the CLI runs (cliCommand): in a process
// group of its own that does not outlive the agent, and the end of ctx
// kills the group. Its exit is awaited in the runtime's poller where the
// system allows (waitExited), not in exec.Cmd's blocking wait, which would
// hold the agent's one thread until the runtime's monitor took it back.
func RunCommand(ctx context.Context, exe string, args, env []string) ([]byte, error) {
	cmd, lifeline, err := cliCommand(exe, args)
	if err != nil {
		return nil, err
	}
	if lifeline != nil {
		defer lifeline.Close() // the reaper ends the group once it is closed
	}
	cmd.Env = env
	cmd.WaitDelay = time.Second // a grandchild holding the output pipe
	var out bytes.Buffer
	w := newLimitedWriter(&out, maxCommandOutput)
	cmd.Stdout, cmd.Stderr = w, w
	if err := startProcess(cmd); err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { signalGroup(cmd.Process.Pid, syscall.SIGKILL) })
	defer stop()
	_ = waitExited(cmd.Process.Pid) // when it cannot, cmd.Wait waits as usual
	err = cmd.Wait()
	if ctx.Err() != nil {
		return out.Bytes(), fmt.Errorf("claude: `claude %s` did not finish: %w", strings.Join(args, " "), context.Cause(ctx))
	}
	return out.Bytes(), err
}
