package agent

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/transcriptgen"
)

// replayClient is an agent serving a recording client over pipes, with no
// CLI: replays run on it directly.
type replayClient struct {
	a       *connection
	client  *acp.Conn
	mu      sync.Mutex
	updates []acp.SessionUpdate // written by the client's handler
	// onWritten, if set, is called in the agent's write of its output,
	// once the client has read it, with the session/update lines the agent
	// wrote so far.
	onWritten func(n int)
	// onPermission, if set before the agent asks, answers its permission
	// requests; without it they fail as a method the client does not have.
	onPermission func(p *acp.RequestPermissionRequest) *acp.RequestPermissionResponse
	stop         func()
	initialized  bool // startLoad sent initialize
}

// watchedOutput is the agent's end of a replayClient's pipe.
type watchedOutput struct {
	rc      *replayClient
	w       io.Writer
	updates int
}

func (o *watchedOutput) Write(p []byte) (int, error) {
	n, err := o.w.Write(p)
	o.updates += bytes.Count(p[:n], []byte(`"method":"session/update"`))
	if on := o.rc.onWritten; on != nil {
		on(o.updates)
	}
	return n, err
}

func newReplayClient(t *testing.T) *replayClient {
	return newReplayClientConfig(t, Config{Env: []string{"HOME=" + t.TempDir()}})
}

func newReplayClientConfig(t *testing.T, cfg Config) *replayClient {
	t.Helper()
	rc := &replayClient{a: New(cfg).newConnection()}
	agentIn, clientOut := io.Pipe()
	clientIn, agentOut := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- rc.a.serve(context.Background(), agentIn, &watchedOutput{rc: rc, w: agentOut}) }()
	m := acp.NewMux()
	acp.OnNotification(m, acp.MethodSessionUpdate, func(ctx context.Context, n *acp.SessionNotification) error {
		rc.mu.Lock()
		rc.updates = append(rc.updates, n.Update)
		rc.mu.Unlock()
		return nil
	})
	acp.On(m, acp.MethodSessionRequestPermission, func(ctx context.Context, p *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		rc.mu.Lock()
		answer := rc.onPermission
		rc.mu.Unlock()
		if answer == nil {
			return nil, acp.NewMethodNotFound(acp.MethodSessionRequestPermission)
		}
		return answer(p), nil
	})
	rc.client = acp.NewConn(clientIn, clientOut, acp.Options{Handler: m})
	rc.stop = func() {
		clientOut.Close()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
		agentOut.Close()
		rc.client.Close()
		rc.client.Wait()
	}
	t.Cleanup(rc.stop)
	return rc
}

// replay replays the transcript at path and returns every update the
// client received. The initialize round trip after it makes sure they all
// arrived (answers wait for earlier notifications).
func (rc *replayClient) replay(t *testing.T, path string) (mode string, us []acp.SessionUpdate) {
	t.Helper()
	setup := &sessionSetup{cwd: "/home/user/project", opts: claude.Options{}}
	mode, err := rc.a.replay(context.Background(), "11111111-2222-4333-8444-555555555555", path, setup, &startOutcome{got: true})
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	if err := rc.client.Call(context.Background(), acp.MethodInitialize, &acp.InitializeRequest{ProtocolVersion: 1}, &acp.InitializeResponse{}); err != nil {
		t.Fatal(err)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return mode, rc.updates
}

// startLoad initializes the agent (the first time) and sends a
// session/load of the stored session id without waiting for its answer,
// which comes on the channel.
func (rc *replayClient) startLoad(t *testing.T, id, cwd string) <-chan error {
	t.Helper()
	return rc.startLoadCtx(t, context.Background(), id, cwd)
}

// startLoadCtx is startLoad with a context: cancelling it cancels the
// load ($/cancel_request).
func (rc *replayClient) startLoadCtx(t *testing.T, ctx context.Context, id, cwd string) <-chan error {
	t.Helper()
	if !rc.initialized {
		if err := rc.client.Call(context.Background(), acp.MethodInitialize, &acp.InitializeRequest{ProtocolVersion: 1}, &acp.InitializeResponse{}); err != nil {
			t.Fatal(err)
		}
		rc.initialized = true
	}
	loaded := make(chan error, 1)
	go func() {
		loaded <- rc.client.Call(ctx, acp.MethodSessionLoad, &acp.LoadSessionRequest{
			SessionID: acp.SessionID(id), Cwd: cwd, MCPServers: []acp.MCPServer{}}, &acp.LoadSessionResponse{})
	}()
	return loaded
}

func (rc *replayClient) count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.updates)
}

