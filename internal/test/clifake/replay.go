package clifake

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/claude"
	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitape"
)

// Replay plays back a real CLI's whole run, taped by clitape.Taping: a
// variant of a real-CLI scenario (the same conversation on an ACP v2
// connection, say) runs on exactly the frames the real CLI wrote for it,
// its initialize answer included, without starting the CLI again.
//
// The replayed CLI writes the tape's lines of the CLI in their order, each
// once the agent has written what the taped agent had written before it
// (the tape keeps every cause before its effect, clitape.Tape), except
// the user messages of later turns: the CLI did not need the next prompt
// to finish a turn, however early the taped agent sent it; and no sooner
// after the line before it than on the tape (pace). What the agent writes
// is matched with what the taped agent wrote (user messages in order,
// control requests by subtype in order, answers by request id, the close
// of stdin) and must be the same but for the agent's own ids; the CLI's
// lines go out with the live session id, request ids, user message uuids
// and directories (working, home, config, project) in place of the taped
// ones. Every difference (a line the taped agent did not write, another
// command line, a line the CLI waits for over replayWait) is an error of
// f's. Once stdin is closed the CLI writes what no longer waits for the
// agent and exits 0; SIGTERM ends it at once (143), as CLI.Signal.
func Replay(tp *clitape.Tape, f interface{ Errorf(string, ...any) }) claude.Launcher {
	var mu sync.Mutex
	started := false
	return func(cmd claude.Command) (claude.Child, error) {
		mu.Lock()
		defer mu.Unlock()
		if started {
			f.Errorf("clifake: Replay: the agent started a second CLI; the tape has one")
			return nil, errors.New("clifake: the tape has one CLI")
		}
		started = true
		r := newReplay(tp, cmd, f)
		go r.read()
		go r.play()
		return r, nil
	}
}

// replayWait is how long the replay waits for the agent's next line before
// it reports the wait (and goes on waiting).
const replayWait = 20 * time.Second

type replay struct {
	f      interface{ Errorf(string, ...any) }
	tape   []clitape.TapeLine
	stderr string
	keys   []string // the key of each of the tape's agent lines ("" for the CLI's)
	users  []int    // by tape index: the user message's number (-1 for other lines)
	// needUser, by tape index of a CLI line: the last user message (by
	// number) it may wait for (-1: none).
	needUser []int
	static   []string // taped → live: session id, directories

	stdinR, outR, errR pipeReader
	stdinW, outW, errW pipeWriter

	mu      sync.Mutex
	cond    *sync.Cond
	matched map[int]bool      // tape indexes of the agent's lines matched by live ones
	at      map[int]time.Time // when each tape line was matched or played
	counts  map[string]int    // live lines seen, by key prefix
	ids     map[string]string // taped → live request ids and user message uuids
	eof     bool

	once   sync.Once
	done   chan struct{}
	code   int
	signal syscall.Signal
}

func newReplay(tp *clitape.Tape, cmd claude.Command, f interface{ Errorf(string, ...any) }) *replay {
	r := &replay{f: f, tape: tp.Lines(), stderr: tp.Stderr(), matched: map[int]bool{}, at: map[int]time.Time{}, counts: map[string]int{},
		ids: map[string]string{}, done: make(chan struct{})}
	r.cond = sync.NewCond(&r.mu)
	for _, p := range []struct {
		r *pipeReader
		w *pipeWriter
	}{{&r.stdinR, &r.stdinW}, {&r.outR, &r.outW}, {&r.errR, &r.errW}} {
		pp := newPipe()
		*p.r, *p.w = pipeReader{pp}, pipeWriter{pp}
	}
	taped := tp.Command()
	r.static = replacements(taped, cmd)
	if got, want := strings.Join(cmd.Args, " "), strings.Join(taped.Args, " "); r.toLive(want) != got {
		f.Errorf("clifake: Replay: the agent ran the CLI with\n%s\nthe taped agent with\n%s", got, want)
	}

	// The agent's lines: their keys. The CLI's: the last user message
	// they may wait for: the last one they or a line before them name,
	// and for the frame that says the CLI runs (session_state_changed
	// running after idle), the message whose turn it starts (named by the
	// turn's command_lifecycle started, a few frames on).
	counts := map[string]int{}
	r.keys, r.users, r.needUser = make([]string, len(r.tape)), make([]int, len(r.tape)), make([]int, len(r.tape))
	userOf := map[string]int{} // uuid → number
	for i, l := range r.tape {
		r.users[i], r.needUser[i] = -1, -1
		if !l.FromCLI {
			r.keys[i] = lineKey(l, counts)
			if u := field(l.Line, "uuid"); strings.HasPrefix(r.keys[i], "user#") && u != "" {
				r.users[i], userOf[u] = len(userOf), len(userOf)
			}
		}
	}
	need, idle := -1, true
	for i, l := range r.tape {
		if !l.FromCLI {
			continue
		}
		for u, n := range userOf {
			if strings.Contains(l.Line, u) {
				need = max(need, n)
			}
		}
		switch state := stateOf(l.Line); {
		case state == "running" && idle:
			idle = false
			for _, next := range r.tape[i+1:] {
				if !next.FromCLI {
					continue
				}
				if stateOf(next.Line) == "idle" {
					break
				}
				if n, ok := userOf[field(next.Line, "command_uuid")]; ok && field(next.Line, "state") == "started" {
					need = max(need, n)
					break
				}
			}
		case state == "idle":
			idle = true
		}
		r.needUser[i] = need
	}
	return r
}

