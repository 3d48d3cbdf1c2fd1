package bench

// round6Account is the sixth round of profileAccount (see there).
const round6Account = "\n" +
	"### Sixth round: fewer passes per replayed line, fewer writes per burst\n" +
	"\n" +
	"This VM's speed changes by up to 1.6× from one minute to the next (the same binary's load took 30 to 58 ms of CPU in `TestFocusTwoLoads`), so each change was measured in process, two test binaries interleaved (12 to 16 alternating rounds, one thread as the agent runs: `-cpu 1`), by median and best; the relay by alternating pairs of `TestFocusRelay`.\n" +
	"\n" +
	"**Replay.** A profile of the realistic replay in process (one thread, 31 ms, 11.6 µs per message) split it into the first pass 15%, decoding the branch's records 31%, translating and encoding 32%, and the garbage collector most of the rest. Changes:\n" +
	"\n" +
	"- The first pass skips each line's message and tool result in one loop (`jsonfast` `skipContainerLax`), finding a short string's closing quote eight bytes at a time; it takes and refuses what the general path does (`FuzzSkipLax`). Whole lines of the realistic transcript: 4.1 → 2.6 ms (best of 200, interleaved).\n" +
	"- TodoWrite inputs, Edit results' `structuredPatch` and a plan's repeat check no longer go through encoding/json's reflection, about 5% of the profile (both decoders fall back to encoding/json for anything but the expected shape; `FuzzResultJSON`, `FuzzToolJSON`).\n" +
	"- A tool result's string content is decoded by the transcript reader in the scan that finds its JSON (`ContentBlock.ContentText`), so the replay no longer scans every tool result a second time (4% of the profile).\n" +
	"- A long line is copied with `bytes.Clone` instead of into a zeroed buffer.\n" +
	"\n" +
	"| Replay in process, one thread (16 interleaved rounds) | before | after |\n" +
	"|---|--:|--:|\n" +
	"| realistic transcript: median, best | 37.6 ms, 29.2 ms | 34.3 ms, 26.4 ms |\n" +
	"| synthetic transcript (5,000 messages): median, best | 46.5 ms, 37.6 ms | 47.0 ms, 34.1 ms |\n" +
	"| realistic transcript: allocations per replay | 48,179 | 46,819 |\n" +
	"\n" +
	"The full run above is within its own spread of the fifth round's: the realistic replay 60.7 ms (22.5 µs per message) against 58.2 ms, the same CPU median (18.6 µs per message; /proc counts it in 10 ms ticks, 50 ms for the load), while the reference's own replay went from 713 to 603 ms, which put the ratio at 9.9×. In the side-by-side run the load's CPU is about one and a half times its CPU in process: the CLI starts on the other core at the same moment (its threads and ours share two cores, and on this VM they may be hyperthreads of one), and a fresh process pays about 1,450 page faults.\n" +
	"\n" +
	"**Streaming.** The harness now counts the adapter's read and write system calls (/proc/<pid>/io): beside the real CLI, 20,000 deltas cost about 15,000 reads and 8,000 writes. A trace of the system calls (perf tracepoints, not kept) showed two kinds of wake-up. About 4,400 bring one line each: `epoll_pwait` returns, a read, a second read that finds the pipe empty (`EAGAIN`: the runtime's poller needs it to wait again), the write, a non-blocking `epoll_pwait` (the scheduler's look before it sleeps) and the blocking one; that is five system calls and three goroutine switches for one delta, 7 to 10 µs when every delta comes alone (one per 200 µs). About 180 reads of 30 lines or more bring the other 15,000 deltas, at 1 to 1.5 µs each. What the one-line wake-ups cost is the runtime's poller and the kernel's; the adapter's own part of them is about 2 µs.\n" +
	"\n" +
	"- A delta that continues the block handled last now joins the burst queued behind it, in one write, instead of going out alone first; a message's first chunk, and any frame with nothing behind it, still goes out at once (`TestFrameJoinsBurstOnlyWhenItContinues`). Relaying one delta per 60 µs: 2,500–3,000 → 1,400–1,700 writes per 20,000 deltas, CPU per delta 4.2–4.3 → 3.8–4.5 µs (three pairs; beside the real CLI, where most wake-ups bring one line, seven pairs were within noise).\n" +
	"- The params of a session/update come from a pool: one allocation fewer per chunk (`TranslateTextDelta`: 856 B in 6 allocations → 680 B in 5).\n" +
	"\n" +
	"The full run gave 7.5 µs (4.5–7.5) CPU per relayed chunk, against 9 µs (8–15) in the fifth round's; the reference's own went from 101 to 87.5 µs, so part of that is the machine.\n" +
	"\n" +
	"Tried and dropped:\n" +
	"\n" +
	"- Decoding ahead on a second thread during a replay (GOMAXPROCS 2 for the load, the next 64 records decoded on another goroutine while the translator handled the ones before). In process, with both cores free, the realistic replay went from 45 to 33 ms. Beside the real CLI, which starts on the other core at the same moment, it went from 16–23 to 22–28 µs per message, with more CPU: the CLI's start needs that core.\n" +
	"- A lower GOGC, to cut the first load's page faults: GOGC=50 and 25 brought them from about 1,550 to 900–1,000 and cost more CPU (55 → 56–69 ms per load).\n" +
	"- Sixteen bytes per step in the validating string scan: no gain beyond the noise over eight (`BenchmarkSkipString`).\n" +
	"\n" +
	"What is left: the realistic replay needs about a third less CPU to reach 15 µs per message beside a starting CLI on this VM. What it spends is spread thin: the validating string scan is 18% of the profile, and the rest are items of 1–5% each. The next cut is structural: keep a string's JSON as the CLI wrote it from the transcript to the client, instead of unescaping, copying and escaping it again (a pre-escaped text type through the translator and the acp encoder). A chunk that comes alone costs what the poller and the kernel charge for a wake-up; that is under 5 µs only when chunks queue up.\n"