// TestReplayFollowsTheActiveBranch replays a real CLI 2.1.332 transcript in
// which the user rewound a turn: the abandoned prompt and answer are not
// replayed, the rest is, in order.
func TestReplayFollowsTheActiveBranch(t *testing.T) {
	t.Parallel()
	rc := newReplayClient(t)
	mode, us := rc.replay(t, "../claude/transcript/testdata/cli-2.1.332-resume-at.jsonl")
	var got []string
	for _, u := range us {
		switch {
		case u.UserMessageChunk != nil:
			got = append(got, "user: "+u.UserMessageChunk.Content.Text.Text)
		case u.AgentMessageChunk != nil:
			got = append(got, "agent: "+u.AgentMessageChunk.Content.Text.Text)
		case u.AgentThoughtChunk != nil:
			got = append(got, "thought: "+u.AgentThoughtChunk.Content.Text.Text)
		case u.ToolCall != nil:
			got = append(got, "tool_call: "+string(u.ToolCall.ToolCallID)+" "+string(u.ToolCall.Kind))
		case u.ToolCallUpdate != nil:
			if st, ok := u.ToolCallUpdate.Status.Get(); ok {
				got = append(got, "tool_call_update: "+string(st))
			}
		case u.SessionInfoUpdate != nil:
			got = append(got, "title: "+u.SessionInfoUpdate.Title.Or(""))
		}
	}
	want := []string{
		"user: please say hi",
		"thought: I should list.",
		"agent: Running it.",
		"tool_call: toolu_01bash execute",
		"tool_call_update: completed",
		"agent: It printed hi.",
		"user: third prompt",
		"agent: Third answer.",
		"title: please say hi", // the first prompt titles a session, as it did live
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replay (-want +got):\n%s", diff)
	}
	if mode != "bypassPermissions" {
		t.Errorf("mode of the last prompt: %q", mode)
	}
}

