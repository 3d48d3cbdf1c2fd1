package agent

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/faultcli"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/transcriptgen"
)

// TestPromptDuringLoadWaitsForTheReplay sends session/prompt for a session
// whose session/load is still replaying its history (a client that did not
// wait for the load's answer). The prompt is answered, by the one CLI the
// load started, and none of its turn's updates comes in the middle of the
// history: the replay holds the session's prompts back until it is done.
// A prompt cancelled while it waits ends cancelled and never reaches the
// CLI. The same holds for a load of a session that is live already, whose
// CLI runs during the replay. A prompt held back runs in the permission
// mode the load restores (the history's last prompt's). A load the client
// cancels while a prompt waits fails, and the prompt ends with it (an
// error or cancelled): neither hangs, the load's CLI ends, the prompt
// never reached it, and the session can be loaded again and prompted.
func TestPromptDuringLoadWaitsForTheReplay(t *testing.T) {
	// Not parallel: it sets replayHeadStart and replayBatchHook, which every replay reads.
	t.Run("answered", func(t *testing.T) { testPromptDuringLoad(t, loadCase{}) })
	t.Run("cancelled", func(t *testing.T) { testPromptDuringLoad(t, loadCase{cancel: true}) })
	t.Run("live session", func(t *testing.T) { testPromptDuringLoad(t, loadCase{live: true}) })
	t.Run("restored mode", func(t *testing.T) { testPromptDuringLoad(t, loadCase{mode: "acceptEdits"}) })
	t.Run("load cancelled", func(t *testing.T) { testPromptDuringLoad(t, loadCase{abortLoad: true}) })
}

// loadCase is one case of TestPromptDuringLoadWaitsForTheReplay.
type loadCase struct {
	cancel    bool   // the held prompt is cancelled
	abortLoad bool   // the client cancels the load while the prompt waits
	live      bool   // the session is live (loaded once) before the load
	mode      string // the history's permission mode ("" default)
}

// A loadFixture is an agent whose CLI is the fake of package faultcli, a
// client of it, and a stored session of 600 messages to load.
type loadFixture struct {
	rc       *replayClient
	st       transcriptgen.Stats
	path     string // the session's transcript
	cwd, dir string // the session's directory; faultcli's state
	sid      acp.SessionID
}

// newLoadFixture sets one up, its history in the given permission mode
// ("" default), with the CLI started along with a replay's first batch
// (replayHeadStart 0, restored at the end of the test).
func newLoadFixture(t *testing.T, mode string) *loadFixture {
	t.Helper()
	return newLoadFixtureOf(t, mode, 600)
}

// newLoadFixtureOf is newLoadFixture with a history of the given number
// of messages.
func newLoadFixtureOf(t *testing.T, mode string, messages int) *loadFixture {
	t.Helper()
	saved := replayHeadStart
	t.Cleanup(func() { replayHeadStart = saved })
	replayHeadStart = 0
	w := newFakeCLIWorld(t)
	home, cwd, dir := w.home, w.cwd, w.dir
	path, st, err := transcriptgen.WriteSession(filepath.Join(home, ".claude"), transcriptgen.Options{Cwd: cwd, Messages: messages, PermissionMode: mode})
	if err != nil {
		t.Fatal(err)
	}
	rc := w.rc
	return &loadFixture{rc: rc, st: st, path: path, cwd: cwd, dir: dir, sid: acp.SessionID(st.SessionID)}
}