// stateOf is the state a session_state_changed line says ("" for other
// lines).
func stateOf(line string) string {
	if field(line, "subtype") != "session_state_changed" {
		return ""
	}
	return field(line, "state")
}

// replacements are the taped command's session id and directories, each
// followed by the live command's, longest first.
func replacements(taped, live claude.Command) []string {
	pairs := map[string]string{}
	add := func(a, b string) {
		if a != "" && a != b {
			pairs[a] = b
		}
	}
	add(sessionArg(taped.Args), sessionArg(live.Args))
	add(taped.Dir, live.Dir)
	for _, k := range []string{"HOME", "CLAUDE_CONFIG_DIR"} {
		add(env(taped.Env, k), env(live.Env, k))
	}
	config := func(c claude.Command) string {
		if d := env(c.Env, "CLAUDE_CONFIG_DIR"); d != "" {
			return d
		}
		return filepath.Join(env(c.Env, "HOME"), ".claude")
	}
	tp, lp := transcript.ProjectDir(config(taped), taped.Dir), transcript.ProjectDir(config(live), live.Dir)
	add(tp, lp)
	add(filepath.Base(tp), filepath.Base(lp))
	var olds []string
	for k := range pairs {
		olds = append(olds, k)
	}
	slices.SortFunc(olds, func(a, b string) int { return len(b) - len(a) })
	var out []string
	for _, k := range olds {
		out = append(out, k, pairs[k])
	}
	return out
}

// sessionArg is the session a command line names (--session-id or --resume).
func sessionArg(args []string) string {
	return cmp.Or(flagValue(args, "session-id"), flagValue(args, "resume"))
}

// toLive puts the live session id and directories in place of the taped
// ones.
func (r *replay) toLive(s string) string {
	return strings.NewReplacer(r.static...).Replace(s)
}

// toTaped does the reverse.
func (r *replay) toTaped(s string) string {
	type pair struct{ live, taped string }
	var pairs []pair
	for i := 0; i < len(r.static); i += 2 {
		pairs = append(pairs, pair{r.static[i+1], r.static[i]})
	}
	slices.SortFunc(pairs, func(a, b pair) int { return len(b.live) - len(a.live) })
	var rev []string
	for _, p := range pairs {
		rev = append(rev, p.live, p.taped)
	}
	return strings.NewReplacer(rev...).Replace(s)
}

// lineKey names an agent's line: user#n for the n-th user message,
// control_request/<subtype>#n for the n-th such request, control_response/<id>
// for an answer to the CLI's request id, eof for the close of stdin.
func lineKey(l clitape.TapeLine, counts map[string]int) string {
	if l.EOF {
		return "eof"
	}
	var fr struct {
		Type     string                   `json:"type"`
		Request  struct{ Subtype string } `json:"request"`
		Response struct {
			RequestID string `json:"request_id"`
		} `json:"response"`
		RequestID string `json:"request_id"`
	}
	_ = json.Unmarshal([]byte(l.Line), &fr)
	prefix := fr.Type
	switch fr.Type {
	case "control_request":
		prefix += "/" + fr.Request.Subtype
	case "control_response":
		return "control_response/" + fr.Response.RequestID
	case "control_cancel_request":
		return "control_cancel_request/" + fr.RequestID
	}
	n := counts[prefix]
	counts[prefix]++
	return fmt.Sprintf("%s#%d", prefix, n)
}

// field is a top-level string member of a JSON line.
func field(line, name string) string {
	var m map[string]json.RawMessage
	_ = json.Unmarshal([]byte(line), &m)
	var s string
	_ = json.Unmarshal(m[name], &s)
	return s
}

// read matches the agent's lines with the taped agent's.
func (r *replay) read() {
	br := bufio.NewReaderSize(r.stdinR, 64<<10)
	for {
		line, err := br.ReadString('\n')
		if line = strings.TrimSpace(line); line != "" {
			r.match(line)
		}
		if err != nil {
			break
		}
	}
	r.mu.Lock()
	r.eof = true
	for i, k := range r.keys {
		if k == "eof" {
			r.matched[i], r.at[i] = true, time.Now()
		}
	}
	r.cond.Broadcast()
	r.mu.Unlock()
}

