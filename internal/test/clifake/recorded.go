package clifake

import (
	"embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Recorded turns: what the real CLI wrote on stdout for one turn, copied
// from its output (recorded/*.jsonl), for the conditions a fake model
// cannot produce in the fake CLI's own frames: API errors (the synthetic
// assistant message and the error result), refusals, max_tokens, retries,
// model fallbacks and notices. A test plays one with Reply.Frames, so
// that the agent reads exactly the frames the real CLI sends, in a test
// that no longer starts the real CLI.
//
// Each file holds the frames of one turn after its system/init, up to and
// including the turn's final command_lifecycle, as the real CLI (2.1.332,
// against internal/test/fakeapi) wrote them; left out are the frames the
// fake writes itself (session_state_changed, command_lifecycle started,
// the replayed user message, init) and the answers to the agent's control
// requests. The real session id is $SESSION and the turn's user message
// uuid is $MESSAGE; playing the file puts the fake's in their place, and
// gives every other uuid a fresh value (the same within one playing), so
// that a recording played twice is two occurrences. Each file's comment
// in recordedFiles says what the real CLI was asked.

//go:embed recorded/*.jsonl
var recordedFS embed.FS

// recordedWith is the CLI version the recordings were made with. When the
// pinned CLI (scripts/install-deps.sh) changes, TestRecordingsMatchThePin
// fails until they are made again with the new one: the real-CLI tests
// that prove the same output (see the failure tests) show what changed.
const recordedWith = "2.1.332"

// recordedFiles documents the recordings: the fake API script and the
// CLI's environment each was made with (the sandbox's hermetic defaults
// otherwise: CLAUDE_CODE_MAX_RETRIES=0, refusal retry and fallback off).
var recordedFiles = map[string]string{
	"rate_limit_429":           "HTTP 429 rate_limit_error \"slow down please\", no retries",
	"auth_401":                 "HTTP 401 authentication_error \"invalid x-api-key\"",
	"refusal":                  "a refusal (cyber, \"Looks like malware.\")",
	"max_output_tokens":        "stop_reason max_tokens on every response (text \"truncated\")",
	"bad_request_links":        "HTTP 400 invalid_request_error whose message carries claude.ai and docs.claude.com links",
	"connection_refused":       "ANTHROPIC_BASE_URL=http://127.0.0.1:1, CLAUDE_CODE_MAX_RETRIES=0",
	"connection_refused_retry": "ANTHROPIC_BASE_URL=http://127.0.0.1:1, CLAUDE_CODE_MAX_RETRIES=1",
	"refusal_fallback":         "a refusal then \"Safe answer.\", refusal fallback on (CLAUDE_CODE_DISABLE_REFUSAL_FALLBACK unset)",
	"model_fallback":           "--model claude-opus-4-5 --fallback-model claude-sonnet-4-5, 529 overloaded on opus, then \"From the fallback.\", CLAUDE_CODE_MAX_RETRIES=3",
	"refusal_retry_notice":     "a refusal then \"Safe answer.\", refusal retry on (CLAUDE_CODE_DISABLE_REFUSAL_RETRY unset)",
	"api_500_secrets":          "HTTP 500 api_error whose message is leakyText, \"\\n\\n\", \"More context. \" 30 times and leakyText again (agent/secrets_e2e_test.go: secrets and credentials of every shape), to TestNoSecretReachesTheClient's agent (secretEnv, a typed-failure client)",
	// (The CLI's can_use_tool request, and the session_state_changed
	// requires_action before it, are left out too: nobody answers it.)
	"informational_rule_not_saved": "a Bash tool_use (touch a.txt, toolu_t1) then \"Done.\", allowed always in a git repository that tracks .claude/settings.local.json: the CLI's system/informational warning that it did not save the rule",
	// Recordings with the CLI's own control requests (exchange.go), made
	// by the real-CLI test named, whose client's capabilities set what the
	// CLI writes (forwardSubagentText, perTaskStopAffordance in initialize):
	// a test that plays one has a client like it and answers the CLI's
	// requests as it did.
	"subagent_flat":     "subagentScript (TestSubagentForegroundToolCall, a client without subagent capabilities): the foreground Agent toolu_agent1 \"Survey the files\"; the subagent says \"Looking around.\" and calls Bash toolu_sub_touch (touch $CWD/marker.txt; can_use_tool answered allow), then \"Marker made.\"; the main loop says \"The subagent made the marker.\"",
	"subagent_sessions": "subagentScript as subagent_flat, for a sessions client (TestSubagentSessionForeground; forwardSubagentText and perTaskStopAffordance)",
	"bash_exit_3":       "Bash toolu_sh \"echo out; echo err >&2; exit 3\" (can_use_tool answered allow), then \"It failed.\" (TestBashOutput, a console client)",
	// Recordings with the history of a command's task output file
	// (taskfile.go), watched every 5 ms as the real CLI ran it:
	"bash_live_short":   "Bash toolu_live \"for i in 1 2 3 4; do echo line$i; sleep 0.4; done\" (can_use_tool answered allow), then \"Done.\" (TestShortCommandLiveOutput's script, a console client): the task file bde0k4fm7.output growing a line at a time, no task_started (the command ends within 2 s)",
	"bash_live_gate":    "Bash toolu_live \"echo first; for i in $(seq 1 600); do [ -e '$CWD/go-on' ] && break; sleep 0.1; done; echo second\" (can_use_tool answered allow), then \"Done.\" (TestForegroundLiveOutput's script, a console client that made go-on once it was shown \"first\"): the task file b1eoa2l5l.output with \"first\", the command's wait for go-on, then \"second\"; the command ended within 2 s (no task_started)",
	"bash_big_output":   "Bash toolu_big \"yes abcdefghi | head -c 300000\" (can_use_tool answered allow), then \"Done.\" (TestBigOutputSaysItWasCut's script, a console client): the result with persistedOutputPath $PROJECT/$SESSION/tool-results/brs4yl1i6.txt and persistedOutputSize 300000; the task file lines are from a watch of the same run's command in another run (the task file was there empty, then all 300,000 bytes 0.2 s later, then gone and the tool-results file had them; in three more runs it lived too short to be seen)",
	"subagent_thinking": "TestSubagentTextAfterThinking's script for a sessions client: the foreground Agent toolu_agent1 \"Think it over\"; the subagent thinks \"Weighing the options.\" and says \"The report after thinking.\"; the main loop says \"Done.\"",
}

// Recorded returns the frames of the named recording (recorded/<name>.jsonl),
// one a line, for Reply.Frames. It panics on an unknown name.
func Recorded(name string) []string {
	if _, ok := recordedFiles[name]; !ok {
		panic("clifake: no recording " + name)
	}
	data, err := recordedFS.ReadFile("recorded/" + name + ".jsonl")
	if err != nil {
		panic(err)
	}
	return strings.Split(strings.TrimRight(string(data), "\n"), "\n")
}

var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// play writes a reply's recorded frames as the turn's output, Every
// apart after its Delay, and ends the turn as they do (their result and
// command_lifecycle); an interrupt meanwhile aborts the turn as usual.
func (t *turnState) play(r Reply) {
	c := t.c
	fresh := map[string]string{}
	answers := map[string]json.RawMessage{} // the agent's answers to the played requests
	if !t.wait(r.Delay) {
		t.aborted()
		return
	}
	for i, line := range r.Frames {
		if i > 0 && !t.wait(r.Every) {
			t.aborted()
			return
		}
		if strings.HasPrefix(line, taskOutputPrefix) { // taskfile.go
			if !t.taskOutput(line) {
				t.aborted()
				return
			}
			continue
		}
		line = uuidRE.ReplaceAllStringFunc(line, func(u string) string {
			if fresh[u] == "" {
				fresh[u] = fmt.Sprintf("%08x-0000-4000-9000-%012x", c.n, c.w.records.Add(1))
			}
			return fresh[u]
		})
		line = strings.ReplaceAll(line, "$SESSION", c.session)
		line = strings.ReplaceAll(line, "$MESSAGE", t.m.uuid)
		line = c.placeholders(line) // exchange.go
		c.recordPlayed(line)
		if !t.exchange(line, answers) { // exchange.go: the CLI's own requests
			t.aborted()
			return
		}
	}
	c.idleIfDone()
}

// sendLine writes one frame as it is; nothing once the CLI has exited.
func (c *CLI) sendLine(line string) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.dead() {
		return
	}
	_, _ = c.outW.Write([]byte(line + "\n"))
}

// recordPlayed keeps a played frame's tool call or tool result in a
// RichTranscript, as the real CLI's transcript has them: the assistant's
// tool_use, the user's tool_result with the frame's tool_use_result as
// its toolUseResult.
func (c *CLI) recordPlayed(line string) {
	if !c.w.RichTranscript {
		return
	}
	var fr struct {
		Type    string `json:"type"`
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
		ToolUseResult json.RawMessage `json:"tool_use_result"`
		Parent        *string         `json:"parent_tool_use_id"`
	}
	if json.Unmarshal([]byte(line), &fr) != nil || fr.Parent != nil || fr.Type != "assistant" && fr.Type != "user" {
		return
	}
	var blocks []map[string]any
	if json.Unmarshal(fr.Message.Content, &blocks) != nil || len(blocks) == 0 {
		return
	}
	switch b := blocks[0]["type"]; {
	case fr.Type == "assistant" && b == "tool_use":
		c.recordRich("assistant", "", blocks, nil)
	case fr.Type == "user" && b == "tool_result":
		var extra map[string]any
		if len(fr.ToolUseResult) > 0 {
			extra = map[string]any{"toolUseResult": fr.ToolUseResult}
		}
		c.recordRich("user", "", blocks, extra)
	}
}
