package agent_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// Issue 35: what is stored is what the agent says is stored.

// TestListsSessionWithHugeFirstPrompt: a session whose first prompt is
// over 64 KiB (the head session/list reads of each transcript) is listed
// with and without a cwd filter, real CLI.
func TestListsSessionWithHugeFirstPrompt(t *testing.T) {
	t.Parallel()
	h := agenttest.Start(t)
	sid := h.NewSession(h.Sandbox.WorkDir)
	h.API().Script(fakeapi.Text("Summarised."))
	huge := "Summarise this: " + strings.Repeat("lorem ipsum ", 100<<10/12)
	if resp, err := h.Prompt(sid, huge); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	for _, req := range []*acp.ListSessionsRequest{{}, {Cwd: acp.Some(h.Sandbox.WorkDir)}} {
		var resp acp.ListSessionsResponse
		if err := h.Client.Call(h.Ctx(), acp.MethodSessionList, req, &resp); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, s := range resp.Sessions {
			if string(s.SessionID) == sid {
				found = true
				if title, _ := s.Title.Get(); s.Cwd != h.Sandbox.WorkDir || !strings.HasPrefix(title, "Summarise this: lorem") {
					t.Errorf("row %+v (title %q)", s, title)
				}
			}
		}
		if !found {
			t.Errorf("session/list %+v: the session is missing (%d listed)", req, len(resp.Sessions))
		}
	}
}

