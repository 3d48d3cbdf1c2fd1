package agent

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/scrub"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/toolview"
)

// Client MCP servers. The servers a client passes in session/new, load or
// resume (stdio, with or without "type":"stdio"; http; sse) are handed to
// the CLI as its --mcp-config, where Claude sees their tools as
// mcp__<server>__<tool>. A configuration the CLI could not use is refused
// with -32602 naming the field, instead of the CLI dropping the server
// without a word: a missing name or command, a command that does not
// exist, an unusable URL, a duplicate name, an unknown transport.

// mcpConfig turns the client's MCP servers into the CLI's --mcp-config.
func (a *connection) mcpConfig(cwd string, servers []acp.MCPServer) (map[string]any, error) {
	if len(servers) == 0 {
		return nil, nil
	}
	out := map[string]any{}
	for i, srv := range servers {
		field := fmt.Sprintf("mcpServers[%d]", i)
		name, cfg, err := a.mcpServer(cwd, field, srv)
		if err != nil {
			return nil, err
		}
		if _, dup := out[name]; dup {
			return nil, acp.NewInvalidParams(field+".name", "another MCP server has the same name")
		}
		out[name] = cfg
	}
	return out, nil
}

func (a *connection) mcpServer(cwd, field string, srv acp.MCPServer) (string, map[string]any, error) {
	switch {
	case srv.Stdio != nil:
		st := srv.Stdio
		if t, ok := st.Extra["type"]; ok && string(t) != `"stdio"` {
			return "", nil, acp.NewInvalidParams(field+".type", "unsupported MCP server type")
		}
		if err := checkServerName(field, st.Name); err != nil {
			return "", nil, err
		}
		if st.Command == "" {
			return "", nil, acp.NewInvalidParams(field+".command", "a stdio MCP server needs a command")
		}
		if err := a.checkCommand(cwd, st.Command); err != nil {
			return "", nil, acp.NewInvalidParams(field+".command", err.Error())
		}
		env := map[string]string{}
		for j, e := range st.Env {
			if e.Name == "" || strings.Contains(e.Name, "=") {
				return "", nil, acp.NewInvalidParams(fmt.Sprintf("%s.env[%d].name", field, j), "is not a valid variable name")
			}
			env[e.Name] = e.Value
			scrub.Known.AddServerEnv(e.Name, e.Value) // never shown, whatever its name
		}
		args := st.Args
		if args == nil {
			args = []string{}
		}
		return st.Name, map[string]any{"type": "stdio", "command": st.Command, "args": args, "env": env}, nil
	case srv.HTTP != nil:
		h, err := remoteServer(field, "http", srv.HTTP.Name, srv.HTTP.URL, srv.HTTP.Headers)
		return srv.HTTP.Name, h, err
	case srv.SSE != nil:
		h, err := remoteServer(field, "sse", srv.SSE.Name, srv.SSE.URL, srv.SSE.Headers)
		return srv.SSE.Name, h, err
	}
	return "", nil, acp.NewInvalidParams(field+".type", "unsupported MCP server type")
}

func remoteServer(field, typ, name, rawURL string, headers []acp.HTTPHeader) (map[string]any, error) {
	if err := checkServerName(field, name); err != nil {
		return nil, err
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, acp.NewInvalidParams(field+".url", "must be an http or https URL")
	}
	scrub.Known.AddURL(u) // a password or an ?api_key= in the server's URL
	hm := map[string]string{}
	for j, h := range headers {
		if h.Name == "" {
			return nil, acp.NewInvalidParams(fmt.Sprintf("%s.headers[%d].name", field, j), "is required")
		}
		hm[h.Name] = h.Value
		scrub.Known.AddHeader(h.Name, h.Value) // an Authorization header, an API key
	}
	return map[string]any{"type": typ, "url": rawURL, "headers": hm}, nil
}

func checkServerName(field, name string) error {
	if strings.TrimSpace(name) == "" {
		return acp.NewInvalidParams(field+".name", "an MCP server needs a name")
	}
	return nil
}

// checkCommand makes sure a stdio server's command can be started: an
// absolute (or cwd-relative) path must be an executable file, a bare name
// must be on the PATH the CLI runs with.
func (a *connection) checkCommand(cwd, cmd string) error {
	if !strings.ContainsRune(cmd, filepath.Separator) {
		if path := envValue(a.cfg.Env, "PATH"); path != "" {
			for _, dir := range filepath.SplitList(path) {
				if isExecutable(filepath.Join(dir, cmd)) {
					return nil
				}
			}
			return errors.New("is not on the PATH of the machine running the agent")
		}
		if _, err := exec.LookPath(cmd); err != nil {
			return errors.New("is not on the PATH of the machine running the agent")
		}
		return nil
	}
	if !isExecutable(toolview.AbsPath(cmd, cwd)) {
		return errors.New("is not an executable file on the machine running the agent")
	}
	return nil
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