// TestReplaySkipsWhatTheUserDidNotSee writes records a session collects
// besides the conversation: meta and compact-summary prompts, task
// notifications, sidechain records, interrupt markers, system lines, a
// corrupt line; and Claude's own messages: an API error (shown) and a
// login request (not shown).
func TestReplaySkipsWhatTheUserDidNotSee(t *testing.T) {
	t.Parallel()
	lines := []string{
		`{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hello"},"permissionMode":"plan"}`,
		`{"type":"user","uuid":"u2","parentUuid":"u1","isMeta":true,"message":{"role":"user","content":"<command-caveat>hidden</command-caveat>"}}`,
		`not json at all`,
		`{"type":"user","uuid":"u3","parentUuid":"u2","message":{"role":"user","content":"<command-name>/compact</command-name>\n<command-message>compact</command-message>\n<command-args>keep tests</command-args>"}}`,
		`{"type":"user","uuid":"u4","parentUuid":"u3","message":{"role":"user","content":"<local-command-stdout>Compacted.</local-command-stdout>"}}`,
		`{"type":"user","uuid":"u5","parentUuid":"u4","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued..."}}`,
		`{"type":"user","uuid":"u6","parentUuid":"u5","origin":{"kind":"task-notification"},"message":{"role":"user","content":"<task-notification>done</task-notification>"}}`,
		`{"type":"system","uuid":"s1","parentUuid":"u6","subtype":"api_error","level":"error"}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"s1","isApiErrorMessage":true,"error":"rate_limit","message":{"id":"e1","role":"assistant","model":"<synthetic>","content":[{"type":"text","text":"API Error: 429 slow down"}]}}`,
		`{"type":"assistant","uuid":"a2","parentUuid":"a1","message":{"id":"e2","role":"assistant","model":"<synthetic>","content":[{"type":"text","text":"Invalid API key · Please run /login"}]}}`,
		`{"type":"user","uuid":"u7","parentUuid":"a2","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}`,
		`{"type":"user","uuid":"u8","parentUuid":"u7","message":{"role":"user","content":[{"type":"text","text":"again <system-reminder>be brief</system-reminder>"}]},"permissionMode":"acceptEdits"}`,
		`{"type":"assistant","uuid":"a3","parentUuid":"u8","message":{"id":"m3","role":"assistant","model":"claude-opus-5-5","content":[{"type":"text","text":"Done."}]}}`,
	}
	path := filepath.Join(t.TempDir(), "11111111-2222-4333-8444-555555555555.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rc := newReplayClient(t)
	mode, us := rc.replay(t, path)
	var got []string
	for _, u := range us {
		switch {
		case u.UserMessageChunk != nil:
			got = append(got, "user "+string(u.UserMessageChunk.MessageID.Or(""))+": "+u.UserMessageChunk.Content.Text.Text)
		case u.AgentMessageChunk != nil:
			got = append(got, "agent "+string(u.AgentMessageChunk.MessageID.Or(""))+": "+u.AgentMessageChunk.Content.Text.Text)
		}
	}
	want := []string{
		"user u1: hello",
		"user u3: /compact keep tests",
		"agent u4: Compacted.",
		"agent e1: API Error: 429 slow down",
		"user u8: again",
		"agent m3: Done.",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replay (-want +got):\n%s", diff)
	}
	if mode != "acceptEdits" {
		t.Errorf("mode %q", mode)
	}
}

// TestLoadDoesNotHoldTheConnection loads a session whose CLI never comes
// up: the replay arrives, other requests are answered meanwhile, the load
// is answered once the history is out (it does not wait for the CLI), and
// a session/close stops the CLI that still starts.
func TestLoadDoesNotHoldTheConnection(t *testing.T) {
	t.Parallel()
	home, cwd := t.TempDir(), t.TempDir()
	hang := filepath.Join(t.TempDir(), "claude")
	if err := os.WriteFile(hang, []byte("#!/bin/sh\nexec sleep 60\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, st, err := transcriptgen.WriteSession(filepath.Join(home, ".claude"), transcriptgen.Options{Cwd: cwd, Messages: 60})
	if err != nil {
		t.Fatal(err)
	}
	rc := newReplayClientConfig(t, Config{Executable: hang, Env: []string{"HOME=" + home}, StartupTimeout: time.Minute})
	ctx := context.Background()
	loaded := rc.startLoad(t, st.SessionID, cwd)
	var list acp.ListSessionsResponse
	if err := rc.client.Call(ctx, acp.MethodSessionList, &acp.ListSessionsRequest{}, &list); err != nil || len(list.Sessions) != 1 {
		t.Fatalf("session/list during a load: %+v %v", list.Sessions, err)
	}
	if err := <-loaded; err != nil {
		t.Fatalf("the load, its CLI still starting: %v", err)
	}
	if got := rc.count(); got < st.Active/2 {
		t.Errorf("the load answered after %d of %d history updates", got, st.Active)
	}
	if err := rc.client.Call(ctx, acp.MethodSessionClose, &acp.CloseSessionRequest{SessionID: acp.SessionID(st.SessionID)}, &acp.CloseSessionResponse{}); err != nil {
		t.Fatal(err)
	}
}

// TestLoadReplaysBeforeTheCLIStarts: a load starts the CLI it resumes once
// the replay is done, not beside it, when the replay is short
// (replayHeadStart), and during the replay when it is long. The CLI is a
// script that records whether the client had the whole replay when it
// started (that is, whether the agent had written it all); it never comes
// up, and a session/close ends each load.
func TestLoadReplaysBeforeTheCLIStarts(t *testing.T) {
	// Not parallel: it sets replayHeadStart, which every replay reads.
	for _, c := range []struct {
		name      string
		headStart time.Duration
		want      string
	}{
		{"short", time.Minute, "after"},
		{"long", 0, "before"},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func(d time.Duration) { replayHeadStart = d }(replayHeadStart)
			replayHeadStart = c.headStart
			home, cwd, dir := t.TempDir(), t.TempDir(), t.TempDir()
			cli := filepath.Join(dir, "claude")
			script := "#!/bin/sh\nif [ -e " + dir + "/replayed ]; then echo after; else echo before; fi > " + dir + "/order\nexec sleep 60\n"
			if err := os.WriteFile(cli, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			path, st, err := transcriptgen.WriteSession(filepath.Join(home, ".claude"), transcriptgen.Options{Cwd: cwd, Messages: 600})
			if err != nil {
				t.Fatal(err)
			}
			// The updates the replay sends, counted on a client of its own.
			want := len(mustReplay(t, path))
			rc := newReplayClientConfig(t, Config{Executable: cli, Env: []string{"HOME=" + home}, StartupTimeout: time.Minute})
			writes := 0
			rc.onWritten = func(n int) {
				if n >= want {
					_ = os.WriteFile(filepath.Join(dir, "replayed"), nil, 0o600)
					return
				}
				// A long replay: its second write of updates waits (10 s at
				// most, once) for the CLI it should have started by then.
				if n == 0 {
					return
				}
				if writes++; c.want == "before" && writes == 2 {
					waitForFile(filepath.Join(dir, "order"), 10*time.Second)
				}
			}
			ctx := context.Background()
			loaded := rc.startLoad(t, st.SessionID, cwd)
			order := waitForFile(filepath.Join(dir, "order"), 30*time.Second)
			if err := rc.client.Call(ctx, acp.MethodSessionClose, &acp.CloseSessionRequest{SessionID: acp.SessionID(st.SessionID)}, &acp.CloseSessionResponse{}); err != nil {
				t.Fatal(err)
			}
			<-loaded
			if got := strings.TrimSpace(string(order)); got != c.want {
				t.Errorf("the CLI started %q the agent had written the whole replay (%d updates), want %q", got, want, c.want)
			}
		})
	}
}

// mustReplay replays the transcript at path on a client of its own.
func mustReplay(t *testing.T, path string) []acp.SessionUpdate {
	_, us := newReplayClient(t).replay(t, path)
	return us
}

// waitForFile returns the contents of the file at path once it has some,
// or nothing after d.
func waitForFile(path string, d time.Duration) []byte {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if b, _ := os.ReadFile(path); len(b) > 0 {
			return b
		}
	}
	return nil
}
