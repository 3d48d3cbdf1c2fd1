//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/transcriptgen"
)

// goneBound and exitBound are how long the tests below wait for the CLIs
// to be gone and for the agent to exit after a signal. The agent's own
// promises are tighter (CLIs gone in well under a second; exit within
// exitDeadline, 450 ms, however stuck its writer): the tests log what they
// measured, and fail only when the agent hangs, since on a loaded machine
// a process woken 450 ms later can take longer to be seen gone (a
// 500 ms bound failed once in make test, with the tests running in
// parallel).
const (
	goneBound = 5 * time.Second
	exitBound = 5 * time.Second
)

// TestNothingRunsAfterTheAgentDies is issue 13's first promise, with the
// real CLI: the agent dies mid-turn while the model's reply, about to
// arrive, is a tool call (Bash, which bypassPermissions runs unasked).
// However it dies (SIGKILL alone, SIGKILL of its whole process group as
// process-manager clients do, SIGTERM), no claude process it started is
// left (goneBound), the tool never runs and no further model request is
// made. CLAUDE_AGENT_ACP_KILL_ROUNDS=20 repeats each case and logs the
// median time from the signal to the last CLI gone (docs/reliability.md).
func TestNothingRunsAfterTheAgentDies(t *testing.T) {
	t.Parallel()
	rounds := 1
	if n, err := strconv.Atoi(os.Getenv("CLAUDE_AGENT_ACP_KILL_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	for _, how := range []string{"sigkill", "sigkill-group", "sigterm"} {
		t.Run(how, func(t *testing.T) {
			var took []time.Duration
			for range rounds {
				took = append(took, killMidTurn(t, how))
			}
			slices.Sort(took)
			t.Logf("%s: signal to last CLI gone: median %v, max %v over %d rounds", how, took[len(took)/2], took[len(took)-1], rounds)
		})
	}
}

func killMidTurn(t *testing.T, how string) time.Duration {
	sb := clitest.NewSandbox(t)
	t.Cleanup(func() { clitest.NoOrphans(t) })
	marker := filepath.Join(t.TempDir(), "tool-ran")
	// The reply comes 2 s after the request: the agent dies in between.
	step := fakeapi.ToolUse("toolu_marker", "Bash", map[string]any{"command": "touch " + marker, "description": "mark"})
	step.DelayMS = 2000
	sb.API.Script(step, fakeapi.Text("done"))

	p := startBinaryWith(t, sb.WorkDir, sb.With("CLAUDE_CODE_EXECUTABLE="+sb.CLI), how == "sigkill-group")
	p.initialize()
	sid := p.newSession(1)
	if m := p.call(2, "session/set_mode", map[string]any{"sessionId": sid, "modeId": "bypassPermissions"}); m.Error != nil {
		t.Fatalf("set_mode: %s", m.raw)
	}
	p.send(3, "session/prompt", textPrompt(sid, "mark the file"))
	deadline := time.Now().Add(30 * time.Second)
	for len(sb.API.MainRequests()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the model request never came")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if len(clitest.LivePIDs(t)) == 0 {
		t.Fatal("no claude process found before the kill")
	}
	start := time.Now()
	switch how {
	case "sigkill":
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
	case "sigkill-group":
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	case "sigterm":
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
	}
	var gone time.Duration
	for {
		if len(clitest.LivePIDs(t)) == 0 {
			gone = time.Since(start)
			break
		}
		if time.Since(start) > goneBound {
			t.Fatalf("%s: claude processes still alive %v after the signal: %v", how, goneBound, clitest.LivePIDs(t))
		}
		time.Sleep(2 * time.Millisecond)
	}
	if how == "sigterm" {
		if !p.waitExit(exitBound) {
			t.Errorf("the agent did not exit within %v of SIGTERM", exitBound)
		}
		t.Logf("the agent exited %v after SIGTERM", time.Since(start))
	}
	// Past the moment the reply would have come, and the tool run.
	time.Sleep(2500 * time.Millisecond)
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("%s: the tool ran after the agent died", how)
	}
	if n := len(sb.API.MainRequests()); n != 1 {
		t.Errorf("%s: %d model requests, want 1 (none after the agent died)", how, n)
	}
	return gone
}

// startBinaryWith is startBinary, optionally in a process group of its
// own (so that the whole group can be killed as some clients do).
func startBinaryWith(t *testing.T, dir string, env []string, ownGroup bool) *agentProc {
	t.Helper()
	if !ownGroup {
		return startBinary(t, dir, env)
	}
	return startBinaryCmd(t, dir, env, func(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} })
}

