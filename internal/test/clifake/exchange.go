package clifake

import (
	"encoding/json"
	"strings"

	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
)

// Recordings with the CLI's own requests: a turn the real CLI played with
// a control_request of its own (a subagent's can_use_tool, say) holds the
// request and, after it, the CLI's echo of the host's control_response,
// as the real CLI writes it on stdout. Playing the request, the fake waits
// for the agent's answer before it goes on (the real CLI's wait: the
// frames after it are what the CLI did with the recorded answer, so the
// test answers as the recording's agent did); it plays the echo as the
// agent's own answer. An interrupt meanwhile withdraws the request
// (control_cancel_request) and aborts the turn, as the CLI does.
//
// A recording may also name the CLI's directories: $CWD is the CLI's
// working directory, $CONFIG its config directory and $PROJECT its project
// directory.

// placeholders puts the CLI's directories in place of $CWD, $CONFIG and
// $PROJECT (its project directory under $CONFIG/projects, where its
// transcripts and saved tool results are).
func (c *CLI) placeholders(line string) string {
	line = strings.ReplaceAll(line, "$PROJECT", transcript.ProjectDir(c.config, c.dir))
	line = strings.ReplaceAll(line, "$CWD", c.dir)
	return strings.ReplaceAll(line, "$CONFIG", c.config)
}

// exchange writes one played frame: a control_request of the CLI waits for
// the agent's answer (kept in answers by request id), the echo of an
// answer plays the agent's; false when the turn was interrupted (or the
// CLI died) while it waited.
func (t *turnState) exchange(line string, answers map[string]json.RawMessage) bool {
	c := t.c
	var fr struct {
		Type      string `json:"type"`
		RequestID string `json:"request_id"`
		Response  struct {
			RequestID string `json:"request_id"`
		} `json:"response"`
		Request struct {
			ToolUseID string `json:"tool_use_id"`
		} `json:"request"`
	}
	if !strings.HasPrefix(line, `{"type":"control_`) || json.Unmarshal([]byte(line), &fr) != nil {
		c.sendLine(line)
		return true
	}
	switch fr.Type {
	case "control_request":
		ch := make(chan json.RawMessage, 1)
		c.mu.Lock()
		c.waiting[fr.RequestID] = ch
		c.mu.Unlock()
		c.sendLine(line)
		select {
		case r := <-ch:
			answers[fr.RequestID] = r
			return true
		case <-t.m.interrupt:
		case <-c.done:
		}
		c.mu.Lock()
		delete(c.waiting, fr.RequestID)
		c.mu.Unlock()
		c.send(map[string]any{"type": "control_cancel_request", "request_id": fr.RequestID})
		t.toolID = fr.Request.ToolUseID
		return false
	case "control_response":
		if r, ok := answers[fr.Response.RequestID]; ok {
			c.send(map[string]any{"type": "control_response", "response": r})
			return true
		}
	}
	c.sendLine(line)
	return true
}
