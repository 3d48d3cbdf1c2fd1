// A toy ACP v2 agent built with the official SDK's own v2 agent app
// (@agentclientprotocol/sdk/experimental/v2), serving one scripted turn over
// stdio: the lifecycle the adapter will map onto (user_message, running, a
// Bash tool call with its terminal, requires_action while a permission is
// open, an edit with a v2 diff, a plan, idle with a stop reason), resume with
// replay, and the seed-003 session-not-found error.
//
// usage: node agent.mjs <path of dist/v2/stable/acp.js>
import { Readable, Writable } from "node:stream";

const v2 = await import(process.argv[2]);
const sessions = new Set();
const update = (client, sessionId, u) => client.notify("session/update", { sessionId, update: u });

const app = v2.agent({ name: "toy-v2-agent" })
  .onRequest("initialize", async () => ({
    protocolVersion: v2.PROTOCOL_VERSION,
    info: { name: "toy-v2-agent", version: "0.0.1" },
    capabilities: {
      session: { prompt: { image: {}, embeddedContext: {} }, mcp: { stdio: {}, http: {} }, delete: {} },
      auth: {},
    },
    authMethods: [{ type: "agent", methodId: "login", name: "Log in" }],
  }))
  .onRequest("session/new", async () => {
    sessions.add("s1");
    return {
      sessionId: "s1",
      configOptions: [{ type: "select", configId: "mode", name: "Mode", category: "mode", currentValue: "default",
        options: [{ value: "default", name: "Default" }, { value: "plan", name: "Plan" }] }],
    };
  })
  .onRequest("session/list", async () => ({ sessions: [...sessions].map((sessionId) => ({ sessionId, cwd: "/tmp", title: "Toy" })) }))
  .onRequest("session/resume", async ({ params, client }) => {
    if (!sessions.has(params.sessionId)) throw v2.RequestError.sessionNotFound(params.sessionId);
    if (params.replayFrom?.type === "start") {
      await update(client, params.sessionId, { sessionUpdate: "user_message", messageId: "u1", content: [{ type: "text", text: "list files" }] });
      await update(client, params.sessionId, { sessionUpdate: "agent_message", messageId: "a1", content: [{ type: "text", text: "Listing." }] });
    }
    await update(client, params.sessionId, { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
    return {};
  })
  .onRequest("session/close", async ({ params }) => {
    if (!sessions.delete(params.sessionId)) throw v2.RequestError.sessionNotFound(params.sessionId);
    return {};
  })
  .onRequest("session/prompt", async ({ params, client }) => {
    const sid = params.sessionId;
    if (!sessions.has(sid)) throw v2.RequestError.sessionNotFound(sid);
    setTimeout(async () => {
      await update(client, sid, { sessionUpdate: "user_message", messageId: "u1", content: params.prompt });
      await update(client, sid, { sessionUpdate: "state_update", state: "running" });
      await update(client, sid, { sessionUpdate: "agent_message_chunk", messageId: "a1", content: { type: "text", text: "Listing." } });
      await update(client, sid, { sessionUpdate: "tool_call_update", toolCallId: "t1", name: "Bash", title: "ls", kind: "execute", status: "pending", rawInput: { command: "ls" } });
      await update(client, sid, { sessionUpdate: "state_update", state: "requires_action" });
      const r = await client.request("session/request_permission", {
        sessionId: sid, title: "Run ls?",
        subject: { type: "command", command: "ls", cwd: "/tmp", toolCallId: "t1" },
        options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }, { optionId: "reject", name: "Reject", kind: "reject_once" }],
      });
      await update(client, sid, { sessionUpdate: "state_update", state: "running" });
      await update(client, sid, { sessionUpdate: "tool_call_update", toolCallId: "t1", status: "in_progress", content: [{ type: "terminal", terminalId: "t1" }] });
      await update(client, sid, { sessionUpdate: "terminal_update", terminalId: "t1", command: "ls", cwd: "/tmp" });
      await update(client, sid, { sessionUpdate: "terminal_output_chunk", terminalId: "t1", data: "YS5nbwo=" });
      await update(client, sid, { sessionUpdate: "terminal_update", terminalId: "t1", exitStatus: { exitCode: 0 } });
      await update(client, sid, { sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" });
      await update(client, sid, { sessionUpdate: "tool_call_update", toolCallId: "t2", title: "Edit a.go", kind: "edit", status: "completed",
        content: [{ type: "diff", changes: [{ operation: "modify", path: "/tmp/a.go" }], patch: { format: "git_patch", text: "--- a/a.go\n+++ b/a.go\n" } }] });
      await update(client, sid, { sessionUpdate: "plan_update", plan: { type: "items", planId: "todo", entries: [{ content: "ls", priority: "medium", status: "completed" }] } });
      await update(client, sid, { sessionUpdate: "agent_message_chunk", messageId: "a1", content: { type: "text", text: " Permission: " + r.outcome.outcome + "." } });
      await update(client, sid, { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
    }, 5);
    return { messageId: "u1" };
  })
  .onNotification("session/cancel", async ({ params, client }) => {
    await update(client, params.sessionId, { sessionUpdate: "state_update", state: "idle", stopReason: "cancelled" });
  });
app.connect(v2.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
