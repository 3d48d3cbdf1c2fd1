package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/goal"
	"github.com/claude-agent-acp/claude-agent-acp/agent/translate"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

func TestGoalCommand(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		"/goal the tests pass":      "the tests pass",
		"  /goal   clear \n":        "clear",
		"/goal multi\nline goal":    "multi\nline goal",
		"/goal":                     "-",
		"/goals x":                  "-",
		"please /goal x":            "-",
		"/goal\tfix it, then ship.": "fix it, then ship.",
	} {
		got, ok := goal.Command(text)
		if !ok {
			got = "-"
		}
		if got != want {
			t.Errorf("%q: %q", text, got)
		}
	}
}

// goals returns the _meta.goal values the probe's client got, as JSON.
func (p *subProbe) goals() []string {
	p.flush()
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, n := range p.got {
		if i := n.Update.SessionInfoUpdate; i != nil {
			out = append(out, string(i.Meta["goal"]))
		}
	}
	return out
}

func goalTurn(p *subProbe, text string) *turn {
	t := &turn{Turn: translate.Turn{UUID: "g-" + text}, done: make(chan turnOutcome, 1), phase: turnSent}
	t.msg = claude.UserMessage{Content: []claude.ContentBlock{claude.TextBlock(text)}, UUID: t.UUID}
	p.s.goalPrompt(t)
	p.s.q.turns = append(p.s.q.turns, t)
	return t
}

func TestGoalSnapshots(t *testing.T) {
	t.Parallel()
	p := newSubProbe(t, acp.ClientCapabilities{})
	p.frame(`{"type":"active_goal","value":null}`) // at startup: nothing to clear
	t1 := goalTurn(p, "/goal ship it")
	p.frame(`{"type":"command_lifecycle","command_uuid":"` + t1.UUID + `","state":"started"}`)
	p.frame(`{"type":"active_goal","value":null}`) // stale: the CLI has not run the command yet
	p.frame(`{"type":"active_goal","value":{"condition":" ship it ","iterations":0,"set_at":1700000000000,"tokens_at_start":42}}`)
	p.frame(`{"type":"active_goal","value":{"condition":"ship it","iterations":1,"set_at":1700000000000,"tokens_at_start":42,"last_reason":"not yet"}}`)
	p.frame(`{"type":"result","subtype":"success","is_error":false,"result":"ok"}`)
	want := []string{
		`{"objective":"ship it","status":"active","controlMethod":"_session/goal"}`,
		`{"objective":"ship it","status":"active","iterations":0,"createdAt":1700000000000,"controlMethod":"_session/goal"}`,
		`{"objective":"ship it","status":"active","iterations":1,"lastReason":"not yet","createdAt":1700000000000,"controlMethod":"_session/goal"}`,
	}
	if got := p.goals(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("snapshots:\n%s", strings.Join(got, "\n"))
	}

	// A /goal command that fails restores what the client had.
	t2 := goalTurn(p, "/goal other")
	p.frame(`{"type":"command_lifecycle","command_uuid":"` + t2.UUID + `","state":"started"}`)
	p.frame(`{"type":"result","subtype":"success","is_error":true,"result":"no"}`)
	got := p.goals()
	if len(got) != 5 || !strings.Contains(got[3], `"other"`) || got[4] != want[2] {
		t.Errorf("after a failed /goal:\n%s", strings.Join(got, "\n"))
	}
	// Clear: null at once; the CLI's null confirms it.
	t3 := goalTurn(p, "/goal clear")
	p.frame(`{"type":"command_lifecycle","command_uuid":"` + t3.UUID + `","state":"started"}`)
	p.frame(`{"type":"active_goal","value":null}`)
	if got := p.goals(); len(got) != 6 || got[5] != "null" {
		t.Errorf("after clear:\n%s", strings.Join(got, "\n"))
	}
}

// Without active_goal frames, each Stop-hook feedback about the goal's
// condition is a round; feedback of other Stop hooks is not.
func TestGoalFeedbackWithoutFrames(t *testing.T) {
	t.Parallel()
	p := newSubProbe(t, acp.ClientCapabilities{Meta: map[string]json.RawMessage{
		"jetbrains": json.RawMessage(`{"air":{"version":1,"capabilities":[]}}`)}})
	goalTurn(p, "/goal green build")
	feedback := func(cond, reason string) {
		p.frame(`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"Stop hook feedback:\n[` + cond + `]: ` + reason + `"}]},"parent_tool_use_id":null,"isSynthetic":true}`)
	}
	feedback("green build", "still red")
	feedback("lint clean", "warnings")
	feedback("green build", "one failure")
	got := p.goals()
	if len(got) != 3 || !strings.Contains(got[1], `"iterations":1,"lastReason":"still red"`) || !strings.Contains(got[2], `"iterations":2,"lastReason":"one failure"`) {
		t.Errorf("snapshots:\n%s", strings.Join(got, "\n"))
	}
	// An AIR client also reads it under jetbrains.air.
	var meta map[string]json.RawMessage
	p.mu.Lock()
	for _, n := range p.got {
		if i := n.Update.SessionInfoUpdate; i != nil {
			meta = i.Meta
		}
	}
	p.mu.Unlock()
	var jb struct {
		Air struct {
			Version int             `json:"version"`
			Goal    json.RawMessage `json:"goal"`
		} `json:"air"`
	}
	if json.Unmarshal(meta["jetbrains"], &jb) != nil || jb.Air.Version != 1 || string(jb.Air.Goal) != string(meta["goal"]) {
		t.Errorf("AIR mirror: %s", meta["jetbrains"])
	}
}

func TestGoalCapabilityAndRequest(t *testing.T) {
	t.Parallel()
	resp := &acp.InitializeResponse{}
	goalInitialize(readClientCaps(acp.ClientCapabilities{}), resp)
	if got := string(resp.Meta["goal"]); got != `{"actions":["clear"],"controlMethod":"_session/goal","version":1}` || resp.Meta["jetbrains"] != nil {
		t.Errorf("capability %v", resp.Meta)
	}
	for _, tc := range []struct {
		req  goalRequest
		path string
	}{
		{goalRequest{SessionID: "s", Action: "clear"}, ""},
		{goalRequest{Action: "clear"}, "sessionId"},
		{goalRequest{SessionID: "s", Action: "set"}, "action"},
		{goalRequest{SessionID: "s"}, "action"},
	} {
		err := tc.req.Validate()
		fe, _ := err.(*acp.FieldError)
		if tc.path == "" && err != nil || tc.path != "" && (fe == nil || fe.Path != tc.path) {
			t.Errorf("%+v: %v", tc.req, err)
		}
	}
}
