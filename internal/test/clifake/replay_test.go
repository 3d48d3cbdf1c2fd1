package clifake

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/claude"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitape"
)

// errs keeps what a replay reports.
type errs struct {
	mu   sync.Mutex
	msgs []string
}

func (e *errs) Errorf(format string, args ...any) {
	e.mu.Lock()
	e.msgs = append(e.msgs, fmt.Sprintf(format, args...))
	e.mu.Unlock()
}

func (e *errs) all() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.msgs...)
}

// twoTurns is a tape of two turns whose second prompt the taped agent
// wrote before it read the first turn's idle frame, as a v1 agent does
// (the v1 prompt is answered on the result, before idle).
func twoTurns() *clitape.Tape {
	in := func(l string) clitape.TapeLine { return clitape.TapeLine{Line: l} }
	out := func(l string) clitape.TapeLine { return clitape.TapeLine{FromCLI: true, Line: l} }
	const s, u1, u2 = "11111111-1111-4111-8111-111111111111", "aaaaaaaa-1111-4111-8111-111111111111", "bbbbbbbb-1111-4111-8111-111111111111"
	user := func(u, text string) string {
		return `{"type":"user","message":{"role":"user","content":"` + text + `"},"uuid":"` + u + `"}`
	}
	turn := func(u, text string) []clitape.TapeLine {
		return []clitape.TapeLine{
			out(`{"type":"system","subtype":"session_state_changed","state":"running","session_id":"` + s + `"}`),
			out(`{"type":"command_lifecycle","command_uuid":"` + u + `","state":"started","session_id":"` + s + `"}`),
			out(`{"type":"assistant","text":"` + text + `","cwd":"/taped/work","session_id":"` + s + `"}`),
			out(`{"type":"result","session_id":"` + s + `"}`),
			out(`{"type":"command_lifecycle","command_uuid":"` + u + `","state":"completed","session_id":"` + s + `"}`),
		}
	}
	idle := out(`{"type":"system","subtype":"session_state_changed","state":"idle","session_id":"` + s + `"}`)
	lines := []clitape.TapeLine{
		in(`{"type":"control_request","request_id":"t-1","request":{"subtype":"initialize"}}`),
		out(`{"type":"control_response","response":{"subtype":"success","request_id":"t-1","response":{"commands":[]}}}`),
		in(user(u1, "first")),
	}
	lines = append(lines, turn(u1, "One.")...)
	lines = append(lines, in(user(u2, "second")), idle)
	lines = append(lines, turn(u2, "Two.")...)
	lines = append(lines, idle, clitape.TapeLine{EOF: true})
	return clitape.NewTape(claude.Command{Args: []string{"--session-id=" + s}, Dir: "/taped/work"}, lines...)
}

// TestReplay: the replayed CLI answers with the live ids and directories,
// finishes a turn without waiting for the next prompt the taped agent
// had sent early, runs the next turn once it comes, and exits 0 on EOF.
func TestReplay(t *testing.T) {
	t.Parallel()
	e := &errs{}
	const s = "22222222-2222-4222-8222-222222222222"
	c, err := Replay(twoTurns(), e)(claude.Command{Args: []string{"--session-id=" + s}, Dir: "/live/work"})
	if err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(c.Stdout())
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func(want ...string) {
		t.Helper()
		select {
		case l := <-lines:
			for _, w := range want {
				if !strings.Contains(l, w) {
					t.Fatalf("got %s, want it with %s", l, w)
				}
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no line with %q", want)
		}
	}
	write := func(l string) {
		if _, err := io.WriteString(c.Stdin(), l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"type":"control_request","request_id":"live-7","request":{"subtype":"initialize"}}`)
	next(`"request_id":"live-7"`)
	const l1, l2 = "cccccccc-2222-4222-8222-222222222222", "dddddddd-2222-4222-8222-222222222222"
	write(`{"type":"user","message":{"role":"user","content":"first"},"uuid":"` + l1 + `"}`)
	next(`"state":"running"`, s)
	next(`"started"`, l1)
	next(`"One."`, `"/live/work"`)
	next(`"result"`)
	next(`"completed"`, l1)
	next(`"state":"idle"`) // before the second prompt
	write(`{"type":"user","message":{"role":"user","content":"second"},"uuid":"` + l2 + `"}`)
	next(`"state":"running"`)
	next(`"started"`, l2)
	next(`"Two."`)
	next(`"result"`)
	next(`"completed"`, l2)
	next(`"state":"idle"`)
	_ = c.Stdin().Close()
	if code, sig := c.Wait(); code != 0 || sig != 0 {
		t.Errorf("exit %d %v", code, sig)
	}
	if m := e.all(); len(m) > 0 {
		t.Errorf("replay errors: %q", m)
	}
}

// TestReplayDifference: a line the taped agent did not write, or wrote
// otherwise, is reported.
func TestReplayDifference(t *testing.T) {
	t.Parallel()
	e := &errs{}
	c, err := Replay(twoTurns(), e)(claude.Command{Args: []string{"--session-id=x"}, Dir: "/live/work"})
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, c.Stdout()) }()
	for _, l := range []string{
		`{"type":"control_request","request_id":"live-1","request":{"subtype":"initialize"}}`,
		`{"type":"user","message":{"role":"user","content":"first!"},"uuid":"cccccccc-2222-4222-8222-222222222222"}`,
		`{"type":"control_request","request_id":"live-2","request":{"subtype":"interrupt"}}`,
	} {
		_, _ = io.WriteString(c.Stdin(), l+"\n")
	}
	_ = c.Stdin().Close()
	c.Wait()
	m := e.all()
	if len(m) != 2 || !strings.Contains(m[0], `"first!"`) || !strings.Contains(m[1], "interrupt") {
		t.Errorf("replay errors: %q", m)
	}
}
