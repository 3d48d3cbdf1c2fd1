// The official SDK's v2 client (@agentclientprotocol/sdk/experimental/v2)
// driving an agent over stdio: initialize, session/new, a prompt turn with a
// permission, list, resume with replay, cancel, and requests for an unknown
// session. Every wire line is written to <wire file> as
// {"fromAgent":bool,"line":"..."} (probe.mjs); what the client saw is
// printed as one JSON line.
//
// usage: node client.mjs <path of dist/v2/stable/acp.js> <wire file> <agent command...>
import { connect, probe } from "./probe.mjs";

const [sdkPath, wirePath, ...agentCmd] = process.argv.slice(2);
const v2 = await import(sdkPath);
const { child, stream, writeWire } = connect(v2, agentCmd);

const seen = { permissions: 0, updates: [] };
const app = v2.client({ name: "sdk-v2-probe" })
  .onRequest("session/request_permission", async ({ params }) => {
    seen.permissions++;
    const allow = params.options.find((o) => o.kind === "allow_once");
    return { outcome: { outcome: "selected", optionId: allow.optionId } };
  });
await probe(v2, app, stream, { name: "sdk-v2-probe", cwd: "/tmp" }, seen, async (agent, session) => {
  seen.messageId = (await session.prompt("list files")).messageId;
  seen.text = await session.readTextUntilIdle();
  seen.listed = (await agent.request("session/list", {})).sessions.length;
  await agent.request("session/resume", { sessionId: session.sessionId, cwd: "/tmp", replayFrom: { type: "start" } });
  await agent.notify("session/cancel", { sessionId: session.sessionId });
  for (;;) {
    const m = await session.nextUpdate();
    seen.updates.push(m.kind === "stop" ? "stop:" + (m.stopReason ?? "") : m.update.sessionUpdate);
    if (m.kind === "stop" && m.stopReason === "cancelled") break;
  }
});
writeWire(wirePath);
child.kill();
console.log(JSON.stringify(seen));
process.exit(0);
