package agent_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/agent"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/acptest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitape"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/golden/*.jsonl")

// TestGoldenTranscripts runs each scenario through the real CLI and
// compares the whole ACP conversation, normalised (ids, paths), with
// testdata/golden/<name>.jsonl. Every line is also checked against the
// official ACP JSON schema. The CLI's run is taped (clitape.Taping), and
// the scenario's v2 variant (its subtest v2, golden_v2_test.go) plays the
// tape back instead of starting the CLI again.
func TestGoldenTranscripts(t *testing.T) {
	t.Parallel()
	for _, sc := range goldenScenarios() {
		t.Run(sc.name, func(t *testing.T) {
			tape := &clitape.Tape{}
			h := agenttest.Start(t, agenttest.Options{Config: func(c *agent.Config) { c.Launch = clitape.Taping(tape) }})
			h.API().Script(sc.steps...)
			sid := h.NewSession(h.Sandbox.WorkDir)
			waitCLIUp(t, h)
			for _, p := range sc.prompts {
				if !sc.cancel {
					_, _ = h.Prompt(sid, p)
					continue
				}
				done := make(chan struct{})
				go func() { _, _ = h.Prompt(sid, p); close(done) }()
				h.WaitFor("streamed text", 30*time.Second, func() bool { return h.AgentText(sid) != "" })
				h.Cancel(sid)
				<-done
			}
			wire := h.Wire()
			// The agent stops its CLI: the tape has the CLI's whole run.
			h.Close()
			if !tape.Wait() {
				t.Fatal("the agent started no CLI")
			}
			t.Run("v2", func(t *testing.T) { goldenV2(t, sc, tape) })
			compareGolden(t, filepath.Join("testdata", "golden", sc.name+".jsonl"), wire, h.Sandbox.WorkDir, sid, true)
		})
	}
}

// waitCLIUp waits until the session's CLI is up (its command list came),
// as it is when a user types the first prompt in an editor: the scenarios
// record that conversation. A prompt sent with session/new goes to a CLI
// still starting, and the context window question waits for the CLI's
// answer then (config.go), so when its usage comes among the chunks is
// timing; agent tests cover that start (window_ask_test.go,
// usage_e2e_test.go).
func waitCLIUp(t *testing.T, h interface {
	Wire() []agenttest.WireLine
	WaitFor(string, time.Duration, func() bool)
}) {
	t.Helper()
	h.WaitFor("the session's command list", 30*time.Second, func() bool {
		for _, l := range h.Wire() {
			if l.FromAgent && strings.Contains(l.Line, `"sessionUpdate":"available_commands_update"`) {
				return true
			}
		}
		return false
	})
}

// compareGolden compares a normalised conversation with the golden file at
// path; with validateV1 every line is also checked against the v1 schema
// (the v2 harness checks its own wire). Each direction is compared in
// order; on v2 the agent's answers are a sequence of their own.
func compareGolden(t *testing.T, path string, wire []agenttest.WireLine, workDir, sid string, validateV1 bool) {
	t.Helper()
	norm := newNormalizer(workDir, sid)
	methods := map[string]string{} // request id → method, for result validation
	var got []string
	for _, l := range wire {
		if validateV1 {
			acptest.ValidateMessage(t, []byte(l.Line))
			var env struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			_ = json.Unmarshal([]byte(l.Line), &env)
			key := fmt.Sprintf("%v/%s", l.FromAgent, env.ID)
			if env.Method != "" && env.ID != nil {
				methods[key] = env.Method
			}
			if env.Method == "" && env.ID != nil {
				if m := methods[fmt.Sprintf("%v/%s", !l.FromAgent, env.ID)]; m != "" {
					acptest.ValidateResponse(t, m, []byte(l.Line))
				}
			}
		}
		dir := "> "
		if l.FromAgent {
			dir = "< "
			if !validateV1 && !strings.Contains(l.Line, `"method":`) {
				// v2 answers a prompt while its turn goes on: where the
				// answer falls among the updates is timing.
				dir = "<= "
			}
		}
		got = append(got, dir+norm.apply(l.Line))
	}
	if *updateGolden {
		if err := os.WriteFile(path, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	want := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	// The two directions are each ordered; how they interleave is timing.
	for _, dir := range []string{"> ", "< ", "<= "} {
		g, w := mergeChunks(filterDir(got, dir)), mergeChunks(filterDir(want, dir))
		for i := 0; i < len(g) || i < len(w); i++ {
			var gl, wl string
			if i < len(g) {
				gl = g[i]
			}
			if i < len(w) {
				wl = w[i]
			}
			if gl != wl {
				t.Fatalf("%s line %d differs:\n got: %s\nwant: %s", dir, i, gl, wl)
			}
		}
	}
}

func filterDir(lines []string, dir string) []string {
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, dir) {
			out = append(out, l)
		}
	}
	return out
}

// mergeChunks joins consecutive text chunks of one message (and kind)
// into one line, in a form of its own: an agent that falls behind the CLI
// sends such deltas as one chunk (agent/burst.go), so how a message's text
// is cut into chunks is timing, not behaviour.
func mergeChunks(lines []string) []string {
	var out []string
	var prev struct{ key, text string }
	for _, l := range lines {
		dir, body, _ := strings.Cut(l, " ")
		var m struct {
			Method string `json:"method"`
			Params struct {
				SessionID string          `json:"sessionId"`
				Update    json.RawMessage `json:"update"`
			} `json:"params"`
		}
		var u struct {
			SessionUpdate string `json:"sessionUpdate"`
			MessageID     string `json:"messageId"`
			Content       struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		}
		var fields map[string]json.RawMessage
		chunk := json.Unmarshal([]byte(body), &m) == nil && m.Method == "session/update" &&
			json.Unmarshal(m.Params.Update, &u) == nil && json.Unmarshal(m.Params.Update, &fields) == nil &&
			(u.SessionUpdate == "agent_message_chunk" || u.SessionUpdate == "agent_thought_chunk") &&
			u.Content.Type == "text" && len(fields) <= 3
		if !chunk {
			out, prev.key = append(out, l), ""
			continue
		}
		key := dir + " <" + u.SessionUpdate + " " + m.Params.SessionID + " " + u.MessageID + ">"
		if key == prev.key {
			prev.text += u.Content.Text
			out[len(out)-1] = key + " " + strconv.Quote(prev.text)
			continue
		}
		prev.key, prev.text = key, u.Content.Text
		out = append(out, key+" "+strconv.Quote(prev.text))
	}
	return out
}

// goldenScenario is one conversation of the golden tests: the fake
// model's steps and the prompts; cancel cancels the (one) prompt once text
// streamed.
type goldenScenario struct {
	name    string
	steps   []fakeapi.Step
	prompts []string
	cancel  bool
}

// goldenScenarios are run on v1 with the real CLI (TestGoldenTranscripts)
// and on v2 with its tape (goldenV2).
func goldenScenarios() []goldenScenario {
	hang := fakeapi.Hang(30)
	maxTok := fakeapi.Text("truncated")
	maxTok.StopReason, maxTok.Repeat = "max_tokens", -1
	e401 := fakeapi.HTTPError(401, "authentication_error", "invalid x-api-key")
	e401.Repeat = -1
	e429 := fakeapi.HTTPError(429, "rate_limit_error", "slow down please")
	e429.Repeat = -1
	return []goldenScenario{
		{name: "plain_turn", steps: []fakeapi.Step{fakeapi.Text("Hello from Claude.")}, prompts: []string{"say hi"}},
		{name: "thinking", steps: []fakeapi.Step{fakeapi.Thinking("Let me think.", "Done thinking.")}, prompts: []string{"think"}},
		{name: "two_turns", steps: []fakeapi.Step{fakeapi.Text("One."), fakeapi.Text("Two.")}, prompts: []string{"first", "second"}},
		{name: "refusal", steps: []fakeapi.Step{fakeapi.Refusal("", "cyber", "Looks like malware.")}, prompts: []string{"bad"}},
		{name: "max_tokens", steps: []fakeapi.Step{maxTok}, prompts: []string{"long"}},
		{name: "auth_error", steps: []fakeapi.Step{e401}, prompts: []string{"hi"}},
		{name: "rate_limit", steps: []fakeapi.Step{e429}, prompts: []string{"hi"}},
		{name: "cancel", steps: []fakeapi.Step{hang}, prompts: []string{"wait"}, cancel: true},
	}
}

// normalizer replaces what differs between runs with stable names.
type normalizer struct {
	cwd, sid string
	names    map[string]string
}

func newNormalizer(cwd, sid string) *normalizer {
	return &normalizer{cwd: cwd, sid: sid, names: map[string]string{}}
}

var (
	uuidRE  = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	msgIDRE = regexp.MustCompile(`msg_[A-Za-z0-9_]+`)
	reqIDRE = regexp.MustCompile(`req_[A-Za-z0-9_]+`)
)

func (n *normalizer) apply(line string) string {
	line = strings.ReplaceAll(line, n.sid, "<session>")
	if exe, err := os.Executable(); err == nil {
		// The agent's own path, in the terminal logins' _meta.
		q, _ := json.Marshal(exe)
		line = strings.ReplaceAll(line, string(q), `"<agent>"`)
	}
	line = strings.ReplaceAll(line, n.cwd, "<cwd>")
	for _, re := range []*regexp.Regexp{uuidRE, msgIDRE, reqIDRE} {
		line = re.ReplaceAllStringFunc(line, n.name)
	}
	return line
}

func (n *normalizer) name(s string) string {
	if v, ok := n.names[s]; ok {
		return v
	}
	prefix := "<id"
	switch {
	case strings.HasPrefix(s, "msg_"):
		prefix = "<msg"
	case strings.HasPrefix(s, "req_"):
		prefix = "<req"
	}
	v := fmt.Sprintf("%s%d>", prefix, len(n.names)+1)
	n.names[s] = v
	return v
}

// TestMergeChunks: a message's text cut into chunks one way or another
// compares equal; other lines, and chunks of other messages, stay apart.
func TestMergeChunks(t *testing.T) {
	t.Parallel()
	chunk := func(msg, text string) string {
		return `< {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"<session>","update":{"sessionUpdate":"agent_message_chunk","messageId":"` + msg + `","content":{"type":"text","text":"` + text + `"}}}}`
	}
	other := `< {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"<session>","update":{"sessionUpdate":"plan","entries":[]}}}`
	a := mergeChunks([]string{chunk("m1", "Done "), chunk("m1", "thinking."), other, chunk("m2", "x")})
	b := mergeChunks([]string{chunk("m1", "Done thinking."), other, chunk("m2", "x")})
	if strings.Join(a, "\n") != strings.Join(b, "\n") || len(a) != 3 {
		t.Errorf("merged differently:\n%s\n--\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
	if c := mergeChunks([]string{chunk("m1", "a"), chunk("m2", "b")}); len(c) != 2 {
		t.Errorf("chunks of two messages merged: %q", c)
	}
}
