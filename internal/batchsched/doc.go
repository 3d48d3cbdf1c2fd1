// Package batchsched runs the agent as a batch task in Linux's scheduler
// (SCHED_BATCH): it takes the CPU when one is free, but its wake-ups do not
// preempt a task that is running, such as the editor's UI or the Claude
// Code CLI, which the agent would otherwise interrupt for every line the
// CLI writes.
//
// Why: relaying a streamed answer, the agent is woken once per line the
// CLI writes (a line every 50 to 60 µs on a 2-core VM), does a few
// microseconds of work and sleeps again. Waking at once, it preempted the
// CLI or the editor each time, and each wake-up cost it 20 to 26 µs of CPU
// on that VM, nearly all of it the kernel's switching, whatever the agent
// did in between: 5,800 to 10,000 wake-ups for an answer of 20,000
// deltas. As a batch task it runs when a CPU is free or at the end of the
// running task's time slice, and reads what the CLI wrote meanwhile at
// once: 900 to 4,700 wake-ups, less than half the CPU per relayed chunk
// (median 3.2 µs against 7.1 in alternating turns), and a turn that ends
// sooner (BENCHMARKS.md, issue 16, eleventh round). A batch task is
// not starved: it gets its fair share of the CPU like any other, only
// without preempting. When a CPU is idle, as it is while the editor waits
// for the next chunk, the agent runs as soon as it is woken.
//
// The CLI and everything else the agent starts run with the default
// policy (Start), so its scheduling is what it would be without the
// agent. Elsewhere than Linux the package does nothing.
package batchsched
