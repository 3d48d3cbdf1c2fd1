// A real ACP client from npm (@agentclientprotocol/sdk) driving our agent
// binary over stdio: initialize, session/new, one prompt. It prints one
// JSON line with what it saw; the Go test asserts on it.
//
// usage: node sdk_client.mjs <sdk module path> <agent binary> <cwd> <prompt>
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";

const [sdkPath, agentBin, cwd, promptText] = process.argv.slice(2);
const acp = await import(sdkPath);

const child = spawn(agentBin, [], { stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

const seen = { updates: [], permissions: 0 };
const app = acp.client()
  .onNotification("session/update", async ({ params: n }) => {
    seen.updates.push(n.update.sessionUpdate);
    if (n.update.sessionUpdate === "agent_message_chunk" && n.update.content.type === "text") {
      seen.text = (seen.text ?? "") + n.update.content.text;
    }
  })
  .onRequest("session/request_permission", async ({ params: req }) => {
    seen.permissions++;
    const allow = req.options.find((o) => o.kind === "allow_once");
    return { outcome: { outcome: "selected", optionId: allow.optionId } };
  });

try {
  await app.connectWith(stream, async (ctx) => {
    const init = await ctx.request("initialize", {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false } },
      clientInfo: { name: "sdk-interop-test", version: "1.0.0" },
    });
    seen.protocolVersion = init.protocolVersion;
    seen.agentName = init.agentInfo?.name;
    const s = await ctx.request("session/new", { cwd, mcpServers: [] });
    seen.modes = s.modes?.availableModes?.map((m) => m.id);
    const r = await ctx.request("session/prompt", {
      sessionId: s.sessionId,
      prompt: [{ type: "text", text: promptText }],
    });
    seen.stopReason = r.stopReason;
    try {
      await ctx.request("session/prompt", { sessionId: "no-such-session", prompt: [{ type: "text", text: "x" }] });
    } catch (e) {
      seen.unknownSessionCode = e.code;
    }
  });
} catch (e) {
  seen.error = String(e?.message ?? e);
}
child.stdin.end();
const code = await new Promise((res) => child.on("exit", (c) => res(c)));
seen.exitCode = code;
console.log(JSON.stringify(seen));
