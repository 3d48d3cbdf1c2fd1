//go:build unix

package claude

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

const reaperSupported = true

// lifelineFD is the reaper's end of the lifeline (ExtraFiles[0]).
const lifelineFD = 3

// runReaper runs the CLI (args[0] with args[1:]) in this process's group,
// which the agent made a new one, and exits with its status. It kills the
// group when the lifeline breaks.
func runReaper(args []string) int {
	lifeline := os.NewFile(lifelineFD, "lifeline")
	if lifeline == nil {
		fmt.Fprintln(os.Stderr, "claude-agent-acp: reaper started without its lifeline")
		return 127
	}
	syscall.CloseOnExec(lifelineFD) // the CLI must not hold it
	// Signals to the group reach the CLI too; the reaper outlives them to
	// report the CLI's status. Caught (not ignored) so the CLI, which
	// inherits dispositions across exec, keeps the defaults.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGPIPE)
	go func() {
		for range sigs {
		}
	}()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path may be private
		}
		fmt.Fprintln(os.Stderr, "claude-agent-acp: cannot run the Claude Code CLI:", err)
		return 127
	}
	// The CLI holds the pipes now; ours would only keep them open.
	os.Stdin.Close()
	os.Stdout.Close()
	go func() {
		_, _ = io.Copy(io.Discard, lifeline) // returns when the agent is gone
		_ = syscall.Kill(0, syscall.SIGKILL) // the whole group, us included
	}()
	err := cmd.Wait()
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if err != nil && ws.Signaled() {
		sig := ws.Signal()
		signal.Reset(sig)
		_ = syscall.Kill(os.Getpid(), sig)
		time.Sleep(100 * time.Millisecond) // a default-ignored signal lands here
		return 128 + int(sig)
	}
	return cmd.ProcessState.ExitCode()
}

// cliCommand returns the command that runs the CLI exe with args: through
// the reaper when this executable is one, else directly. The returned
// lifeline (nil without the reaper) is the agent's end of the pipe; it must
// stay open while the CLI should live.
func cliCommand(exe string, args []string) (cmd *exec.Cmd, lifeline *os.File, err error) {
	if !reaperReady.Load() {
		cmd = exec.Command(exe, args...)
		setProcessGroup(cmd)
		setParentDeathSignal(cmd)
		return cmd, nil, nil
	}
	self, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	// The reaper starts the CLI in the session's directory: resolve the
	// path here, where it was meant.
	if path, err := exec.LookPath(exe); err == nil {
		exe = path
	} else if !errors.Is(err, exec.ErrDot) {
		return nil, nil, err
	}
	if !filepath.IsAbs(exe) {
		if exe, err = filepath.Abs(exe); err != nil {
			return nil, nil, err
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	cmd = exec.Command(self, append([]string{reaperArg, exe}, args...)...)
	cmd.ExtraFiles = []*os.File{r}
	setProcessGroup(cmd)
	return cmd, w, nil
}
