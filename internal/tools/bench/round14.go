package bench

// round14Account is the fourteenth round of profileAccount (see there).
const round14Account = "\n" +
	"### Fourteenth round: the collector out of a load's way, and the first pass on both cores\n" +
	"\n" +
	"Last round's realistic replay came out at 15.4 and just over 15 µs per message, at the goal's line, on a VM where the reference too was slower than before. The question was again what a fresh agent's load costs that the code in process does not show.\n" +
	"\n" +
	"**Where the time went.** A build that timed the load's steps inside the agent, beside the real CLI: the first pass over the 6.9 MB file ended 8.3–14.5 ms after the request, the first 64 records were out about 2 ms later, and the other 2,628 took 27–37 ms, about 10.5 µs each. In process the CPU profile of the two threads puts decoding at about 6.2 µs per record on one and translating and writing at 6.7 µs on the other, which two cores should overlap to well under that. The runtime's trace of the same loads (`GODEBUG=gctrace=1`) showed six collections in every load (heap 3 → 4 → 1 MB against a 4 MB goal), each 1–2 ms long: a replay makes about 5 KB of garbage per message on a heap where a megabyte or two lives, and during each collection one of the two threads is much of the time the collector's (its worker also takes a thread whenever one goroutine waits for the other), and the other runs with write barriers and assists. The first pass itself was a quarter of the load, alone on one thread.\n" +
	"\n" +
	"**Changes.**\n" +
	"\n" +
	"- While a load replays, the collector runs at `GOGC=400` (`agent/threads.go`, `loadGCPercent`), set and put back with the second thread. The runtime's minimum heap grows with GOGC, so the first collection waits for 16 MiB and a load of a few thousand messages has none. On a heap where more lives (many sessions open) the percentage is lowered so that a load's heap grows at most 24 MiB past what 100 allows; a `GOGC` from the environment is kept. Round 7 tried GOGC 200 and 400 for the whole process and saw nothing beyond the noise: the replay ran on one thread then, and a collection cost it CPU, not a stalled pipeline.\n" +
	"- The first pass reads a transcript over 1 MiB in two halves at once, split after the first line break past the middle (`claude/transcript/halves.go`): the second half goes into an index of its own, then is appended to the first's in the order its uuids were first named, which is exactly what one pass makes, node ids and all (`TestHalvesMatchOnePass` checks every split point of the CLI's own transcripts, generated ones and a file of odd lines; `FuzzIndexHalves`, in `make fuzz-short`, any bytes).\n" +
	"\n" +
	"| Measure | before | after |\n" +
	"|---|--:|--:|\n" +
	"| beside the real CLI, realistic replay per message (`TestFocus`, medians of 12 alternating pairs, two sets) | 14.5, 15.6 µs | 11.8, 12.25 µs |\n" +
	"|   the agent's CPU per message | 22.3 µs | 18.6 µs |\n" +
	"|   page faults of the load | about 1,650 | about 4,100 |\n" +
	"|   the load's peak RSS | 13.6 MiB | 23.8 MiB |\n" +
	"| in process, `Replay/realistic`, per message (3 alternating pairs) | 10.2–12.5 µs | 6.9–8.2 µs |\n" +
	"| in process, `Replay/realistic-code` | 13.5–16.7 µs | 9.6–12.7 µs |\n" +
	"| in process, `Replay/msgs=20000` | 6.8–8.1 µs | 4.8–6.1 µs |\n" +
	"|   peak heap of one replay | 4.2–5.9 MB | 12.3–14.8 MB |\n" +
	"| in process, the first pass over the realistic transcript (three runs of 30 alternating opens, a collection before each; medians) | 8.4–8.6 ms | 4.9–5.6 ms |\n" +
	"\n" +
	"GOGC 200 gave 13.6 µs per message and GOGC 800 11.8 µs for twice the heap (10 alternating pairs). The first pass in halves alone, beside the real CLI (20 alternating pairs, before the collector's change): the first history update 12.2 → 10.0 ms, the whole replay within the noise. The memory is the price: about 2,300 more pages are touched for the first time, each a page fault that costs this VM 1.2–1.9 µs (a standalone test), and the load's peak RSS rises by 10 MiB; when the last load ends the setting goes back and the next allocation collects the replay's garbage. Tried and dropped: advising huge pages over the heap's first arena at start, so that a fault would bring in 2 MiB (no fewer faults: the runtime maps its arena afresh when it first uses it, and the advice goes with the old mapping). Still there: the faults (about 5 ms of a 30 ms load here), which only less allocation would remove; most of it is tool output, copied once out of the read window and once into its fence.\n\n" +
	"\n**This round's two full runs** (the table above is the second): ten of ten targets met in the second, nine in the first. The realistic replay took 11.5 and 12.4 µs per message, 24.8× and 20.7× faster than the reference (285 and 257 µs); the synthetic one 7.1 and 9.4 µs; the source-code transcript 17.4 and 15.5 µs (16.2× and 19×). The adapter's peak RSS after a load is 21.3 MiB in both, against last round's 12.3: the collector's headroom. Streaming and start-up load nothing and did not change: CPU per relayed chunk 2.6 and 2.5 µs, the streaming turn 0.82× and 0.83× the bare CLI, the cold first answer 1.02× and 1.05×. The warm first text, a target from before issue 16, came out at 2.4 ms over the bare CLI in the first run's 100 pairs, missing its 2 ms, and at 1 ms in the second's (the three runs before: 1.9, 2.2 and 0.5 ms); `TestFocusWarm` between the two gave +0.12 ms over 60 pairs. Neither change runs during a warm turn: that figure moves with the machine.\n"
