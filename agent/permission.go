package agent

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/toolview"
	"github.com/claude-agent-acp/claude-agent-acp/agent/translate"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// Permissions. Claude Code decides what needs asking (mode, settings
// rules, read-only commands) and asks through can_use_tool; each such
// request becomes session/request_permission about a tool call the client
// has already been shown, with the same title, content (an edit's diff)
// and locations. The options are:
//
//   - Allow: this call only.
//   - Always allow: this call, plus the permission updates Claude Code
//     itself suggested (a rule such as Bash(npm test:*) saved for the
//     project, access to a directory, or, when that is the whole
//     suggestion, accept-edits mode for the session), named after what
//     they grant. Without a suggestion, some tools get a session rule for
//     the tool (alwaysAllow says which; Bash, the file tools and plan mode
//     get none).
//   - Reject: the call does not run; Claude is told so and continues.
//
// ExitPlanMode instead offers to approve the plan and switch to a mode, or
// to keep planning. A request the client cancels, or that a cancelled
// prompt withdraws ($/cancel_request), denies the call and interrupts the
// turn.

const (
	optAllow       = "allow"
	optAllowAlways = "allow_always"
	optReject      = "reject"
)

// permChoice is one option and what choosing it answers.
type permChoice struct {
	opt    acp.PermissionOption
	answer claude.PermissionResult
}

