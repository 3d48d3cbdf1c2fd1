package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/v2conv"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// newSession validates the request, starts the session's CLI in the
// background and answers at once: the editor does not wait for Claude Code
// to boot. A prompt sent before the CLI is up waits for it.
func (a *connection) newSession(ctx context.Context, p *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	setup, err := a.sessionSetup(p.Cwd, p.AdditionalDirectories, p.MCPServers, p.Meta)
	if err != nil {
		return nil, err
	}
	id := uuid.NewString()
	setup.opts.SessionID = id
	s := a.addSession(id, setup)
	var modes *acp.SessionModeState
	var opts []acp.SessionConfigOption
	ahead := a.roomFor(s) // hibernate.go: past the cap the first prompt starts it
	s.do(func() {
		modes, opts = s.configSnapshot()
		if ahead {
			s.startCLI()
		}
	})
	return &acp.NewSessionResponse{
		SessionID:     acp.SessionID(id),
		Modes:         modes,
		ConfigOptions: acp.Some(opts),
	}, nil
}

// sessionSetup is what new/load/resume/fork share: validated directories
// and MCP servers turned into CLI options.
type sessionSetup struct {
	cwd  string
	opts claude.Options
	meta metaOptions // what the request's _meta set (metaopts.go)
	// replaying: the session is made live by this session/load (not live
	// before it), whose replay holds its prompts back (turnQueue.replays)
	// from the start.
	replaying bool
}

func (a *connection) sessionSetup(cwd string, addDirs []string, servers []acp.MCPServer, meta map[string]json.RawMessage) (*sessionSetup, error) {
	if err := checkDir("cwd", cwd); err != nil {
		return nil, err
	}
	m, err := parseMetaOptions(meta)
	if err != nil {
		return nil, err
	}
	for i, d := range append(slices.Clone(addDirs), m.AddDirs...) {
		if !filepath.IsAbs(d) {
			return nil, acp.NewInvalidParams(fmt.Sprintf("additionalDirectories[%d]", i), "must be an absolute path")
		}
	}
	mcp, err := a.mcpConfig(cwd, servers)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	closing := a.closing
	a.mu.Unlock()
	if closing {
		return nil, acp.NewInternalError("the agent is shutting down")
	}
	setup := &sessionSetup{cwd: cwd, meta: m, opts: claude.Options{
		Executable:             a.cfg.Executable,
		Launch:                 a.cfg.Launch,
		Dir:                    cwd,
		Env:                    a.cfg.Env,
		PermissionMode:         claude.PermissionDefault,
		IncludePartialMessages: true,
		ReplayUserMessages:     true,
		LockSession:            true, // one process per session (sessionlock.go)
		SettingSources:         []string{"user", "project", "local"},
		MCPServers:             mcp,
		AddDirs:                addDirs,
		// AskUserQuestion needs a form the client can render:
		// elicitationOptions below disallows it for the others.
		AllowDangerouslySkipPermissions: bypassAllowed(a.cfg.Env),
		Logger:                          a.log,
	}}
	a.elicitationOptions(&setup.opts) // elicitation.go
	m.apply(&setup.opts)
	return setup, nil
}

// addSession registers a session and starts its goroutine.
func (a *connection) addSession(id string, setup *sessionSetup) *session {
	s := newSession(a, id, setup.opts, claude.PermissionDefault)
	s.do(func() {
		s.conf.TakeMeta(setup.opts, setup.meta.Model, setup.meta.Effort, setup.meta.key())
		if setup.replaying {
			s.q.replays++ // before any prompt can find the session
		}
	})
	a.mu.Lock()
	a.sessions[id] = s
	if a.v2 != nil && a.v2[id] == nil {
		a.v2[id] = v2conv.NewUpdates(setup.cwd) // v2.go
	}
	a.mu.Unlock()
	return s
}

// checkDir validates a directory parameter: absolute, existing, a
// directory. The message says which, without echoing other params.
func checkDir(field, dir string) error {
	if dir == "" {
		return acp.NewInvalidParams(field, "is required")
	}
	if !filepath.IsAbs(dir) {
		return acp.NewInvalidParams(field, "must be an absolute path")
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return acp.NewInvalidParams(field, "does not exist on the machine running the agent")
	}
	if !fi.IsDir() {
		return acp.NewInvalidParams(field, "is not a directory")
	}
	return nil
}

// bypassAllowed says whether the CLI will accept bypassPermissions: it
// refuses as root unless IS_SANDBOX=1.
func bypassAllowed(env []string) bool {
	if os.Geteuid() != 0 {
		return true
	}
	for _, kv := range env {
		if kv == "IS_SANDBOX=1" {
			return true
		}
	}
	return false
}

// learnModels remembers the CLI's model list for the model picker.
func (a *connection) learnModels(init *claude.InitializeResponse) {
	if init == nil || len(init.Models) == 0 {
		return
	}
	a.mu.Lock()
	a.models = init.Models
	a.mu.Unlock()
}

// envValue is the value of key in an environment list ("K=V" entries; the
// last one wins, as in exec), or "". The one lookup the agent uses.
func envValue(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v
		}
	}
	return ""
}
