// The official SDK's v2 client (@agentclientprotocol/sdk/experimental/v2)
// driving a real agent (ours, through the real Claude Code CLI) over stdio:
// initialize, session/new, a prompt turn with a tool call and a
// permission, list, a second prompt cancelled with session/cancel while it
// runs, resume with replay from the start, a prompt for an unknown
// session, and close. Unlike client.mjs (for the SDK's own toy agent), it
// works in a given cwd and waits for what a real turn sends. Every wire
// line is written to <wire file> as {"fromAgent":bool,"line":"..."}
// (probe.mjs); what the client saw is printed as one JSON line.
//
// usage: node client_agent.mjs <path of dist/v2/stable/acp.js> <wire file> <cwd> <agent command...>
import { connect, probe } from "./probe.mjs";

const [sdkPath, wirePath, cwd, ...agentCmd] = process.argv.slice(2);
const v2 = await import(sdkPath);
const { child, exited, stream, writeWire } = connect(v2, agentCmd);

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
// untilStop takes the session's updates, describing each in record, up to
// the stop, which it returns; or up to an update for which each returns
// true, and then it returns null.
const untilStop = async (session, record, each = () => false) => {
  for (;;) {
    const m = await session.nextUpdate();
    record.push(describe(m));
    if (m.kind === "stop") return m;
    if (each(m.update)) return null;
  }
};

await probe(v2, app, stream, { name: "sdk-v2-agent-probe", cwd }, seen, async (agent, session) => {
  seen.sessionId = session.sessionId;

  // A turn with a tool call that needs permission.
  seen.messageId = (await session.prompt("write the notes")).messageId;
  seen.text = "";
  const stop = await untilStop(session, seen.turn, (u) => {
    if (u.sessionUpdate === "agent_message_chunk") seen.chunkMessageId ??= u.messageId;
    seen.text += textOf(u);
  });
  seen.stop = stop.stopReason;
  seen.listed = (await agent.request("session/list", {})).sessions.map((s) => s.sessionId);

  // A turn that hangs until it is cancelled.
  seen.cancelMessageId = (await session.prompt("think forever")).messageId;
  const early = await untilStop(session, seen.cancel, (u) => u.sessionUpdate === "agent_message_chunk");
  if (early) {
    seen.cancelStop = "ended before the cancel: " + early.stopReason;
  } else {
    await agent.notify("session/cancel", { sessionId: session.sessionId });
    seen.cancelStop = (await untilStop(session, seen.cancel)).stopReason;
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
  await untilStop(session, seen.replay, (u) => {
    if (u.sessionUpdate === "user_message" || u.sessionUpdate === "user_message_chunk") {
      if (!seen.replayUserIds.includes(u.messageId)) seen.replayUserIds.push(u.messageId);
    }
    seen.replayText += textOf(u);
  });
});
writeWire(wirePath);
child.stdin.end();
const timer = setTimeout(() => child.kill(), 20000);
const { code, signal } = await exited;
clearTimeout(timer);
seen.exitCode = code;
seen.exitSignal = signal;
console.log(JSON.stringify(seen));
process.exit(0);
