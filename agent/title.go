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
// on. A reopened session (load, resume, fork) has its title already: the
// load's replay sends it (replay.go), and its prompts do not retitle it.

// titleState is what the client was told of the session's title, owned by
// the session goroutine.
type titleState struct {
	shown string // the title the client has ("" none yet)
	named bool   // Claude Code named the session: prompts no longer title it
}

// titleFromPrompt titles a new session after its first real prompt.
func (s *session) titleFromPrompt(t *turn) {
	if s.title.shown != "" || s.title.named || s.conf.opts.Resume != "" {
		return
	}
	blocks := make(transcript.Content, 0, len(t.msg.Content))
	for _, b := range t.msg.Content {
		if b.Type == "text" && strings.HasPrefix(strings.TrimSpace(b.Text), "/") {
			return // a slash command: the next real prompt titles the session
		}
		blocks = append(blocks, transcript.Block{Type: b.Type, Text: b.Text})
	}
	title := transcript.PromptTitle(&transcript.Record{Type: transcript.TypeUser,
		Message: &transcript.Message{Role: "user", Content: blocks}})
	s.sendTitle(title)
}

// onTitleChanged follows Claude Code's own name for the session.
func (s *session) onTitleChanged(b *claude.SessionTitleChanged) {
	s.title.named = true
	s.sendTitle(transcript.SanitizeTitle(b.Title))
}

// sendTitle tells the client a new title.
func (s *session) sendTitle(title string) {
	if title == "" || title == s.title.shown {
		return
	}
	s.title.shown = title
	s.a.notify(s.id, acp.SessionUpdate{SessionInfoUpdate: &acp.SessionInfoUpdate{Title: acp.Some(title)}})
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
