// The official SDK's client (@agentclientprotocol/sdk, v1 stable) as a
// client that renders forms: it advertises elicitation.form, answers each
// elicitation/create (which the SDK validates against the schema) by
// picking the first option of every single select and the first two of
// every multi-select, and prints one JSON line with what it saw.
//
// usage: node sdk_elicitation.mjs <sdk module path> <agent binary> <cwd> <prompt>
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";

const [sdkPath, agentBin, cwd, promptText] = process.argv.slice(2);
const acp = await import(sdkPath);

const child = spawn(agentBin, [], { stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

const seen = { forms: [], permissions: 0 };
const app = acp.client()
  .onNotification("session/update", async ({ params: n }) => {
    if (n.update.sessionUpdate === "agent_message_chunk" && n.update.content.type === "text") {
      seen.text = (seen.text ?? "") + n.update.content.text;
    }
  })
  .onRequest("session/request_permission", async () => {
    seen.permissions++;
    return { outcome: { outcome: "cancelled" } };
  })
  .onRequest("elicitation/create", async ({ params: req }) => {
    seen.forms.push(req);
    const content = {};
    for (const [key, prop] of Object.entries(req.requestedSchema.properties ?? {})) {
      if (prop.oneOf) content[key] = prop.oneOf[0].const;
      else if (prop.type === "array") content[key] = prop.items.anyOf.slice(0, 2).map((o) => o.const);
    }
    return { action: "accept", content };
  });

try {
  await app.connectWith(stream, async (ctx) => {
    await ctx.request("initialize", {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { elicitation: { form: {} } },
      clientInfo: { name: "sdk-elicitation-test", version: "1.0.0" },
    });
    const s = await ctx.request("session/new", { cwd, mcpServers: [] });
    seen.sessionId = s.sessionId;
    const r = await ctx.request("session/prompt", {
      sessionId: s.sessionId,
      prompt: [{ type: "text", text: promptText }],
    });
    seen.stopReason = r.stopReason;
  });
} catch (e) {
  seen.error = String(e?.message ?? e);
}
child.stdin.end();
seen.exitCode = await new Promise((res) => child.on("exit", (c) => res(c)));
console.log(JSON.stringify(seen));
