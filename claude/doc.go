// Package claude drives the Claude Code CLI (`claude`) over its
// bidirectional stream-json protocol, the way the TypeScript Agent SDK
// does. It knows nothing about ACP: it starts the CLI, sends user messages
// and control requests, answers the CLI's own requests through callbacks,
// and hands every other frame to the caller in wire order.
//
// # Model
//
// One [Process] is one CLI child process, usually one session. [Start] finds
// the executable ([FindExecutable]), spawns it with the SDK's argv and
// environment (see [Options]), performs the initialize handshake and returns
// once the CLI has answered:
//
//	p, err := claude.Start(ctx, claude.Options{
//		Dir:                    cwd,
//		IncludePartialMessages: true,
//		CanUseTool:             askTheUser,
//	})
//	if err != nil {
//		return err // a *StartupError: bad --resume id, session in use, …
//	}
//	defer p.Close()
//	if err := p.Send(ctx, claude.Text("hello")); err != nil {
//		return err
//	}
//	for m := range p.Messages() {
//		switch b := m.Body.(type) {
//		case *claude.StreamEvent:
//			// partial text: b.Event.Delta.Text
//		case *claude.AssistantMessage:
//			// a completed block; b.IsSynthetic() for API errors
//		case *claude.ResultMessage:
//			// end of the turn: b.IsError, b.StopReason, b.TerminalReason
//		}
//	}
//	// Messages is closed: p.Err() says why the process ended.
//
// The context given to Start bounds only the startup; the process lives
// until Close or Kill (or until it exits on its own), so a request-scoped
// context may be passed.
//
// [StartAsync] does the same without waiting for the CLI's answer to
// initialize: it returns once the CLI runs and the request is written, so
// a first prompt can follow on stdin at once, and the CLI answers it as
// soon as it is ready instead of a round trip later. The handshake's
// outcome arrives on [Process.Initialized] ([Process.WaitInitialized]); a
// failed one is the same *StartupError, from WaitInitialized and Err, and
// no frame of the failed start is delivered.
//
// # Reading
//
// One goroutine reads the CLI's stdout. It answers control responses and
// dispatches control requests itself; every other line is decoded once
// ([DecodeMessage]) into a [Message] that keeps the raw bytes and, for known
// kinds, a typed Body. Unknown types and subtypes are passed on with a nil
// Body; lines that are not JSON are logged at debug level and skipped. Lines
// of tens of megabytes are fine.
//
// [Process.Messages] is unbuffered and fed from a small bounded queue: a
// consumer that does not receive slows the reading down, and nothing is
// dropped while the process runs. One exception prevents a deadlock: while
// one of our control requests (Interrupt, SetModel, …) waits for its
// answer, the reader keeps reading past the bound, because the answer may
// be queued behind frames the caller has not received yet. It is therefore
// safe to call Interrupt from the goroutine that receives Messages.
//
// # Writing
//
// [Process.Send] writes user messages and [Process.Request] (with typed
// wrappers such as [Process.Interrupt] and [Process.SetModel]) writes
// control requests. Every write is one complete line under one lock: a
// half-written or non-JSON line kills the CLI. Requests are correlated by
// id; an error answer becomes a [*ControlError] with the CLI's text; when the
// caller's context ends first the CLI receives control_cancel_request.
//
// # Callbacks
//
// The CLI asks the host for permission (can_use_tool), runs host hooks
// (hook_callback) and talks to in-process MCP servers (mcp_message).
// [Options.CanUseTool], [Options.HookCallback], [Options.MCPMessage] and the
// catch-all [Options.OnControlRequest] answer them. Each runs in its own
// goroutine, so a permission prompt waiting for a human never blocks
// reading. Every request is answered exactly once: a callback error or
// panic becomes an error answer (a panic's value is logged, not sent), a
// request nobody handles gets "Unsupported control request subtype". When
// the CLI withdraws a request (control_cancel_request, e.g. after an
// interrupt) the callback's context is cancelled and no answer is sent.
// Callbacks must return when their context ends, and must not call Close or
// Kill themselves (Close waits for them).
//
// # Shutdown
//
// The CLI runs in its own process group. [Process.Close] does what the SDK
// does: close stdin (the CLI finishes a running turn), wait 2 s, SIGTERM the
// group, wait 5 s, SIGKILL the group. When the CLI exits for any reason the
// rest of its group is killed too, so no tool shell or MCP server outlives
// it. [Process.Done] is closed when the process has ended and its output is
// read; [Process.Err] is then nil (clean exit), [ErrClosed] (stopped by
// Close or Kill) or an [*ExitError] with the exit code and the last 2 KiB of
// stderr. The stderr kept in memory is bounded however much the CLI writes.
//
// # Environment
//
// The CLI gets the caller's environment (or [Options.Env]) without
// NODE_OPTIONS and DEBUG, plus (each unless already set)
// CLAUDE_CODE_SDK_READS_SESSION_STATE=1 for session_state_changed frames,
// CLAUDE_CODE_STARTUP_FAILURE_RESULTS=1 so that startup failures come as an
// error result with a startup_failure_reason code (see [StartupError]), and
// CLAUDE_CODE_ENTRYPOINT=sdk-ts. We use the TypeScript SDK's entrypoint name
// on purpose: the CLI adapts its behaviour to known SDK entrypoints, and an
// unknown name would risk behaviour the SDK never sees. We do not set
// CLAUDE_AGENT_SDK_VERSION, since this is not that SDK.
//
// The protocol facts this package relies on are collected in the project's
// shared reference notes (claude-cli-protocol.md) and were observed on CLI
// 2.1.332. Only Unix systems are supported (process groups).
package claude
