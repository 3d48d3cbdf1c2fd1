// Package transcript reads the session transcripts that the Claude Code CLI
// writes to disk, so that the agent can list, replay and delete sessions
// without asking the CLI.
//
// A transcript is a JSON Lines file at
// <config>/projects/<munged cwd>/<session id>.jsonl (see [ProjectDir] and
// [Find]). Each message line (user, assistant, system, attachment, progress)
// carries a uuid and a parentUuid; rewinds and edits make the conversation a
// tree, and only the active branch is the conversation the CLI resumes.
//
// # Reading
//
// [Open] finds the active branch in two passes so that memory does not grow
// with the size of the messages. The first pass streams the file through a
// scanner that looks only at top-level keys, and keeps 24 bytes per message
// line (interned uuid, parent link, byte offset and length) plus a map entry;
// after it only the branch is kept, 16 bytes per record. The second pass,
// [Reader.Records], reads back and decodes the lines of the branch one at a
// time, root first.
//
// The branch ends at the leaf the SDK's getSessionMessages picks: the newest
// user or assistant message that ends a path of the tree and is not a
// sidechain, team or meta message. The CLI also records a leaf in each
// last-prompt line; when the newest such line comes after that message and
// names another one, the user rewound after the last message was written,
// and its leaf wins (this is how the CLI resumes too).
//
// Parallel tool calls leave lines off the branch: Claude Code writes one
// line per tool_use and each result under its own call, and continues from
// the result written last. As the CLI does when it resumes, the reader puts
// the branch message's other lines and their results back after its last
// line on the branch (parallel.go), so every call has its result.
//
// Lines that are not valid JSON objects, and a last line cut short by a crash,
// are skipped and counted in [Stats]; they never make a load fail. As in the
// CLI, a message whose parent line is lost starts the branch.
//
// # Listing, subagents, deleting
//
// [List] reads only the head and tail of each transcript, [Subagents] finds
// the per-session subagent transcripts (read them with [Open] too), and
// [Delete] removes a session's files, which the adapter does itself since
// the CLI has no command for it. Forking is left to the CLI (--fork-session).
//
// The package knows nothing about ACP or about the running CLI.
package transcript
