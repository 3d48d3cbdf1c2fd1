package translate

// A Turn is a prompt as translation sees it: the output it belongs to and
// what that output said about its answer. The session owns its turns (the
// queue, the phases, the one answer; agent/turn.go embeds a Turn in each)
// and points Translator.Current at the one the CLI is working on;
// translation fills in what it saw and never settles one.
type Turn struct {
	UUID string // the Claude user message's uuid
	// Settled: the prompt is answered (a cancel answers it at once). The
	// CLI's work for it may go on; a foreground command or subagent of an
	// answered turn is no longer followed for it.
	Settled bool
	// Cancelled: answered "cancelled" by the user's request (Settled too).
	// Nothing of it may run any more; a permission it asks is denied.
	Cancelled bool

	// What the output showed, for the stop reason.
	Streamed       bool   // some agent text or thought went out
	APIError       string // the synthetic assistant message's error kind
	APIErrorText   string // and its text
	APIErrorMsgID  string // and its message id (the transcript's too)
	RefusalExplain string // why the model refused, in words for people
}
