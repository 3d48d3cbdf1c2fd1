// A remote ACP client driven line by line: the official SDK's v1 client
// (@agentclientprotocol/sdk 2.4.0) over its experimental ws-client or
// http-client transport, connected to `claude-agent-acp serve`. The Go test
// writes one JSON command per line on stdin and reads one JSON event per
// line on stdout, so it can open, drop and reopen connections, run
// prompts and cancel them in whatever order a scenario needs.
//
// usage: node remote_client.mjs <sdk dist dir> <ws package dir>
//
// Commands: {"op":"connect","name":N,"transport":"ws"|"http","url":U,"token":T}
//           {"op":"new","name":N,"cwd":C}
//           {"op":"prompt","name":N,"sessionId":S,"text":X,"tag":G}
//           {"op":"cancel","name":N,"sessionId":S}
//           {"op":"load","name":N,"sessionId":S,"cwd":C}
//           {"op":"drop","name":N}          close the connection's transport
//           {"op":"answer","id":P,"allow":B}  answer a held permission request
//           (connect with "hold":true holds permission requests for "answer")
//           {"op":"exit"}
// Events: {"ev":"ok","op":...,...}, {"ev":"error","op":...,"message":...},
//         {"ev":"update","name":N,"sessionId":S,"kind":K,"text":X},
//         {"ev":"permission","name":N,"sessionId":S,"title":T},
//         {"ev":"stop","name":N,"tag":G,"stopReason":R} (or "error" for a failed prompt),
//         {"ev":"closed","name":N}
import { createInterface } from "node:readline";
import { createRequire } from "node:module";
import path from "node:path";

const [sdkDist, wsDir] = process.argv.slice(2);
const acp = await import(path.join(sdkDist, "v1/stable/acp.js"));
const { createWebSocketStream } = await import(path.join(sdkDist, "transports/ws-stream.js"));
const { createHttpStream } = await import(path.join(sdkDist, "transports/http-stream.js"));
const WebSocket = createRequire(import.meta.url)(wsDir);

const emit = (ev) => process.stdout.write(JSON.stringify(ev) + "\n");
const conns = new Map();

const held = new Map();
let nextHeld = 0;

async function connect({ name, transport, url, token, hold }) {
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const stream =
    transport === "ws"
      ? createWebSocketStream(url.replace(/^http/, "ws"), { WebSocket, headers })
      : createHttpStream(url, { headers });
  const app = acp
    .client()
    .onNotification("session/update", async ({ params: n }) => {
      const u = n.update;
      const text = u.sessionUpdate === "agent_message_chunk" && u.content?.type === "text" ? u.content.text : undefined;
      emit({ ev: "update", name, sessionId: n.sessionId, kind: u.sessionUpdate, text });
    })
    .onRequest("session/request_permission", async ({ params: req }) => {
      const allow = req.options.find((o) => o.kind === "allow_once");
      const reject = req.options.find((o) => o.kind === "reject_once");
      if (hold) {
        const id = ++nextHeld;
        emit({ ev: "permission", name, sessionId: req.sessionId, title: req.toolCall?.title, id });
        const yes = await new Promise((resolve) => held.set(id, resolve));
        return { outcome: { outcome: "selected", optionId: (yes ? allow : reject).optionId } };
      }
      emit({ ev: "permission", name, sessionId: req.sessionId, title: req.toolCall?.title });
      return { outcome: { outcome: "selected", optionId: allow.optionId } };
    });
  const conn = app.connect(stream);
  conns.set(name, conn);
  conn.closed.then(() => emit({ ev: "closed", name }), () => emit({ ev: "closed", name }));
  const init = await conn.agent.request("initialize", {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false } },
    clientInfo: { name: "remote-interop-test", version: "1.0.0" },
  });
  return { agentName: init.agentInfo?.name, loadSession: !!init.agentCapabilities?.loadSession };
}

const agentOf = (name) => {
  const c = conns.get(name);
  if (!c) throw new Error(`no connection ${name}`);
  return c.agent;
};

async function run(cmd) {
  switch (cmd.op) {
    case "connect":
      return await connect(cmd);
    case "new": {
      const s = await agentOf(cmd.name).request("session/new", { cwd: cmd.cwd, mcpServers: [] });
      return { sessionId: s.sessionId };
    }
    case "prompt":
      agentOf(cmd.name)
        .request("session/prompt", { sessionId: cmd.sessionId, prompt: [{ type: "text", text: cmd.text }] })
        .then(
          (r) => emit({ ev: "stop", name: cmd.name, tag: cmd.tag, stopReason: r.stopReason }),
          (e) => emit({ ev: "stop", name: cmd.name, tag: cmd.tag, error: String(e?.message ?? e) }),
        );
      return {};
    case "cancel":
      await agentOf(cmd.name).notify("session/cancel", { sessionId: cmd.sessionId });
      return {};
    case "load":
      await agentOf(cmd.name).request("session/load", { sessionId: cmd.sessionId, cwd: cmd.cwd, mcpServers: [] });
      return {};
    case "drop":
      conns.get(cmd.name)?.close();
      conns.delete(cmd.name);
      return {};
    case "answer":
      held.get(cmd.id)?.(cmd.allow);
      held.delete(cmd.id);
      return {};
    case "exit":
      for (const c of conns.values()) c.close();
      setTimeout(() => process.exit(0), 100);
      return {};
  }
  throw new Error(`unknown op ${cmd.op}`);
}

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const cmd = JSON.parse(line);
  run(cmd).then(
    (r) => emit({ ev: "ok", op: cmd.op, name: cmd.name, ...r }),
    (e) => emit({ ev: "error", op: cmd.op, name: cmd.name, message: String(e?.message ?? e) }),
  );
}
