package bench

// round11Account is the eleventh round of profileAccount (see there).
const round11Account = "\n" +
	"### Eleventh round: a relayed chunk's cost is its wake-up\n" +
	"\n" +
	"This round's machine was slower than the last rounds': the same binary took 8 to 12 µs of CPU per relayed chunk beside the real CLI (`TestFocus`), where the tenth round's full runs gave 5.4 and 5.9 µs, and the bare CLI's streaming turn took 0.9 to 1.7 s against 0.5 to 0.9 s. So the CPU per chunk had to fall by half, not by a tenth.\n" +
	"\n" +
	"**Where the time went.** The harness now counts the streaming turn's page faults and how often the adapter's threads were put on a CPU (schedstat's timeslices: its wake-ups and its returns after a preemption; section 4 of the table). Two findings:\n" +
	"\n" +
	"- A streaming turn of 20,000 deltas made 1,000 to 1,350 page faults in the adapter: the heap grew through 15 MB of fresh 768-byte frames (one per delta, last round's one allocation), touched page by page. A perf profile of the relay over pipes (`TestFocusRelay`, the fake CLI) put allocation, collection and those faults at about a sixth of the adapter's samples. `GODEBUG=madvdontneed=0` changed nothing (1,263-1,323 faults): the pages were new, not given back and taken again.\n" +
	"- Beside the real CLI, the CPU of a turn followed its wake-ups, not the work: 5,800 to 9,900 per turn, 20 to 26 µs each, whatever the build. A profile of the adapter beside the real CLI (perf, 10 kHz, system-wide, cut to the adapter's threads): 46% in the kernel, of which the write to the editor's pipe 15% (mostly waking the editor, a thread on the other CPU: the samples land where the wake-up re-enables interrupts), the sleep in `epoll_pwait` 13.5% and reads 4%; the Go scheduler's idle path (`findRunnable`, its poll included) 19%. Of the session goroutine's samples, two thirds were a delta handled and written alone: most wake-ups carried one delta. A system call costs 250-380 ns on this VM (`getppid`, a read that finds nothing, `epoll_wait(0)`), so the five or six of a wake-up are a small part of its 20 µs; the rest is switching: the adapter woke for the CLI's line, preempting the CLI or the editor, and its write woke the editor, which took the CPU back. The faster the adapter's own work, the sooner it slept and the more often it was woken (the ninth round saw the same).\n" +
	"\n" +
	"**Changes.**\n" +
	"\n" +
	"- The session gives a delta it relayed back to the CLI's reader (`claude.Recycle`), which decodes a later delta into the same block: a turn runs in the few blocks in flight. The session copies the two strings it keeps (the message id chunks are grouped by, the key a burst merges by) when they change. Under the race detector a recycled block is scribbled over with `#`, so a string kept by mistake breaks the tests (`TestRelayedDeltasSurviveRecycling`: without the message id's copy the answer's text came twice).\n" +
	"- On Linux the agent is a batch task (`SCHED_BATCH`, `internal/batchsched`; `CLAUDE_AGENT_ACP_SCHED=normal` opts out): woken while the CPUs are busy, it does not preempt the running task but waits for the end of its time slice, and then reads everything the CLI wrote meanwhile; where a CPU is free it runs at once. The CLI and its reaper are forked from a thread set back to the default policy, so they keep theirs (`TestTheAgentIsABatchTaskAndTheCLIIsNot`).\n" +
	"\n" +
	"| Measure | before | after |\n" +
	"|---|--:|--:|\n" +
	"| `ReadPipeline` (5,000 frames): allocations, bytes; kept vs recycled by the consumer | 5,030, 4.48 MB | 19-20, 2.3-3.4 KB |\n" +
	"| relay over pipes (fake CLI, one delta per 35 µs), 6 + 6 alternating turns: page faults in the turn | 1,238-1,335 | 314-364 |\n" +
	"| the same: adapter CPU per delta (schedstat) | 3.4-5.1 µs | 2.9-3.3 µs |\n" +
	"| beside the real CLI, recycling alone, two runs of 6 + 6 alternating (`TestFocus`): median CPU per delta | 9.94, 8.44 µs | 9.52, 8.86 µs |\n" +
	"| beside the real CLI, batch task, 4 + 4 alternating: CPU per delta (median) | 5.2-10.7 µs (7.11) | 2.7-4.9 µs (3.19) |\n" +
	"| the same: wake-ups in the turn | 5,811-8,800 | 923-4,735 |\n" +
	"| the same: streaming turn over the bare CLI's | 0.81-1.14× | 0.65-0.79× |\n" +
	"| the same: realistic replay per message | 12.9-18.6 µs | 10.4-17.6 µs |\n" +
	"| warm first text over the bare CLI (`TestFocusWarm`, 80 pairs each, alternating) | +2.18 ms | +0.77 ms |\n" +
	"| cold first answer over the bare CLI (`TestFocusCold`, 16 rounds, alternating) | 1.042× | 1.032× |\n" +
	"\n" +
	"Recycling cut the work (a fifth of the CPU per delta where deltas come in bunches, three quarters of the faults) but not, beside the real CLI, the CPU per delta: there the wake-ups set it. The batch policy cut the wake-ups by three quarters and the CPU per delta by more than half, and the streaming turn ended sooner, since the CLI was no longer interrupted for each of its lines (the bare CLI, read by the harness at every line, now takes longer than the CLI behind the adapter). Where a chunk could wait for a CPU, it waits at most the rest of the running task's time slice (the kernel's setting; this round did not measure that wait by itself) and only while every CPU is busy; the warm first text and the cold first answer did not get worse.\n" +
	"\n" +
	"Tried and dropped: making the CLI a batch task too (an early build let it inherit the policy): no better than the agent alone (3.39 µs per delta in 5 turns), and the CLI's scheduling is not the agent's to change.\n" +
	"\n" +
	"**Two full runs this round** (the table above is the second). CPU per relayed chunk 3.4 and 3.6 µs (2.9–5.7 µs across iterations; the reference 97.3 and 94.7 µs); wake-ups in the main run's streaming turn 1,085 and 3,279 (the reference 4,325 and 5,458), page faults 48 and 43; the streaming turn 0.69× and 0.76× the bare CLI's; the cold first answer 1.01× and 1.02×; the warm first text −2.7 and −1.3 ms over the bare CLI (100 pairs each). The realistic replay missed its goal in both, at 15.4 and 17.2 µs per message (synthetic: 12 and 12.5 µs, met): this machine replays slower than the last rounds' (the reference took 240 and 279 µs per message against 200 in the tenth round's run; ours 14.9 µs of CPU per message in both against 11.1; /proc counts it in 10 ms ticks), and neither change of this round is on the replay's path, where `TestFocus` (4 + 4 alternating, above) found no difference. A profile of the realistic replay in a fresh process on this machine: page faults 12% of the adapter's samples (the heap, and the runtime's own span sets, growing to the load's size), decoding the records 18%, the runtime's copying and other work 16%, allocation 8%, encoding 7%, the transcript's reads and the history's writes 7%.\n"
