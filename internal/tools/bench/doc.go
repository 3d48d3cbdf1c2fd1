// Package bench compares this adapter with the TypeScript reference
// (@agentclientprotocol/claude-agent-acp on npm) on the same work, in one
// run: both run as child processes against the same pinned Claude Code CLI
// and the same fake Messages API ([fakeapi]), driven by the same scripted
// ACP client (our [acp.Conn]), in alternating runs. The bare CLI, driven
// directly over stream-json, is the baseline for the adapter's own overhead.
//
// [Run] measures, per system and iteration:
//
//   - start-up: process start → initialize answer → session/new answer →
//     first agent_message_chunk;
//   - warm turns: prompt → first chunk and prompt → answer, beside the bare
//     CLI's user message → first text delta and → result; the adapter's
//     overhead over the bare CLI from turn pairs alternating between the
//     two, run side by side (warmPairsRun), split at the fake API's
//     arrival of the model request, and pooled over the iterations for the
//     first-text target;
//   - the adapter's peak RSS (VmHWM) and CPU seconds, alone and with its CLI;
//   - a turn that streams 20,000 text deltas: time to relay them all, and
//     the adapter's CPU for it from its threads' schedstat (the median of
//     the main run's turn and warmPairsRun's two streaming turns);
//   - session/load of a synthetic and a realistic transcript: the replay,
//     the answer, CPU and peak RSS;
//   - hibernation: 20 sessions in one agent, with and without a cap on live
//     CLIs;
//   - 8 concurrent sessions in one agent: memory per extra session and turn
//     latency under load;
//   - model API requests per 5-turn run, from the fake API's log.
//
// [Report.Markdown] renders medians with their spread (min–max) and the
// reference/ours ratios. The command internal/tools/bench/cmd/acpbench (make
// bench-compare) writes BENCHMARKS.md. The measurements read /proc, so the
// harness runs on Linux only.
package bench
