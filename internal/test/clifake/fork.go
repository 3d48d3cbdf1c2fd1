package clifake

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
)

// Forks, as the real CLI makes them (claude-cli-protocol.md §8.3; seen on
// 2.1.332): started with --resume <source> --fork-session (and
// --session-id <new>, else a new id of its own), the CLI runs under the
// new id with the source's conversation as its history, and writes
// nothing until the fork's first prompt. Then the new transcript begins
// with a copy of the source's records: the same uuids, parents and
// timestamps, sessionId the fork's, and each copied assistant record
// naming the session that made its request, the source, as
// requestSessionId (the fork's own records do not); the fork's own records
// follow, the first parented on the source's last. The source's
// transcript is left as it was.

// fork sets the CLI up as a fork of the session it resumes when the
// command line asks for one (--fork-session with --resume resumeID).
func (c *CLI) fork(args []string, resumeID, sessionID string) {
	if !c.resume || !slices.Contains(args, "--fork-session") {
		return
	}
	c.forkOf, c.session = resumeID, sessionID
	if c.session == "" {
		c.session = fmt.Sprintf("%08x-f0f0-4000-8000-%012x", c.w.records.Add(1), c.w.records.Add(1))
	}
}

// copySource writes the fork's copy of its source's records to path (the
// fork's transcript), once, before the fork's first own record.
func (c *CLI) copySource(path string) {
	if c.forkOf == "" || c.copied {
		return
	}
	c.copied = true
	data, err := os.ReadFile(c.pathOf(c.forkOf))
	if err != nil {
		return
	}
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var rec map[string]any
		if json.Unmarshal(sc.Bytes(), &rec) != nil || rec["uuid"] == nil {
			continue // not a record of the conversation
		}
		rec["sessionId"] = c.session
		if rec["type"] == "assistant" && rec["requestSessionId"] == nil {
			rec["requestSessionId"] = c.forkOf
		}
		b, _ := json.Marshal(rec)
		out.Write(append(b, '\n'))
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err == nil {
		_, _ = f.Write(out.Bytes())
		_ = f.Close()
	}
}
