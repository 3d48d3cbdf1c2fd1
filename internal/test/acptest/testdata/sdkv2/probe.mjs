// What both SDK client scripts (client.mjs, client_agent.mjs) share: the
// wire tap, which spawns the agent command with piped stdio, records every
// line either way as {"fromAgent":bool,"line":"..."} and gives the SDK its
// ndjson stream; and the first and last steps of a probe.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import fs from "node:fs";

// connect spawns agentCmd and returns the child, a promise of its exit
// ({code, signal}), the v2 SDK's stream over its stdio, and
// writeWire(path), which writes the lines recorded so far.
export function connect(v2, agentCmd) {
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
  const writeWire = (path) => fs.writeFileSync(path, wire.join("\n") + "\n");
  return { child, exited, stream, writeWire };
}

// probe connects app over stream and initializes as name (seen gets the
// protocol version and the agent's name), starts a session in cwd and runs
// body(agent, session); then it prompts an unknown session (seen gets its
// error as unknownSession), closes that one and the session, and disposes
// of it. A failure is seen.error.
export async function probe(v2, app, stream, { name, cwd }, seen, body) {
  try {
    await app.connectWith(stream, async (agent) => {
      const init = await agent.request("initialize", {
        protocolVersion: v2.PROTOCOL_VERSION,
        info: { name, version: "1.0.0" },
        capabilities: { auth: { terminal: {} } },
      });
      seen.protocolVersion = init.protocolVersion;
      seen.agentName = init.info.name;
      const session = await agent.buildSession(cwd).start();
      await body(agent, session);
      try {
        await agent.request("session/prompt", { sessionId: "nope", prompt: [{ type: "text", text: "x" }] });
      } catch (e) {
        seen.unknownSession = { code: e.code, data: e.data };
      }
      // session/close treats -32002 as success (the session is gone either way).
      await agent.request("session/close", { sessionId: "nope" });
      await agent.request("session/close", { sessionId: session.sessionId });
      session.dispose();
    });
  } catch (e) {
    seen.error = String(e?.stack ?? e);
  }
}
