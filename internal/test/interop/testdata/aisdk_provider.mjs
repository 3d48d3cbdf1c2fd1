// The AI-SDK ACP provider (@mcpc-tech/acp-ai-provider) driving our agent
// binary: one streamed generation (doStream), as an AI SDK app runs it.
// It prints one JSON line with the tool calls the provider built (the AI
// SDK's tool-call stream parts: id and input), its tool results, the text
// and the finish reason; the Go test asserts on it.
//
// usage: node aisdk_provider.mjs <provider module path> <agent binary> <cwd> <prompt>
const [providerPath, agentBin, cwd, promptText] = process.argv.slice(2);
const { createACPProvider } = await import(providerPath);

const seen = { toolCalls: [], toolResults: [], text: "" };
try {
  const provider = createACPProvider({
    command: agentBin,
    args: [],
    env: process.env,
    session: { cwd, mcpServers: [] },
  });
  const model = provider.languageModel();
  const { stream } = await model.doStream({
    prompt: [{ role: "user", content: [{ type: "text", text: promptText }] }],
  });
  const reader = stream.getReader();
  for (;;) {
    const { done, value: part } = await reader.read();
    if (done) break;
    switch (part.type) {
      case "tool-call": {
        const input = JSON.parse(part.input);
        seen.toolCalls.push({ id: part.toolCallId, name: input.toolName, args: input.args ?? null });
        break;
      }
      case "tool-result":
        seen.toolResults.push({ id: part.toolCallId, isError: !!part.isError });
        break;
      case "text-delta":
        seen.text += part.delta;
        break;
      case "finish":
        seen.finish = typeof part.finishReason === "string" ? part.finishReason : part.finishReason?.unified;
        break;
      case "error":
        seen.error = String(part.error?.message ?? part.error);
        break;
    }
  }
  model.forceCleanup?.();
} catch (e) {
  seen.error = String(e?.message ?? e);
}
console.log(JSON.stringify(seen));
process.exit(0);
