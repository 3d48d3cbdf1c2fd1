package editorfs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Permissions. Claude Code decides whether its built-in file tools may
// run: by the permission mode, the settings' rules (Read(…), Edit(…)),
// the working directories and its list of sensitive files. None of that
// applies to an MCP tool, which the CLI asks about every time (and, in
// plan and auto mode, hands to its classifier). So the agent answers the
// CLI's PreToolUse hook for these tools with Decide, which applies the
// built-ins' table to the CLI's own rules: allow (the CLI runs the tool),
// ask (the CLI asks the agent, which asks the user, offering what Claude
// Code would offer), deny, or nothing (the CLI's classifier decides, as it
// does for the built-in in auto mode).

// Rules is the CLI's answer to list_permission_rules: the rules it applies
// and its working directories.
type Rules struct {
	Rules []struct {
		Behavior string `json:"behavior"`
		Source   string `json:"source"`
		Rule     string `json:"rule"`
	} `json:"rules"`
	WorkspaceDirectories []struct {
		Path string `json:"path"`
	} `json:"workspaceDirectories"`
	OriginalCwd string `json:"originalCwd"`
}

// Env is where the user's files live, for rules and sensitive paths.
type Env struct {
	Home      string // ~ in rules
	ConfigDir string // Claude Code's own (CLAUDE_CONFIG_DIR, ~/.claude)
}

// A Decision answers whether a file tool may run.
type Decision struct {
	// Behavior is "allow", "ask", "deny", or "" to leave the call to Claude
	// Code (its auto-mode classifier).
	Behavior string
	// Reason is why, as Claude Code words it: for a denial, the text
	// Claude reads in the tool's result; for an ask, the reason the CLI
	// gives with its request.
	Reason string
	// Suggestions are the permission updates Claude Code would suggest
	// with an ask (PermissionUpdate objects): what "always allow" grants.
	Suggestions []json.RawMessage
}

// Permission modes, as the CLI names them.
const (
	modeDefault     = "default"
	modeAcceptEdits = "acceptEdits"
	modePlan        = "plan"
	modeBypass      = "bypassPermissions"
	modeDontAsk     = "dontAsk"
	modeAuto        = "auto"
)

const (
	outsideReason = "Path is outside allowed working directories"
	dontAskTail   = " has been denied because Claude Code is running in don't ask mode. IMPORTANT: You *may* attempt to accomplish this action using other tools that might naturally be used to accomplish this goal, e.g. using head instead of cat. But you *should not* attempt to work around this denial in malicious ways, e.g. do not use your ability to run tests to execute non-test actions. You should only try to work around this restriction in reasonable ways that do not attempt to bypass the intent behind this denial. If you believe this capability is essential to complete the user's request, STOP and explain to the user what you were trying to do and why you need this permission. Let the user decide how to proceed."
)

