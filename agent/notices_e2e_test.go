package agent_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// withNotices adds clientCapabilities.session.notices to caps.
func withNotices(caps acp.ClientCapabilities) acp.ClientCapabilities {
	caps.Session = &acp.ClientSessionCapabilities{Notices: &acp.NoticeCapabilities{}}
	return caps
}

func notices(h *agenttest.Harness, sid string) []*acp.Notice {
	var out []*acp.Notice
	for _, u := range h.Updates(sid) {
		if u.Notice != nil {
			out = append(out, u.Notice)
		}
	}
	return out
}

// TestRefusalFallbackNoticeE2E: a client that takes notices gets the
// refusal fallback as exactly one warning notice (the summary as title,
// Claude's explanation as description) and no transcript line; with the
// AIR session-failure extension negotiated too, the typed record carries it
// and no notice is sent. Which of them a client gets is the agent's
// choice: it runs on the in-process fake CLI playing the frames the real
// CLI wrote for the fallback (clifake.Recorded "refusal_fallback");
// TestModelRefusalFallbackHandlingE2E proves on the real CLI that it
// writes them.
func TestRefusalFallbackNoticeE2E(t *testing.T) {
	t.Parallel()
	world := func() *clifake.World {
		return fakeFailureWorld(map[string]clifake.Reply{"scan ports": realFrames("refusal_fallback")})
	}

	h := agenttest.Start(t, onFakeCLI(world()))
	h.Initialize(withNotices(acp.ClientCapabilities{}))
	sid := h.NewSession(h.Sandbox.WorkDir)
	if resp, err := h.Prompt(sid, "scan ports"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	ns := notices(h, sid)
	want := "claude-opus-5-5 declined this request (cyber); retried with claude-opus-4-8. The session will continue on claude-opus-4-8."
	if len(ns) != 1 || ns[0].Severity != acp.NoticeSeverityWarning || ns[0].Title != want ||
		ns[0].Description.Or("") != "Looks like malware." {
		t.Fatalf("notices %s", mustMarshal(t, ns))
	}
	if got := h.AgentText(sid); got != "Safe answer." {
		t.Errorf("agent text %q", got)
	}
	validWire(t, h)
	h.Close()

	both := agenttest.Start(t, onFakeCLI(world()))
	both.Initialize(withNotices(airCaps(airOn)))
	bsid := both.NewSession(both.Sandbox.WorkDir)
	if resp, err := both.Prompt(bsid, "scan ports"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	if ns := notices(both, bsid); len(ns) != 0 {
		t.Errorf("AIR client got notices %s", mustMarshal(t, ns))
	}
	if recs := infoRecords(t, both, bsid); len(recs) != 1 || !strings.Contains(recs[0].Title, "declined this request (cyber)") {
		t.Errorf("AIR records %+v", recs)
	}
	if got := both.AgentText(bsid); got != "Safe answer." {
		t.Errorf("AIR agent text %q", got)
	}
}

// trackedSettings makes dir a git repository that tracks
// .claude/settings.local.json, so Claude Code refuses to save an "always
// allow" rule there and says so in a system/informational warning.
func trackedSettings(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".claude", "settings.local.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", ".claude/settings.local.json"},
		{"-c", "user.email=test@example.invalid", "-c", "user.name=test", "commit", "-qm", "settings"},
	} {
		c := exec.Command("git", args...)
		c.Dir = dir
		if out, err := c.CombinedOutput(); err != nil {
			t.Skipf("git %v: %v %s", args, err, out)
		}
	}
}

const ruleNotSaved = "Allowed for this session only. Git tracks .claude/settings.local.json, so the rule isn’t saved there."

