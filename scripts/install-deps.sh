#!/usr/bin/env bash
# Installs what the tests need into .deps/ (ignored by git): the pinned Claude Code CLI
# and the npm ACP clients. Idempotent: a second run with everything present does nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
DEPS=.deps
mkdir -p "$DEPS"
# Pinned versions: change them here only.
PKGS=(
  "@anthropic-ai/claude-code@2.1.332"
  # The TypeScript reference adapter, for the side-by-side benchmarks (internal/tools/bench).
  # It honours CLAUDE_CODE_EXECUTABLE, so it runs against the same pinned CLI as ours.
  "@agentclientprotocol/claude-agent-acp@0.101.0"
  # The official ACP SDK, whose ClientSideConnection drives our binary in internal/test/interop.
  "@agentclientprotocol/sdk@2.4.0"
  # acpx, a headless ACP client CLI: agent/acpx_e2e_test.go runs --approve-all / --deny-all with it.
  "acpx@0.19.1"
  # The AI-SDK ACP provider: internal/test/interop checks the tool calls it builds from our updates.
  "@mcpc-tech/acp-ai-provider@0.2.9"
  # Node's WebSocket client: Node 20 has none built in, and the SDK's ws-client needs one that
  # sends headers (the bearer token) on the upgrade; acp/remote's e2e tests pass it in.
  "ws@8.23.1"
)
stamp="$DEPS/.installed-$(printf '%s\n' "${PKGS[@]}" | sha1sum | cut -c1-12)"
if [ -f "$stamp" ]; then exit 0; fi
if [ ! -f "$DEPS/package.json" ]; then
  echo '{"name":"claude-agent-acp-test-deps","private":true}' > "$DEPS/package.json"
fi
npm install --prefix "$DEPS" --no-audit --no-fund --loglevel=error "${PKGS[@]}"
touch "$stamp"
