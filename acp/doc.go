// Package acp is an implementation of the Agent Client Protocol (ACP):
// JSON-RPC 2.0 over newline-delimited JSON, usually on a process's stdio,
// between an editor (the client) and a coding agent. It knows nothing
// about any particular agent.
//
// # Connection
//
// One [Conn] serves either end: it answers the requests and notifications
// the peer sends with a [Handler] (usually a [Mux] of typed routes made
// with [On] and [OnNotification]) and calls the peer with [Conn.Call] and
// [Conn.Notify]. The rules it keeps, so that a handler does not have to:
//
//   - Every request gets exactly one response: a handler that returns
//     nothing, panics or outlives its cancellation is answered for
//     (-32603 naming the method, or -32800 / [Options.CancelledResult]
//     after [Options.CancelGrace]).
//   - Handlers start in wire order. A handler that will wait (a prompt
//     turn, a call back to the peer) calls [Async] once it has registered
//     what later messages must find, so that a cancel written right behind
//     its request always finds it. One that does not is released after
//     [Options.ReleaseTimeout], or at once when its request is cancelled:
//     nothing holds the connection for long.
//   - $/cancel_request works both ways: an inbound one cancels the
//     handler's context; a Call whose context ends sends one.
//   - Bad input gets the right error on the right id (-32700, -32600,
//     -32601, -32602 naming the field, never echoing its value), and the
//     connection goes on. A response that is no response fails the call
//     waiting for it at once.
//   - Memory is bounded without starving control traffic: frames up to
//     [DefaultMaxFrameSize], requests in flight up to
//     [Options.MaxInFlight] (past it they are refused at once, the
//     connection never stops reading for them), notifications queued up
//     to [Options.MaxQueuedBytes]; a peer that stops reading slows our
//     writers instead of growing a buffer.
//   - With [Options.InitializeMethod] set, nothing but initialize is served
//     before initialize succeeds, and a second one is refused.
//   - When the peer closes its side, what it sent before is still answered
//     (bounded by [DrainTimeout]) and calls to it fail at once.
//
// A Call made from a handler returns only after every notification the
// peer sent before its response has been handled, as the peer intended.
//
// # Types
//
// The protocol's types (types_gen.go) are generated from the official v1
// schema: tagged unions are structs with one pointer per variant, unknown
// variants and members survive a round trip byte for byte, optional
// nullable members are [Opt] (absent, null or a value), and every method
// has a constant and a [MethodSpec]. Errors follow the ACP SDK contract:
// [Error] with the codes above and constructors such as
// [NewSessionNotFound] and [NewUnsupportedProtocolVersion]. The v2 draft's
// types are in the subpackage acpv2.
//
// # Stability: this adapter's library, not an SDK
//
// The package can be imported and serves either end of a connection (the
// interop tests drive the agent's binary with it as a client), but it is
// part of claude-agent-acp and makes no compatibility promise: its API
// changes whenever the adapter needs it to, in any release, without a
// deprecation period. That is a decision, not an oversight:
//
//   - Its shape follows the adapter. [Conn.Hold] exists for the agent's
//     output bursts, [Options.OutputFilter] for its secret scrubbing, and one
//     Conn speaks v1 and v2 because one agent does. The generated types'
//     codec changes with what is measured to be faster (it now shares one
//     runtime with acpv2, which made [Opt] an alias and AppendJSON a
//     method of every type).
//   - The protocol is still moving: v2 is a draft, and the v1 schema's
//     unstable methods (session/fork, usage) come and go.
//   - An SDK needs what an adapter does not: a handler that can reach its
//     own connection from its context, a typed call per method, a
//     deprecation policy and a version of its own. Promising those before
//     someone needs them enough to maintain them would only tie the
//     adapter down.
//
// To build on it, pin a commit or copy the package (Apache-2.0). A stable
// Go SDK, if it comes, will be a module of its own with those additions.
package acp
