// Package rawio reads and writes pipes without waking the Go runtime's
// system monitor.
//
// Why: relaying a streamed chunk costs the agent one read of the CLI's pipe
// and one write to the editor's. Through os.File each is a blocking-style
// system call (entersyscall), and the first one after an idle moment wakes
// sysmon, which then polls every 20 µs for a while: on a 2-core VM that was
// about a third of the agent's CPU per chunk when chunks came one at a
// time (BENCHMARKS.md, issue 16). A read or write of a non-blocking
// descriptor never blocks, so it may be a raw system call, which the
// runtime does not account; when the descriptor is not ready the
// goroutine waits in the runtime's poller as os.File would.
//
// The same goes for the editor's stdin ([NewStdin]), for another reason:
// a blocking read keeps the goroutine's P until the monitor, asleep,
// takes it back, and the agent runs on one P; waiting in the poller holds
// none.
//
// Only Linux takes the raw path; elsewhere the functions return the file
// itself.
package rawio