func (r *replay) match(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := lineKey(clitape.TapeLine{Line: line}, r.counts)
	i := slices.Index(r.keys, key)
	if i < 0 {
		r.f.Errorf("clifake: Replay: the agent wrote a line the taped agent did not (%s):\n%s", key, line)
		return
	}
	taped := r.tape[i].Line
	// The agent's own ids: the request's, the user message's.
	for _, name := range []string{"request_id", "uuid"} {
		if a, b := field(taped, name), field(line, name); a != "" && b != "" {
			r.ids[a] = b
			line = strings.ReplaceAll(line, `"`+b+`"`, `"`+a+`"`)
		}
	}
	if line = r.toTaped(line); line != taped {
		r.f.Errorf("clifake: Replay: the agent wrote\n%s\nwhere the taped agent wrote\n%s", line, taped)
	}
	r.matched[i], r.at[i] = true, time.Now()
	r.cond.Broadcast()
}

// ready reports whether the CLI's line k may go out: the agent has written
// every line the taped agent wrote before it, but later turns' prompts;
// else the first it waits for.
func (r *replay) ready(k int) (bool, int) {
	for i := 0; i < k; i++ {
		if r.tape[i].FromCLI || r.matched[i] || r.users[i] > r.needUser[k] {
			continue
		}
		return false, i
	}
	return true, -1
}

// play writes the tape's CLI lines as their causes come, then exits once
// stdin is closed.
func (r *replay) play() {
	for k, l := range r.tape {
		if !l.FromCLI {
			continue
		}
		if !r.await(k) || !r.pace(k) {
			break
		}
		r.mu.Lock()
		line := l.Line
		for a, b := range r.ids {
			line = strings.ReplaceAll(line, `"`+a+`"`, `"`+b+`"`)
		}
		r.at[k] = time.Now()
		r.mu.Unlock()
		r.write(r.toLive(line))
	}
	r.mu.Lock()
	for !r.eof && !r.dead() {
		r.cond.Wait()
	}
	r.mu.Unlock()
	if r.stderr != "" {
		_, _ = r.errW.Write([]byte(r.stderr))
	}
	r.exit(0, 0)
}

// await waits until line k may go out; false if it never will (stdin
// closed first, or the CLI was killed).
func (r *replay) await(k int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	warn := time.AfterFunc(replayWait, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if ok, i := r.ready(k); !ok {
			r.f.Errorf("clifake: Replay: %s on, the CLI's line\n%s\nwaits for the agent's\n%s", replayWait, r.tape[k].Line, r.tape[i].Line)
		}
	})
	defer warn.Stop()
	for {
		ok, _ := r.ready(k)
		switch {
		case ok:
			return true
		case r.eof || r.dead():
			return false
		}
		r.cond.Wait()
	}
}

// pace waits until line k is as far behind the line before it (the last
// one it waited for, or the CLI's last) as it was on the tape: what the
// agent does with a frame may depend on what it had time to do before
// (an answer it was waiting for, a burst of deltas, agent/burst.go), so
// the frames come as far apart as the real CLI's came. False if the CLI
// was killed meanwhile.
func (r *replay) pace(k int) bool {
	r.mu.Lock()
	j := -1
	for i := k - 1; i >= 0; i-- {
		if r.tape[i].FromCLI || r.users[i] <= r.needUser[k] {
			j = i
			break
		}
	}
	var d time.Duration
	if j >= 0 {
		d = time.Until(r.at[j].Add(r.tape[k].At - r.tape[j].At))
	}
	r.mu.Unlock()
	if d <= 0 {
		return !r.dead()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.done:
		return false
	}
}

func (r *replay) write(line string) {
	if r.dead() {
		return
	}
	_, _ = r.outW.Write([]byte(line + "\n"))
}

func (r *replay) dead() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

func (r *replay) exit(code int, sig syscall.Signal) {
	r.once.Do(func() {
		r.mu.Lock()
		r.code, r.signal = code, sig
		close(r.done)
		r.cond.Broadcast()
		r.mu.Unlock()
		_ = r.outW.Close()
		_ = r.errW.Close()
		_ = r.stdinR.CloseWithError(errors.New("clifake: the CLI has exited"))
	})
}

// The claude.Child side.

func (r *replay) Stdin() io.WriteCloser { return r.stdinW }
func (r *replay) Stdout() io.ReadCloser { return r.outR }
func (r *replay) Stderr() io.ReadCloser { return r.errR }

// Signal: SIGTERM ends the CLI at once with status 143, SIGKILL kills it
// (CLI.Signal).
func (r *replay) Signal(sig syscall.Signal) {
	if sig == syscall.SIGKILL {
		r.exit(-1, syscall.SIGKILL)
		return
	}
	r.exit(143, 0)
}

func (r *replay) Wait() (int, syscall.Signal) {
	<-r.done
	return r.code, r.signal
}
