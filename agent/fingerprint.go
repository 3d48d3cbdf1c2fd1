package agent

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// A session/load or session/resume of a session that is live already
// carries its own cwd, additional directories, MCP servers and _meta
// options (metaopts.go). The CLI reads them only when it starts, so a
// request that changes them gets a new CLI (--resume, same permission
// mode); one that does not keeps the running CLI. This is the reference
// adapter's "session fingerprint": what the request can change here.

// fingerprint is what a CLI start depends on that a load or resume
// request sets: the working directory, the additional directories in any
// order, the MCP configuration as the CLI gets it, and the _meta options
// as the request gave them (their canonical JSON). JSON marshals map keys
// sorted, so equal configurations have equal fingerprints.
func fingerprint(o claude.Options, metaKey string) string {
	b, err := json.Marshal(struct {
		Dir     string
		AddDirs []string
		MCP     map[string]any
		Meta    string
	}{o.Dir, slices.Sorted(slices.Values(o.AddDirs)), o.MCPServers, metaKey})
	if err != nil {
		// Not for the strings and maps mcpConfig builds; "" is never
		// equal (reconfigure), so such a value counts as a change.
		return ""
	}
	return string(b)
}

// reconfigure gives a live session the settings of a load or resume
// request. With the same fingerprint nothing happens. Otherwise its turns
// end as cancelled (as session/cancel would), its CLI is stopped, and a
// new CLI starts with --resume and the new settings; restarted says so,
// and the caller waits for that start (waitStart). A CLI still starting is
// waited for first, so that it is not started twice at once.
func (s *session) reconfigure(ctx context.Context, setup *sessionSetup) (restarted bool, err error) {
	want := fingerprint(setup.opts, setup.meta.key())
	for {
		var starting chan error
		if !s.do(func() {
			switch {
			case want != "" && fingerprint(s.conf.Opts, s.conf.MetaKey) == want:
			case s.cli.starting:
				starting = make(chan error, 1)
				s.cli.startWaiters = append(s.cli.startWaiters, starting)
			default:
				restarted = s.restart(setup)
			}
		}) {
			return false, errSessionClosed
		}
		if starting == nil {
			return restarted, nil
		}
		select {
		case <-starting: // up or failed: look again
		case <-s.quit:
			return false, errSessionClosed
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

// restart (on the session goroutine) takes the new settings; if a CLI
// runs it is detached as onExit would find it gone, and a new start is
// begun that first stops it (startCLI), so that two CLIs never continue
// one transcript. It reports whether a start was begun; without a running
// CLI the next start simply uses the new settings.
func (s *session) restart(setup *sessionSetup) bool {
	s.log.Info("session settings changed; restarting Claude Code")
	p := s.cli.proc
	if p != nil {
		s.cli.proc, s.cli.msgs = nil, nil
		s.tr.StopBackground() // its background commands end with it
		s.tr.CLIGone()        // and its subagents and session-only jobs
		s.setCurrent(nil)
		s.tr.Reset()
	}
	// Without a CLI attached, cancelTurns answers and withdraws but sends
	// the dying CLI nothing.
	s.cancelTurns(slices.Clone(s.q.turns))
	clear(s.q.cancelledIDs) // the next CLI never saw them
	s.conf.Opts.Dir, s.conf.Opts.AddDirs, s.conf.Opts.MCPServers = setup.opts.Dir, setup.opts.AddDirs, setup.opts.MCPServers
	s.conf.TakeMeta(setup.opts, setup.meta.Model, setup.meta.Effort, setup.meta.key())
	s.tr.SetCwd(setup.cwd)
	if p == nil {
		return false
	}
	s.cli.retired = p
	s.startCLI()
	if s.cli.retired != nil { // not taken by a start (cannot happen while live)
		s.cli.retired = nil
		go p.Close()
		return false
	}
	return true
}
