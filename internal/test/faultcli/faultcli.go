// Package faultcli is a fake Claude Code CLI for fault-injection tests. A
// test binary becomes the fake when it is started with the environment
// from [Env]: its TestMain calls [Main] first, which runs the fake and
// exits instead of running the tests.
//
//	func TestMain(m *testing.M) {
//		faultcli.Main()
//		goleak.VerifyTestMain(m)
//	}
//
//	cfg.Executable = os.Args[0]
//	cfg.Env = faultcli.Env(dir)
//
// The fake speaks the CLI's stream-json protocol well enough for the agent:
// the initialize handshake, user messages with uuids (command_lifecycle,
// --replay-user-messages echoes), streamed text, interrupt,
// cancel_async_message and can_use_tool. Like the real CLI it dies on a
// stdin line that is not JSON, runs queued messages one after another, and
// finishes the running turn when stdin closes.
//
// # Faults
//
// What a turn does is chosen by the first word of the prompt text, so a
// test injects a fault in one turn and checks that the next one works:
//
//	echo …            stream "echo: …" and end the turn (also any unknown word)
//	hang              stream a little, then wait for an interrupt (or stdin EOF)
//	slow MS [TAG]     stream TAG (default ".") every 5 ms for MS milliseconds; interruptible
//	chunks N SIZE [US] stream N numbered chunks of SIZE bytes as fast as possible,
//	                  or one every US microseconds (on average: sleeps are coarse)
//	size              answer with the length of the prompt text ("size 123")
//	late MS           wait MS milliseconds (a model request), then stream "late"
//	crash             stream a little, then SIGKILL itself
//	exit N            stream a little, write to stderr, exit with status N
//	garbage           write lines that are not frames, then end the turn normally
//	garbage-exit      write lines that are not frames, then exit 1
//	flood-stderr      write 32 MiB to stderr, then exit 2
//	leak-exit         write the API key, a URL, a header and a private path
//	                  to stderr, then exit 1
//	ask               ask can_use_tool for Bash and end the turn with the answer
//	tool-after-cancel start a Bash tool call, wait for an interrupt, and only
//	                  then ask can_use_tool for it (the race a user meets when
//	                  pressing Stop while Claude asks)
//
// Faults before any prompt are set in the environment: [EnvStart] makes the
// process fail at startup (exit, hang, garbage, flood) and [EnvStubborn]
// makes it ignore stdin EOF and SIGTERM. [Heal] ends the startup fault for
// processes started later, so a test can check that the next prompt works.
//
// Every process appends what it did to a trace file in its state
// directory ([Trace]): its pid, the stdin frames it read, its answers to
// permission requests, the first text it streamed in each turn ("answer").
// Tests read it to find pids to kill and to check that no fake outlives
// the agent ([Alive]).
package faultcli

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Environment variables that control the fake.
const (
	// EnvScenario turns a test binary into the fake; its value is "serve".
	EnvScenario = "FAULTCLI_SCENARIO"
	// EnvDir is the state directory (trace file, once markers).
	EnvDir = "FAULTCLI_DIR"
	// EnvStart injects a startup fault: "exit" (exit 1 before answering
	// initialize, with a reason on stderr), "slow" (read stdin only after
	// 300 ms, then start as usual), "hang" (never answer),
	// "garbage" (non-JSON on stdout, then exit 1), "flood" (32 MiB on
	// stderr, then exit 1) or "leak" (secrets on stderr, as leak-exit, then
	// exit 1).
	EnvStart = "FAULTCLI_START"
	// EnvStubborn, when "1", makes the fake ignore stdin EOF and SIGTERM.
	EnvStubborn = "FAULTCLI_STUBBORN"
)

// Main runs the fake and exits if the environment asks for it; otherwise
// it returns at once. Call it first in TestMain.
func Main() {
	if os.Getenv(EnvScenario) == "" {
		return
	}
	os.Exit(run())
}

// Env returns the environment that makes a test binary calling [Main] act
// as the fake, keeping its state in dir. It starts from this process's
// environment without any ANTHROPIC_* or CLAUDE_* variable; kv adds or
// overrides entries ("KEY=VALUE").
func Env(dir string, kv ...string) []string {
	var env []string
	for _, e := range os.Environ() {
		if strings.HasPrefix(e, "ANTHROPIC_") || strings.HasPrefix(e, "CLAUDE_") || strings.HasPrefix(e, "FAULTCLI_") {
			continue
		}
		env = append(env, e)
	}
	// GORACE: a race-enabled fake would otherwise sleep 1 s at exit.
	env = append(env, EnvScenario+"=serve", EnvDir+"="+dir, "GORACE=atexit_sleep_ms=0")
	return append(env, kv...)
}

// Heal ends the startup fault ([EnvStart]) for fakes of dir started from
// now on.
func Heal(dir string) error {
	return os.WriteFile(filepath.Join(dir, "healed"), nil, 0o600)
}

// An Event is one line of the trace: which process did what.
type Event struct {
	PID    int
	What   string // start, frame, permission, exit, …
	Detail string
}

// Trace returns the events every fake with state directory dir recorded,
// in order.
func Trace(dir string) []Event {
	f, err := os.Open(filepath.Join(dir, "trace.log"))
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []Event
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), " ", 3)
		if len(parts) < 2 {
			continue
		}
		pid, _ := strconv.Atoi(parts[0])
		e := Event{PID: pid, What: parts[1]}
		if len(parts) == 3 {
			e.Detail = parts[2]
		}
		out = append(out, e)
	}
	return out
}

// PIDs returns the pids of every fake started with state directory dir.
func PIDs(dir string) []int {
	var pids []int
	for _, e := range Trace(dir) {
		if e.What == "start" {
			pids = append(pids, e.PID)
		}
	}
	return pids
}

// Alive reports whether pid is a live process (not gone, not a zombie).
func Alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return processExists(pid) // no /proc: a zombie counts as alive
	}
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 || i+2 >= len(data) {
		return false
	}
	state := data[i+2]
	return state != 'Z' && state != 'X'
}

// WaitGone waits until none of the fakes of dir is alive, or d passes, and
// returns the pids still alive.
func WaitGone(dir string, d time.Duration) []int {
	deadline := time.Now().Add(d)
	for {
		var alive []int
		for _, pid := range PIDs(dir) {
			if Alive(pid) {
				alive = append(alive, pid)
			}
		}
		if len(alive) == 0 || time.Now().After(deadline) {
			return alive
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// KillLeftovers waits up to d for the fakes of dir to exit, kills those
// still alive and returns their pids: a test reports them as a failure
// without leaving them running.
func KillLeftovers(dir string, d time.Duration) []int {
	alive := WaitGone(dir, d)
	for _, pid := range alive {
		killPID(pid)
	}
	return alive
}

// trace appends one event to the trace file. Each event is one short
// O_APPEND write, so concurrent fakes do not interleave within a line.
func trace(what, detail string) {
	dir := os.Getenv(EnvDir)
	if dir == "" {
		return
	}
	f, err := os.OpenFile(filepath.Join(dir, "trace.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	detail = strings.ReplaceAll(detail, "\n", " ")
	if len(detail) > 300 {
		detail = detail[:300]
	}
	fmt.Fprintf(f, "%d %s %s\n", os.Getpid(), what, detail)
}
