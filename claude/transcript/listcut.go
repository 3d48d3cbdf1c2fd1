package transcript

import (
	"bytes"
	"encoding/json"
	"io"
)

// A session whose first prompt is longer than List's head read (64 KiB)
// has its first user record cut: the head holds the record's beginning,
// with the start of the prompt, and the record's end, where the CLI writes
// the cwd, lies beyond it. Such a session was left out of List without a
// cwd filter, since its row had no cwd. The functions here find what the
// cut record would have given without reading it whole: the cwd from the
// last record that has one (every user, assistant and attachment record
// ends with it), looking back from the end of the file, and the title
// from the prompt's first characters in the head.

// cwdKey is how a record's cwd member starts; inside a string it would
// be escaped (\"cwd\":\"), so a match is a member.
var cwdKey = []byte(`"cwd":"`)

// maxCwdBytes bounds the length of a cwd as written (a path, escaped).
const maxCwdBytes = 16 << 10

// lastCwd returns the value of the last complete cwd member in b, or "".
// The top-level cwd of a record comes after its message, so the last one
// in a record is its own, not one nested in a tool's input.
func lastCwd(b []byte) string {
	for end := len(b); ; {
		i := bytes.LastIndex(b[:end], cwdKey)
		if i < 0 {
			return ""
		}
		if s, ok := jsonStringAt(b[i+len(cwdKey)-1:]); ok && s != "" {
			return s
		}
		end = i
	}
}

// jsonStringAt decodes the JSON string b starts with (at its opening
// quote); false if it does not end within b.
func jsonStringAt(b []byte) (string, bool) {
	for j := 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			var s string
			if json.Unmarshal(b[:j+1], &s) != nil {
				return "", false
			}
			return s, true
		}
	}
	return "", false
}

// cwdBefore looks for the last cwd in the file's bytes between from and
// end, reading back from end a window at a time (overlapping, so that a
// member across two windows is found whole). It reads no more than it
// must: the first window that has one ends the search.
func cwdBefore(r io.ReaderAt, from, end int64) string {
	const window = 64 << 10
	buf := make([]byte, window+maxCwdBytes)
	for end > from {
		start := max(from, end-window)
		stop := min(end+maxCwdBytes, start+int64(len(buf))) // the overlap with the window read before
		n, err := r.ReadAt(buf[:stop-start], start)
		if n == 0 && err != nil {
			return ""
		}
		if cwd := lastCwd(buf[:n]); cwd != "" {
			return cwd
		}
		end = start
	}
	return ""
}

// cutPrompt is the first prompt of a user record cut by the head read (the
// head's last, unfinished line): the beginning of its first text, as the
// record would have titled the session. "" when the piece is not a user's
// prompt, or holds none.
func cutPrompt(piece []byte) string {
	msg := bytes.Index(piece, []byte(`"message":`))
	if msg < 0 || !bytes.Contains(piece[:msg], []byte(`"type":"user"`)) {
		return ""
	}
	for _, flag := range []string{`"isMeta":true`, `"isSidechain":true`, `"isCompactSummary":true`} {
		if bytes.Contains(piece[:msg], []byte(flag)) {
			return ""
		}
	}
	rest := piece[msg:]
	at := -1
	for _, key := range []string{`"text":"`, `"content":"`} {
		if i := bytes.Index(rest, []byte(key)); i >= 0 && (at < 0 || i < at) {
			at = i + len(key) - 1
		}
	}
	if at < 0 {
		return ""
	}
	text, ok := jsonStringPrefix(rest[at:])
	if !ok {
		return ""
	}
	p, _ := firstPrompt(&Record{Type: TypeUser, Message: &Message{Role: "user", Content: Content{{Type: "text", Text: text}}}})
	return p
}

// jsonStringPrefix decodes the JSON string b starts with, or as much of it
// as b holds when it is cut (a partial escape at the end is dropped).
func jsonStringPrefix(b []byte) (string, bool) {
	if s, ok := jsonStringAt(b); ok {
		return s, true
	}
	body := b[1:]
	// Drop an escape the cut split: a lone backslash, or \u with fewer
	// than four digits.
	if i := bytes.LastIndexByte(body, '\\'); i >= 0 && len(body)-i < 6 {
		n := 0
		for k := i; k >= 0 && body[k] == '\\'; k-- {
			n++
		}
		if n%2 == 1 {
			body = body[:i]
		}
	}
	var s string
	if json.Unmarshal(append(append([]byte{'"'}, body...), '"'), &s) != nil {
		return "", false
	}
	return s, true
}