func testPromptDuringLoad(t *testing.T, c loadCase) {
	// The prompt is sent once 64 records are replayed (replayBatchHook),
	// which waits there until the prompt is accepted and the CLI up; 200
	// messages leave a history of as many records after that.
	f := newLoadFixtureOf(t, c.mode, 200)
	rc, st, cwd, dir, sid := f.rc, f.st, f.cwd, f.dir, f.sid
	history := len(historyUpdates(mustReplay(t, f.path)))
	ctx := context.Background()

	if c.live { // loaded once already: the second load replays beside its running CLI
		if err := <-rc.startLoad(t, st.SessionID, cwd); err != nil {
			t.Fatalf("first session/load: %v", err)
		}
		rc.mu.Lock()
		rc.updates = nil
		rc.mu.Unlock()
	}
	loadCtx, abort := context.WithCancel(ctx) // the load's: the client may cancel it
	defer abort()
	prompted := make(chan error, 1)
	var resp acp.PromptResponse
	var sentToCLI bool
	defer func() { replayBatchHook = nil }()
	replayBatchHook = func(records int) {
		if records != 64 {
			return
		}
		replayBatchHook = nil
		go func() {
			prompted <- rc.client.Call(ctx, acp.MethodSessionPrompt, &acp.PromptRequest{SessionID: sid,
				Prompt: []acp.ContentBlock{{Text: &acp.TextContent{Text: "echo typed during the load"}}}}, &resp)
		}()
		// Once the prompt is accepted and the CLI is up, a prompt that is
		// not held back reaches the CLI within milliseconds.
		s := waitLive(t, rc.a, string(sid))
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			var accepted, up bool
			s.do(func() { accepted, up = s.q.accepted > 0, s.cli.proc != nil })
			if accepted && up {
				break
			}
		}
		if c.cancel {
			if err := rc.client.Notify(ctx, acp.MethodSessionCancel, &acp.CancelNotification{SessionID: sid}); err != nil {
				t.Error(err)
			}
		}
		if c.abortLoad {
			abort()
		}
		for deadline := time.Now().Add(500 * time.Millisecond); time.Now().Before(deadline) && !sentToCLI; time.Sleep(5 * time.Millisecond) {
			for _, e := range faultcli.Trace(dir) {
				sentToCLI = sentToCLI || e.What == "frame" && strings.HasPrefix(e.Detail, "user")
			}
		}
	}
	loaded := rc.startLoadCtx(t, loadCtx, st.SessionID, cwd)
	if c.abortLoad {
		testAbortedLoad(t, rc, dir, st.SessionID, cwd, loaded, prompted, &resp, &sentToCLI)
		return
	}
	if err := <-loaded; err != nil {
		t.Fatalf("session/load: %v", err)
	}
	if err := <-prompted; err != nil {
		t.Fatalf("session/prompt sent during the load: %v", err)
	}
	if sentToCLI {
		t.Errorf("the prompt went to the CLI while the history was still being replayed")
	}
	if c.cancel {
		if resp.StopReason != acp.StopReasonCancelled {
			t.Errorf("stop reason %q, want cancelled", resp.StopReason)
		}
		// The session works on: the next prompt is answered, and it is
		// the first user message the CLI got.
		if err := rc.client.Call(ctx, acp.MethodSessionPrompt, &acp.PromptRequest{SessionID: sid,
			Prompt: []acp.ContentBlock{{Text: &acp.TextContent{Text: "echo after the cancel"}}}}, &resp); err != nil || resp.StopReason != acp.StopReasonEndTurn {
			t.Fatalf("prompt after the cancel: %v, %q", err, resp.StopReason)
		}
		var users []string
		for _, e := range faultcli.Trace(dir) {
			if e.What == "frame" && strings.HasPrefix(e.Detail, "user") {
				users = append(users, e.Detail)
			}
		}
		if len(users) != 1 {
			t.Errorf("the CLI got %d user messages, want only the one after the cancel", len(users))
		}
		if err := rc.client.Call(ctx, acp.MethodSessionClose, &acp.CloseSessionRequest{SessionID: sid}, &acp.CloseSessionResponse{}); err != nil {
			t.Fatal(err)
		}
		return
	}
	if resp.StopReason != acp.StopReasonEndTurn {
		t.Errorf("stop reason %q, want end_turn", resp.StopReason)
	}
	if c.mode != "" { // the CLI switched to the history's mode before it got the prompt
		var frames []string
		for _, e := range faultcli.Trace(dir) {
			if e.What == "frame" && (strings.HasPrefix(e.Detail, "user") || strings.HasPrefix(e.Detail, "control_request set_permission_mode")) {
				frames = append(frames, strings.TrimSpace(e.Detail))
			}
		}
		if len(frames) == 0 || !strings.HasPrefix(frames[0], "control_request set_permission_mode") {
			t.Errorf("the CLI got %q, want the mode set before the prompt", frames)
		}
	}
	rc.mu.Lock()
	us := rc.updates
	rc.mu.Unlock()
	echo := -1
	for i, u := range us {
		if c := u.AgentMessageChunk; c != nil && c.Content.Text != nil && strings.Contains(c.Content.Text.Text, "typed during the load") {
			echo = i
			break
		}
	}
	if echo < 0 {
		t.Fatalf("no chunk of the prompt's answer among %d updates", len(us))
	}
	if got := len(historyUpdates(us[:echo])); got != history {
		t.Errorf("%d of the history's %d updates came before the prompt's answer, want all", got, history)
	}
	if pids := faultcli.PIDs(dir); len(pids) != 1 {
		t.Errorf("%d CLIs started, want the load's one: %v", len(pids), pids)
	}
	if err := rc.client.Call(ctx, acp.MethodSessionClose, &acp.CloseSessionRequest{SessionID: sid}, &acp.CloseSessionResponse{}); err != nil {
		t.Fatal(err)
	}
}