// Decide applies Claude Code's decision for its built-in tool (Read,
// Write, Edit, MultiEdit, NotebookEdit) on path (absolute) in mode, given
// the CLI's rules.
func Decide(mode, tool, path string, r Rules, env Env) Decision {
	p := resolve(path)
	write := tool != ToolRead
	// Read(…) rules govern reading, Edit(…) rules every tool that writes
	// (the CLI applies no Write(…) rule to a file).
	kinds := []string{ToolRead}
	if write {
		kinds = []string{ToolEdit}
	}
	if r.matches("deny", kinds, p, env) {
		return Decision{Behavior: "deny", Reason: "<tool_use_error>File is in a directory that is denied by your permission settings.</tool_use_error>"}
	}
	dontAsk := Decision{Behavior: "deny", Reason: "Permission to use " + tool + dontAskTail}
	if r.matches("ask", kinds, p, env) {
		if mode == modeDontAsk {
			return dontAsk
		}
		return Decision{Behavior: "ask"}
	}
	inDirs := r.inWorkingDirs(p)
	if !write {
		switch {
		case inDirs, mode == modeBypass, mode == modePlan, mode == modeAuto,
			r.matches("allow", []string{ToolRead, ToolEdit}, p, env):
			return Decision{Behavior: "allow"}
		case mode == modeDontAsk:
			return dontAsk
		}
		return Decision{Behavior: "ask", Reason: outsideReason, Suggestions: []json.RawMessage{mustJSON(map[string]any{
			"type": "addRules", "rules": []map[string]string{{"toolName": ToolRead, "ruleContent": "/" + filepath.Dir(path) + "/**"}},
			"behavior": "allow", "destination": "session",
		})}}
	}
	setMode := mustJSON(map[string]string{"type": "setMode", "mode": modeAcceptEdits, "destination": "session"})
	addDir := mustJSON(map[string]any{"type": "addDirectories", "directories": []string{filepath.Dir(path)}, "destination": "session"})
	if mode == modeBypass {
		return Decision{Behavior: "allow"}
	}
	if why := sensitive(p, env); why != "" {
		switch mode {
		case modeDontAsk:
			return dontAsk
		case modeAuto, modePlan:
			return Decision{} // the classifier's (plan mode too, in this CLI)
		case modeAcceptEdits:
			return Decision{Behavior: "ask", Reason: why}
		}
		return Decision{Behavior: "ask", Reason: why, Suggestions: []json.RawMessage{setMode}}
	}
	if mode == modePlan {
		return Decision{Behavior: "ask"} // planning grants nothing for good: not even the rules
	}
	if r.matches("allow", kinds, p, env) {
		return Decision{Behavior: "allow"}
	}
	switch mode {
	case modeDontAsk:
		return dontAsk
	case modeAcceptEdits:
		if inDirs {
			return Decision{Behavior: "allow"}
		}
		return Decision{Behavior: "ask", Reason: outsideReason, Suggestions: []json.RawMessage{addDir}}
	case modeAuto:
		if inDirs {
			return Decision{Behavior: "allow"}
		}
		return Decision{}
	}
	if inDirs {
		return Decision{Behavior: "ask", Suggestions: []json.RawMessage{setMode}}
	}
	return Decision{Behavior: "ask", Reason: outsideReason, Suggestions: []json.RawMessage{setMode, addDir}}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// resolve follows symbolic links in path as far as it exists, as Claude
// Code judges a path by where it leads.
func resolve(path string) string {
	path = filepath.Clean(path)
	rest := ""
	for p := path; ; p = filepath.Dir(p) {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest)
		}
		if filepath.Dir(p) == p {
			return path
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}

// within reports whether p is dir or under it.
func within(p, dir string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func (r Rules) inWorkingDirs(p string) bool {
	if r.OriginalCwd != "" && within(p, resolve(r.OriginalCwd)) {
		return true
	}
	for _, d := range r.WorkspaceDirectories {
		if within(p, resolve(d.Path)) {
			return true
		}
	}
	return false
}

// matches reports whether a rule of behavior for one of tools covers p.
func (r Rules) matches(behavior string, tools []string, p string, env Env) bool {
	for _, rule := range r.Rules {
		if rule.Behavior != behavior {
			continue
		}
		tool, content, _ := strings.Cut(rule.Rule, "(")
		if !slices.Contains(tools, tool) {
			continue
		}
		content = strings.TrimSuffix(content, ")")
		if content == "" && behavior == "deny" && rule.Source == "cliArg" {
			// --disallowedTools: how the session turned off the
			// built-ins these tools replace (a tool the user disallowed
			// is not served at all).
			continue
		}
		if content == "" || content == "*" || content == "**" || ruleCovers(content, p, r.OriginalCwd, env) {
			return true
		}
	}
	return false
}

// ruleCovers applies a Read(…)/Edit(…) rule's path pattern, which follows
// gitignore: "//abs" from the root, "~/x" from the home directory, "/x"
// from the project, "x" and "./x" from the working directory; a pattern
// without a slash matches a name at any depth; "*" stays within a
// directory, "**" does not; a match on a directory covers what is in it.
func ruleCovers(pattern, p, cwd string, env Env) bool {
	root := cwd
	switch {
	case strings.HasPrefix(pattern, "//"):
		root, pattern = "/", pattern[2:]
	case strings.HasPrefix(pattern, "~/"):
		root, pattern = env.Home, pattern[2:]
	case strings.HasPrefix(pattern, "/"):
		pattern = pattern[1:]
	default:
		pattern = strings.TrimPrefix(pattern, "./")
	}
	if root == "" {
		return false
	}
	root = resolve(root)
	if !within(p, root) {
		return false
	}
	rel, _ := filepath.Rel(root, p)
	rel = filepath.ToSlash(rel)
	pattern = strings.TrimSuffix(pattern, "/")
	re, err := regexp.Compile("^" + globRegexp(pattern) + "$")
	if err != nil {
		return false
	}
	segs := strings.Split(rel, "/")
	if !strings.Contains(pattern, "/") {
		return slices.ContainsFunc(segs, re.MatchString) // a name, at any depth
	}
	for i := range segs { // the path or a directory above it
		if re.MatchString(strings.Join(segs[:i+1], "/")) {
			return true
		}
	}
	return false
}

// globRegexp turns a glob into a regular expression.
func globRegexp(g string) string {
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		switch c := g[i]; {
		case strings.HasPrefix(g[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(g[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String()
}

// Claude Code's sensitive paths (2.1.332): writes there are asked about
// even in accept-edits mode.
var (
	sensitiveDirs  = []string{".git", ".vscode", ".idea", ".claude", ".husky", ".cargo", ".devcontainer", ".yarn", ".mvn"}
	sensitiveFiles = []string{".gitconfig", ".gitmodules", ".bashrc", ".bash_profile", ".zshrc", ".zprofile", ".profile", ".zshenv", ".zlogin", ".zlogout", ".bash_login", ".bash_aliases", ".bash_logout", ".envrc", ".ripgreprc", ".mcp.json", ".claude.json", ".npmrc", ".yarnrc", ".yarnrc.yml", ".pnp.cjs", ".pnp.loader.mjs", ".pnp.js", ".pnp.data.json", ".pnpmfile.cjs", "bunfig.toml", ".bunfig.toml", ".bazelrc", ".bazelversion", ".bazeliskrc", ".pre-commit-config.yaml", "lefthook.yml", ".lefthook.yml", "lefthook.yaml", ".lefthook.yaml", "gradle-wrapper.properties", "maven-wrapper.properties", ".devcontainer.json", "pyrightconfig.json"}
)

// sensitive returns why a write to p must be asked about, in Claude
// Code's words, or "".
func sensitive(p string, env Env) string {
	claudeFile := "Claude requested permissions to write to " + p + ", but you haven't granted it yet."
	if env.ConfigDir != "" && within(p, resolve(env.ConfigDir)) {
		return claudeFile
	}
	segs := strings.Split(filepath.ToSlash(p), "/")
	for i, s := range segs {
		if !slices.Contains(sensitiveDirs, s) || i == len(segs)-1 {
			continue
		}
		if s == ".claude" {
			return claudeFile
		}
		return "Claude requested permissions to edit " + p + " which is a sensitive file."
	}
	if strings.Contains(filepath.ToSlash(p), "/.config/git/") || slices.Contains(sensitiveFiles, filepath.Base(p)) {
		return "Claude requested permissions to edit " + p + " which is a sensitive file."
	}
	return ""
}

// DefaultEnv is the user's environment: the home directory and Claude
// Code's configuration directory.
func DefaultEnv(environ func(string) string) Env {
	home, _ := os.UserHomeDir()
	if h := environ("HOME"); h != "" {
		home = h
	}
	conf := environ("CLAUDE_CONFIG_DIR")
	if conf == "" && home != "" {
		conf = filepath.Join(home, ".claude")
	}
	return Env{Home: home, ConfigDir: conf}
}
