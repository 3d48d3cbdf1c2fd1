package agent

import (
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// Advisories for the user that are not part of the conversation: Claude
// Code's system/informational frames (a permission rule that was not saved,
// a hook that gave no verdict, a refused plugin), the model fallback and
// fast mode turning off (failure_live.go). Clients that declared
// clientCapabilities.session.notices get them as ACP `notice` updates;
// the others get agent text, as the reference adapter wrote it. When the
// AIR session-failure extension is negotiated, its typed records carry the
// advisories it defines (failure.go) and notices carry only the rest.

// noticeTitleMax is the longest title a notice carries; longer text goes
// into the description under a generic title, so that a title stays a
// line a client can show on its own.
const noticeTitleMax = 256

// An advisor tells the user about what is not Claude's answer, in the form
// the client negotiated: a typed session-failure warning (AIR), an ACP
// notice, or a line of agent text. It is owned by the session goroutine.
type advisor struct {
	sessionID string
	notices   bool          // the client declared session.notices
	fail      *failureState // the session's typed failures, for AIR clients
	sink      func(sessionID string, u acp.SessionUpdate)
}

func newAdvisor(a *connection, id string, fail *failureState) advisor {
	a.mu.Lock()
	c := a.client.raw.Session
	a.mu.Unlock()
	return advisor{sessionID: id, notices: c != nil && c.Notices != nil, fail: fail, sink: a.notify}
}

// sendNotice sends a notice; a title too long to stand alone moves, with
// the description after it, into the description under generic.
func (v *advisor) sendNotice(sev acp.NoticeSeverity, title, description, generic string) {
	title, description = strings.TrimSpace(title), strings.TrimSpace(description)
	if title == "" || utf8.RuneCountInString(title) > noticeTitleMax {
		description = strings.TrimSpace(title + "\n\n" + description)
		title = generic
	}
	n := &acp.Notice{Severity: sev, Title: title}
	if description != "" {
		n.Description = acp.Some(description)
	}
	v.sink(v.sessionID, acp.SessionUpdate{Notice: n})
}

// onInformational shows one of Claude Code's notices. With notices, level
// "info" is dropped (it is chatter a notice area need not show); without
// them every level is agent text, bold-labelled unless it is "info", and
// marked _meta.claudeCode.kind "informational" so that a client can tell
// it from Claude's answer.
//
// With the AIR extension, notices of every other level (the refusal-retry
// "safeguards stopped the response above · continuing once with that
// noted", rules not saved, hooks without a verdict) are typed warnings in
// the notice namespace, never assistant prose.
func (v *advisor) onInformational(current *turn, b *claude.Informational) {
	text := strings.TrimSpace(b.Content)
	if text == "" {
		return
	}
	level := strings.ToLower(firstNonEmpty(b.Level, "info"))
	r, n := utf8.DecodeRuneInString(level)
	label := string(unicode.ToUpper(r)) + level[n:]
	if v.fail.failuresOn() && level != "info" {
		title, details := failureText(text)
		v.publishNotice(current, "informational:"+text, title, details)
		return
	}
	if v.notices {
		sev := acp.NoticeSeverityInfo
		switch level {
		case "info":
			return
		case "warning":
			sev = acp.NoticeSeverityWarning
		case "error":
			sev = acp.NoticeSeverityError
		}
		v.sendNotice(sev, text, "", label)
		return
	}
	if level != "info" {
		text = "**" + label + ":** " + text
	}
	meta := mustJSON(map[string]any{"kind": "informational", "level": level})
	v.sink(v.sessionID, acp.SessionUpdate{AgentMessageChunk: &acp.ContentChunk{
		Content: acp.ContentBlock{Text: &acp.TextContent{Text: text}},
		Meta:    map[string]json.RawMessage{"claudeCode": meta},
	}})
}