// testAbortedLoad is the "load cancelled" case, once the client has
// cancelled the load while its prompt waited for the replay.
func testAbortedLoad(t *testing.T, rc *replayClient, dir, id, cwd string, loaded, prompted <-chan error, held *acp.PromptResponse, sentToCLI *bool) {
	t.Helper()
	for what, ch := range map[string]<-chan error{"session/load": loaded, "the held session/prompt": prompted} {
		select {
		case err := <-ch:
			if err == nil && (what == "session/load" || held.StopReason != acp.StopReasonCancelled) {
				t.Errorf("%s succeeded (%q) after the client cancelled the load", what, held.StopReason)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s hangs after the client cancelled the load", what)
		}
	}
	if *sentToCLI { // set during the replay, which is over
		t.Errorf("the prompt went to the CLI while the history was still being replayed")
	}
	if alive := faultcli.WaitGone(dir, 10*time.Second); len(alive) > 0 {
		t.Errorf("the cancelled load's CLI is still running: %v", alive)
	}
	for _, e := range faultcli.Trace(dir) {
		if e.What == "frame" && strings.HasPrefix(e.Detail, "user") {
			t.Errorf("the CLI got a user message: %q", e.Detail)
		}
	}
	// The session loads again, and answers.
	if err := <-rc.startLoad(t, id, cwd); err != nil {
		t.Fatalf("session/load after the cancelled one: %v", err)
	}
	var resp acp.PromptResponse
	if err := rc.client.Call(context.Background(), acp.MethodSessionPrompt, &acp.PromptRequest{SessionID: acp.SessionID(id),
		Prompt: []acp.ContentBlock{{Text: &acp.TextContent{Text: "echo after the reload"}}}}, &resp); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt after the reload: %v, %q", err, resp.StopReason)
	}
	if err := rc.client.Call(context.Background(), acp.MethodSessionClose, &acp.CloseSessionRequest{SessionID: acp.SessionID(id)}, &acp.CloseSessionResponse{}); err != nil {
		t.Fatal(err)
	}
}

// historyUpdates are the updates of us that a replay sends: the
// conversation, not the session's state (config, commands, usage).
func historyUpdates(us []acp.SessionUpdate) []acp.SessionUpdate {
	var out []acp.SessionUpdate
	for _, u := range us {
		if u.UserMessageChunk != nil || u.AgentMessageChunk != nil || u.AgentThoughtChunk != nil ||
			u.ToolCall != nil || u.ToolCallUpdate != nil || u.Plan != nil {
			out = append(out, u)
		}
	}
	return out
}

// waitLive returns the live session id once the connection has it.
func waitLive(t *testing.T, a *connection, id string) *session {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if s := a.liveSession(id); s != nil {
			return s
		}
	}
	t.Fatalf("session %s never became live", id)
	return nil
}
