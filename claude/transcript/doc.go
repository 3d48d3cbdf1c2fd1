// Package transcript reads the session transcripts that the Claude Code CLI
// writes to disk, so that the agent can list, replay and delete sessions
// without asking the CLI.
//
// A transcript is a JSON Lines file at
// <config>/projects/<munged cwd>/<session id>.jsonl (see [ProjectDir]). Each
// message line carries a uuid and a parentUuid; rewinds and edits make the
// conversation a tree, and only the active branch is the conversation the CLI
// resumes. [Open] finds that branch in two passes so that memory does not grow
// with the size of the messages: the first pass streams the file and keeps
// about 64 bytes per message line (interned uuids, parent link, byte offset
// and length), the second reads back only the lines of the active branch, one
// at a time, in conversation order.
//
// Lines that are not valid JSON, and a last line cut short by a crash, are
// skipped and counted in [Stats]; they never make a load fail.
//
// The package knows nothing about ACP or about the running CLI: it only reads
// (and, for [Delete], removes) files.
package transcript
