package bench

// round10Account is the tenth round of profileAccount (see there).
const round10Account = "\n" +
	"### Tenth round: the cold first answer\n" +
	"\n" +
	"Last round's three full runs put the cold first answer at 1.04–1.06× the bare CLI, against a goal of 1.05×, and the report said it depended mostly on how the CLI's start-up overlapped the handshake. `TestFocusCold` (new) makes cold starts alone, the bare CLI's alternating with one or more adapters' (rotating their places), splits each at the model request as the fake API saw it arrive, and gives the CPU times of the adapter (with its reaper) and of the CLI at the end of a short turn (`ACPBENCH_FOCUS_DELTAS=5`). On last round's code the whole difference came before the model request: 15 to 26 ms, against a few tenths after it.\n" +
	"\n" +
	"**Where it went.** A trace of the process starts (perf, `sched_process_exec` and the adapter's reads and writes, system-wide) put the CLI's exec 6.6 ms after the adapter's: 2.2 ms from the adapter's exec to its first read of stdin, 1.3 ms for initialize and session/new with the client's round trips, 0.9 ms to the reaper's exec, 2.2 ms from there to the CLI's. That left 10 to 20 ms, and the CPU times showed where: beside the adapter the CLI used more CPU before its first text (median 486 ms against 456 ms alone, 16 rounds). The adapter wrote one request the bare CLI never got: `get_context_usage`, the question for the context window, sent as soon as the CLI answered initialize, which is when the CLI prepares the first prompt's model request. Alone, the CLI takes 33–38 ms to answer it the first time and 10–22 ms later (get_settings: 3–11 ms), on the thread that prepares the request. A binary that never asks, against the same code, 24 rounds: 0.985× against 1.041×.\n" +
	"\n" +
	"**Changes.**\n" +
	"\n" +
	"- While a prompt is open the question waits until the CLI streams the first delta of its answer, when the request is out; a turn that streams nothing asks at its end, and a result that names the window (`modelUsage.contextWindow`) makes the question needless (`agent/config.go`, `askContextWindow`). Usage still waits for the size, so every `usage_update` has the right one; a failed first turn's usage, with its cost, waits for the answer (`TestContextWindowAskedOnceTheCLIAnswers`, `TestContextWindowOfAFailedFirstTurnE2E`; both fail without the change). The golden scenarios now prompt once the session's CLI is up, as a user in an editor does; prompted with `session/new`, where the usage comes among the chunks is timing.\n" +
	"- `make build` builds the agent as the release does, static and without cgo. With cgo (Go's default where a C compiler is found) the benchmark measured a binary users never run, which loads the C library at every start: initialize answered 2.6–3.4 ms after the spawn against 2.1–2.3 ms (medians of 30 starts), 399 page faults against 338, 4.0 ms of CPU against 2.5. The reaper that starts each CLI is the same executable and pays it again. Same code, 40 rounds: 1.078× dynamic, 1.054× static.\n" +
	"\n" +
	"| `TestFocusCold`, 90 rounds, 4 systems rotating, short turn | ratio to the bare CLI (median) | first text over the bare CLI (median) |\n" +
	"|---|--:|--:|\n" +
	"| last round's code, static | 1.030× | 16.2 ms |\n" +
	"| this round's | 1.015× | 7.7 ms |\n" +
	"| this round's, never asking for the window | 1.016× | 8.9 ms |\n" +
	"\n" +
	"Deferring the question costs the first text nothing against not asking at all. It costs the first turn's end: a trace of the CLI's pipes shows its result 34 ms after the model's message_stop, against 23 ms alone, as the CLI answers the question meanwhile. I took that for a context meter that is right from the first turn's first report; asking only at the turn's end would leave the meter empty for all of a long first turn.\n" +
	"\n" +
	"What is left of the cold first answer is the adapter's own start before the CLI's: its Go start (2.2 ms to its first read, 1 ms for a program that only echoes a line), the handshake, and the reaper's start (about 3 ms with its fork). A reaper started with the agent, waiting for its command, would take the last off the way; it means reworking how `claude.Process` owns its child, and it was not needed for the goal.\n"
