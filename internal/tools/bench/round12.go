package bench

// round12Account is the twelfth round of profileAccount (see there).
const round12Account = "\n" +
	"### Twelfth round: a replay on both cores\n" +
	"\n" +
	"Last round's two full runs missed the realistic replay's 15 µs per message (15.4 and 17.2 µs) on a VM that replayed slower than the ones before. This round's VM is quicker (the same binary: 9.2–10.5 µs per message beside the real CLI, `TestFocus`), so the question was what a replay still costs that it need not, whatever the machine.\n" +
	"\n" +
	"**Where the time went.** In process (agent `Replay/realistic`) a replay was the first pass over the file 21% of the CPU, reading and decoding the branch's records 37%, and translating and writing them 42%, one after the other on the agent's one thread, while the second core idled: the CLI is not started until the replay has had its head start, and the editor only reads. Beside the real CLI a realistic load's first history update came 6.3–9.8 ms after the request, and an `strace` of one load showed where part of that went: opening the 6.9 MB transcript read 16 MB, since the check of each of the 18 rewound turns for parallel tool calls read a line and then its parent, just before it, each with a fresh 256 KiB window. And a Bash result's 13 KB stdout, which repeats the tool result's text, was scanned and validated again only to find that it was the same bytes.\n" +
	"\n" +
	"**Changes.**\n" +
	"\n" +
	"- While a `session/load` replays, the agent has a second thread (`agent/threads.go`; it goes back to one when the last load ends, and a `GOMAXPROCS` from the environment is left alone), and the records are read and decoded on it a batch ahead of the translation (`transcript.Reader.RecordsAhead`: up to 64 records or 512 KiB a batch, two batches waiting: about 2 MiB in flight however long the transcript; only one load at a time reads ahead, so that an editor reopening many sessions at once does not multiply it). Smaller batches cost more than they saved: every hand-over that finds the other side asleep wakes a thread (16 records or 64 KiB a batch: 7.6 µs per message in process, against 6.0 with 32 or 64 records). The read-ahead gives what `Records` gives, skips and read errors included, and turns a panic while decoding into an error (`TestRecordsAhead*`).\n" +
	"- A line looked at out of order (the parallel-call check, the leaf, the title) is read alone and leaves the window as it was: opening the 3.7 MB test transcript with rewinds read 8.5 MB, now the file once (`TestOpeningReadsTheFileOnce`).\n" +
	"- `jsonfast.Dec.StrLike` takes a value that is the quote, the earlier string's bytes and a quote with one comparison: those bytes are a valid string's, so the value ends where they end. A 13 KB stdout with escapes: 11.8 µs → 0.2 µs (`BenchmarkStrLike`).\n" +
	"\n" +
	"| Measure | before | after |\n" +
	"|---|--:|--:|\n" +
	"| in process, realistic replay (`Replay/realistic`), per message, wall | 7.3–8.4 µs | 5.4–5.8 µs |\n" +
	"| the same, CPU per message (both threads) | 8.4–10 µs | 8.6–9.3 µs |\n" +
	"| in process, synthetic replay (`Replay/msgs=5000`), per message, wall | 4.8–5.6 µs | 4.1–4.3 µs |\n" +
	"| beside the real CLI, realistic replay, per message (`TestFocus`, alternating, 3–5 loads each) | 9.2–10.5 µs (one 15.3) | 8.4–9.5 µs (one 10.6) |\n" +
	"| the same, synthetic replay | 6.2–8.8 µs | 5.0–6.1 µs |\n" +
	"| the same, realistic: first history update after the request | 7.4–8.0 ms | 6.3–6.9 ms |\n" +
	"| the same, realistic: page faults of the load | 1,400–1,620 | 1,540–1,890 |\n" +
	"\n" +
	"The two threads cost no CPU to speak of but some memory: a fresh agent's first load now takes 100 to 300 more page faults (the records in flight and the second thread's own caches). On this VM a fault costs 1.1–1.8 µs, so the load is still much faster; on the VM of the fourth round (11 µs a fault) it would eat part of the gain. Beside the real CLI the gain is smaller than in process: the editor's reading of the 5 MB of history shares the second core, and the first pass over the file still runs alone before the first update.\n" +
	"\n" +
	"Left as they are: the first pass on one thread (splitting the file between two scanners means merging two indexes in file order, for about 1.5 ms of a realistic load's 25); the validation of each tool result's rawOutput when it is written (the acp codec checks every raw member; the record it came from was validated when it was decoded); and the copy of each Bash and Read output into its fenced text.\n" +
	"\n" +
	"**This round's full run** (the table above, 979 s): all ten targets met. The realistic replay 8.6 µs per message (7.7–11.3 µs across iterations; 18.6× the reference), the synthetic one 5.6 µs (19.8×); the adapter's peak RSS after the load 12.2 MiB, as before. The VM is not the last round's: the reference took 160 µs per realistic message here against 279 µs there, and the same binary 9.2–10.5 µs beside the real CLI before this round's changes, so most of the distance from last round's 17.2 µs is the machine; this round's changes are the 10–30% of the alternating pairs above. Streaming and start-up are unchanged by this round (CPU per relayed chunk 1.3 µs, streaming turn 0.87×, cold first answer 1.02×, warm first text 1.9 ms over the bare CLI in 100 pairs, the closest of the targets on this run).\n"
