package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/faultcli"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/transcriptgen"
)

// TestFocus runs only the streaming turn (with the bare CLI beside it) and
// the session/load replays of our adapter, alternating, and logs
// the figures issue 16 is about: a quick check while working on them, not
// the report (make bench-compare writes that). Opt-in:
//
// (ACPBENCH_FOCUS_B=/path/to/another alternates a second binary with the
// first, ACPBENCH_FOCUS_STREAM_ONLY=1 leaves the replays out,
// ACPBENCH_FOCUS_REPLAY_ONLY=1 the streaming turn; ACPBENCH_FOCUS_TURNS=n
// adds n warm turns and their first text; ACPBENCH_FOCUS_MSGS=n sets the
// synthetic transcript's messages):
//
//	ACPBENCH_FOCUS=/path/to/claude-agent-acp [ACPBENCH_FOCUS_N=3] go test -run TestFocus -v ./internal/tools/bench
func TestFocus(t *testing.T) {
	ours := os.Getenv("ACPBENCH_FOCUS")
	if ours == "" {
		t.Skip("set ACPBENCH_FOCUS to our adapter's binary")
	}
	n, _ := strconv.Atoi(os.Getenv("ACPBENCH_FOCUS_N"))
	n = max(n, 1)
	turns := -1 // ACPBENCH_FOCUS_TURNS=n adds n warm turns
	if v, err := strconv.Atoi(os.Getenv("ACPBENCH_FOCUS_TURNS")); err == nil && v > 0 {
		turns = v
	}
	cfg := Config{Ours: []string{ours}, CLI: clitest.CLIPath(t), Turns: turns, Deltas: 20000, ReplayMessages: 5000, Log: os.Stderr}
	if v, err := strconv.Atoi(os.Getenv("ACPBENCH_FOCUS_MSGS")); err == nil && v > 0 {
		cfg.ReplayMessages = v // the synthetic transcript's size
	}
	cfg.tmp = t.TempDir()
	ctx := context.Background()
	var err error
	if cfg.bare, err = probeAgentCLI(ctx, &cfg); err != nil {
		t.Fatal(err)
	}
	bins := []string{ours} // ACPBENCH_FOCUS_B: a second binary, alternating with the first
	if b := os.Getenv("ACPBENCH_FOCUS_B"); b != "" {
		bins = append(bins, b)
	}
	var lines []string
	perChunk := make([][]float64, len(bins))
	for i := range n {
		for k, bin := range bins {
			var bare, m sample
			for j := range 2 {
				if os.Getenv("ACPBENCH_FOCUS_REPLAY_ONLY") != "" {
					bare, m = sample{kStreamDone: 1}, sample{}
					break
				}
				if (i+j)%2 == 0 {
					if bare, err = runBare(ctx, &cfg); err != nil {
						t.Fatal(err)
					}
				} else if m, err = runAdapter(ctx, &cfg, []string{bin}); err != nil {
					t.Fatal(err)
				}
			}
			perChunk[k] = append(perChunk[k], m[kStreamCPUPerChunk])
			r, s := sample{}, sample{}
			if os.Getenv("ACPBENCH_FOCUS_STREAM_ONLY") == "" {
				if r, err = runReplay(ctx, &cfg, []string{bin}, realisticReplay); err != nil {
					t.Fatal(err)
				}
				if s, err = runReplay(ctx, &cfg, []string{bin}, syntheticReplay); err != nil {
					t.Fatal(err)
				}
			}
			lines = append(lines, fmt.Sprintf("%s: warm first text %.1f ms (bare %.1f ms); cold first text %.0f ms (bare %.0f ms, %.2fx); stream %.0f ms (bare %.0f ms, %.2fx), cpu/chunk %.1f µs, chunks %.0f, reads %.0f, writes %.0f, runs %.0f, faults %.0f; replay real %.1f µs/msg (first update %.1f ms, cpu %.1f, faults %.0f, answer %.0f ms, peak RSS %.1f MiB), synthetic %.1f µs/msg (first update %.1f ms, cpu %.1f, faults %.0f, answer %.0f ms, peak RSS %.1f MiB)",
				filepath.Base(bin), m[kTurnFirst]*1e3, bare[kTurnFirst]*1e3, m[kFirst]*1e3, bare[kFirst]*1e3, m[kFirst]/bare[kFirst], m[kStreamDone]*1e3, bare[kStreamDone]*1e3, m[kStreamDone]/bare[kStreamDone], m[kStreamCPUPerChunk]*1e6, m[kStreamChunks], m[kStreamReads], m[kStreamWrites], m[kStreamRuns], m[kStreamFaults],
				r["real"+rPerMsg]*1e6, r["real"+rFirst]*1e3, r["real"+rCPUPerMsg]*1e6, r["real"+rFaults], r["real"+rAnswer]*1e3, r["real"+rRSS]/(1<<20),
				s["replay"+rPerMsg]*1e6, s["replay"+rFirst]*1e3, s["replay"+rCPUPerMsg]*1e6, s["replay"+rFaults], s["replay"+rAnswer]*1e3, s["replay"+rRSS]/(1<<20)))
		}
	}
	for k, bin := range bins {
		lines = append(lines, fmt.Sprintf("%s: median cpu/chunk %.2f µs over %d turns", filepath.Base(bin), median(perChunk[k])*1e6, len(perChunk[k])))
	}
	t.Log("\n" + strings.Join(lines, "\n"))
}

