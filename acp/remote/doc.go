// Package remote serves ACP connections over the network, on the transport
// of ACP's "Streamable HTTP & WebSocket" RFD as the official TypeScript
// SDK (2.4.0) implements it: one endpoint, /acp, where a POST carries one
// client message (202, or for initialize the answer itself with the new
// Acp-Connection-Id), GETs open Server-Sent Event streams for the agent's
// messages (one for the connection, one per session with
// Acp-Session-Id), DELETE ends a connection, and a GET with
// Upgrade: websocket opens a full-duplex connection instead.
//
// The package knows nothing about any agent: each connection runs a
// [ServeFunc] over a byte stream of newline-delimited JSON, the same
// stream an agent serves on stdio, so every rule of the agent's
// acp.Conn holds per connection.
//
// A Server is secure by default: every request but a bare health check
// must carry the bearer token (compared in constant time), a browser
// Origin must be allowed, the Host may be restricted (DNS rebinding), and
// every buffer has a bound (docs/remote.md).
//
// Where the RFD and the SDK disagree, the server follows the SDK, which is
// what clients run: a batch is answered 400 with one -32600 (the RFD says
// 501); a session's stream may be opened before the session exists (the
// RFD says 404), since the SDK's client opens it before session/load;
// HTTP/1.1 is served beside HTTP/2 (the RFD requires HTTP/2; Node's fetch
// speaks HTTP/1.1).
package remote