// canUseTool answers the CLI's can_use_tool by asking the client.
func (s *session) canUseTool(ctx context.Context, req claude.CanUseToolRequest) (claude.PermissionResult, error) {
	if s.efs != nil { // editorfs_wire.go: the editor's file tools ask as the built-ins
		if res, done := s.efs.permission(ctx, &req); done {
			return res, nil
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var params *acp.RequestPermissionRequest
	var choices []permChoice
	var t *translate.Turn // the turn the request belongs to
	var open *openRequest
	var stopped bool
	var asked func()              // ends what the open request shows (a subagent's requires_action)
	if !s.waitAdopted(ctx, req) { // catchup.go: a CLI still starting is the session's first
		return claude.Deny("The session was closed."), nil
	}
	if !s.waitReplays(ctx) { // lifecycle.go: the history goes first
		return claude.Deny("The session was closed."), nil
	}
	var a *connection // the session's connection, which may change (shared.go)
	ok := s.do(func() {
		s.catchUp(req) // catchup.go: what the CLI wrote before it asked goes first
		a = s.a
		t = s.tr.PermissionTurn(req) // (a background subagent's request belongs to no prompt)
		if t != nil && t.Cancelled {
			// The user pressed Stop before Claude asked: nothing of that
			// turn may run, and the user is not asked about it.
			stopped = true
			return
		}
		var shownIn string
		params = &acp.RequestPermissionRequest{}
		shownIn, params.ToolCall, asked = s.tr.AskPermission(req) // the call, its preview computed once
		params.SessionID = acp.SessionID(shownIn)
		open = s.q.trackRequest(t, cancel)
		choices = s.permissionChoices(req)
		if s.q.v2 != nil && t != nil {
			s.q.v2.ask(+1) // v2turns.go: the foreground turn requires action
		}
		for _, c := range choices {
			params.Options = append(params.Options, c.opt)
		}
	})
	if !ok {
		return claude.Deny("The session was closed."), nil
	}
	if stopped {
		return claude.PermissionResult{Behavior: "deny", Message: "The user cancelled this turn.", Interrupt: true}, nil
	}
	defer s.post(func() {
		s.q.untrackRequest(t, open)
		asked()
		if s.q.v2 != nil && t != nil {
			s.q.v2.ask(-1)
		}
	})
	if a.isQuestion(req) {
		return s.answerQuestions(ctx, a, req, params), nil // elicitation.go: a form, not a permission
	}
	resp, err := s.askPermission(ctx, a, params) // shared.go; v2.go: in the connection's version
	if err != nil {
		return s.permissionFailed(ctx, req, err), nil
	}
	sel := resp.Outcome.Selected
	if sel == nil {
		return claude.PermissionResult{Behavior: "deny", Message: "The user cancelled the permission request.", Interrupt: true}, nil
	}
	i := slices.IndexFunc(choices, func(c permChoice) bool { return c.opt.OptionID == sel.OptionID })
	if i < 0 {
		s.log.Warn("permission answer names an option that was not offered", "tool", req.ToolName)
		return claude.Deny("The permission answer was not understood, so the tool did not run."), nil
	}
	answer := choices[i].answer
	if len(answer.UpdatedPermissions) > 0 {
		s.efs.rulesChanged() // editorfs_wire.go: the rules it listed are old
	}
	if answer.Behavior == "allow" {
		answer.UpdatedInput = req.Input
		if rules := sessionRules(answer.UpdatedPermissions); len(rules) > 0 {
			// The CLI keeps session rules in memory: a CLI started again
			// for this session (hibernation, a restart) gets them as
			// --allowedTools.
			s.post(func() {
				for _, r := range rules {
					if !slices.Contains(s.conf.Opts.AllowedTools, r) {
						s.conf.Opts.AllowedTools = append(s.conf.Opts.AllowedTools, r)
					}
				}
			})
		}
	}
	return answer, nil
}

// sessionRules are the allow rules with destination "session" among
// permission updates, as --allowedTools entries ("Tool" or
// "Tool(content)"). Rules saved to settings files survive on their own.
func sessionRules(updates []json.RawMessage) []string {
	var out []string
	for _, raw := range updates {
		var u struct {
			Type        string `json:"type"`
			Behavior    string `json:"behavior"`
			Destination string `json:"destination"`
			Rules       []struct {
				ToolName    string `json:"toolName"`
				RuleContent string `json:"ruleContent"`
			} `json:"rules"`
		}
		if json.Unmarshal(raw, &u) != nil || u.Type != "addRules" || u.Behavior != "allow" || u.Destination != "session" {
			continue
		}
		for _, r := range u.Rules {
			switch {
			case r.ToolName == "":
			case r.RuleContent != "":
				out = append(out, r.ToolName+"("+r.RuleContent+")")
			default:
				out = append(out, r.ToolName)
			}
		}
	}
	return out
}

// permissionFailed answers a permission request that got no usable answer
// (the decision table is in docs/tools.md). The turn was cancelled or the
// editor is gone: deny and stop the turn, nobody is there to go on with.
// The editor answered with an error, or with something that is no answer:
// deny just this call and let Claude go on, as the reference adapter
// does; the user cancelled nothing, so the turn must not end "cancelled".
func (s *session) permissionFailed(ctx context.Context, req claude.CanUseToolRequest, err error) claude.PermissionResult {
	if ctx.Err() != nil || errors.Is(err, acp.ErrPeerClosed) || errors.Is(err, acp.ErrShutdown) || errors.Is(err, acp.ErrTransport) {
		return claude.PermissionResult{Behavior: "deny", Message: "The permission request was cancelled.", Interrupt: true}
	}
	s.log.Warn("the editor's answer to a permission request was an error or unusable; the tool was denied", "tool", req.ToolName, "error", err)
	return claude.Deny("The editor could not ask the user for permission (its answer was an error), so the tool did not run.")
}

// permissionChoices are the options offered for a request.
func (s *session) permissionChoices(req claude.CanUseToolRequest) []permChoice {
	if req.ToolName == "ExitPlanMode" {
		return s.planExitChoices()
	}
	out := []permChoice{{
		opt:    acp.PermissionOption{OptionID: optAllow, Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce},
		answer: claude.PermissionResult{Behavior: "allow"},
	}}
	if ups, name, ok := alwaysAllow(req, s.conf.ModeID, s.conf.Opts.Dir, s.conf.Opts.AddDirs); ok {
		out = append(out, permChoice{
			opt:    acp.PermissionOption{OptionID: optAllowAlways, Name: name, Kind: acp.PermissionOptionKindAllowAlways},
			answer: claude.PermissionResult{Behavior: "allow", UpdatedPermissions: ups},
		})
	}
	return append(out, permChoice{
		opt: acp.PermissionOption{OptionID: optReject, Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
		answer: claude.Deny("The user rejected this tool call, so it did not run. Do not retry it; " +
			"wait for the user to say how to proceed."),
	})
}

// alwaysAllow is the "always" option of a request: Claude Code's own
// suggestions when it made some. Without any, a session rule for the tool
// is offered only where it grants what the user would expect: not for
// Bash (a blanket rule would allow every command), not for the file tools
// (Claude Code suggests what it would grant for them: a rule for a path,
// a directory, accept-edits; the reference adapter offers no more), and
// not in plan mode, where Claude Code suggests nothing because nothing is
// to be granted for good while planning. mode is the session's permission
// mode, cwd and dirs its directories.
func alwaysAllow(req claude.CanUseToolRequest, mode, cwd string, dirs []string) ([]json.RawMessage, string, bool) {
	ups := withoutModeSwitch(withoutOwnDirectories(req.PermissionSuggestions, append([]string{cwd}, dirs...)))
	switch {
	case req.ToolName == "EnterPlanMode":
		return nil, "", false
	case len(ups) > 0:
		return ups, describeUpdates(ups, cwd), true
	case req.ToolName == "Bash" || req.ToolName == "PowerShell", isFileTool(req.ToolName), mode == claude.PermissionPlan:
		return nil, "", false
	}
	rule := mustJSON(map[string]any{
		"type": "addRules", "rules": []map[string]string{{"toolName": req.ToolName}},
		"behavior": "allow", "destination": "session",
	})
	return []json.RawMessage{rule}, "Always allow " + toolDisplayName(req.ToolName) + " for this session", true
}

// isFileTool reports the tools that read or change files.
func isFileTool(name string) bool {
	switch name {
	case "Read", "Glob", "Grep", "Edit", "MultiEdit", "Write", "NotebookEdit", "NotebookRead":
		return true
	}
	return false
}

func toolDisplayName(name string) string {
	if server, tool, ok := toolview.MCPToolName(name); ok {
		return tool + " (" + server + ")"
	}
	return name
}

// withoutModeSwitch drops a suggested mode switch when Claude Code also
// suggested a rule or a directory: "always allow `touch x`" must not
// quietly turn on accept-edits for the whole session. A mode switch on its
// own (an edit's "allow all edits") is kept.
func withoutModeSwitch(ups []json.RawMessage) []json.RawMessage {
	var out []json.RawMessage
	for _, raw := range ups {
		var u permissionUpdate
		if json.Unmarshal(raw, &u) == nil && u.Type == "setMode" {
			continue
		}
		out = append(out, raw)
	}
	if len(out) == 0 {
		return ups
	}
	return out
}

// withoutOwnDirectories drops, from suggested addDirectories updates, the
// directories the session already works in (its cwd, its additional
// directories): Claude Code suggests the session's own directory for a
// command that cds into it, and granting it told Claude "Additional
// working directories added: <cwd>", and every later load, resume or fork
// "… removed". An update left with no directory is dropped whole.
func withoutOwnDirectories(ups []json.RawMessage, own []string) []json.RawMessage {
	out := make([]json.RawMessage, 0, len(ups))
	for _, raw := range ups {
		var u map[string]json.RawMessage
		var dirs []string
		if json.Unmarshal(raw, &u) != nil || string(u["type"]) != `"addDirectories"` || json.Unmarshal(u["directories"], &dirs) != nil {
			out = append(out, raw)
			continue
		}
		kept := slices.DeleteFunc(slices.Clone(dirs), func(d string) bool {
			return slices.ContainsFunc(own, func(o string) bool { return sameDir(d, o) })
		})
		switch {
		case len(kept) == len(dirs):
			out = append(out, raw)
		case len(kept) > 0:
			u["directories"] = mustJSON(kept)
			out = append(out, mustJSON(u))
		}
	}
	return out
}

// sameDir reports whether a and b name the same directory, as written or
// once symbolic links are resolved.
func sameDir(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}

// permissionUpdate is a PermissionUpdate as far as naming it goes.
type permissionUpdate struct {
	Type  string `json:"type"`
	Rules []struct {
		ToolName    string `json:"toolName"`
		RuleContent string `json:"ruleContent"`
	} `json:"rules"`
	Behavior    string   `json:"behavior"`
	Destination string   `json:"destination"`
	Mode        string   `json:"mode"`
	Directories []string `json:"directories"`
}

// describeUpdates names an "always allow" option after what it grants,
// e.g. "Always allow `Bash(npm test:*)` in this project". Access to the
// session's own directory goes without saying.
func describeUpdates(ups []json.RawMessage, cwd string) string {
	var parts, scopes []string
	for _, raw := range ups {
		var u permissionUpdate
		if json.Unmarshal(raw, &u) != nil {
			continue
		}
		var part string
		switch u.Type {
		case "addRules", "replaceRules":
			if u.Behavior != "" && u.Behavior != "allow" {
				continue
			}
			var rules []string
			for _, r := range u.Rules {
				if r.RuleContent != "" {
					rules = append(rules, "`"+r.ToolName+"("+r.RuleContent+")`")
				} else {
					rules = append(rules, toolDisplayName(r.ToolName))
				}
			}
			part = strings.Join(rules, ", ")
		case "setMode":
			part = modeGrant(u.Mode)
		case "addDirectories":
			var dirs []string
			for _, d := range u.Directories {
				if filepath.Clean(d) != filepath.Clean(cwd) {
					dirs = append(dirs, toolview.DisplayPath(d, cwd))
				}
			}
			if len(dirs) == 0 {
				continue
			}
			part = "access to " + strings.Join(dirs, ", ")
		default:
			continue
		}
		if part == "" {
			continue
		}
		parts = append(parts, part)
		if sc := scopeName(u.Destination); !slices.Contains(scopes, sc) {
			scopes = append(scopes, sc)
		}
	}
	if len(parts) == 0 {
		return "Always allow"
	}
	name := "Always allow " + strings.Join(parts, "; ")
	if len(scopes) == 1 && scopes[0] != "" {
		name += " " + scopes[0]
	}
	return name
}

func modeGrant(mode string) string {
	switch mode {
	case claude.PermissionAcceptEdits:
		return "all edits"
	case claude.PermissionBypass:
		return "everything (bypass permissions)"
	case claude.PermissionAuto:
		return "what auto mode approves"
	}
	return ""
}

func scopeName(dest string) string {
	switch dest {
	case "session", "cliArg":
		return "for this session"
	case "localSettings", "projectSettings":
		return "in this project"
	case "userSettings":
		return "in all projects"
	}
	return ""
}

// planExitChoices approve a plan and pick the mode to continue in, or keep
// planning.
func (s *session) planExitChoices() []permChoice {
	setMode := func(m string) claude.PermissionResult {
		return claude.PermissionResult{Behavior: "allow", UpdatedPermissions: []json.RawMessage{
			mustJSON(map[string]string{"type": "setMode", "mode": m, "destination": "session"}),
		}}
	}
	out := []permChoice{{
		opt:    acp.PermissionOption{OptionID: "plan-default", Name: "Yes, and manually approve edits", Kind: acp.PermissionOptionKindAllowOnce},
		answer: setMode(claude.PermissionDefault),
	}, {
		opt:    acp.PermissionOption{OptionID: "plan-acceptEdits", Name: "Yes, and auto-accept edits", Kind: acp.PermissionOptionKindAllowAlways},
		answer: setMode(claude.PermissionAcceptEdits),
	}}
	for _, m := range s.conf.Modes(s.a.modelList()) {
		switch m.ID {
		case claude.PermissionAuto:
			out = append(out, permChoice{
				opt:    acp.PermissionOption{OptionID: "plan-auto", Name: "Yes, and use auto mode", Kind: acp.PermissionOptionKindAllowAlways},
				answer: setMode(claude.PermissionAuto),
			})
		case claude.PermissionBypass:
			out = append(out, permChoice{
				opt:    acp.PermissionOption{OptionID: "plan-bypassPermissions", Name: "Yes, and bypass permissions", Kind: acp.PermissionOptionKindAllowAlways},
				answer: setMode(claude.PermissionBypass),
			})
		}
	}
	return append(out, permChoice{
		opt: acp.PermissionOption{OptionID: optReject, Name: "No, keep planning", Kind: acp.PermissionOptionKindRejectOnce},
		answer: claude.Deny("The user wants to keep planning. Stop here and wait for their feedback " +
			"before presenting the plan again."),
	})
}

// openRequest is a client request a turn has open (a permission prompt).
type openRequest struct{ cancel context.CancelFunc }

// trackRequest remembers an open client request of a turn so cancelling
// the turn withdraws it.
func (q *turnQueue) trackRequest(t *translate.Turn, cancel context.CancelFunc) *openRequest {
	if q.openRequests == nil {
		q.openRequests = map[*translate.Turn][]*openRequest{}
	}
	r := &openRequest{cancel: cancel}
	q.openRequests[t] = append(q.openRequests[t], r)
	return r
}

func (q *turnQueue) untrackRequest(t *translate.Turn, r *openRequest) {
	rs := q.openRequests[t]
	for i := range rs {
		if rs[i] == r {
			q.openRequests[t] = append(rs[:i], rs[i+1:]...)
			break
		}
	}
	if len(q.openRequests[t]) == 0 {
		delete(q.openRequests, t)
	}
}

// cancelOpenRequests withdraws the client requests a turn has open.
func (q *turnQueue) cancelOpenRequests(t *translate.Turn) {
	for _, r := range q.openRequests[t] {
		r.cancel()
	}
	delete(q.openRequests, t)
}
