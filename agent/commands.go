package agent

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// Slash commands. The client learns the CLI's commands (built-ins, the
// project's .claude/commands, skills, plugins) from
// available_commands_update, sent when a CLI is up and again when its list
// changes. A prompt that starts with "/" goes to the CLI as it is: the CLI
// runs the command, and what a local command prints comes back as agent
// text (the turn's result). Commands that cannot work here are left out:
// those the CLI marks terminal-only, those that end or replace the
// session this adapter manages, and internal ones.

// commandState is what the session knows of the CLI's commands.
type commandState struct {
	known        []claude.SlashCommand // with descriptions, from initialize
	names        []string              // the CLI's current list, from init frames
	terminalOnly []string
	sent         string // JSON of the list last sent
}

// headlessUnusable are commands that do not work, or do harm, behind an
// editor: /clear would start a different Claude session under the same
// ACP session; login and logout need a terminal; the rest only print a
// notice that they are unavailable here.
var headlessUnusable = []string{
	"clear", "login", "logout", "exit", "quit", "release-notes", "keybindings-help",
	"todos", "output-style:new", "workflow-launch-exec", "resume", "vim", "terminal-setup",
}

// defaultTerminalOnly is what CLI 2.1.332 lists as terminal_slash_commands,
// used until the CLI's first init frame says otherwise.
var defaultTerminalOnly = []string{"doctor", "color", "focus", "reload-plugins"}

func (c *commandState) learnFromStart(cmds []claude.SlashCommand) {
	c.known = cmds
	if c.terminalOnly == nil {
		c.terminalOnly = defaultTerminalOnly
	}
}

// learnFromInit follows the command list of an init frame (commands
// added on disk, terminal-only markers).
func (c *commandState) learnFromInit(raw json.RawMessage) {
	var f struct {
		SlashCommands         []string `json:"slash_commands"`
		TerminalSlashCommands []string `json:"terminal_slash_commands"`
	}
	if json.Unmarshal(raw, &f) != nil {
		return
	}
	if f.SlashCommands != nil {
		c.names = f.SlashCommands
	}
	if f.TerminalSlashCommands != nil {
		c.terminalOnly = f.TerminalSlashCommands
	}
}

// available is the list the client may offer.
func (c *commandState) available() []acp.AvailableCommand {
	byName := map[string]claude.SlashCommand{}
	order := []string{}
	for _, k := range c.known {
		if _, dup := byName[k.Name]; !dup {
			byName[k.Name] = k
			order = append(order, k.Name)
		}
	}
	if c.names != nil {
		// The init frame's list is current: new names are added, names
		// it no longer has are dropped.
		order = order[:0:0]
		for _, n := range c.names {
			if _, ok := byName[n]; !ok {
				byName[n] = claude.SlashCommand{Name: n}
			}
			if !slices.Contains(order, n) {
				order = append(order, n)
			}
		}
	}
	out := []acp.AvailableCommand{}
	for _, n := range order {
		k := byName[n]
		if !usableCommand(k, c.terminalOnly) {
			continue
		}
		ac := acp.AvailableCommand{Name: k.Name, Description: k.Description}
		if k.ArgumentHint != "" {
			ac.Input = &acp.AvailableCommandInput{Unstructured: &acp.UnstructuredCommandInput{Hint: k.ArgumentHint}}
		}
		out = append(out, ac)
	}
	return out
}

func usableCommand(c claude.SlashCommand, terminalOnly []string) bool {
	switch {
	case c.Name == "", strings.ContainsAny(c.Name, " \t\n"), strings.HasPrefix(c.Name, "__"):
		return false
	case slices.Contains(headlessUnusable, c.Name), slices.Contains(terminalOnly, c.Name):
		return false
	case strings.HasPrefix(c.Description, "(removed)"):
		return false
	}
	return true
}

// publish sends the list when it changed since the client last got it.
func (c *commandState) publish(sessionID string, notify func(string, acp.SessionUpdate)) {
	cmds := c.available()
	j := string(mustJSON(cmds))
	if j == c.sent {
		return
	}
	c.sent = j
	notify(sessionID, acp.SessionUpdate{AvailableCommandsUpdate: &acp.AvailableCommandsUpdate{AvailableCommands: cmds}})
}
