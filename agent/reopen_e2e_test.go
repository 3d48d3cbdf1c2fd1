package agent_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent"
	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/faultcli"
)

func loadReq(sb *clitest.Sandbox, sid string) *acp.LoadSessionRequest {
	return &acp.LoadSessionRequest{SessionID: acp.SessionID(sid), Cwd: sb.WorkDir, MCPServers: []acp.MCPServer{}}
}

// TestLoadAnswersBeforeItsCLIIsUp: session/load is answered once the
// history is out, not once the resumed CLI is up: the answer comes before
// anything that only an up CLI sends (its command list), and before the
// CLI could be up (its start takes StartDelay of fake time, and none
// passed), a prompt sent right after it runs with the history, and the
// CLI was started in the background all the same. On the fake CLI, under
// testing/synctest: the real CLI's resume, and the load of what it
// stored, are proven by TestLoadReplaysWhatLiveShowed.
func TestLoadAnswersBeforeItsCLIIsUp(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const startup = 2 * time.Second
		w, m := newFakeWorld()
		w.StartDelay = startup
		s := newSim(t, w, nil)
		s.initialize()
		sid := s.newSession()
		m.script("I will remember the plum.")
		s.wantEndTurn(sid, "remember the word plum")
		if err := s.close(sid); err != nil {
			t.Fatalf("session/close: %v", err)
		}
		synctest.Wait()
		s.mu.Lock()
		fromUpdate, fromWire := len(s.updates), len(s.wire)
		s.mu.Unlock()
		before := starts(w)

		began := time.Now()
		if err := s.load(sid); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(began); took >= startup {
			t.Errorf("the load was answered after %v, once its CLI was up", took)
		}
		s.mu.Lock()
		replayed := ""
		for _, u := range s.updates[fromUpdate:] {
			if u.SessionID == sid && (u.Update.Kind == "user_message_chunk" || u.Update.Kind == "agent_message_chunk") {
				replayed += u.Update.Content.Text
			}
		}
		answer, up := -1, -1
		for i, l := range s.wire[fromWire:] {
			switch {
			case !l.fromAgent:
			case answer < 0 && strings.Contains(l.line, `"result":{`) && strings.Contains(l.line, `"modes"`):
				answer = i
			case up < 0 && strings.Contains(l.line, `"available_commands_update"`):
				up = i
			}
		}
		s.mu.Unlock()
		if answer < 0 {
			t.Fatal("no load answer on the wire")
		}
		if !strings.Contains(replayed, "remember the word plum") || !strings.Contains(replayed, "I will remember the plum.") {
			t.Fatalf("the history was not replayed before the answer: %q", replayed)
		}
		if up >= 0 && up < answer {
			t.Errorf("the answer (wire line %d) waited for the CLI (its commands at %d)", answer, up)
		}
		if got := starts(w) - before; got != 1 {
			t.Errorf("%d CLIs started in the background for the load, want 1", got)
		}
		m.script("It was plum.")
		s.wantEndTurn(sid, "which word?")
		if last := m.last(t); last.Prompt != "which word?" || !inHistory(last, "remember the word plum") {
			t.Errorf("the prompt ran without the loaded history: %+v", last)
		}
		if err := s.eof(); err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
}

// textOfUpdates joins the text of every chunk the client got for sid.
func textOfUpdates(h *agenttest.Harness, sid string) string {
	var sb strings.Builder
	for _, u := range h.Updates(sid) {
		for _, c := range []*acp.ContentChunk{u.UserMessageChunk, u.AgentMessageChunk} {
			if c != nil && c.Content.Text != nil {
				sb.WriteString(c.Content.Text.Text)
			}
		}
	}
	return sb.String()
}

