// A real ACP client from npm (@agentclientprotocol/sdk) that serves
// fs/read_text_file and fs/write_text_file from buffers of its own, as an
// editor with unsaved changes does (issue 39: Claude's files through the
// editor). It opts in per connection, runs one prompt, and prints one JSON
// line with what it saw; the Go test asserts on it.
//
// usage: node editorfs_client.mjs <sdk module path> <agent binary> <cwd> <prompt> <buffers JSON>
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { readFileSync } from "node:fs";

const [sdkPath, agentBin, cwd, promptText, buffersJSON] = process.argv.slice(2);
const acp = await import(sdkPath);
const buffers = JSON.parse(buffersJSON);

const child = spawn(agentBin, [], { stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

const seen = { reads: [], writes: [], titles: {}, permissions: [] };
const app = acp.client()
  .onNotification("session/update", async ({ params: n }) => {
    const u = n.update;
    if ((u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") && u.title) {
      seen.titles[u.toolCallId] = u.title;
    }
  })
  .onRequest("session/request_permission", async ({ params: req }) => {
    seen.permissions.push(req.toolCall.title);
    const allow = req.options.find((o) => o.kind === "allow_once");
    return { outcome: { outcome: "selected", optionId: allow.optionId } };
  })
  .onRequest("fs/read_text_file", async ({ params: p }) => {
    seen.reads.push(p.path);
    if (p.path in buffers) return { content: buffers[p.path] };
    return { content: readFileSync(p.path, "utf8") };
  })
  .onRequest("fs/write_text_file", async ({ params: p }) => {
    seen.writes.push({ path: p.path, content: p.content });
    buffers[p.path] = p.content;
    return {};
  });

try {
  await app.connectWith(stream, async (ctx) => {
    const init = await ctx.request("initialize", {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {
        fs: { readTextFile: true, writeTextFile: true },
        _meta: { claudeCode: { editorFileSystem: true } },
      },
      clientInfo: { name: "sdk-editorfs-test", version: "1.0.0" },
    });
    seen.agentMeta = init.agentCapabilities?._meta?.claudeCode;
    const s = await ctx.request("session/new", { cwd, mcpServers: [] });
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
const code = await new Promise((res) => child.on("exit", (c) => res(c)));
seen.exitCode = code;
console.log(JSON.stringify(seen));
