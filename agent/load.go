package agent

import (
	"context"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// loadSession is session/load: the stored conversation is replayed as
// session/update notifications, all before the answer, while the session's
// CLI starts with --resume so that the next prompt continues it. Unknown
// ids are -32002 with data.sessionId; lines of the transcript that cannot
// be read are skipped and logged, never a failed load. A session that is
// live already is replayed and keeps its CLI, or gets a new one if the
// request changes its cwd, directories or MCP servers (fingerprint.go).
func (a *connection) loadSession(ctx context.Context, p *acp.LoadSessionRequest) (*acp.LoadSessionResponse, error) {
	var later string // a mode to restore once the CLI is up
	replay := func(ctx context.Context, s *session, path string, setup *sessionSetup, started *startOutcome) error {
		mode, err := a.replay(ctx, s.id, path, setup, started)
		if err != nil || !setup.replaying {
			return err
		}
		// A session this load made live takes its last prompt's mode
		// before the replay lets prompts through: one sent during the
		// replay runs in that mode too. Whether the model offers auto is
		// known only from a CLI's models, so that waits for them.
		if mode == claude.PermissionAuto && len(a.modelList()) == 0 {
			later = mode
		} else {
			a.restoreMode(ctx, s, mode)
		}
		return nil
	}
	s, _, err := a.reopen(ctx, string(p.SessionID), p.Cwd, p.AdditionalDirectories, p.MCPServers, p.Meta, replay)
	if err != nil {
		return nil, err
	}
	if later != "" {
		if len(a.modelList()) > 0 {
			a.restoreMode(ctx, s, later)
		} else {
			s.do(func() { s.conf.LaterMode = later }) // config.go, afterStart: once the CLI says
		}
	}
	modes, opts := a.state(s)
	return &acp.LoadSessionResponse{Modes: modes, ConfigOptions: acp.Some(opts)}, nil
}

// restoreMode puts a reopened session back in the permission mode of its
// last prompt, as the reference adapter does, if the session offers it.
func (a *connection) restoreMode(ctx context.Context, s *session, mode string) {
	if mode == "" || mode == claude.PermissionDefault {
		return
	}
	var p *claude.Process
	ok := false
	s.do(func() {
		for _, m := range s.conf.Modes(s.a.modelList()) {
			ok = ok || m.ID == mode
		}
		if ok {
			s.conf.SetMode(mode)
			p = s.cli.proc
		}
	})
	if ok && p != nil {
		if err := p.SetPermissionMode(ctx, mode); err != nil {
			s.log.Warn("permission mode not restored", "mode", mode, "error", err)
		}
	}
}