// informationalRun has the real CLI emit a system/informational warning
// (an "always allow" rule it will not save) for a client with caps.
func informationalRun(t *testing.T, caps acp.ClientCapabilities) (*agenttest.Harness, string) {
	h := agenttest.Start(t)
	trackedSettings(t, h.Sandbox.WorkDir)
	h.Permission = choose("allow_always")
	h.API().Script(toolUse("toolu_t1", "Bash", map[string]any{"command": "touch a.txt", "description": "Create a"}), fakeapi.Text("Done."))
	h.Initialize(caps)
	sid := h.NewSession(h.Sandbox.WorkDir)
	if resp, err := h.Prompt(sid, "go"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	return h, sid
}

// informationalFake plays, on the in-process fake CLI, the frames the real
// CLI wrote in informationalRun (clifake.Recorded
// "informational_rule_not_saved"), for a client with caps: the same
// system/informational warning, without a real CLI.
func informationalFake(t *testing.T, caps acp.ClientCapabilities) (*agenttest.Harness, string) {
	h := agenttest.Start(t, onFakeCLI(fakeFailureWorld(map[string]clifake.Reply{"go": realFrames("informational_rule_not_saved")})))
	h.Initialize(caps)
	sid := h.NewSession(h.Sandbox.WorkDir)
	if resp, err := h.Prompt(sid, "go"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	return h, sid
}

// TestInformationalNoticeE2E: Claude Code's informational warning is a
// warning notice for a client that takes notices, and nothing of it is
// agent text. With the AIR extension negotiated too, it is a typed warning
// in the notice namespace instead (the extension wins, as for every
// advisory), and no notice. The notices case runs the real CLI (the proof
// that it writes the warning); the AIR cases, the agent's choice on the
// same frames, run on the fake CLI playing what the real CLI wrote.
func TestInformationalNoticeE2E(t *testing.T) {
	t.Parallel()
	t.Run("notices", func(t *testing.T) {
		h, sid := informationalRun(t, withNotices(acp.ClientCapabilities{}))
		ns := notices(h, sid)
		if len(ns) != 1 || ns[0].Severity != acp.NoticeSeverityWarning || ns[0].Title != ruleNotSaved || !ns[0].Description.IsZero() {
			t.Fatalf("notices %s", mustMarshal(t, ns))
		}
		if got := h.AgentText(sid); got != "Done." {
			t.Errorf("agent text %q", got)
		}
		validWire(t, h)
	})
	for name, caps := range map[string]acp.ClientCapabilities{
		"air":         airCaps(airOn),
		"notices+air": withNotices(airCaps(airOn)),
	} {
		t.Run(name, func(t *testing.T) {
			h, sid := informationalFake(t, caps)
			if ns := notices(h, sid); len(ns) != 0 {
				t.Errorf("AIR client got notices %s", mustMarshal(t, ns))
			}
			recs := infoRecords(t, h, sid)
			if len(recs) != 1 || recs[0].Title != ruleNotSaved || recs[0].Severity != "warning" || recs[0].Category != "unknown" ||
				!strings.Contains(recs[0].ID, sid+":notice:") || len(recs[0].Actions) != 0 {
				t.Fatalf("records %+v", recs)
			}
			if got := h.AgentText(sid); got != "Done." {
				t.Errorf("agent text %q", got)
			}
			validWire(t, h)
		})
	}
}

// TestInformationalTranscriptLineE2E: a client without notices gets the
// warning as bold-labelled agent text marked as informational, before
// Claude's answer, and no notice. The rendering is the agent's: it runs on
// the fake CLI playing the real CLI's frames (TestInformationalNoticeE2E's
// notices case proves the real CLI writes them).
func TestInformationalTranscriptLineE2E(t *testing.T) {
	t.Parallel()
	h, sid := informationalFake(t, acp.ClientCapabilities{})
	var line *acp.ContentChunk
	for _, u := range h.Updates(sid) {
		if c := u.AgentMessageChunk; c != nil && c.Meta["claudeCode"] != nil {
			line = c
		}
	}
	if line == nil || line.Content.Text == nil || line.Content.Text.Text != "**Warning:** "+ruleNotSaved {
		t.Fatalf("informational line %s", mustMarshal(t, line))
	}
	var cc map[string]any
	if err := json.Unmarshal(line.Meta["claudeCode"], &cc); err != nil || cc["kind"] != "informational" || cc["level"] != "warning" {
		t.Errorf("_meta.claudeCode %s", line.Meta["claudeCode"])
	}
	if got := h.AgentText(sid); got != "**Warning:** "+ruleNotSaved+"Done." {
		t.Errorf("agent text %q", got)
	}
	if ns := notices(h, sid); len(ns) != 0 {
		t.Errorf("notices without the capability: %s", mustMarshal(t, ns))
	}
	validWire(t, h)
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
