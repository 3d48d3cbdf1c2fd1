// Package toolview decides how a Claude Code tool call looks in an ACP
// editor: its kind, title and locations (view.go), the content shown
// before it runs, and the diffs of Edit, MultiEdit and Write (diff.go):
// previews computed from the disk before the tool runs, the CLI's own
// hunks after. It is pure presentation: it sends nothing and keeps no
// state, so the live session and the replay of a stored conversation show
// the same thing. The decisions are written down in docs/tools.md.
package toolview
