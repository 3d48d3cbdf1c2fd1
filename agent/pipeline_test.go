package agent_test

import (
	"io"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
)

// Which prompts the agent holds while a session's first CLI starts, and
// in what order they reach it, is the agent's own logic (startPipelined,
// earlyOpen, sendEarly in session.go): these run on the in-process fake
// CLI, in fake time, gated (World.StartGate: it reads nothing of its
// stdin until the test opens the gate) with a log of what the agent wrote
// to its stdin. What only the real CLI shows stays on it:
// TestFirstPromptFollowsTheHandshake (pipeline_e2e_test.go) proves that
// the real CLI reads and runs a prompt written behind its unanswered
// initialize and get_settings, and TestListsSessionWithHugeFirstPrompt
// (stored_e2e_test.go) that it runs a prompt over the pipe's buffer,
// which the agent held until it was up.

// TestHeldFirstPrompt: a first prompt is held, nothing of it on the CLI's
// stdin before the CLI is up, when the mode changed since the CLI was
// spawned (the change reaches the CLI first), when it is too big to wait
// in the pipe's buffer, and when it comes behind such a prompt (the CLI
// gets them in order). Once the gate opens, the turns run as usual.
func TestHeldFirstPrompt(t *testing.T) {
	t.Parallel()
	big := "the first prompt " + strings.Repeat("x", 40<<10)
	t.Run("mode changed while starting", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			lines := heldPrompts(t, true, "the first prompt")
			mode, prompt := -1, -1
			for i, l := range lines {
				if strings.Contains(l, `"set_permission_mode"`) && strings.Contains(l, `"acceptEdits"`) && mode < 0 {
					mode = i
				}
				if strings.Contains(l, `"the first prompt"`) && prompt < 0 {
					prompt = i
				}
			}
			if mode < 0 || prompt < mode {
				t.Fatalf("the CLI's stdin:\n%s\nwant the mode change before the prompt", strings.Join(lines, "\n"))
			}
		})
	})
	t.Run("too big to wait in the pipe", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			// More than the pipe's buffer could hold while the CLI does
			// not read: written once the CLI is up, so the session never
			// waits.
			heldPrompts(t, false, big)
		})
	})
	t.Run("behind a held prompt", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			lines := heldPrompts(t, false, big, "the second prompt")
			first, second := -1, -1
			for i, l := range lines {
				if strings.Contains(l, `"the first prompt `) && first < 0 {
					first = i
				}
				if strings.Contains(l, `"the second prompt"`) && second < 0 {
					second = i
				}
			}
			if first < 0 || second < first {
				t.Fatalf("the CLI's stdin:\n%.2000s\nwant the first prompt before the second", strings.Join(lines, "\n"))
			}
		})
	})
}

// heldPrompts opens a session whose CLI is gated, changes its mode if
// changeMode, and sends the prompts, each once the agent has done all it
// does with the one before; none may reach the CLI's stdin while the gate
// is shut. It then opens the gate, checks that every turn ends with the
// model's answer, and returns the lines the agent wrote to the CLI's
// stdin. Call it in a synctest bubble.
func heldPrompts(t *testing.T, changeMode bool, prompts ...string) []string {
	gate := make(chan struct{})
	var answers []clifake.Reply
	for range prompts {
		answers = append(answers, cfText("Answered."))
	}
	w, _ := cfScripted(answers...)
	w.StartGate = gate
	stdin := &stdinLog{}
	s := newSim(t, w, func(c *agent.Config) { c.Launch = stdin.launch(w.Launch) })
	s.initialize()
	sid := s.newSession()
	if changeMode {
		if err := s.setMode(sid, "acceptEdits"); err != nil {
			t.Fatal(err)
		}
	}
	var done []<-chan simAnswer
	for _, p := range prompts {
		done = append(done, s.promptAsync(sid, p))
		synctest.Wait() // the agent has queued it, and sent what it sends
	}
	if l := stdin.lines(); strings.Contains(strings.Join(l, "\n"), `"type":"user"`) {
		t.Errorf("a prompt went to the CLI before it had answered (it should have been held):\n%.300s", strings.Join(l, "\n"))
	}
	close(gate)
	for i, ch := range done {
		a := <-ch
		if a.err != nil || a.r.StopReason != acp.StopReasonEndTurn {
			t.Fatalf("prompt %d: %+v %v", i+1, a.r, a.err)
		}
	}
	if got := s.agentText(sid); strings.Count(got, "Answered.") != len(prompts) {
		t.Errorf("agent text %q", got)
	}
	lines := stdin.lines()
	s.eof()
	return lines
}

// stdinLog keeps the lines the agent writes to its CLIs' stdin as it
// writes them, whether the CLI has read them or not.
type stdinLog struct {
	mu  sync.Mutex
	buf strings.Builder
}

// launch wraps a Launcher so that the stdin of the CLIs it starts is
// logged.
func (l *stdinLog) launch(launch claude.Launcher) claude.Launcher {
	return func(cmd claude.Command) (claude.Child, error) {
		c, err := launch(cmd)
		if err != nil {
			return nil, err
		}
		return loggedChild{c, l}, nil
	}
}

func (l *stdinLog) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Split(strings.TrimSpace(l.buf.String()), "\n")
}

type loggedChild struct {
	claude.Child
	l *stdinLog
}

func (c loggedChild) Stdin() io.WriteCloser { return loggedStdin{c.Child.Stdin(), c.l} }

type loggedStdin struct {
	io.WriteCloser
	l *stdinLog
}

func (w loggedStdin) Write(p []byte) (int, error) {
	w.l.mu.Lock()
	w.l.buf.Write(p)
	w.l.mu.Unlock()
	return w.WriteCloser.Write(p)
}
