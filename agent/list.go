package agent

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
)

// listSessions is session/list: the stored sessions, newest first, from the
// transcripts the CLI wrote (all projects, or those of one cwd), in pages
// of transcript.DefaultPageSize. Only the head and tail of each transcript
// are read, so listing costs the same however long the sessions are.
func (a *connection) listSessions(ctx context.Context, p *acp.ListSessionsRequest) (*acp.ListSessionsResponse, error) {
	var f transcript.Filter
	if cwd, ok := p.Cwd.Get(); ok && cwd != "" {
		if !filepath.IsAbs(cwd) {
			return nil, acp.NewInvalidParams("cwd", "must be an absolute path")
		}
		f.Cwd = cwd
	}
	f.Cursor, _ = p.Cursor.Get()
	acp.Async(ctx) // a listing touches many files; other messages go on
	page, err := transcript.List(a.configDir(), f)
	switch {
	case errors.Is(err, transcript.ErrInvalidCursor):
		return nil, acp.NewInvalidParams("cursor", "is not a cursor this agent made")
	case err != nil:
		a.log.Warn("session/list failed", "error", err)
		return nil, acp.NewInternalError("the stored sessions could not be listed")
	}
	resp := &acp.ListSessionsResponse{Sessions: make([]acp.SessionInfo, 0, len(page.Sessions))}
	for _, si := range page.Sessions {
		info := acp.SessionInfo{SessionID: acp.SessionID(si.SessionID), Cwd: si.Cwd}
		if si.Title != "" {
			info.Title = acp.Some(si.Title)
		}
		if !si.UpdatedAt.IsZero() {
			info.UpdatedAt = acp.Some(si.UpdatedAt.UTC().Format("2006-01-02T15:04:05.000Z"))
		}
		resp.Sessions = append(resp.Sessions, info)
	}
	if page.NextCursor != "" {
		resp.NextCursor = acp.Some(page.NextCursor)
	}
	return resp, nil
}
