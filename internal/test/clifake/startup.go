package clifake

import (
	"encoding/json"
	"os"
	"slices"
	"sync"
)

// What a CLI was started with beyond its flags, for tests of what the
// agent hands a new CLI (a reopened session's fingerprint: its MCP
// servers, its system prompt, its environment): the servers of its
// --mcp-config file, read as the CLI starts (the agent removes the file
// once the CLI has answered initialize, as the real CLI has read it by
// then), the initialize request it was sent, and its environment.

// startup is what a CLI kept of its start, by CLI.
type startup struct {
	mu   sync.Mutex
	mcp  []string
	init map[string]any
	env  []string
}

func (c *CLI) startup() *startup { return &c.started }

// keepStart notes the CLI's MCP servers and environment (newCLI).
func (c *CLI) keepStart(env []string) {
	s := c.startup()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.env = slices.Clone(env)
	path := c.Flag("mcp-config")
	if path == "" || path == "true" {
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var cfg struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if json.Unmarshal(data, &cfg) == nil {
		for name := range cfg.MCPServers {
			s.mcp = append(s.mcp, name)
		}
		slices.Sort(s.mcp)
	}
}

// keepInit notes the initialize request (control).
func (c *CLI) keepInit(req json.RawMessage) {
	var m map[string]any
	_ = json.Unmarshal(req, &m)
	s := c.startup()
	s.mu.Lock()
	s.init = m
	s.mu.Unlock()
}

// MCPServers are the names of the servers of the CLI's --mcp-config, sorted
// (nil without one).
func (c *CLI) MCPServers() []string {
	s := c.startup()
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.mcp)
}

// Initialize is the initialize request the CLI was sent (its members:
// subtype, hooks, appendSystemPrompt, …); nil before it came.
func (c *CLI) Initialize() map[string]any {
	s := c.startup()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.init
}

// Env is the value of key in the CLI's environment ("" when unset).
func (c *CLI) Env(key string) string {
	s := c.startup()
	s.mu.Lock()
	defer s.mu.Unlock()
	return env(s.env, key)
}
