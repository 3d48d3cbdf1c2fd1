package claude

import (
	"encoding/json"
	"errors"
	"os"
	"sync"
)

// The MCP servers of a CLI hold credentials (an HTTP server's Authorization
// header, a stdio server's API key in its environment). On the command line
// (--mcp-config {json}, as the SDK passes them) they would be readable by
// every local user, through ps or /proc/PID/cmdline, for as long as the
// CLI runs. So [Start] writes them to a file that only the user can read
// (mode 0600, created anew in the user's runtime directory or the temp
// directory) and passes its path: the CLI reads it as it starts, before it
// answers initialize, and the file is removed once the handshake has ended
// (or the start failed). Nothing of it is left on disk after that.

// mcpConfigFile writes o.MCPServers to a new private file and returns its
// path and the function that removes it (idempotent). With no servers it
// returns "" and a no-op.
func (o *Options) mcpConfigFile() (path string, remove func(), err error) {
	if len(o.MCPServers) == 0 {
		return "", func() {}, nil
	}
	cfg, err := json.Marshal(map[string]any{"mcpServers": o.MCPServers})
	if err != nil {
		return "", nil, errors.New("claude: MCPServers: " + err.Error())
	}
	f, err := os.CreateTemp(privateTempDir(), "claude-agent-acp-mcp-*.json") // 0600, O_EXCL
	if err != nil {
		return "", nil, errors.New("claude: cannot write the MCP server configuration: " + pathless(err).Error())
	}
	remove = sync.OnceFunc(func() { _ = os.Remove(f.Name()) })
	if _, err := f.Write(cfg); err != nil {
		f.Close()
		remove()
		return "", nil, errors.New("claude: cannot write the MCP server configuration: " + pathless(err).Error())
	}
	if err := f.Close(); err != nil {
		remove()
		return "", nil, errors.New("claude: cannot write the MCP server configuration: " + pathless(err).Error())
	}
	return f.Name(), remove, nil
}

// privateTempDir is where the configuration file goes: the user's runtime
// directory (XDG_RUNTIME_DIR: private to the user, in memory) when there
// is one, else the temp directory (the file itself is private).
func privateTempDir() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
	}
	return os.TempDir()
}
