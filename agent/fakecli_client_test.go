package agent

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/faultcli"
)

// fakeCLIWorld is an agent whose CLIs are the fake of package faultcli
// (this test binary), in a fresh HOME, with a client connected.
type fakeCLIWorld struct {
	rc             *replayClient
	home, cwd, dir string // dir: the fakes' state (trace, markers)
}

// newFakeCLIWorld starts the agent; env adds to the fakes' environment
// (faultcli.EnvStart, …). The test fails if a fake outlives it.
func newFakeCLIWorld(t *testing.T, env ...string) *fakeCLIWorld {
	t.Helper()
	w := &fakeCLIWorld{home: t.TempDir(), cwd: t.TempDir(), dir: t.TempDir()}
	t.Cleanup(func() {
		if alive := faultcli.KillLeftovers(w.dir, 10*time.Second); len(alive) > 0 {
			t.Errorf("fake CLIs outlived the agent: %v", alive)
		}
	})
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	w.rc = newReplayClientConfig(t, Config{Executable: exe, StartupTimeout: time.Minute,
		Env: faultcli.Env(w.dir, append([]string{"HOME=" + w.home}, env...)...)})
	return w
}

// initialize does the client's handshake.
func (w *fakeCLIWorld) initialize(t *testing.T) {
	t.Helper()
	if err := w.rc.client.Call(context.Background(), acp.MethodInitialize, &acp.InitializeRequest{ProtocolVersion: 1}, &acp.InitializeResponse{}); err != nil {
		t.Fatal(err)
	}
}

// newSession opens a session in the world's cwd (after initialize).
func (w *fakeCLIWorld) newSession(t *testing.T) acp.SessionID {
	t.Helper()
	ctx := context.Background()
	var ns acp.NewSessionResponse
	if err := w.rc.client.Call(ctx, acp.MethodSessionNew, &acp.NewSessionRequest{Cwd: w.cwd, MCPServers: []acp.MCPServer{}}, &ns); err != nil {
		t.Fatal(err)
	}
	return ns.SessionID
}
