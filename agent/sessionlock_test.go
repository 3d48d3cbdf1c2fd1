//go:build unix

package agent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
)

// TestPromptInSessionOpenElsewhere: when the session's CLI must start
// again (here: it crashed) while another process holds the session, the
// prompt fails without reaching a CLI and says why: a typed failure for a
// client of the session-failure extension, the JSON-RPC error for the
// others. Once the other process lets go, the next prompt runs.
func TestPromptInSessionOpenElsewhere(t *testing.T) {
	t.Parallel()
	for _, air := range []bool{false, true} {
		t.Run(map[bool]string{false: "legacy", true: "typed"}[air], func(t *testing.T) {
			w := newFakeCLIWorld(t)
			caps := acp.ClientCapabilities{}
			if air {
				caps.Meta = map[string]json.RawMessage{"jetbrains": json.RawMessage(`{"air":{"version":1,"capabilities":["sessionFailure"]}}`)}
			}
			ctx := context.Background()
			if err := w.rc.client.Call(ctx, acp.MethodInitialize, &acp.InitializeRequest{ProtocolVersion: 1, ClientCapabilities: caps}, &acp.InitializeResponse{}); err != nil {
				t.Fatal(err)
			}
			sid := w.newSession(t)
			prompt := func(text string) (*acp.PromptResponse, error) {
				var resp acp.PromptResponse
				err := w.rc.client.Call(ctx, acp.MethodSessionPrompt, &acp.PromptRequest{SessionID: sid,
					Prompt: []acp.ContentBlock{{Text: &acp.TextContent{Text: text}}}}, &resp)
				return &resp, err
			}
			if _, err := prompt("hello"); err != nil {
				t.Fatal(err)
			}
			_, _ = prompt("crash") // the CLI dies; the next prompt starts another
			release := holdSessionLock(t, filepath.Join(w.home, ".claude", "claude-agent-acp", "locks", string(sid)+".lock"))
			resp, err := prompt("hello again")
			if air {
				if err != nil || !strings.Contains(string(resp.Meta["jetbrains"]), "open in another window") {
					t.Fatalf("want a typed failure that says the session is open elsewhere: %+v %v", resp, err)
				}
			} else {
				var rpc *acp.Error
				if !errors.As(err, &rpc) || !strings.Contains(rpc.Message, "open in another window") || !strings.Contains(string(rpc.Data), "session_open_elsewhere") {
					t.Fatalf("want the session_open_elsewhere error, got %+v %v", resp, err)
				}
			}
			release()
			if resp, err := prompt("and now"); err != nil || resp.StopReason != acp.StopReasonEndTurn || resp.Meta != nil {
				t.Fatalf("after the other process let go: %+v %v", resp, err)
			}
		})
	}
}

// holdSessionLock takes a session's lock as another process would, once
// the CLI that held it has exited.
func holdSessionLock(t *testing.T, path string) (release func()) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			// The holder removes the file as it lets go: ours must still
			// be the one at path.
			held, err1 := f.Stat()
			named, err2 := os.Stat(path)
			if err1 == nil && err2 == nil && os.SameFile(held, named) {
				return func() { os.Remove(path); f.Close() }
			}
		}
		f.Close()
		if time.Now().After(deadline) {
			t.Fatal("the crashed CLI's lock was not released")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
