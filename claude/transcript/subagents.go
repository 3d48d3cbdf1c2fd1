package transcript

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Subagent is the transcript of one subagent (Agent/Task tool) of a session.
// Read it with Open like any transcript; its records are sidechain records.
type Subagent struct {
	AgentID string
	Path    string // .../<session id>/subagents/[…/]agent-<id>.jsonl
	// Meta is the agent-<id>.meta.json sidecar; nil when it is missing or
	// unreadable.
	Meta *AgentMeta
}

// AgentMeta is the sidecar the CLI writes next to a subagent transcript. It
// links the subagent to the tool_use in the parent session that launched it.
type AgentMeta struct {
	ToolUseID             string `json:"toolUseId,omitempty"`
	ParentAgentID         string `json:"parentAgentId,omitempty"` // for nested subagents
	Name                  string `json:"name,omitempty"`
	AgentType             string `json:"agentType,omitempty"`
	Description           string `json:"description,omitempty"`
	RequestShape          string `json:"requestShape,omitempty"` // "background" for background agents
	StoppedByUser         bool   `json:"stoppedByUser,omitempty"`
	Cwd                   string `json:"cwd,omitempty"`
	WorktreePath          string `json:"worktreePath,omitempty"`
	InheritedWorktreePath string `json:"inheritedWorktreePath,omitempty"`
}

// SubagentsDir returns the directory that holds the subagent transcripts of
// the session whose transcript is at sessionPath: the sibling directory
// named after the session, then "subagents".
func SubagentsDir(sessionPath string) string {
	return filepath.Join(strings.TrimSuffix(sessionPath, ".jsonl"), "subagents")
}

// Subagents lists the subagent transcripts of the session whose transcript
// is at sessionPath, in path order. They may sit directly in the subagents
// directory or below it (workflow runs nest them). A session without
// subagents yields nil and no error.
func Subagents(sessionPath string) ([]Subagent, error) {
	root := SubagentsDir(sessionPath)
	var out []Subagent
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		id, ok := strings.CutPrefix(d.Name(), "agent-")
		if !ok {
			return nil
		}
		if id, ok = strings.CutSuffix(id, ".jsonl"); !ok || id == "" {
			return nil
		}
		out = append(out, Subagent{AgentID: id, Path: p, Meta: readAgentMeta(p)})
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("transcript: listing subagents: %w", err)
	}
	return out, nil
}

// maxMetaSize bounds the sidecar read; real ones are a few hundred bytes.
const maxMetaSize = 1 << 20

func readAgentMeta(transcriptPath string) *AgentMeta {
	p := strings.TrimSuffix(transcriptPath, ".jsonl") + ".meta.json"
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxMetaSize {
		return nil
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	var m AgentMeta
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return &m
}
