package agent

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/claude-agent-acp/claude-agent-acp/claude"
	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
)

// A turn that could not be saved says so (issue 35). When the disk that
// holds Claude Code's config directory fills up, or the directory is
// read-only, the CLI goes on answering and ends the turn as usual, but its
// transcript does not get the turn's records, and after a reload the
// answer and everything after it are gone; the CLI says so only on its
// stderr as it exits, if at all. So at the end of every turn the session
// checks that the transcript holds the turn's last assistant record (the
// CLI writes it before the result; the frame's uuid is the record's), by
// reading the end of the file. When it does not, and the directory cannot
// be written (read-only: EROFS, EACCES) or the disk is full (less than
// fullBelow free), the user is told at that turn, before its answer: a
// typed warning (AIR clients), a notice (clients that take notices), or a
// line of agent text (the others). Once per episode: not again until a turn
// is saved again. A record missing for no reason the agent can see (a CLI
// that does not persist) is not reported.
//
// session/list and session/load read the transcript, so they report what
// is really stored: the turns written before the failure, not the ones
// the user saw afterwards.

// storedTail is how much of the transcript's end is searched for the
// turn's last record; records written after it (the turn's closing
// bookkeeping, a prompt snapshot) rarely take more.
const storedTail = 1 << 20

// storedState is what the check remembers, owned by the session goroutine.
type storedState struct {
	expect string // uuid of the turn's last top-level assistant frame
	path   string // the transcript, once found
	warned string // the condition the user was told of ("" once a turn is saved)
}

// noteStored remembers the turn's last top-level assistant record.
func (st *storedState) note(a *claude.AssistantMessage) {
	if a.ParentToolUseID == "" && a.UUID != "" {
		// A copy: the frame's line may be large, and is not kept.
		st.expect = strings.Clone(a.UUID)
	}
}

// fullBelow is the free space under which a disk counts as full.
const fullBelow = 1 << 20

// checkStored runs as a turn's result arrives, before the turn is
// answered.
func (s *session) checkStored() {
	st := &s.stored
	expect := st.expect
	st.expect = ""
	if expect == "" || s.q.current == nil {
		return
	}
	configDir := s.a.configDir()
	if st.path == "" {
		st.path = filepath.Join(transcript.ProjectDir(configDir, s.tr.Cwd()), s.id+".jsonl")
		if _, err := os.Stat(st.path); err != nil {
			if p, err := transcript.Find(configDir, s.id); err == nil {
				st.path = p
			}
		}
	}
	if holdsRecord(st.path, expect) {
		st.warned = ""
		return
	}
	why := storageProblem(filepath.Dir(st.path), configDir)
	if why == "" || why == st.warned {
		return
	}
	st.warned = why
	s.log.Warn("the turn was not saved", "why", why)
	title, details := notSavedText(why)
	s.adv.NotSaved(s.q.current.id(), why, title, details)
}

// holdsRecord reports whether the end of the transcript at path has the
// record with uuid.
func holdsRecord(path, uuid string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	needle := []byte(`"uuid":"` + uuid + `"`)
	for _, n := range []int64{64 << 10, storedTail} { // the last record is nearly always in the first
		n = min(n, fi.Size())
		buf := make([]byte, n)
		if _, err := f.ReadAt(buf, fi.Size()-n); err != nil && !errors.Is(err, io.EOF) {
			return false
		}
		if bytes.Contains(buf, needle) {
			return true
		}
		if n == fi.Size() {
			return false
		}
	}
	return false
}

// The conditions checkStored reports.
const (
	storageReadOnly = "read-only"
	storageFull     = "full"
)

// storageProblem says why dir (or, when it does not exist, its nearest
// ancestor within configDir) cannot take the transcript: "read-only",
// "full", or "" when nothing is wrong that the agent can see.
func storageProblem(dir, configDir string) string {
	for {
		if _, err := os.Stat(dir); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir || !strings.HasPrefix(dir, configDir) {
			return ""
		}
		dir = parent
	}
	if err := writable(dir); errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM) {
		return storageReadOnly
	}
	if free, ok := freeSpace(dir); ok && free < fullBelow {
		return storageFull
	}
	return ""
}

// notSavedText says why the conversation is not being saved and what to do.
func notSavedText(why string) (title, details string) {
	if why == storageReadOnly {
		return "This conversation is not being saved: Claude Code's config directory is read-only.",
			"Claude goes on answering, but this turn and the ones after it will be missing when the conversation is reopened. Make the directory writable (or set CLAUDE_CONFIG_DIR to one that is) to save new turns."
	}
	return "This conversation is not being saved: the disk is full.",
		"Claude Code could not write this turn to its transcript, and it will be missing when the conversation is reopened. Free up space on the disk that holds Claude Code's config directory to save new turns."
}
