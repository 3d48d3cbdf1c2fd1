// The wire tap both SDK client scripts use: it spawns the agent command
// with piped stdio, records every line either way as
// {"fromAgent":bool,"line":"..."}, and gives the SDK its ndjson stream.
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