// TestFocusRelay measures what relaying a streamed chunk costs our adapter
// without node, the fake API or a validating client on the machine: the
// adapter runs the fake CLI of package faultcli, which streams 20,000
// small text deltas (paced like the real CLI, one per ACPBENCH_RELAY_US
// microseconds, default 35; 0 = as fast as it can), and a lean client
// counts the notifications. It logs the adapter's CPU per chunk
// (user+system, from /proc). Opt-in, like TestFocus:
//
//	ACPBENCH_FOCUS=/path/to/claude-agent-acp go test -run TestFocusRelay -v ./internal/tools/bench
func TestFocusRelay(t *testing.T) {
	ours := os.Getenv("ACPBENCH_FOCUS")
	if ours == "" {
		t.Skip("set ACPBENCH_FOCUS to our adapter's binary")
	}
	n, _ := strconv.Atoi(os.Getenv("ACPBENCH_FOCUS_N"))
	n = max(n, 1)
	pace := 35
	if v := os.Getenv("ACPBENCH_RELAY_US"); v != "" {
		pace, _ = strconv.Atoi(v)
	}
	dir := t.TempDir()
	fake := filepath.Join(dir, "faultcli")
	if out, err := exec.Command("go", "build", "-o", fake, "github.com/claude-agent-acp/claude-agent-acp/internal/test/faultcli/cmd/faultcli").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	const deltas = 20000
	var lines []string
	for range n {
		home := t.TempDir()
		sb := &sandbox{home: home, work: t.TempDir(), env: faultcli.Env(t.TempDir(), "HOME="+home, "CLAUDE_CODE_EXECUTABLE="+fake)}
		c, err := startLean(context.Background(), []string{ours}, sb)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.call(acp.MethodInitialize, &acp.InitializeRequest{ProtocolVersion: 1}); err != nil {
			t.Fatal(err)
		}
		created, err := c.call(acp.MethodSessionNew, &acp.NewSessionRequest{Cwd: sb.work, MCPServers: []acp.MCPServer{}})
		if err != nil {
			t.Fatal(err)
		}
		var ns struct {
			Result acp.NewSessionResponse `json:"result"`
		}
		if err := json.Unmarshal(created.answer, &ns); err != nil {
			t.Fatal(err)
		}
		prompt := func(text string) (leanUpdates, error) {
			return c.call(acp.MethodSessionPrompt, &acp.PromptRequest{SessionID: ns.Result.SessionID,
				Prompt: []acp.ContentBlock{{Text: &acp.TextContent{Text: text}}}})
		}
		if _, err := prompt("echo warm up"); err != nil {
			t.Fatal(err)
		}
		before, err := readStat(c.cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		userBefore, sysBefore := userSys(t, c.cmd.Process.Pid)
		threadsBefore := threadCPU(c.cmd.Process.Pid)
		schedBefore := schedTotals(c.cmd.Process.Pid)
		start := time.Now()
		u, err := prompt(fmt.Sprintf("chunks %d 6 %d", deltas, pace))
		if err != nil {
			t.Fatal(err)
		}
		took := time.Since(start)
		after, err := readStat(c.cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		userAfter, sysAfter := userSys(t, c.cmd.Process.Pid)
		schedAfter := schedTotals(c.cmd.Process.Pid)
		var threads []string
		for tid, cpu := range threadCPU(c.cmd.Process.Pid) {
			if d := cpu - threadsBefore[tid]; d > 0 {
				threads = append(threads, fmt.Sprintf("%d:%v", tid-c.cmd.Process.Pid, d))
			}
		}
		sort.Strings(threads)
		c.close(10 * time.Second)
		cpu := after.cpu - before.cpu
		fine := schedAfter.cpu - schedBefore.cpu // schedstat: nanoseconds, where /proc/<pid>/stat counts 10 ms ticks
		lines = append(lines, fmt.Sprintf("relay: %d updates in %v, adapter CPU %v: %.2f µs per chunk (schedstat: %.2f µs; user %v, system %v; reads %d, writes %d, faults %d, runs %d; by thread, pid+n: %s)",
			u.n, took.Round(time.Millisecond), cpu, float64(cpu.Microseconds())/deltas, float64(fine.Nanoseconds())/1e3/deltas, userAfter-userBefore, sysAfter-sysBefore,
			after.syscr-before.syscr, after.syscw-before.syscw, after.minflt-before.minflt, schedAfter.runs-schedBefore.runs, strings.Join(threads, " ")))
	}
	t.Log("\n" + strings.Join(lines, "\n"))
}

// threadCPU reads the CPU time of each thread of a process.
func threadCPU(pid int) map[int]time.Duration {
	out := map[int]time.Duration{}
	dirs, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, d := range dirs {
		tid, _ := strconv.Atoi(d.Name())
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/stat", pid, tid))
		if err != nil {
			continue
		}
		f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
		u, _ := strconv.ParseInt(f[11], 10, 64)
		s, _ := strconv.ParseInt(f[12], 10, 64)
		out[tid] = time.Duration(u+s) * time.Second / clockTicks
	}
	return out
}

// userSys reads a process's user and system CPU time from /proc.
func userSys(t *testing.T, pid int) (user, sys time.Duration) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	ticks := func(s string) time.Duration {
		n, _ := strconv.ParseInt(s, 10, 64)
		return time.Duration(n) * time.Second / clockTicks
	}
	return ticks(f[11]), ticks(f[12])
}

// TestFocusTwoLoads loads two transcripts of the same shape, one after the
// other, into one adapter process, and logs the CPU and page faults of
// each: the second load runs with a warm heap and warm code, so the
// difference is what a fresh process pays. Opt-in, like TestFocus.
func TestFocusTwoLoads(t *testing.T) {
	ours := os.Getenv("ACPBENCH_FOCUS")
	if ours == "" {
		t.Skip("set ACPBENCH_FOCUS to our adapter's binary")
	}
	cfg := Config{Ours: []string{ours}, CLI: clitest.CLIPath(t), ReplayMessages: 5000, Log: os.Stderr}
	if v, err := strconv.Atoi(os.Getenv("ACPBENCH_FOCUS_MSGS")); err == nil && v > 0 {
		cfg.ReplayMessages = v // scales the transcripts down
	}
	cfg.tmp = t.TempDir()
	api, sb, err := newWorld(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer api.Close()
	if os.Getenv("ACPBENCH_FAKE_CLI") != "" { // the fake CLI of package faultcli, which uses no CPU
		fake := filepath.Join(t.TempDir(), "faultcli")
		if out, err := exec.Command("go", "build", "-o", fake, "github.com/claude-agent-acp/claude-agent-acp/internal/test/faultcli/cmd/faultcli").CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		sb.env = faultcli.Env(t.TempDir(), "HOME="+sb.home, "CLAUDE_CODE_EXECUTABLE="+fake)
	}
	var ids []string
	var active []int
	for seed := range 3 {
		o := realisticReplay.opts(&cfg)
		o.Seed += int64(seed) * 10
		o.Cwd = sb.work
		_, st, err := transcriptgen.WriteSession(filepath.Join(sb.home, ".claude"), o)
		if err != nil {
			t.Fatal(err)
		}
		ids, active = append(ids, st.SessionID), append(active, st.Active)
	}
	c, err := startLean(context.Background(), cfg.Ours, sb)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close(cfg.closeTimeout())
	if _, err := c.call(acp.MethodInitialize, &acp.InitializeRequest{ProtocolVersion: 1}); err != nil {
		t.Fatal(err)
	}
	pid := c.cmd.Process.Pid
	for i, id := range ids {
		before, _ := readStat(pid)
		ns, wait := schedNS(pid)
		start := time.Now()
		seen, err := c.call(acp.MethodSessionLoad, &acp.LoadSessionRequest{SessionID: acp.SessionID(id), Cwd: sb.work, MCPServers: []acp.MCPServer{}})
		if err != nil {
			t.Fatal(err)
		}
		after, _ := readStat(pid)
		ns2, wait2 := schedNS(pid)
		cpu := ns2 - ns
		t.Logf("load %d: %d msgs, cpu %v, runnable but waiting %v, first update %v, last update %.1f µs/msg, cpu %.1f µs/msg, faults %d, answer %v", i+1, active[i], cpu.Round(10*time.Microsecond), (wait2 - wait).Round(10*time.Microsecond), seen.first.Sub(start).Round(10*time.Microsecond),
			float64(seen.last.Sub(start).Microseconds())/float64(active[i]), float64(cpu.Microseconds())/float64(active[i]), after.minflt-before.minflt, time.Since(start).Round(time.Millisecond))
	}
}

// TestFocusWarm times warm turns in pairs with the bare CLI, as
// make bench-compare does (warmPairsRun), and logs each iteration's median
// first-text and answer overhead. With ACPBENCH_FOCUS_B set to a second
// binary, the iterations alternate between the two, so that a change can
// be compared with its base in the same minutes. Opt-in:
//
//	ACPBENCH_FOCUS=/path/a [ACPBENCH_FOCUS_B=/path/b] [ACPBENCH_FOCUS_N=4] [ACPBENCH_FOCUS_PAIRS=12] go test -run TestFocusWarm -v ./internal/tools/bench
func TestFocusWarm(t *testing.T) {
	bins := []string{os.Getenv("ACPBENCH_FOCUS")}
	if bins[0] == "" {
		t.Skip("set ACPBENCH_FOCUS to our adapter's binary")
	}
	if b := os.Getenv("ACPBENCH_FOCUS_B"); b != "" {
		bins = append(bins, b)
	}
	n, _ := strconv.Atoi(os.Getenv("ACPBENCH_FOCUS_N"))
	n = max(n, 1)
	pairs, _ := strconv.Atoi(os.Getenv("ACPBENCH_FOCUS_PAIRS"))
	cfg := Config{Ours: bins[:1], CLI: clitest.CLIPath(t), Deltas: 20000, WarmPairs: max(pairs, 20), Log: os.Stderr}
	cfg.tmp = t.TempDir()
	ctx := context.Background()
	var err error
	if cfg.bare, err = probeAgentCLI(ctx, &cfg); err != nil {
		t.Fatal(err)
	}
	firsts := make([][]float64, len(bins))
	for i := range n {
		for k, bin := range bins {
			var line strings.Builder
			cfg.paired = func(a, b turn, aAPI, bAPI time.Time) {
				ms := func(d time.Duration) float64 { return d.Seconds() * 1e3 }
				fmt.Fprintf(&line, "\n\t%5.1f = %5.1f + %5.1f | %5.1f = %5.1f + %5.1f", ms(a.toFirst()), ms(aAPI.Sub(a.sent)), ms(a.first.Sub(aAPI)), ms(b.toFirst()), ms(bAPI.Sub(b.sent)), ms(b.first.Sub(bAPI)))
			}
			w, err := warmPairsRun(ctx, &cfg, []string{bin})
			if err != nil {
				t.Fatal(err)
			}
			pairs, stream := w.pairs, w.streamRatios
			m := warmMedians(pairs)
			first, done := m[kOverFirst], m[kOverDone]
			for _, p := range pairs {
				firsts[k] = append(firsts[k], p.First)
			}
			t.Logf("iteration %d %s: first text %+.2f ms, answer %+.2f ms, stream %.3fx; pairs' first text, ms (= to the model request + from it), adapter | bare:%s", i+1, filepath.Base(bin), first*1e3, done*1e3, median(stream), line.String())
		}
	}
	for k, bin := range bins {
		t.Logf("%s: median first text %+.2f ms over %d pairs", bin, median(firsts[k])*1e3, len(firsts[k]))
	}
}

// TestFocusCold makes cold starts alone, alternating with the bare CLI's
// (and with other binaries', ACPBENCH_FOCUS_B: a list as in PATH), and logs each one split
// at the model request, with the CPU times at the end of the turn (the
// adapter's own, the CLI's and how long its threads waited for a CPU;
// ACPBENCH_FOCUS_DELTAS=5 makes the turn short, so that they are those of
// the start-up) and every binary's median ratio to the bare CLI of the
// same round. Opt-in:
//
//	ACPBENCH_FOCUS=/path/a [ACPBENCH_FOCUS_B=/path/b] [ACPBENCH_FOCUS_N=10] go test -run TestFocusCold -v ./internal/tools/bench
func TestFocusCold(t *testing.T) {
	bins := []string{os.Getenv("ACPBENCH_FOCUS")}
	if bins[0] == "" {
		t.Skip("set ACPBENCH_FOCUS to our adapter's binary")
	}
	if b := os.Getenv("ACPBENCH_FOCUS_B"); b != "" {
		bins = append(bins, filepath.SplitList(b)...) // more than one, as in PATH
	}
	n, _ := strconv.Atoi(os.Getenv("ACPBENCH_FOCUS_N"))
	n = max(n, 1)
	cfg := Config{Ours: bins[:1], CLI: clitest.CLIPath(t), Deltas: 20000, Log: os.Stderr}
	if v, err := strconv.Atoi(os.Getenv("ACPBENCH_FOCUS_DELTAS")); err == nil && v > 0 {
		cfg.Deltas = v // a short answer leaves the CPU times those of the start-up
	}
	cfg.tmp = t.TempDir()
	ctx := context.Background()
	var err error
	if cfg.bare, err = probeAgentCLI(ctx, &cfg); err != nil {
		t.Fatal(err)
	}
	ms := func(d time.Duration) float64 { return d.Seconds() * 1e3 }
	ratios := make([][]float64, len(bins))
	var lines strings.Builder
	for i := range n {
		// The bare CLI first in even rounds, last in odd ones; the binaries
		// take turns in each place.
		k := i % len(bins)
		order := append(append([]string(nil), bins[k:]...), bins[:k]...)
		if i%2 == 0 {
			order = append([]string{Bare}, order...)
		} else {
			order = append(order, Bare)
		}
		got := map[string]coldStart{}
		for _, sys := range order {
			var c coldStart
			if sys == Bare {
				c, err = runColdBare(ctx, &cfg)
			} else {
				c, err = runCold(ctx, &cfg, []string{sys})
			}
			if err != nil {
				t.Fatal(err)
			}
			got[sys] = c
		}
		b := got[Bare]
		fmt.Fprintf(&lines, "\nround %2d: bare %5.1f = %5.1f + %4.1f [cli %3.0f, waited %2.0f]", i+1, ms(b.first), ms(b.request), ms(b.first-b.request), ms(b.cli), ms(b.cliWaited))
		for k, bin := range bins {
			c := got[bin]
			r := c.first.Seconds() / b.first.Seconds()
			ratios[k] = append(ratios[k], r)
			fmt.Fprintf(&lines, " | %s %5.1f = %5.1f + %4.1f (%.3fx) [own %4.1f, cli %3.0f, waited %2.0f]", filepath.Base(bin), ms(c.first), ms(c.request), ms(c.first-c.request), r, ms(c.own), ms(c.cli), ms(c.cliWaited))
		}
	}
	for k, bin := range bins {
		fmt.Fprintf(&lines, "\n%s: median ratio %.3fx over %d rounds", bin, median(ratios[k]), n)
	}
	t.Log("cold first text, ms from the spawn (= to the model request + from it):" + lines.String())
}

// TestFocusSlowReader runs the streaming turn with the slow reader
// (slow.go) and with the main run's client, alternating, and logs what
// each cost the adapter: CPU per delta, chunks, wake-ups, writes. With
// ACPBENCH_FOCUS_PYTHON=1 a real Python client (testdata/slowclient.py,
// python3 on PATH) runs the same turn too, the check of the Go slow
// reader's calibration; ACPBENCH_FOCUS_B alternates a second binary, and
// ACPBENCH_FOCUS_CLIENTS (e.g. "slow,python") picks the clients.
// Opt-in:
//
//	ACPBENCH_FOCUS=/path/a [ACPBENCH_FOCUS_B=/path/b] [ACPBENCH_FOCUS_N=3] go test -run TestFocusSlowReader -v ./internal/bench
func TestFocusSlowReader(t *testing.T) {
	bins := []string{os.Getenv("ACPBENCH_FOCUS")}
	if bins[0] == "" {
		t.Skip("set ACPBENCH_FOCUS to our adapter's binary")
	}
	if b := os.Getenv("ACPBENCH_FOCUS_B"); b != "" {
		bins = append(bins, b)
	}
	n, _ := strconv.Atoi(os.Getenv("ACPBENCH_FOCUS_N"))
	n = max(n, 1)
	cfg := Config{Ours: bins[:1], CLI: clitest.CLIPath(t), Turns: -1, Deltas: 20000, Log: os.Stderr}
	cfg.tmp = t.TempDir()
	ctx := context.Background()
	python := os.Getenv("ACPBENCH_FOCUS_PYTHON") != ""
	clients := []string{"slow", "fast"}
	if python {
		clients = append(clients, "python")
	}
	if v := os.Getenv("ACPBENCH_FOCUS_CLIENTS"); v != "" { // e.g. "slow,python"
		clients = strings.Split(v, ",")
	}
	perDelta := map[string][]float64{}
	for i := range n {
		for k, bin := range bins {
			order := clients
			if (i+k)%2 == 1 {
				order = reversed(clients)
			}
			for _, client := range order {
				var line string
				switch client {
				case "slow":
					m, err := runSlowReader(ctx, &cfg, []string{bin})
					if err != nil {
						t.Fatal(err)
					}
					line = fmt.Sprintf("cpu/delta %5.2f µs, chunks %5.0f, runs %5.0f (preempted %4.0f), writes %5.0f, reads %5.0f, turn %4.0f ms, first %5.1f ms, client cpu/line %.1f µs",
						m[kSlowCPUPerChunk]*1e6, m[kSlowChunks], m[kSlowRuns], m[kSlowPreempted], m[kSlowWrites], m[kSlowReads], m[kSlowDone]*1e3, m[kSlowFirst]*1e3, m[kSlowClientLine]*1e6)
					perDelta[filepath.Base(bin)+" slow"] = append(perDelta[filepath.Base(bin)+" slow"], m[kSlowCPUPerChunk])
				case "fast":
					m, err := runAdapter(ctx, &cfg, []string{bin})
					if err != nil {
						t.Fatal(err)
					}
					line = fmt.Sprintf("cpu/delta %5.2f µs, chunks %5.0f, runs %5.0f, writes %5.0f, reads %5.0f, turn %4.0f ms",
						m[kStreamCPUPerChunk]*1e6, m[kStreamChunks], m[kStreamRuns], m[kStreamWrites], m[kStreamReads], m[kStreamDone]*1e3)
					perDelta[filepath.Base(bin)+" fast"] = append(perDelta[filepath.Base(bin)+" fast"], m[kStreamCPUPerChunk])
				case "python":
					r := runPythonClient(t, &cfg, bin)
					line = fmt.Sprintf("cpu/delta %5.2f µs, chunks %5.0f, runs %5.0f (preempted %4.0f), writes %5.0f, reads %5.0f, turn %4.0f ms, first %5.1f ms, client cpu/line %.1f µs",
						r.CPUNS/1e3/float64(cfg.Deltas), r.Chunks, r.Runs, r.Pre, r.Writes, r.Reads, r.Turn*1e3, r.First*1e3, r.Client*1e6/r.Lines)
					perDelta[filepath.Base(bin)+" python"] = append(perDelta[filepath.Base(bin)+" python"], r.CPUNS/1e9/float64(cfg.Deltas))
				}
				t.Logf("round %d %s %-6s %s", i+1, filepath.Base(bin), client, line)
			}
		}
	}
	keys := make([]string, 0, len(perDelta))
	for k := range perDelta {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%s: median cpu/delta %.2f µs over %d turns", k, median(perDelta[k])*1e6, len(perDelta[k]))
	}
}

// pythonResult is what testdata/slowclient.py prints.
type pythonResult struct {
	CPUNS  float64 `json:"cpu_ns"`
	Runs   float64 `json:"runs"`
	Pre    float64 `json:"preempted"`
	Writes float64 `json:"writes"`
	Reads  float64 `json:"reads"`
	Chunks float64 `json:"chunks"`
	Turn   float64 `json:"turn_s"`
	First  float64 `json:"first_s"`
	Client float64 `json:"client_cpu_s"` // the client's own CPU in the turn
	Lines  float64 `json:"lines"`        // the lines it read in the turn
}

// runPythonClient runs the streaming turn with testdata/slowclient.py.
func runPythonClient(t *testing.T, cfg *Config, bin string) pythonResult {
	t.Helper()
	api, sb, err := newWorld(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer api.Close()
	api.Script(streamStep(cfg.Deltas))
	script, err := filepath.Abs(filepath.Join("testdata", "slowclient.py"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("python3", script, bin)
	cmd.Env = append(append([]string(nil), sb.env...), "ACPBENCH_CWD="+sb.work)
	cmd.Dir = sb.work
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python client: %v\n%s", err, out)
	}
	var r pythonResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("python client: %v\n%s", err, out)
	}
	return r
}

// TestFocusReopen reopens the realistic transcript in our adapter (and in
// the reference with ACPBENCH_FOCUS_REF=1) and in the bare CLI, as make
// bench-compare does (reopen.go), and logs each round's load answer and
// first text. Opt-in:
//
//	ACPBENCH_FOCUS=/path/to/claude-agent-acp [ACPBENCH_FOCUS_N=2] go test -run TestFocusReopen -v ./internal/bench
func TestFocusReopen(t *testing.T) {
	ours := os.Getenv("ACPBENCH_FOCUS")
	if ours == "" {
		t.Skip("set ACPBENCH_FOCUS to our adapter's binary")
	}
	n, _ := strconv.Atoi(os.Getenv("ACPBENCH_FOCUS_N"))
	n = max(n, 1)
	cfg := Config{Ours: []string{ours}, CLI: clitest.CLIPath(t), ReplayMessages: 5000, Log: os.Stderr}
	cfg.tmp = t.TempDir()
	ctx := context.Background()
	var err error
	if cfg.bare, err = probeAgentCLI(ctx, &cfg); err != nil {
		t.Fatal(err)
	}
	adapters := map[string][]string{Ours: {ours}}
	order := []string{Bare, Ours}
	if os.Getenv("ACPBENCH_FOCUS_REF") != "" {
		adapters[Reference] = []string{referencePath(t)}
		order = append(order, Reference)
	}
	for i := range n {
		if i%2 == 1 {
			order = reversed(order)
		}
		got := map[string]sample{}
		for _, sys := range order {
			got[sys] = sample{}
		}
		if err := reopenRounds(ctx, &cfg, i, order, adapters, got); err != nil {
			t.Fatal(err)
		}
		for _, sys := range order {
			m := got[sys]
			t.Logf("round %d %-10s load answer %6.1f ms, prompt → first text %6.1f ms (%.2fx the bare CLI), load → first text %6.1f ms",
				i+1, sys, m[kReopenAnswer]*1e3, m[kReopenFirst]*1e3, m[kReopenRatio], m[kReopenTotal]*1e3)
		}
	}
}

// TestFocusRestore restores eight threads at once with a cap of three live
// CLIs (restore.go) in our adapter, and in the reference with
// ACPBENCH_FOCUS_REF=1, and logs the figures. Opt-in:
//
//	ACPBENCH_FOCUS=/path/to/claude-agent-acp [ACPBENCH_FOCUS_N=2] go test -run TestFocusRestore -v ./internal/bench
func TestFocusRestore(t *testing.T) {
	ours := os.Getenv("ACPBENCH_FOCUS")
	if ours == "" {
		t.Skip("set ACPBENCH_FOCUS to our adapter's binary")
	}
	n, _ := strconv.Atoi(os.Getenv("ACPBENCH_FOCUS_N"))
	n = max(n, 1)
	cfg := Config{Ours: []string{ours}, CLI: clitest.CLIPath(t), ReplayMessages: 5000, Log: os.Stderr}
	cfg.tmp = t.TempDir()
	systems := map[string][]string{Ours: {ours}}
	if os.Getenv("ACPBENCH_FOCUS_REF") != "" {
		systems[Reference] = []string{referencePath(t)}
	}
	for i := range n {
		for _, sys := range []string{Ours, Reference} {
			argv, ok := systems[sys]
			if !ok {
				continue
			}
			m, err := runRestore(context.Background(), &cfg, argv)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("round %d %-10s all answers %6.0f ms, live CLIs %.0f, tree RSS %s (peak %s), a CLI %s, over %d CLIs %s; fewest updates %.0f",
				i+1, sys, m[kRestoreAnswers]*1e3, m[kRestoreLive], mib.format(m[kRestoreRSS]), mib.format(m[kRestorePeak]), mib.format(m[kRestoreCLIRSS]), restoreCap, mib.format(m[kRestoreOver]), m[kRestoreUpdates])
		}
	}
}
