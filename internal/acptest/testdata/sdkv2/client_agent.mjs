// The official SDK's v2 client (@agentclientprotocol/sdk/experimental/v2)
// driving a real agent (ours, through the real Claude Code CLI) over stdio:
// initialize, session/new, a prompt turn with a tool call and a
// permission, list, a second prompt cancelled with session/cancel while it
// runs, resume with replay from the start, a prompt for an unknown
// session, and close. Unlike client.mjs (for the SDK's own toy agent), it
// works in a given cwd and waits for what a real turn sends. Every wire
// line is appended to <wire file> as {"fromAgent":bool,"line":"..."}; what
// the client saw is printed as one JSON line.
//
// usage: node client_agent.mjs <path of dist/v2/stable/acp.js> <wire file> <cwd> <agent command...>
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import fs from "node:fs";

const [sdkPath, wirePath, cwd, ...agentCmd] = process.argv.slice(2);
const v2 = await import(sdkPath);
const wire = [];
const child = spawn(agentCmd[0], agentCmd.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
const tap = (fromAgent) => {
  const dec = new TextDecoder();
  let rest = "";
  return new TransformStream({
    transform(chunk, c) {
      rest += dec.decode(chunk, { stream: true });
      let i;
      while ((i = rest.indexOf("\n")) >= 0) {
        const line = rest.slice(0, i);
        rest = rest.slice(i + 1);
        if (line.trim()) wire.push(JSON.stringify({ fromAgent, line }));
      }
      c.enqueue(chunk);
    },
  });
};
const toAgent = tap(false);
void toAgent.readable.pipeTo(Writable.toWeb(child.stdin)).catch(() => {});
const fromAgent = Readable.toWeb(child.stdout).pipeThrough(tap(true));
const stream = v2.ndJsonStream(toAgent.writable, fromAgent);

const seen = { permissions: [], turn: [], cancel: [], replay: [] };
const app = v2.client({ name: "sdk-v2-agent-probe" })
  .onRequest("session/request_permission", async ({ params }) => {
    seen.permissions.push({ title: params.title, subject: params.subject?.type ?? null });
    const allow = params.options.find((o) => o.kind === "allow_once");
    return { outcome: { outcome: "selected", optionId: allow.optionId } };
  });

// describe names an update for the record: its kind, a state's state and
// stop reason.
const describe = (m) => {
  if (m.kind === "stop") return "stop:" + (m.stopReason ?? "");
  const u = m.update;
  return u.sessionUpdate === "state_update" ? "state:" + u.state : u.sessionUpdate;
};
const textOf = (u) =>
  u.sessionUpdate === "agent_message_chunk" && u.content?.type === "text"
    ? u.content.text
    : u.sessionUpdate === "agent_message"
      ? (u.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("")
      : "";

try {
  await app.connectWith(stream, async (agent) => {
    const init = await agent.request("initialize", {
      protocolVersion: v2.PROTOCOL_VERSION,
      info: { name: "sdk-v2-agent-probe", version: "1.0.0" },
      capabilities: { auth: { terminal: {} } },
    });
    seen.protocolVersion = init.protocolVersion;
    seen.agentName = init.info.name;
    const session = await agent.buildSession(cwd).start();
    seen.sessionId = session.sessionId;

    // A turn with a tool call that needs permission.
    seen.messageId = (await session.prompt("write the notes")).messageId;
    seen.text = "";
    for (;;) {
      const m = await session.nextUpdate();
      seen.turn.push(describe(m));
      if (m.kind === "stop") {
        seen.stop = m.stopReason;
        break;
      }
      if (m.update.sessionUpdate === "agent_message_chunk") seen.chunkMessageId ??= m.update.messageId;
      seen.text += textOf(m.update);
    }
    seen.listed = (await agent.request("session/list", {})).sessions.map((s) => s.sessionId);

    // A turn that hangs until it is cancelled.
    seen.cancelMessageId = (await session.prompt("think forever")).messageId;
    for (;;) {
      const m = await session.nextUpdate();
      seen.cancel.push(describe(m));
      if (m.kind === "stop") {
        seen.cancelStop = "ended before the cancel: " + m.stopReason;
        break;
      }
      if (m.update.sessionUpdate === "agent_message_chunk") {
        await agent.notify("session/cancel", { sessionId: session.sessionId });
        for (;;) {
          const n = await session.nextUpdate();
          seen.cancel.push(describe(n));
          if (n.kind === "stop") {
            seen.cancelStop = n.stopReason;
            break;
          }
        }
        break;
      }
    }

    // Resume with replay: the history, then the state, then the answer.
    const resumed = await agent.request("session/resume", {
      sessionId: session.sessionId,
      cwd,
      replayFrom: { type: "start" },
    });
    seen.resumeConfigOptions = (resumed.configOptions ?? []).length;
    seen.replayText = "";
    seen.replayUserIds = [];
    for (;;) {
      const m = await session.nextUpdate();
      seen.replay.push(describe(m));
      if (m.kind === "stop") break;
      const u = m.update;
      if (u.sessionUpdate === "user_message" || u.sessionUpdate === "user_message_chunk") {
        if (!seen.replayUserIds.includes(u.messageId)) seen.replayUserIds.push(u.messageId);
      }
      seen.replayText += textOf(u);
    }

    try {
      await agent.request("session/prompt", { sessionId: "nope", prompt: [{ type: "text", text: "x" }] });
    } catch (e) {
      seen.unknownSession = { code: e.code, data: e.data };
    }
    await agent.request("session/close", { sessionId: "nope" });
    await agent.request("session/close", { sessionId: session.sessionId });
    session.dispose();
  });
} catch (e) {
  seen.error = String(e?.stack ?? e);
}
fs.writeFileSync(wirePath, wire.join("\n") + "\n");
child.stdin.end();
const timer = setTimeout(() => child.kill(), 20000);
const { code, signal } = await exited;
clearTimeout(timer);
seen.exitCode = code;
seen.exitSignal = signal;
console.log(JSON.stringify(seen));
process.exit(0);