// TestFailedBackgroundResumeFailsThePrompt: the load's CLI fails to start
// in the background (here a fake CLI that exits at once, on a transcript
// stored as the CLI stores it, writeStored). The load itself succeeds with the history; the
// prompt that needs the CLI fails with the cause, as JSON-RPC for a legacy
// client and as a typed startup failure for a client of the extension.
func TestFailedBackgroundResumeFailsThePrompt(t *testing.T) {
	t.Parallel()
	sb := clitest.NewSandbox(t)
	sid := writeStored(t, sb, "plum")
	for _, typed := range []bool{false, true} {
		dir := t.TempDir()
		h := agenttest.Start(t, agenttest.Options{Sandbox: sb, Config: func(c *agent.Config) {
			c.Executable = os.Args[0]
			c.Env = faultcli.Env(dir, "HOME="+filepath.Dir(sb.ConfigDir), "CLAUDE_CONFIG_DIR="+sb.ConfigDir, faultcli.EnvStart+"=exit")
		}})
		if typed {
			h.Initialize(airCaps(airOn))
		} else {
			h.Initialize(acp.ClientCapabilities{})
		}
		if err := h.Client.Call(h.Ctx(), acp.MethodSessionLoad, loadReq(sb, sid), &acp.LoadSessionResponse{}); err != nil {
			t.Fatalf("typed %v: the load failed although its history is there: %v", typed, err)
		}
		resp, err := h.Prompt(sid, "hello again")
		if !typed {
			wantRPCError(t, err, acp.CodeInternalError, "could not start", "injected startup failure")
		} else {
			if err != nil {
				t.Fatalf("typed prompt: %v", err)
			}
			rec, ok := recordOf(t, resp.Meta)
			if !ok || rec.Category != "connection" || !strings.Contains(rec.Title, "could not start") {
				t.Errorf("typed: record %+v (%v)", rec, ok)
			}
		}
		h.Close()
		if alive := faultcli.KillLeftovers(dir, 10*time.Second); len(alive) > 0 {
			t.Errorf("fake CLIs left: %v", alive)
		}
	}
}

// TestRestoringEightThreadsStaysUnderTheCap: an editor restores eight
// threads at once with a cap of three live CLIs: every load answers with
// its whole history, at most three CLIs are live a moment later, and a
// prompt to any of them resumes it with its history. On the fake CLI (the
// cap is the agent's; the real CLI's resume is proven by
// TestLoadReplaysWhatLiveShowed and TestLoadUnknownAndCorrupt).
func TestRestoringEightThreadsStaysUnderTheCap(t *testing.T) {
	t.Parallel()
	w, m := newFakeWorld()
	h := fakeHarness(t, w, agenttest.Options{Config: func(c *agent.Config) { c.MaxLiveSessions = 3 }})
	h.Initialize(acp.ClientCapabilities{})
	const n = 8
	ids := make([]string, n)
	for i := range n {
		ids[i] = writeStored(t, h.Sandbox, fmt.Sprintf("fig-%d", i))
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i, id := range ids {
		wg.Go(func() {
			errs[i] = h.Client.Call(h.Ctx(), acp.MethodSessionLoad, loadReq(h.Sandbox, id), &acp.LoadSessionResponse{})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("load %d: %v", i, err)
		}
		if !strings.Contains(textOfUpdates(h, ids[i]), fmt.Sprintf("fig-%d", i)) {
			t.Errorf("load %d answered without its history", i)
		}
	}
	h.WaitFor("at most three live CLIs", 30*time.Second, func() bool { return len(w.Live()) <= 3 })
	for _, i := range []int{7, 0} {
		m.script("noted")
		if r, err := h.Prompt(ids[i], "what was the word?"); err != nil || r.StopReason != acp.StopReasonEndTurn {
			t.Fatalf("prompt to restored thread %d: %+v %v", i, r, err)
		}
		if last := m.last(t); last.Session != ids[i] || !inHistory(last, fmt.Sprintf("fig-%d", i)) {
			t.Errorf("thread %d resumed without its history: %+v", i, last)
		}
	}
	h.WaitFor("at most three live CLIs", 30*time.Second, func() bool { return len(w.Live()) <= 3 })
}

// writeStored writes a session the CLI can resume: one prompt naming word
// and an answer, as the CLI stores them.
func writeStored(t *testing.T, sb *clitest.Sandbox, word string) string {
	t.Helper()
	id := fmt.Sprintf("%08x-1111-4111-8111-111111111111", len(word)*7919+int(word[len(word)-1]))
	dir := transcript.ProjectDir(sb.ConfigDir, sb.WorkDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	ts := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	user := `{"type":"user","uuid":"` + id[:8] + `-aaaa-4aaa-8aaa-aaaaaaaaaaaa","parentUuid":null,"isSidechain":false,"timestamp":"` + ts + `","userType":"external","entrypoint":"sdk-ts","cwd":"` + sb.WorkDir + `","sessionId":"` + id + `","version":"2.1.332","message":{"role":"user","content":"remember the word ` + word + `"}}`
	asst := `{"type":"assistant","uuid":"` + id[:8] + `-bbbb-4bbb-8bbb-bbbbbbbbbbbb","parentUuid":"` + id[:8] + `-aaaa-4aaa-8aaa-aaaaaaaaaaaa","isSidechain":false,"timestamp":"` + ts + `","userType":"external","entrypoint":"sdk-ts","cwd":"` + sb.WorkDir + `","sessionId":"` + id + `","version":"2.1.332","message":{"id":"msg_` + id[:8] + `","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{"type":"text","text":"Noted: ` + word + `."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":5}}}`
	if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte(user+"\n"+asst+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return id
}
