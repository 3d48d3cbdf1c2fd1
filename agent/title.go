package agent

import (
	"strings"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
)

// Session titles. A live session gets session_info_update {title} without
// any model request of its own: a new session is titled after its first
// real prompt as soon as it is accepted (the rule Claude Code's session
// list uses for the first prompt: injected text and slash commands are
// skipped, one line, at most 200 characters), and whenever Claude Code
// renames the session (/rename, or a name set by the host) its
// system/session_title_changed gives the new name, which wins from then
// on. A reopened session (load, resume) has its title already: the
// load's replay sends it (replay.go), and its prompts do not retitle it.
// A fork is titled after its source, marked as a fork ("… (fork)"), until
// its own first real prompt titles it, as session/list titles it
// (transcript.forkTitle).

// titleState is what the client was told of the session's title, owned by
// the session goroutine.
type titleState struct {
	shown string // the title the client has ("" none yet)
	named bool   // Claude Code named the session: prompts no longer title it
	// fork: a fork without a prompt of its own yet, titled after its
	// source; its first real prompt titles it.
	fork bool
}

// fromPrompt is the title a new session (or a fork) gets from its first
// real prompt ("" when t does not title it: a reopened session, a slash
// command).
func (ts *titleState) fromPrompt(t *turn, reopened bool) string {
	if ts.named || (ts.shown != "" || reopened) && !ts.fork {
		return ""
	}
	blocks := make(transcript.Content, 0, len(t.msg.Content))
	for _, b := range t.msg.Content {
		if b.Type == "text" && strings.HasPrefix(strings.TrimSpace(b.Text), "/") {
			return "" // a slash command: the next real prompt titles the session
		}
		blocks = append(blocks, transcript.Block{Type: b.Type, Text: b.Text})
	}
	title := transcript.PromptTitle(&transcript.Record{Type: transcript.TypeUser,
		Message: &transcript.Message{Role: "user", Content: blocks}})
	if title != "" {
		ts.fork = false
	}
	return title
}

// titleFork titles a new fork after its source (the transcript at
// srcPath), marked as a fork, until its own first real prompt titles it.
func (s *session) titleFork(srcPath string) {
	row, ok := transcript.Describe(srcPath)
	s.do(func() {
		if s.title.shown != "" || s.title.named {
			return // the CLI named it already
		}
		s.title.fork = true
		if ok {
			s.a.sendTitle(s.id, &s.title, row.Title+" (fork)")
		}
	})
}

// renamed follows Claude Code's own name for the session (/rename, or a
// name set by the host), which wins from then on.
func (ts *titleState) renamed(b *claude.SessionTitleChanged) string {
	ts.named = true
	return transcript.SanitizeTitle(b.Title)
}

// sendTitle tells the client of session id a new title.
func (a *connection) sendTitle(id string, ts *titleState, title string) {
	if title == "" || title == ts.shown {
		return
	}
	ts.shown = title
	a.notify(id, acp.SessionUpdate{SessionInfoUpdate: &acp.SessionInfoUpdate{Title: acp.Some(title)}})
}

// replayTitle sends the title a load found in the transcript. It goes
// through the session, which then knows it: the resumed CLI reports a
// stored name again, and that is not sent twice.
func (a *connection) replayTitle(id, title string) {
	send := func() {
		a.notify(id, acp.SessionUpdate{SessionInfoUpdate: &acp.SessionInfoUpdate{Title: acp.Some(title)}})
	}
	if s := a.liveSession(id); s != nil && s.do(func() { s.title.shown = title; send() }) {
		return
	}
	send()
}
