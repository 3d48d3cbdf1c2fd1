package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// cliInvocation is how our adapter runs the CLI: the arguments after the
// executable (from --output-format on) and the variables the CLI's
// environment has beyond the sandbox's (the adapter's and the claude
// package's additions). The bare CLI column runs the CLI the same way, so
// that the difference between the columns is the adapter's own work.
type cliInvocation struct {
	args []string
	env  []string
	// resume, if set, is the session the CLI resumes (resumeArgv) instead
	// of starting a fresh one.
	resume string
}

// sessionArgs are flags whose value names one session; each bare run gets
// its own.
var sessionArgs = []string{"--session-id", "--resume"}

// argv returns the arguments with a fresh session id.
func (c cliInvocation) argv() []string {
	out := make([]string, 0, len(c.args))
	for i := 0; i < len(c.args); i++ {
		a := c.args[i]
		name, _, hasValue := strings.Cut(a, "=")
		if !slices.Contains(sessionArgs, name) {
			out = append(out, a)
			continue
		}
		if !hasValue {
			i++ // the value is the next argument
		}
		out = append(out, "--session-id="+uuid.NewString())
	}
	return out
}

// probeAgentCLI runs our adapter once (initialize, session/new, one prompt)
// and reads the command line and environment of the CLI it started from
// /proc.
func probeAgentCLI(ctx context.Context, cfg *Config) (cliInvocation, error) {
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	api, sb, err := newWorld(cfg)
	if err != nil {
		return cliInvocation{}, err
	}
	defer api.Close()
	a, err := startAdapter(ctx, cfg.Ours, sb)
	if err != nil {
		return cliInvocation{}, err
	}
	defer a.close(cfg.closeTimeout())
	if _, err := a.initialize(ctx); err != nil {
		return cliInvocation{}, err
	}
	sid, err := a.newSession(ctx, sb.work)
	if err != nil {
		return cliInvocation{}, err
	}
	if _, err := a.prompt(ctx, sid, "probe: say hello"); err != nil {
		return cliInvocation{}, err
	}
	var inv cliInvocation
	var found bool
	for deadline := time.Now().Add(5 * time.Second); !found && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		// The deepest process with the CLI's flags is the CLI itself (a
		// reaper or a node launcher may sit above it with the same argv).
		for _, p := range descendants(a.cmd.Process.Pid) {
			args, env, err := readInvocation(p.pid)
			if err != nil {
				continue
			}
			if i := slices.Index(args, "--output-format"); i >= 0 {
				inv, found = cliInvocation{args: args[i:], env: extraEnv(env, sb.env)}, true
			}
		}
	}
	if !found {
		return inv, errors.New("bench: could not find the CLI our adapter started")
	}
	return inv, nil
}

// readInvocation reads a process's argv and initial environment.
func readInvocation(pid int) (args, env []string, err error) {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return nil, nil, err
	}
	environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return nil, nil, err
	}
	split := func(b []byte) []string {
		var out []string
		for f := range bytes.SplitSeq(bytes.TrimSuffix(b, []byte{0}), []byte{0}) {
			out = append(out, string(f))
		}
		return out
	}
	return split(cmdline), split(environ), nil
}

// extraEnv returns the variables of env whose name base does not set.
func extraEnv(env, base []string) []string {
	names := map[string]bool{}
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		names[k] = true
	}
	var out []string
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); !names[k] {
			out = append(out, kv)
		}
	}
	slices.Sort(out)
	return out
}
