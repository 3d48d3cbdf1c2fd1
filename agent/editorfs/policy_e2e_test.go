package editorfs_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/agent/editorfs"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// decideCase is one call whose permission the real CLI decides for its
// built-in tool.
type decideCase struct {
	id, tool string
	path     func(e env) string
}

func decideCases() []decideCase {
	in := func(name string) func(e env) string {
		return func(e env) string { return filepath.Join(e.Work, name) }
	}
	out := func(name string) func(e env) string {
		return func(e env) string { return filepath.Join(e.Home, name) }
	}
	return []decideCase{
		{"r_in", "Read", in("a.txt")},
		{"r_out", "Read", out("out.txt")},
		{"r_deny", "Read", in("secret.txt")},
		{"r_ask", "Read", in("askread.txt")},
		{"e_in", "Edit", in("a.txt")},
		{"w_new", "Write", in("new.txt")},
		{"w_ok", "Write", in("ok/x.txt")},
		{"w_md", "Write", in("docs/notes.md")},
		{"w_locked", "Write", in("locked/x.txt")},
		{"w_out", "Write", out("new_out.txt")},
		{"w_claude", "Write", in(".claude/settings.json")},
		{"w_cmd", "Write", in(".claude/commands/x.md")},
		{"w_git", "Write", in(".git/config")},
		{"w_rc", "Write", in(".envrc")},
	}
}

func decideSetup(t *testing.T, e env) {
	for name, text := range map[string]string{"a.txt": "hello\n", "secret.txt": "s\n", "askread.txt": "q\n"} {
		if err := os.WriteFile(filepath.Join(e.Work, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(e.Home, "out.txt"), []byte("out\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".claude/commands", ".git", "ok", "docs", "locked"} {
		if err := os.MkdirAll(filepath.Join(e.Work, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	settings := `{"permissions":{"deny":["Read(./secret.txt)","Edit(./locked/**)"],"allow":["Edit(./ok/**)"],"ask":["Read(askread.txt)","Write(*.md)"]}}`
	if err := os.WriteFile(filepath.Join(e.Config, "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
}

func decideScript(e env) []fakeapi.Step {
	var steps []fakeapi.Step
	for _, c := range decideCases() {
		in := map[string]any{"file_path": c.path(e)}
		switch c.tool {
		case "Edit":
			in["old_string"], in["new_string"] = "hello", "bye"
		case "Write":
			in["content"] = "x\n"
		}
		steps = append(steps, use(c.id, c.tool, in))
	}
	return steps
}

// observed is what the CLI did with a call to its built-in tool, in the
// terms of a Decision.
func observed(o *outcome) editorfs.Decision {
	switch {
	case o == nil:
		return editorfs.Decision{Behavior: "missing"}
	case o.Asked != nil && strings.Contains(o.Asked.DecisionReason, "consecutive actions were blocked"):
		// The classifier's circuit breaker: after several it could not
		// judge (the fake API cannot answer it), the CLI asks instead.
		return editorfs.Decision{}
	case o.Asked != nil:
		return editorfs.Decision{Behavior: "ask", Reason: o.Asked.DecisionReason, Suggestions: o.Asked.PermissionSuggestions}
	case strings.Contains(o.Text, "Auto mode could not evaluate"):
		return editorfs.Decision{} // the classifier's
	case o.IsError && (strings.Contains(o.Text, "denied") || strings.Contains(o.Text, "don't ask mode")):
		return editorfs.Decision{Behavior: "deny", Reason: o.Text}
	}
	return editorfs.Decision{Behavior: "allow"}
}

// TestDecideMatchesBuiltins runs calls to the built-in file tools in every
// permission mode through the real CLI and checks that Decide, given the
// rules the same CLI reports, decides what the CLI decided: allowed, asked
// (with the same reason and suggestions), denied (with the same words), or
// left to the classifier.
func TestDecideMatchesBuiltins(t *testing.T) {
	for _, mode := range []string{"default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			r := runTurn(t, runSpec{mode: mode, setup: decideSetup, script: decideScript})
			envOf := editorfs.Env{Home: r.env.Home, ConfigDir: r.env.Config}
			for _, c := range decideCases() {
				want := observed(r.calls[c.id])
				got := editorfs.Decide(mode, c.tool, c.path(r.env), r.rules, envOf)
				if want.Behavior == "missing" {
					t.Errorf("%s: the CLI did not run it", c.id)
					continue
				}
				if got.Behavior != want.Behavior {
					t.Errorf("%s %s: Decide says %q (%s), the CLI %q (%s)", mode, c.id, got.Behavior, got.Reason, want.Behavior, want.Reason)
					continue
				}
				switch want.Behavior {
				case "ask":
					if got.Reason != want.Reason {
						t.Errorf("%s %s: reason %q, the CLI's %q", mode, c.id, got.Reason, want.Reason)
					}
					if g, w := canon(got.Suggestions), canon(want.Suggestions); g != w {
						t.Errorf("%s %s: suggestions %s, the CLI's %s", mode, c.id, g, w)
					}
				case "deny":
					if !strings.HasPrefix(want.Reason, strings.TrimSpace(got.Reason)) {
						t.Errorf("%s %s: denied with %q, the CLI with %q", mode, c.id, got.Reason, want.Reason)
					}
				}
			}
		})
	}
}

func canon(ups []json.RawMessage) string {
	var v []any
	for _, u := range ups {
		var x any
		_ = json.Unmarshal(u, &x)
		v = append(v, x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// TestHookGivesBuiltinDecisions runs the same calls with our tools, the
// CLI's PreToolUse hook answered by Decide (as the agent does), and checks
// that the CLI then allows, asks and denies what it did for its built-ins,
// and that a denial reads the same to Claude.
func TestHookGivesBuiltinDecisions(t *testing.T) {
	for _, mode := range []string{"default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			builtin := runTurn(t, runSpec{mode: mode, setup: decideSetup, script: decideScript})
			ours := runTurn(t, runSpec{mode: mode, ours: true, decide: true, setup: decideSetup, script: decideScript})
			for _, c := range decideCases() {
				want, got := observed(builtin.calls[c.id]), observed(ours.calls[c.id])
				if mode == "plan" && want.Behavior == "" && got.Behavior == "ask" {
					// A write the CLI hands its classifier in plan mode (a
					// sensitive file) is asked about instead: the CLI asks
					// about an MCP tool that writes while planning.
					continue
				}
				if got.Behavior != want.Behavior {
					t.Errorf("%s %s: with our tools the CLI did %q (%s), with its own %q (%s)", mode, c.id, got.Behavior, got.Reason, want.Behavior, want.Reason)
				}
				if want.Behavior == "deny" && got.Reason != want.Reason {
					t.Errorf("%s %s: Claude reads %q, with the built-in %q", mode, c.id, got.Reason, want.Reason)
				}
			}
		})
	}
}