// TestNothingRunsAfterTheAgentDiesMidLoad: the agent dies during a
// session/load of 20,000 messages, at two moments. "stuck": the client has
// stopped reading, so the replay waits on a full stdout (and, between two
// batches, the CLI's start with it). "cli-starting": the client reads
// everything; the replay is done or nearly, the CLI of the loaded session
// is starting and the load's answer waits for it. However the agent dies
// (SIGKILL, SIGKILL of its process group, SIGTERM), no claude process it
// started is left (goneBound), none appears later, no model request was
// made, and the agent itself is gone (exitBound), a stuck writer or not.
func TestNothingRunsAfterTheAgentDiesMidLoad(t *testing.T) {
	t.Parallel()
	for _, when := range []string{"stuck", "cli-starting"} {
		for _, how := range []string{"sigkill", "sigkill-group", "sigterm"} {
			t.Run(when+"/"+how, func(t *testing.T) { killMidLoad(t, when, how) })
		}
	}
}

func killMidLoad(t *testing.T, when, how string) {
	sb := clitest.NewSandbox(t)
	t.Cleanup(func() { clitest.NoOrphans(t) })
	_, st, err := transcriptgen.WriteSession(sb.ConfigDir, transcriptgen.Options{Cwd: sb.WorkDir, Messages: 20000, RewindEvery: 25, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	p := startBinaryWith(t, sb.WorkDir, sb.With("CLAUDE_CODE_EXECUTABLE="+sb.CLI), how == "sigkill-group")
	p.initialize()
	p.send(1, "session/load", map[string]any{"sessionId": st.SessionID, "cwd": sb.WorkDir, "mcpServers": []any{}})
	// loadAnswer reports whether line answers the load, and the answer.
	// The replay is thousands of notifications: they are told apart by
	// their start, not decoded (under the race detector decoding them all
	// costs seconds of CPU).
	loadAnswer := func(line []byte) (wireMsg, bool) {
		if bytes.HasPrefix(line, []byte(`{"jsonrpc":"2.0","method":`)) {
			return wireMsg{}, false
		}
		var m wireMsg
		ok := json.Unmarshal(line, &m) == nil && m.isResponse() && string(m.ID) == "1"
		return m, ok
	}
	updates := 0
	deadline := time.Now().Add(30 * time.Second)
	switch when {
	case "stuck":
		// Read up to the first history update, then nothing more; the
		// replay fills the pipe (and the reader's buffers) and waits.
		for m := p.next(); m.Method != "session/update" || strings.Contains(m.raw, `"available_commands_update"`); m = p.next() {
			if m.isResponse() {
				t.Fatalf("before the replay: %s", m.raw)
			}
		}
		time.Sleep(500 * time.Millisecond)
	case "cli-starting":
		for len(clitest.LivePIDs(t)) == 0 {
			select {
			case line := <-p.lines:
				if _, ok := loadAnswer(line); ok {
					t.Fatalf("the load was answered before a CLI was seen: %.200s", line)
				}
				updates++
			case <-time.After(2 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				t.Fatal("no claude process started during the load")
			}
		}
	}
	start := time.Now()
	switch how {
	case "sigkill":
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
	case "sigkill-group":
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	case "sigterm":
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
	}
	for len(clitest.LivePIDs(t)) > 0 {
		if time.Since(start) > goneBound {
			t.Fatalf("claude processes still alive %v after the signal: %v", goneBound, clitest.LivePIDs(t))
		}
		time.Sleep(2 * time.Millisecond)
	}
	gone := time.Since(start)
	if !p.waitExit(exitBound) {
		t.Fatalf("the agent still runs %v after the signal", exitBound)
	}
	exited := time.Since(start)
	// What the agent wrote before it died: the load must not have been
	// answered with a result, else this did not test a death mid-load.
	// Stopped by SIGTERM, the agent may still tell the client that the
	// load ended (an error: the session was closed), and should.
	for line := range p.lines {
		if m, ok := loadAnswer(line); ok {
			if how != "sigterm" || m.Error == nil {
				t.Fatalf("the load was answered before the signal: %.200s", line)
			}
			t.Logf("SIGTERM: the load was answered with an error: %.200s", line)
			continue
		}
		updates++
	}
	time.Sleep(300 * time.Millisecond)
	if pids := clitest.LivePIDs(t); len(pids) > 0 {
		t.Fatalf("a claude process appeared after the agent died: %v", pids)
	}
	if n := len(sb.API.MainRequests()); n != 0 {
		t.Errorf("%d model requests during a load, want 0", n)
	}
	t.Logf("%d of about %d messages' lines written; claude processes gone %v and the agent %v after the signal", updates, st.Active, gone, exited)
}