// mountOrSkip runs mount with args, or skips the test where it cannot
// (not root, no mount namespace rights); the mount is undone at cleanup,
// after the agents stop.
func mountOrSkip(t *testing.T, dir string, args ...string) {
	t.Helper()
	if out, err := exec.Command("mount", args...).CombinedOutput(); err != nil {
		t.Skipf("cannot mount here (%v: %s)", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
}

// notSavedWarning finds what the client was told of an unsaved turn, in
// the form it negotiated: agent text, a notice, or a typed warning.
func notSavedWarning(h *agenttest.Harness, sid string) (text, notice, typed string) {
	for _, u := range h.Updates(sid) {
		switch {
		case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil &&
			strings.Contains(u.AgentMessageChunk.Content.Text.Text, "not being saved"):
			text = u.AgentMessageChunk.Content.Text.Text
		case u.Notice != nil && strings.Contains(u.Notice.Title, "not being saved"):
			notice = u.Notice.Title
		case u.SessionInfoUpdate != nil && strings.Contains(string(u.SessionInfoUpdate.Meta["jetbrains"]), "not being saved"):
			typed = string(u.SessionInfoUpdate.Meta["jetbrains"])
		}
	}
	return text, notice, typed
}

// TestTurnOnAFullDiskSaysSo: with Claude Code's config directory on a
// small file system that a tool fills up in the middle of a turn, the
// turn's answer is not saved, and the user is told at that turn, in the
// form the client negotiated; after a reload, session/load shows what was
// stored (the first turn, not the lost answer) and session/list still
// lists the session. The text form runs the real CLI (its proof that it
// answers on a full disk without storing the answer, under the uuid the
// agent looks for); the typed form runs the fake CLI, which stores as the
// real one does (clifake: the answer's frame and record share a uuid).
func TestTurnOnAFullDiskSaysSo(t *testing.T) {
	t.Parallel()
	for _, form := range []string{"text", "typed"} {
		t.Run(form, func(t *testing.T) {
			sb := clitest.NewSandbox(t)
			mountOrSkip(t, sb.ConfigDir, "-t", "tmpfs", "-o", "size=6m", "tmpfs", sb.ConfigDir)
			fill := "head -c 64M /dev/zero > " + filepath.Join(sb.ConfigDir, "filler") + "; true"
			start := func() *agenttest.Harness { return agenttest.Start(t, agenttest.Options{Sandbox: sb}) }
			script := func(answer string) { sb.API.Script(fakeapi.Text(answer)) }
			scriptFill := func(answer string) {
				sb.API.Script(toolUse("toolu_fill", "Bash", map[string]any{"command": fill, "description": "fill"}), fakeapi.Text(answer))
			}
			if form == "typed" {
				m := &fakeModel{}
				var filling atomic.Bool
				w := &clifake.World{Model: func(r clifake.Request) clifake.Reply {
					switch {
					case !filling.Load():
					case !r.FollowUp:
						return clifake.Reply{Tool: fill, ToolID: "toolu_fill"}
					default: // the tool ran: it filled the disk
						fillDisk(t, filepath.Join(sb.ConfigDir, "filler"))
						// An answer longer than the room the transcript's
						// last page has left (the real CLI's records of a
						// turn take far more).
						reply := m.reply(r)
						reply.Chunks = append(reply.Chunks, strings.Repeat(" (not kept)", 1000))
						return reply
					}
					return m.reply(r)
				}}
				start = func() *agenttest.Harness { return fakeHarness(t, w, agenttest.Options{Sandbox: sb}) }
				script = func(answer string) { m.script(answer) }
				scriptFill = func(answer string) {
					m.script(answer)
					filling.Store(true)
				}
			}
			h := start()
			caps := acp.ClientCapabilities{}
			if form == "typed" {
				caps = airCaps(airOn)
			}
			h.Initialize(caps)
			sid := h.NewSession(sb.WorkDir)
			script("The first answer.")
			if resp, err := h.Prompt(sid, "first question"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
				t.Fatalf("first turn: %+v %v", resp, err)
			}
			if text, notice, typed := notSavedWarning(h, sid); text+notice+typed != "" {
				t.Fatalf("a saved turn was reported unsaved: %q %q %q", text, notice, typed)
			}
			// The tool fills the disk; the answer after it cannot be saved.
			scriptFill("The lost answer.")
			if resp, err := h.Prompt(sid, "second question"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
				t.Fatalf("second turn: %+v %v", resp, err)
			}
			text, notice, typed := notSavedWarning(h, sid)
			switch {
			case form == "text" && !strings.Contains(text, "the disk is full"):
				t.Errorf("no warning in the agent text: %q %q %q", text, notice, typed)
			case form == "typed" && (!strings.Contains(typed, `"severity":"warning"`) || !strings.Contains(typed, "the disk is full") || text != ""):
				t.Errorf("no typed warning: %q %q %q", text, notice, typed)
			}
			// At the turn: before its answer.
			warnedAt, answeredAt := -1, -1
			for i, l := range h.Wire() {
				if l.FromAgent && strings.Contains(l.Line, "not being saved") && warnedAt < 0 {
					warnedAt = i
				}
				if l.FromAgent && strings.Contains(l.Line, `"stopReason"`) {
					answeredAt = i
				}
			}
			if warnedAt < 0 || warnedAt > answeredAt {
				t.Errorf("the warning (line %d) came after the turn's answer (line %d)", warnedAt, answeredAt)
			}
			h.Close()

			// A reload shows what is stored.
			h2 := start()
			h2.Initialize(acp.ClientCapabilities{})
			var list acp.ListSessionsResponse
			if err := h2.Client.Call(h2.Ctx(), acp.MethodSessionList, &acp.ListSessionsRequest{}, &list); err != nil || len(list.Sessions) != 1 {
				t.Fatalf("session/list after the reload: %+v %v", list, err)
			}
			var load acp.LoadSessionResponse
			if err := h2.Client.Call(h2.Ctx(), acp.MethodSessionLoad, &acp.LoadSessionRequest{SessionID: acp.SessionID(sid), Cwd: sb.WorkDir, MCPServers: []acp.MCPServer{}}, &load); err != nil {
				t.Fatalf("session/load after the reload: %v", err)
			}
			history := h2.AgentText(sid)
			if !strings.Contains(history, "The first answer.") || strings.Contains(history, "The lost answer.") {
				t.Errorf("the reloaded history is not what was stored: %q", history)
			}
		})
	}
}

// fillDisk writes to path until the file system is full, as the fake
// CLI's tool would (the real CLI's runs head -c 64M).
func fillDisk(t *testing.T, path string) {
	f, err := os.Create(path)
	if err != nil {
		t.Errorf("fill: %v", err)
		return
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	for {
		if _, err := f.Write(buf); err != nil {
			return // full
		}
	}
}

// TestTurnInAReadOnlyConfigDirSaysSo: with a read-only config directory,
// nothing is saved and the first turn says so, as agent text or as a
// notice; a reload finds no such session. The text form runs the real CLI
// (its proof that it answers with nothing stored); the notice form runs
// the fake CLI, which cannot store either.
func TestTurnInAReadOnlyConfigDirSaysSo(t *testing.T) {
	t.Parallel()
	for _, form := range []string{"text", "notice"} {
		t.Run(form, func(t *testing.T) {
			sb := clitest.NewSandbox(t)
			mountOrSkip(t, sb.ConfigDir, "--bind", sb.ConfigDir, sb.ConfigDir)
			if out, err := exec.Command("mount", "-o", "remount,bind,ro", sb.ConfigDir).CombinedOutput(); err != nil {
				t.Skipf("cannot make a read-only mount here (%v: %s)", err, out)
			}
			start := func() *agenttest.Harness { return agenttest.Start(t, agenttest.Options{Sandbox: sb}) }
			script := func(answers ...string) {
				for _, a := range answers {
					sb.API.Script(fakeapi.Text(a))
				}
			}
			if form == "notice" {
				w, m := newFakeWorld()
				start = func() *agenttest.Harness { return fakeHarness(t, w, agenttest.Options{Sandbox: sb}) }
				script = m.script
			}
			h := start()
			caps := acp.ClientCapabilities{}
			if form == "notice" {
				caps = withNotices(caps)
			}
			h.Initialize(caps)
			sid := h.NewSession(sb.WorkDir)
			script("An answer nobody keeps.", "Another one.")
			for _, q := range []string{"question", "another"} {
				if resp, err := h.Prompt(sid, q); err != nil || resp.StopReason != acp.StopReasonEndTurn {
					t.Fatalf("%s: %+v %v", q, resp, err)
				}
			}
			text, notice, typed := notSavedWarning(h, sid)
			switch {
			case form == "text" && (!strings.Contains(text, "read-only") || strings.Count(h.AgentText(sid), "not being saved") != 1):
				t.Errorf("want one warning in the agent text: %q (all text %q)", text, h.AgentText(sid))
			case form == "notice" && (!strings.Contains(notice, "read-only") || text != "" || typed != ""):
				t.Errorf("want a notice: %q %q %q", text, notice, typed)
			}
			h.Close()
			h2 := start()
			h2.Initialize(acp.ClientCapabilities{})
			var list acp.ListSessionsResponse
			if err := h2.Client.Call(h2.Ctx(), acp.MethodSessionList, &acp.ListSessionsRequest{}, &list); err != nil || len(list.Sessions) != 0 {
				t.Errorf("session/list after the reload: %+v %v", list, err)
			}
			err := h2.Client.Call(h2.Ctx(), acp.MethodSessionLoad, &acp.LoadSessionRequest{SessionID: acp.SessionID(sid), Cwd: sb.WorkDir, MCPServers: []acp.MCPServer{}}, &acp.LoadSessionResponse{})
			var rpc *acp.Error
			if !errors.As(err, &rpc) || rpc.Code != acp.CodeResourceNotFound {
				t.Errorf("session/load of the unsaved session: %v, want session not found", err)
			}
		})
	}
}
