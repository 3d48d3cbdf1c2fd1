package bench

// round7Account is the seventh round of profileAccount (see there).
const round7Account = "\n" +
	"### Seventh round: the history before the CLI\n" +
	"\n" +
	"**Replay.** In process the realistic replay costs 7 to 9 µs per message; in the side-by-side run it cost 15 to 22. `TestFocusTwoLoads` (three loads into one adapter, CPU and wait from `/proc/<pid>/task/*/schedstat`) showed where the difference went: beside the real CLI a load's threads were runnable but waiting for a core for 20 to 63 ms, against 2 to 12 ms beside the fake CLI of internal/faultcli, which uses no CPU. The CLI was started at the same moment as the replay, and its start-up keeps both cores busy for a few hundred milliseconds. So a load now replays first and starts the CLI it resumes when the replay is done or has run for 50 ms, whichever comes first (`replayHeadStart`, `TestLoadReplaysBeforeTheCLIStarts`). A replay of a few thousand messages then finishes before the CLI starts, and the answer, which waits for the CLI, is at most 50 ms later. A longer replay overlaps the CLI's start from that point on.\n" +
	"\n" +
	"| `session/load` beside the real CLI (`TestFocus`, replays only, alternating) | before | after |\n" +
	"|---|--:|--:|\n" +
	"| realistic transcript, per message: median (range), 6 + 6 runs | 14.8 µs (11.1–16.8) | 12.8 µs (10.5–14.0) |\n" +
	"| synthetic transcript, per message: median, 6 + 6 runs | 10.7 µs | 9.9 µs |\n" +
	"| answer of the realistic load: median | 601 ms | 564 ms |\n" +
	"| realistic transcript, per message, the whole replay before the CLI (a test build), 6 + 6 runs, quieter minutes | 9.6–16.4 µs | 8.3–9.7 µs |\n" +
	"\n" +
	"The full run above: the realistic replay 31.2 ms, 11.6 µs per message (22.5 in the sixth round's run), 19.4× faster than the reference; the synthetic one 7.9 µs per message (14.7), 17.9×. The loads' answers, which wait for the CLI, came at 531 and 588 ms, against 644 and 774 ms in the sixth round's run. The rows that missed their targets in this run belong to paths this round did not change. A warm turn's first text was 3.5 ms over the bare CLI's: the machine ran slower than in the sixth round's run (the bare CLI's warm turn took 43 ms, against 33.8), and the same binary, run again in `TestFocus` with 24 warm turns, gave +3.9, −4.7 and +6.1 ms. The streaming turn came in at 1.21× with 6 µs of CPU per chunk (3.5–8).\n" +
	"\n" +
	"What is left of the difference is the fresh process. perf of three loads into one adapter (fake CLI) put the first load at twice the samples of the third (1,399 against 709). Page faults account for 177 of the first load's samples and 10 of the third's: the heap grows to its working size, about 1,450 faults. Everything else runs 1.6 to 2 times slower while code and data are cold. Writing the history into the client's pipe is 7 to 10% of a load: a realistic replay is 5.2 MB of notifications (`BenchmarkReplay` now reports `out-MB/op`), and the kernel copies it at 1 to 1.5 GB/s into freshly allocated pipe pages.\n" +
	"\n" +
	"**Streaming.** A perf profile of the relay (`TestFocusRelay`, one delta per 200 µs) puts most of the adapter's CPU in the kernel's side of its wake-ups. One sample in three of the session goroutine's falls at the return from its write to the client: the write wakes the client, which takes the core at once, so every chunk that comes alone costs the adapter two more context switches than its own sleep and wake-up. The adapter's own code is about a fifth of the samples; the rest is waking, sleeping and the runtime's poller.\n" +
	"\n" +
	"Tried and dropped:\n" +
	"\n" +
	"- Yielding to the session goroutine before the CLI's reader reads again (when its buffer is empty), so that a line arriving meanwhile is read in the same wake-up: 10–22% fewer reads and more chunks sent one by one (less merging), but the CPU per chunk stayed within the noise (relay at 35 µs: 2.45–2.83 → 2.39–2.51 µs; at 60 µs: 3.93–5.00 → 3.95–4.76; at 200 µs: 8.40–9.03 → 6.91–10.35; beside the real CLI, four pairs: 3.5–7.0 → 4.5–5.0).\n" +
	"- Skipping the read that finds the pipe empty after a short read. That is not safe with the runtime's poller: `RawConn.Read` clears the descriptor's readiness before its first try, so waiting without reading first could sleep through a line that arrived just before, until the CLI writes again, and the CLI may not write again (a turn's result).\n" +
	"- GOGC 200 and 400 for the adapter, to run the collector less often during a load: page faults rose from about 1,450 to 2,450 and 3,700, and the replay did not get faster beyond the noise (four alternating triples).\n" +
	"\n" +
	"What is left: a fresh process pays for its heap and its cold caches, roughly half of a load's CPU beside the CLI. Allocating less per replayed line would help with both: a long line is now copied once so that its big values can be shared. A record valid only until the next one, like `bufio.Scanner`'s bytes, could reuse that copy, but everything the translator keeps across records (tool inputs, ids, plans) would then have to be copied out. A chunk that comes alone costs what the kernel charges for three context switches. Only fewer wake-ups would cut that, and with a client that keeps up, fewer wake-ups means holding chunks back.\n"
