package transcript

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf16"
)

// ErrNotFound reports that no transcript exists for a session id.
var ErrNotFound = errors.New("transcript: session not found")

// ErrInvalidID reports a session id that is not a UUID. Ids are checked
// before they are used in a file name so that no id can name a file outside
// the projects directory.
var ErrInvalidID = errors.New("transcript: session id is not a UUID")

// maxMungedLen is the longest project directory name the CLI writes before it
// truncates the name and adds a hash suffix.
const maxMungedLen = 200

// ConfigDir returns the directory in which the CLI keeps its state:
// $CLAUDE_CONFIG_DIR when set, else $HOME/.claude. It returns "" when neither
// can be determined.
func ConfigDir() string {
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".claude")
}

// ProjectsDir returns the directory that holds one sub-directory per project.
func ProjectsDir(configDir string) string {
	return filepath.Join(configDir, "projects")
}

// ProjectDir returns the directory in which the CLI stores the transcripts of
// sessions started in cwd. cwd should be the absolute path the CLI runs in.
func ProjectDir(configDir, cwd string) string {
	return filepath.Join(ProjectsDir(configDir), MungePath(cwd))
}

// MungePath turns a path into the project directory name the CLI uses, so
// that Go finds the files the CLI wrote. It mirrors the CLI's JavaScript
// exactly: every UTF-16 code unit that is not an ASCII letter or digit becomes
// "-" (so a character outside the BMP becomes "--"), and a result longer than
// 200 characters is cut to 200 and suffixed with "-" and the base-36 absolute
// value of the Java-style 32-bit hash of the path. The mapping is lossy; never
// try to decode it.
func MungePath(p string) string {
	units := utf16.Encode([]rune(p))
	b := make([]byte, len(units))
	for i, u := range units {
		if u < 0x80 && isAlnum(byte(u)) {
			b[i] = byte(u)
		} else {
			b[i] = '-'
		}
	}
	if len(b) <= maxMungedLen {
		return string(b)
	}
	h := int64(javaHash(units))
	if h < 0 {
		h = -h // Math.abs in JavaScript works on a float64: no overflow at MinInt32.
	}
	return string(b[:maxMungedLen]) + "-" + strconv.FormatInt(h, 36)
}

// javaHash is the CLI's h = (h<<5) - h + c | 0 over UTF-16 code units; Go's
// int32 arithmetic wraps the same way.
func javaHash(units []uint16) int32 {
	var h int32
	for _, u := range units {
		h = h*31 + int32(u)
	}
	return h
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// FindProjectDir returns the existing project directory for cwd, or "" if
// there is none. Beyond the exact name it tries the path with symlinks
// resolved (the CLI sees the real path) and, for names over 200 characters,
// any directory with the same 200-character prefix: builds of the CLI have
// used different hash functions for the suffix.
func FindProjectDir(configDir, cwd string) string {
	candidates := []string{filepath.Clean(cwd)}
	if real, err := filepath.EvalSymlinks(cwd); err == nil && real != candidates[0] {
		candidates = append(candidates, real)
	}
	for _, c := range candidates {
		if dir := ProjectDir(configDir, c); isDir(dir) {
			return dir
		}
	}
	for _, c := range candidates {
		name := MungePath(c)
		if len(name) <= maxMungedLen {
			continue
		}
		prefix := name[:maxMungedLen] + "-"
		entries, err := os.ReadDir(ProjectsDir(configDir))
		if err != nil {
			return ""
		}
		for _, e := range entries {
			if e.IsDir() && strings.HasPrefix(e.Name(), prefix) {
				return filepath.Join(ProjectsDir(configDir), e.Name())
			}
		}
	}
	return ""
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// ValidSessionID reports whether id has the form of a UUID
// (8-4-4-4-12 hexadecimal digits, either case), the only form the CLI uses.
func ValidSessionID(id string) bool {
	if len(id) != 36 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !isHex(c) {
				return false
			}
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// Find returns the path of the transcript of sessionID. It looks in every
// project directory, because a session may be resumed from another working
// directory or worktree than the one it started in; when several directories
// hold a copy, the most recently modified wins. It returns ErrInvalidID for an
// id that is not a UUID and ErrNotFound when no transcript exists.
func Find(configDir, sessionID string) (string, error) {
	paths, err := findAll(configDir, sessionID)
	if err != nil {
		return "", err
	}
	best, bestTime := "", int64(0)
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		if t := fi.ModTime().UnixNano(); best == "" || t > bestTime {
			best, bestTime = p, t
		}
	}
	if best == "" {
		return "", fmt.Errorf("%w: %s", ErrNotFound, sessionID)
	}
	return best, nil
}

// findAll returns every regular file named <sessionID>.jsonl directly inside
// a project directory.
func findAll(configDir, sessionID string) ([]string, error) {
	if !ValidSessionID(sessionID) {
		return nil, fmt.Errorf("%w: %q", ErrInvalidID, sessionID)
	}
	root := ProjectsDir(configDir)
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("transcript: reading projects directory: %w", err)
	}
	var out []string
	name := sessionID + ".jsonl"
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		p := filepath.Join(root, e.Name(), name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			out = append(out, p)
		}
	}
	return out, nil
}
