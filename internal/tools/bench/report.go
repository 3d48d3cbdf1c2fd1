package bench

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Metric keys of a sample.
const (
	kInit              = "start.initialize"
	kNew               = "start.session_new"
	kFirst             = "start.first_chunk"
	kTurnFirst         = "turn.first_chunk"
	kTurnDone          = "turn.answer"
	kTurnChunks        = "turn.chunks"
	kOverStart         = "over.start_first_chunk"
	kOverFirst         = "over.turn_first_chunk"
	kOverDone          = "over.turn_answer"
	kOverToRequest     = "over.turn_to_request"
	kOverFromRequest   = "over.turn_from_request"
	kOverChunk         = "over.chunk"
	kRSS               = "rss.self"
	kRSSTree           = "rss.tree"
	kCPU               = "cpu.self"
	kCPUTree           = "cpu.tree"
	kStreamDone        = "stream.answer"
	kStreamChunks      = "stream.chunks"
	kStreamRSS         = "stream.rss.self"
	kStreamCPU         = "stream.cpu.self"
	kStreamCPUPerChunk = "stream.cpu.per_chunk"
	kStreamReads       = "stream.syscalls.read"  // the adapter's read system calls in the turn
	kStreamWrites      = "stream.syscalls.write" // and its write system calls
	kStreamRuns        = "stream.runs"           // times the adapter's threads were put on a CPU in the turn
	kStreamFaults      = "stream.faults"         // the adapter's page faults in the turn
	kConcTurn          = "concurrent.turn"
	kConcTurnMax       = "concurrent.turn_max"
	kConcRSSPer        = "concurrent.rss_per_session"
	kConcRSS           = "concurrent.rss.self"
	kConcRSSTree       = "concurrent.rss.tree"
	kReplay            = "replay" + rAnswer
	kReplayLast        = "replay" + rLast
	kReplayPerMsg      = "replay" + rPerMsg
	kReplayUpdates     = "replay" + rUpdates
	kReplayCPU         = "replay" + rCPU
	kReplayCPUPerMsg   = "replay" + rCPUPerMsg
	kReplayRSS         = "replay" + rRSS
	kReal              = "real" + rAnswer
	kRealLast          = "real" + rLast
	kRealPerMsg        = "real" + rPerMsg
	kRealUpdates       = "real" + rUpdates
	kRealCPU           = "real" + rCPU
	kRealCPUPerMsg     = "real" + rCPUPerMsg
	kCodeLast          = "code" + rLast
	kCodePerMsg        = "code" + rPerMsg
	kCodeCPUPerMsg     = "code" + rCPUPerMsg
	kRatioStart        = "ratio.start_first_chunk" // ours (or the reference) over the bare CLI, same iteration
	kRatioStream       = "ratio.stream_answer"
	kRequests          = "api.messages"
	kOtherRequests     = "api.other"
)

// unit formats a value of a metric.
type unit int

const (
	ms unit = iota
	us
	mib
	cpuSec
	count
	ratio
)

func (u unit) format(v float64) string {
	switch u {
	case ms:
		return trim(v*1e3, 1) + " ms"
	case us:
		return trim(v*1e6, 1) + " µs"
	case mib:
		return trim(v/(1<<20), 1) + " MiB"
	case cpuSec:
		return trim(v, 2) + " s"
	case ratio:
		return trim(v, 2) + "×"
	}
	return trim(v, 1)
}

// trim prints v with at most prec decimals, fewer for large values.
func trim(v float64, prec int) string {
	if math.Abs(v) >= 100 {
		prec = 0
	}
	s := fmt.Sprintf("%.*f", prec, v)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// row is one line of the table.
type row struct {
	label string
	key   string
	unit  unit
	bare  bool // the bare CLI has this metric too
}

// oursOnly reports a metric of a feature only our adapter has.
func (rw row) oursOnly() bool { return strings.HasPrefix(rw.key, "hibernate.") }

// section is a titled group of rows; todo replaces the rows with a note.
type section struct {
	title string
	rows  []row
	todo  string
}

func sections(cfg Config) []section {
	return []section{
		{title: "1. Start-up (from process start)", rows: []row{
			{"→ `initialize` answer", kInit, ms, false},
			{"→ `session/new` answer", kNew, ms, false},
			{"→ first `agent_message_chunk` (bare CLI: first text delta)", kFirst, ms, true},
			{"  first text, over the bare CLI", kOverStart, ms, false},
			{"  cold first answer, ratio to the bare CLI (pairs of the same iteration)", kRatioStart, ratio, false},
		}},
		{title: fmt.Sprintf("2. Per turn, warm session (median of %d turns)", userTurns-1+cfg.Turns), rows: []row{
			{"prompt → first chunk (bare CLI: user message → first delta)", kTurnFirst, ms, true},
			{"  adapter overhead, first text (paired turns)", kOverFirst, ms, false},
			{"    of which to the model request (the way in and the CLI's preparation)", kOverToRequest, ms, false},
			{"    of which from the model request (the CLI's and the adapter's way out)", kOverFromRequest, ms, false},
			{"prompt → answer (bare CLI: → result)", kTurnDone, ms, true},
			{"  adapter overhead per turn (paired turns)", kOverDone, ms, false},
			{"  adapter overhead per streamed chunk (from section 4)", kOverChunk, us, false},
		}},
		{title: "3. Resources after the 5-turn run", rows: []row{
			{"adapter peak RSS, own process (bare CLI: the CLI)", kRSS, mib, true},
			{"peak RSS with the CLI children (sum of peaks)", kRSSTree, mib, true},
			{"adapter CPU, own process", kCPU, cpuSec, false},
			{"CPU with the CLI children", kCPUTree, cpuSec, true},
		}},
		{title: fmt.Sprintf("4. Streaming: one turn of %d text deltas", cfg.Deltas), rows: []row{
			{"prompt → answer, every chunk relayed", kStreamDone, ms, true},
			{"  turn time, ratio to the bare CLI (same iteration, paired turns)", kRatioStream, ratio, false},
			{"chunks the client received", kStreamChunks, count, true},
			{"adapter CPU during the turn, own process", kStreamCPU, cpuSec, false},
			{"  adapter CPU per relayed chunk", kStreamCPUPerChunk, us, false},
			{"  times the adapter was put on a CPU in the turn (its wake-ups)", kStreamRuns, count, false},
			{"  adapter page faults in the turn", kStreamFaults, count, false},
			{"adapter peak RSS after the turn", kStreamRSS, mib, false},
		}},
		{title: fmt.Sprintf("5. %d concurrent sessions in one agent", cfg.Sessions), rows: []row{
			{"adapter RSS per extra session", kConcRSSPer, mib, false},
			{"adapter peak RSS, own process", kConcRSS, mib, false},
			{"RSS with all CLI children", kConcRSSTree, mib, false},
			{"turn latency under load, median", kConcTurn, ms, false},
			{"turn latency under load, slowest", kConcTurnMax, ms, false},
		}},
		{title: fmt.Sprintf("6. `session/load` replay of a %d-message transcript", cfg.ReplayMessages), rows: []row{
			{"**realistic transcript (" + realisticLabel(cfg) + "): `session/load` → answer, the thread usable**", kReal, ms, false},
			{"`session/load` → last history update (the replay)", kReplayLast, ms, false},
			{"  per message on the active branch", kReplayPerMsg, us, false},
			{"`session/load` → answer (ours: once the history is out; the reference: once its CLI is up)", kReplay, ms, false},
			{"`session/update` notifications replayed", kReplayUpdates, count, false},
			{"adapter CPU for the load", kReplayCPU, cpuSec, false},
			{"  adapter CPU per message", kReplayCPUPerMsg, us, false},
			{"adapter peak RSS after the load", kReplayRSS, mib, false},
			{"realistic transcript (" + realisticLabel(cfg) + "): → last history update", kRealLast, ms, false},
			{"  per message on the active branch", kRealPerMsg, us, false},
			{"  adapter CPU per message", kRealCPUPerMsg, us, false},
			{"the same with source code for text (escape-dense, as real files are): → last history update", kCodeLast, ms, false},
			{"  per message on the active branch", kCodePerMsg, us, false},
			{"  adapter CPU per message", kCodeCPUPerMsg, us, false},
		}},
		{title: "7. Model API requests (fake API log)", rows: []row{
			{"`POST /v1/messages` for 5 user turns", kRequests, count, true},
			{"other HTTP requests", kOtherRequests, count, true},
		}},
		{title: fmt.Sprintf("8. Hibernation: %d open sessions, one prompt each in turn", cfg.HibernateSessions), rows: []row{
			{fmt.Sprintf("peak RSS of the whole tree, cap of %d live CLIs", hibernateCap), kHibRSSCap, mib, false},
			{"peak RSS of the whole tree, no cap", kHibRSSNoCap, mib, false},
			{"prompt → first chunk, hibernated session (resumes its CLI)", kHibResume, ms, false},
			{"prompt → first chunk, live session", kHibLive, ms, false},
		}},
		{title: fmt.Sprintf("9. Reopening a thread (%d-message working transcript), first prompt typed %.1f s after the `session/load`", reopenMessages, reopenTyping.Seconds()), rows: []row{
			{"`session/load` → answer", kReopenAnswer, ms, false},
			{"prompt → first chunk (bare CLI: resumed on the transcript at the load, prompted as late; its first delta)", kReopenFirst, ms, true},
			{"  ratio to the bare CLI (medians of pairs of the same iteration)", kReopenRatio, ratio, false},
			{"`session/load` (bare CLI: its spawn) → that prompt's first chunk", kReopenTotal, ms, true},
		}},
		{title: fmt.Sprintf("10. An editor restores %d threads at once (%d-message transcripts), `CLAUDE_AGENT_ACP_MAX_LIVE_SESSIONS=%d`", restoreThreads, restoreMessages, restoreCap), rows: []row{
			{"first `session/load` sent → every one answered", kRestoreAnswers, ms, false},
			{"history updates of the thread with fewest", kRestoreUpdates, count, false},
			{fmt.Sprintf("live CLIs %.0f s after the last answer (the reference ignores the cap)", restoreSettle.Seconds()), kRestoreLive, count, false},
			{"RSS of the whole process tree then", kRestoreRSS, mib, false},
			{"  peak meanwhile (sampled every 100 ms)", kRestorePeak, mib, false},
			{"  one live CLI's RSS", kRestoreCLIRSS, mib, false},
			{fmt.Sprintf("  the tree less %d CLIs (goal: at most 64 MiB)", restoreCap), kRestoreOver, mib, false},
		}},
		{title: fmt.Sprintf("11. Streaming to a slow reader: the %d-delta turn, a client that parses each line before it reads the next", cfg.Deltas), rows: []row{
			{"prompt → first chunk", kSlowFirst, ms, false},
			{"prompt → answer", kSlowDone, ms, false},
			{"chunks the client received", kSlowChunks, count, false},
			{"adapter CPU per delta", kSlowCPUPerChunk, us, false},
			{"  times the adapter was put on a CPU in the turn (its wake-ups)", kSlowRuns, count, false},
			{"  the adapter's write system calls in the turn", kSlowWrites, count, false},
		}},
	}
}

// Markdown renders the report: machine, method, the table, the targets.
func (r *Report) Markdown() string {
	var b strings.Builder
	cfg := r.Config
	fmt.Fprintf(&b, "Measured %s on %s.\n\n", r.Started.UTC().Format("2006-01-02"), r.Machine)
	fmt.Fprintf(&b, "- Claude Code CLI: %s (the same binary for every column)\n", r.Machine.CLI)
	fmt.Fprintf(&b, "- Go adapter: built with %s\n", r.Machine.Go)
	if len(cfg.Reference) > 0 {
		fmt.Fprintf(&b, "- TypeScript reference: %s on Node.js %s\n", r.Machine.Reference, r.Machine.Node)
	}
	if len(r.BareArgs) > 0 {
		fmt.Fprintf(&b, "- bare CLI: `claude %s`, environment plus `%s` (what our adapter gave its CLI in a probe run, read from /proc)\n",
			strings.Join(r.BareArgs, " "), strings.Join(r.BareEnv, " "))
	}
	fmt.Fprintf(&b, "- %d alternating iterations, %.0f s in all; cells are the median (min–max)\n\n",
		cfg.Iterations, r.Elapsed.Round(time.Second).Seconds())

	cols := []string{Ours}
	if len(cfg.Reference) > 0 {
		cols = append(cols, Reference)
	}
	cols = append(cols, Bare)
	b.WriteString("| Measure | " + strings.Join(cols, " | "))
	if len(cfg.Reference) > 0 {
		b.WriteString(" | TS / Go")
	}
	b.WriteString(" |\n|---|" + strings.Repeat("--:|", len(cols)))
	if len(cfg.Reference) > 0 {
		b.WriteString("--:|")
	}
	b.WriteString("\n")
	for _, s := range sections(cfg) {
		fmt.Fprintf(&b, "| **%s** |%s\n", s.title, strings.Repeat(" |", len(cols)+btoi(len(cfg.Reference) > 0)))
		if s.todo != "" {
			fmt.Fprintf(&b, "| %s |%s\n", s.todo, strings.Repeat(" |", len(cols)+btoi(len(cfg.Reference) > 0)))
			continue
		}
		for _, rw := range s.rows {
			b.WriteString("| " + rw.label)
			for _, c := range cols {
				b.WriteString(" | " + r.cell(c, rw))
			}
			if len(cfg.Reference) > 0 {
				b.WriteString(" | " + r.ratio(rw))
			}
			b.WriteString(" |\n")
		}
	}
	b.WriteString("\n")
	b.WriteString(r.targets())
	return b.String()
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (r *Report) cell(sys string, rw row) string {
	if sys == Bare && !rw.bare {
		return ""
	}
	if sys == Reference && rw.oursOnly() {
		return "no hibernation"
	}
	s, ok := summarize(r.Samples[sys], rw.key)
	if !ok {
		return "–"
	}
	if s.n == 1 || s.min == s.max {
		return rw.unit.format(s.med)
	}
	return fmt.Sprintf("%s (%s–%s)", rw.unit.format(s.med), trimUnit(rw.unit, s.min), rw.unit.format(s.max))
}

// trimUnit prints the low end of a range without its unit.
func trimUnit(u unit, v float64) string {
	s := u.format(v)
	if i := strings.LastIndexByte(s, ' '); i > 0 {
		return s[:i]
	}
	return s
}

// ratio is reference / ours of the medians: how many times more the
// reference takes. Overheads near zero make no meaningful ratio.
func (r *Report) ratio(rw row) string {
	a, okA := summarize(r.Samples[Ours], rw.key)
	b, okB := summarize(r.Samples[Reference], rw.key)
	if !okA || !okB || strings.HasPrefix(rw.key, "over.") && a.med <= 0 || strings.HasPrefix(rw.key, "ratio.") {
		return ""
	}
	if a.med == 0 {
		if b.med == 0 {
			return "1×"
		}
		return ""
	}
	return trim(b.med/a.med, 1) + "×"
}

// target is one of the goals issue 9 sets.
type target struct {
	what string
	met  func(r *Report) (string, bool)
}

// pooledFirst is the median first-text overhead of all sys's warm pairs,
// every iteration's together, and how many there were. A turn's first text
// varies by ±10 ms with the CLI's own preparation, so one iteration's
// median of a dozen pairs moves by a few ms; a hundred pairs pin it to
// about one.
func pooledFirst(r *Report, sys string) (float64, int) {
	var vs []float64
	for _, p := range r.Pairs[sys] {
		vs = append(vs, p.First)
	}
	if len(vs) == 0 {
		return math.NaN(), 0
	}
	return median(vs), len(vs)
}

func med(r *Report, sys, key string) float64 {
	s, ok := summarize(r.Samples[sys], key)
	if !ok {
		return math.NaN()
	}
	return s.med
}

var targets = []target{
	{"start → `initialize` at least 20× faster than the reference", func(r *Report) (string, bool) {
		x := med(r, Reference, kInit) / med(r, Ours, kInit)
		return trim(x, 1) + "×", x >= 20
	}},
	{"adapter peak RSS at most 15 MiB", func(r *Report) (string, bool) {
		v := med(r, Ours, kRSS)
		return mib.format(v), v <= 15<<20
	}},
	{"first text within 2 ms of the bare CLI (warm turn)", func(r *Report) (string, bool) {
		v, n := pooledFirst(r, Ours)
		if n == 0 { // no pairs: the iterations' differences
			v = med(r, Ours, kOverFirst)
			return ms.format(v), v <= 2e-3
		}
		return fmt.Sprintf("%s (%d pairs)", ms.format(v), n), v <= 2e-3
	}},
	{"per-chunk overhead under 50 µs", func(r *Report) (string, bool) {
		v := med(r, Ours, kOverChunk)
		return us.format(v), v < 50e-6
	}},
	// Issue 16: as fast as the CLI allows.
	{"cold first answer at most 1.05× the bare CLI's", func(r *Report) (string, bool) {
		v := med(r, Ours, kRatioStart)
		return ratio.format(v), v <= 1.05
	}},
	{"`session/load` replay at least 10× faster than the reference (realistic transcript)", func(r *Report) (string, bool) {
		x := med(r, Reference, kRealLast) / med(r, Ours, kRealLast)
		return trim(x, 1) + "×", x >= 10
	}},
	{"`session/load` replay at most 15 µs per message (realistic transcript)", func(r *Report) (string, bool) {
		return judged(us, med(r, Ours, kRealPerMsg), 15e-6)
	}},
	{"`session/load` replay at most 15 µs per message (synthetic transcript)", func(r *Report) (string, bool) {
		return judged(us, med(r, Ours, kReplayPerMsg), 15e-6)
	}},
	{"streaming: adapter CPU at most 5 µs per relayed chunk", func(r *Report) (string, bool) {
		return judged(us, med(r, Ours, kStreamCPUPerChunk), 5e-6)
	}},
	{"streaming turn at most 1.2× the bare CLI's", func(r *Report) (string, bool) {
		v := med(r, Ours, kRatioStream)
		return ratio.format(v), v <= 1.2
	}},
	// Issue 38: reopening a thread is instant, and many open threads fit
	// in the memory cap.
	{"`session/load` → answer at least 10× faster than the reference (realistic transcript)", func(r *Report) (string, bool) {
		x := med(r, Reference, kReal) / med(r, Ours, kReal)
		return trim(x, 1) + "×", x >= 10
	}},
	{"first prompt after a load at most 1.5× the bare CLI resumed the same way", func(r *Report) (string, bool) {
		v := med(r, Ours, kReopenRatio)
		return ratio.format(v), v <= 1.5
	}},
	{fmt.Sprintf("%d threads restored with a cap of %d: at most %d live CLIs", restoreThreads, restoreCap, restoreCap), func(r *Report) (string, bool) {
		v := med(r, Ours, kRestoreLive)
		return count.format(v), v <= restoreCap
	}},
	{fmt.Sprintf("%d threads restored with a cap of %d: tree RSS at most %d CLIs + 64 MiB", restoreThreads, restoreCap, restoreCap), func(r *Report) (string, bool) {
		v := med(r, Ours, kRestoreOver)
		return mib.format(v) + " over", v <= 64<<20
	}},
	{"slow reader: adapter CPU at most 5 µs per delta", func(r *Report) (string, bool) {
		return judged(us, med(r, Ours, kSlowCPUPerChunk), 5e-6)
	}},
}

// judged formats v (in µs or ms) for a target of at most limit: with two
// decimals where one would print the limit itself for a value above it
// (round 13's second run: "15 µs", **no**).
func judged(u unit, v, limit float64) (string, bool) {
	s := u.format(v)
	if v > limit && s == u.format(limit) {
		scale := 1e6 // us
		if u == ms {
			scale = 1e3
		}
		s = fmt.Sprintf("%.2f", v*scale) + s[strings.LastIndexByte(s, ' '):]
	}
	return s, v <= limit
}

// realisticLabel describes the realistic replay transcript.
func realisticLabel(cfg Config) string {
	o := realisticReplay.opts(&cfg)
	return fmt.Sprintf("%d messages, Bash and Read results of ~%d KB", o.Messages, o.ToolOutput/1000)
}

func (r *Report) targets() string {
	var b strings.Builder
	b.WriteString("| Target | Go adapter | Met |\n|---|--:|:-:|\n")
	for _, t := range targets {
		v, ok := t.met(r)
		if strings.Contains(v, "NaN") {
			fmt.Fprintf(&b, "| %s | – | – |\n", t.what)
			continue
		}
		mark := "yes"
		if !ok {
			mark = "**no**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", t.what, v, mark)
	}
	return b.String()
}

// Document is the whole of BENCHMARKS.md: how to rerun, what is measured,
// and the report.
func (r *Report) Document() string {
	return documentHead + r.Markdown() + documentTail + profileAccount + round5Account + round6Account + round7Account + round8Account + round9Account + round10Account + round11Account + round12Account + round13Account + round14Account + round15Account
}

// profileAccount is the profile-driven account of issue 16: where the time
// of a replayed message and of a relayed chunk went, before and after. Its
// numbers come from the Go benchmarks (same run, old and new binaries
// alternating, benchstat medians of 6 on a busy 2-core machine), not from
// the side-by-side run above.
const profileAccount = "\n## Where the time goes: replay and streaming (issue 16)\n\n" +
	"Profiles of the in-process benchmarks (`go test -bench 'Replay|TranslateTextDelta' ./agent`, " +
	"`-bench 'DecodeTextDelta|ReadPipeline' ./claude`, `-bench ReadActiveChain ./claude/transcript`, " +
	"`-bench EncodeNotification ./acp`; `make bench-short` runs them all briefly, and `make test-all` does).\n\n" +
	"| Path (benchmark) | before | after |\n|---|--:|--:|\n" +
	"| replay, 5,000 messages (agent `Replay`), per message | 36.8 µs, 74 allocs, 8.1 KB | 19.5 µs, 28 allocs, 4.2 KB |\n" +
	"| replay, 20,000 messages, per message | 38.1 µs | 15.1 µs |\n" +
	"| transcript read (index + decode of the branch), per message | 25.3 µs, 35 allocs | 5.1 µs, 9.4 allocs |\n" +
	"| transcript first pass (index), per message | 1.8 µs | 1.8 µs (linear to 100,000; 16 B/message kept) |\n" +
	"| relayed chunk, decode → translate → encode (agent `TranslateTextDelta`) | 9.7 µs, 37 allocs | 3.3 µs, 8 allocs |\n" +
	"| decode of a text delta frame (claude `DecodeTextDelta`) | 5.0 µs, 18 allocs | 0.84 µs, 1 alloc |\n" +
	"| CLI pipe → Messages channel, per frame (claude `ReadPipeline`) | 8.6 µs, 17 allocs | 3.9 µs, 3 allocs |\n" +
	"| agent_message_chunk encoding (acp `EncodeNotification`) | 1.19 µs, 12 allocs | 0.37 µs, 0 allocs |\n\n" +
	"**Before.** Replay CPU: encoding/json decoding the transcript's records took about 40% " +
	"(`checkValid` alone 15%: encoding/json scans every line twice, then the first-pass scanner a third time " +
	"to undo its case-insensitive key matching), the acp encoder 11% (every nested value went through " +
	"encoding/json or a buffer of its own that was then copied), the agent's own JSON work on tool inputs and " +
	"results 30%. Allocation: the encoder's per-level buffers and strings, the records' reflection-built " +
	"fields. Streaming: `DecodeMessage` was 57% of a chunk (encoding/json 51%), the encoding 17%, the rest " +
	"the session goroutine.\n\n" +
	"**Changes.** `internal/jsonfast`, a validating cursor that skips strings eight bytes at a time " +
	"(4 GB/s) and never reflects; on it, a record decoder (`claude/transcript`) and a stream-event decoder " +
	"(`claude`) that decode straight into their structs and fall back to encoding/json on anything unusual " +
	"(differential tests and fuzz targets check that both agree byte for byte); transcript lines are read " +
	"through a 256 KiB window instead of one `pread` each; the CLI reader hands a frame straight to a " +
	"waiting consumer; the acp codec writes nested values in place (`appendJSON`) with no boxing, its " +
	"strings eight bytes at a time, and validates raw members with jsonfast.\n\n" +
	"**After.** Replay CPU (synthetic transcript): transcript read 12% and first pass 8%, acp encoding 12%; " +
	"what is left above that is the agent's translation: encoding/json `Unmarshal` of tool inputs and " +
	"structured results (16%; `decodeInput`, `bashResult`, `readResult`, `editResult`, `toolResultText`) " +
	"and `Marshal` in `mustJSON` (10%; tool content encoded again on every report only to see whether it " +
	"changed). On the realistic transcript (13 KB tool results) those two are half the time. Streaming: decode " +
	"16%, encoding 19%; the rest is the agent's hand-off to the session goroutine and its per-chunk " +
	"allocations. The relayed chunk's remaining cost in a real run is mostly system calls and goroutine " +
	"wake-ups: one read per CLI line, one write per notification.\n" +
	"\n### Second round\n\n" +
	"Same benchmarks, plus the realistic transcript in process (agent `Replay/realistic`), chunks that " +
	"queued up (agent `BurstTextDeltas`) and a relay over real pipes without node or a validating client " +
	"(internal/tools/bench `TestFocusRelay`: our binary, the fake CLI of internal/test/faultcli streaming 20,000 " +
	"six-byte deltas shaped like the real CLI's, a lean client; the adapter's CPU from /proc). Old and new " +
	"alternating, medians of 4 to 5 runs on a 2-core machine that other work kept busy, so only the " +
	"ratios are firm (quieter moments gave 12–13 µs per realistic message after); the in-process " +
	"benchmarks run with GOMAXPROCS=2, as the adapter's replay does; per message is over the active " +
	"branch; CPU is the process's, garbage collector included.\n\n" +
	"| Path (benchmark) | before | after |\n|---|--:|--:|\n" +
	"| replay, realistic transcript (2,800 messages, 13 KB tool results), per message | " + round2RealBefore + " | " + round2RealAfter + " |\n" +
	"| replay, 5,000 messages, per message | " + round2SynthBefore + " | " + round2SynthAfter + " |\n" +
	"| relayed chunk, one at a time (agent `TranslateTextDelta`) | 3.7 µs, 6 allocs | 3.8 µs, 6 allocs |\n" +
	"| relayed chunk, 64 that queued up (agent `BurstTextDeltas`) | (no bursts) | 1.4 µs, 1 alloc |\n" +
	"| relay over pipes, one delta per 35 µs: adapter CPU per delta | " + round2RelayBefore + " | " + round2RelayAfter + " |\n" +
	"| relay over pipes, one delta per 200 µs: adapter CPU per delta | 41 µs | 26–33 µs |\n\n" +
	"**Before.** Replaying the realistic transcript, the agent's own JSON work on tool results was 63% " +
	"of the CPU: encoding/json `Unmarshal` of the tool_result text, of the Bash, Read and Edit structured " +
	"results and of tool inputs (35%); `Marshal` of rawOutput and of each report's content only to hash " +
	"it (15%; the byte-by-byte FNV loop over 13 KB alone 4%); and a copy of every 13 KB string on the way. " +
	"Streaming: a profile of the adapter in a real run (perf) showed mostly the Go scheduler, not our " +
	"code. Per chunk the CLI's reader hands the frame to the session goroutine, which woke a second " +
	"thread that found nothing to do, spun and slept again; and sysmon, woken by the first system call " +
	"after every idle moment, polled every 20 µs for a while. The relaying code itself is about 3 µs.\n\n" +
	"**Changes.** Replay: tool inputs, tool_result text and structured results decode with jsonfast " +
	"(`jsonfast.Object`, `Dec.Members`; encoding/json for anything unusual; differential tests and fuzz " +
	"targets) into strings that share the frame's or record's own bytes (`Dec.ResetShared`); a long " +
	"transcript line is copied once and its big values are shared; rawOutput is written by " +
	"`jsonfast.AppendString` (Marshal's bytes); a report's content is keyed field by field with maphash " +
	"instead of being encoded to be hashed; the updates go out one write per 64 records " +
	"(`acp.Conn.Hold`). Streaming: what the CLI's reader queued while the session was busy is handled as " +
	"one burst (`claude.Process.TryMessage`) and written in one write, and once 16 frames queued up, " +
	"consecutive deltas of one block are merged into one chunk. The relay-over-pipes figures after were " +
	"taken with the agent on one thread (`GOMAXPROCS=1`), which ends the second thread's wake-ups; that " +
	"default was not kept: in the side-by-side harness (two alternating pairs of runs, one thread against " +
	"two) it showed no clear gain per chunk or per replayed message and a slower streaming turn in both " +
	"pairs (docs/design.md, \"Decisions\").\n\n" +
	"**After.** Replay (realistic transcript): decoding the branch's records 38%, the first " +
	"pass 18%, tool results 28%, encoding 10%: what is left is reading, scanning and copying the bytes " +
	"(jsonfast's string scan is the largest single item, 16%). Streaming: the CPU per chunk is still " +
	"mostly the runtime's when chunks come one at a time: a wake-up of the thread that polls the CLI's " +
	"pipe, and sysmon's (at one chunk per 200 µs, sysmon alone is about 6 µs per chunk); no change in " +
	"the adapter removes those. Under 5 µs per chunk is reached when chunks queue up (bursts), not when " +
	"the agent idles between them. In the side-by-side run above the replay costs more CPU per message " +
	"than in process (the 5.4 MB of updates of the realistic transcript go through a real pipe, and the CLI " +
	"starting beside the replay is answered meanwhile), which is why its realistic transcript still " +
	"misses 15 µs per message.\n" +
	"\n### Third round\n\n" +
	"Streaming first: a relay over pipes (internal/tools/bench `TestFocusRelay`, 3 runs per variant, the fake " +
	"CLI pacing 20,000 deltas) and the real CLI beside the bare CLI (`TestFocus`, 3+3 alternating runs); " +
	"then the cold first answer (`TestFocus`, 3+3 alternating) and the replay in process (agent " +
	"`Replay/realistic`, old and new binaries alternating, GOMAXPROCS=1).\n\n" +
	"| Path | before | after |\n|---|--:|--:|\n" +
	"| relay over pipes, one delta per 60 µs: adapter CPU per delta | 16–16.5 µs | 4.5–5 µs |\n" +
	"| relay over pipes, one delta per 200 µs (nothing merged): adapter CPU per delta | 37–48.5 µs | 11–11.5 µs |\n" +
	"| beside the real CLI: adapter CPU per delta | 9.5–13 µs | 4.5–6 µs |\n" +
	"| beside the real CLI: streaming turn over the bare CLI's | 1.22–1.46× | 1.05–1.17× |\n" +
	"| cold first answer over the bare CLI's | 0.96–1.30× (median 1.05×) | 0.92–1.01× (median 0.97×) |\n" +
	"| replay, realistic transcript, in process: bytes and allocations per replay | 15.7 MB, 48,266 | 13.6 MB, 47,812 |\n\n" +
	"**Before.** perf on the adapter relaying one delta per 200 µs: per 2.5 s, 16,000 context switches, " +
	"11,000 futex calls, 8,600 epoll waits and 3,700 nanosleeps for about 12,500 deltas. About a fifth of " +
	"the CPU was sysmon (the runtime's monitor: woken by the first read or write after every idle moment, " +
	"then polling every 20 µs), about a quarter the second thread (woken at every hand-off between " +
	"goroutines, to look for work it never found, and put back to sleep). The cold first prompt waited " +
	"behind two round trips to a CLI busy starting up: the answers to initialize and to get_settings.\n\n" +
	"**Changes.** The CLI's stdout is read, and the editor's pipe written, with raw system calls on " +
	"non-blocking descriptors (`internal/rawio`): they never block, so the runtime does not account " +
	"them, and sysmon stays asleep. The agent runs its Go code on one thread unless GOMAXPROCS says " +
	"otherwise (the one-thread default that showed no clear gain in the second round does, once sysmon " +
	"no longer hides it). A session's first CLI starts with `claude.StartAsync`, and its first prompt is " +
	"written right behind the initialize and get_settings requests, unless a setting changed since the " +
	"spawn (that change must reach the CLI first). A tool result's rawOutput is the CLI's own JSON " +
	"string, not the text escaped again, and a Bash result's stdout that repeats the result text is not " +
	"decoded a second time (`jsonfast.Dec.StrLike`); the transcript's first pass skips strings to their closing quote without validating their insides, as the byte scanner it stands for does (`jsonfast.Dec.ResetLax`; the records replayed are validated when decoded): in process the realistic replay went from about 13.5 to 11.5 µs per message.\n\n" +
	"**After.** 4.5–6 µs per delta beside the real CLI in the focused harness (6.5–7.5 µs in the full one, whose validating client shares the two cores), and 11 µs when every delta comes alone with " +
	"200 µs of idle between: what is left per delta is one epoll wait, one read and one write, each a " +
	"few microseconds on this VM. The replay is unchanged where it counts: most of its CPU is scanning " +
	"and copying the transcript's bytes (jsonfast's string scan alone is a fifth), and in the side-by-side " +
	"run it shares two cores with the CLI starting beside it; starting the CLI after the replay made the " +
	"replay about a quarter faster but the answer later, so it was not kept. The harness now makes five " +
	"cold starts per iteration, alternating with the bare CLI's, and takes the median of the pairs' " +
	"ratios: a single pair swung from 0.87× to 1.29× within one run. Two full runs of the harness on the " +
	"final code, the same afternoon, gave the realistic replay 18.6 µs per message (11.1× the reference) " +
	"and 26.1 µs (8.7×), and the CPU per relayed chunk 6.5 and 7.5 µs: on this shared VM the spread " +
	"between runs is larger than what the last changes gained in process.\n" +
	"\n### Fourth round: why a replay costs twice as much in a real agent process\n\n" +
	"In process (agent `Replay/realistic`, GOMAXPROCS=1) a replay costs about 11 µs per message, the " +
	"first one in a fresh test process too; in a real agent process, with the fake CLI of package " +
	"faultcli so that no CLI competes for the cores (internal/tools/bench `TestFocusTwoLoads`, " +
	"`ACPBENCH_FAKE_CLI=1`), 25–28 µs CPU for a fresh process's first load and 17–22 µs for the next " +
	"ones. The difference, measured piece by piece on this VM:\n\n" +
	"| Piece | measured |\n|---|--:|\n" +
	"| a page fault (first touch of an anonymous page; a Go program touching 4,096 pages) | 11.4–11.9 µs |\n" +
	"| the same pages populated by one `madvise(MADV_POPULATE_WRITE)` | 1.2–1.3 µs per page |\n" +
	"| page faults of a realistic load: first in the process, then later ones | about 1,200, then 70–280 |\n" +
	"| a load of 60 messages with the fake CLI (the fixed cost of a load: spawning, handshake, fresh buffers) | 7–14 ms CPU |\n" +
	"| the replay's output through a real pipe to a reader instead of discarded, in process | +2.5–3 µs per message |\n" +
	"| start of the binary (`--version`; it also starts once per session as the CLI's reaper): before, after lazy init | 15 ms and 500 faults, 11 ms and 310 (a Go hello world: 7.5 ms, 170) |\n\n" +
	"This VM makes page faults about fifty times dearer than bare metal, and a fresh process's replay " +
	"touches a fresh heap: about 5 µs of every message in the first load is faults. Changes: the transcript " +
	"is read with raw `preadv2(RWF_NOWAIT)` calls (perf of three loads: the runtime monitor's samples " +
	"fell from 111 to about 60 of 1,300, since a 256 KiB read no longer handed the only thread's work " +
	"to another); the editor's pipe is grown to 1 MiB, so a 256 KiB burst is one write (in process, " +
	"output through a pipe: better in four of six alternating pairs for a first replay, five of six " +
	"for a second, by up to 4 µs per message); the package-level regexps and tables are built on first " +
	"use, not at start (our packages' init: 2,512 allocations and 306 KB before, 81 and 8.5 KB after; " +
	"`TestInitIsCheap` keeps it so). Tried and dropped: GOGC=50 (first-load faults 1,200 → 700–800, but " +
	"more collections cost every relayed chunk: `TranslateTextDelta` 1.94 → 2.04–2.34 µs); pre-touching " +
	"4–8 MiB of heap at start with `MADV_POPULATE_WRITE` (300 faults in some runs and 2,200 in others: " +
	"the runtime gave the memory back first); GOGC=200 and GOGC=off (more faults, more CPU).\n"

// Second-round figures of profileAccount (see there).
const (
	round2RealBefore  = "33 µs, 38 µs CPU, 23 allocs, 7.6 KB"
	round2RealAfter   = "17 µs, 20 µs CPU, 18 allocs, 5.8 KB"
	round2SynthBefore = "13.4 µs, 15 µs CPU, 23 allocs, 3.1 KB"
	round2SynthAfter  = "10.8 µs, 12 µs CPU, 18 allocs, 2.7 KB"
	round2RelayBefore = "15 µs"
	round2RelayAfter  = "8.5 µs (4,400 chunks: merged)"
)

const documentHead = "# Benchmarks\n\n" +
	"This adapter beside the TypeScript reference (`@agentclientprotocol/claude-agent-acp` from npm) and the " +
	"bare Claude Code CLI, on the same work in one run. Rerun with `make bench-compare` " +
	"(harness: `internal/tools/bench`, program: `internal/tools/bench/cmd/acpbench`).\n\n" +
	"Every system runs the same pinned Claude Code CLI (both adapters honour `CLAUDE_CODE_EXECUTABLE`) " +
	"against the same fake Messages API (`internal/test/fakeapi`) on 127.0.0.1, in a fresh HOME, driven by the " +
	"same scripted ACP client (our `acp.Conn`). The iterations alternate the order of the adapters. " +
	"The bare CLI column is the CLI driven directly over stream-json with the argv and environment our " +
	"adapter gives it (read from /proc in a probe run before the iterations): " +
	"the difference is the adapter's own overhead. RSS is the kernel's VmHWM of the process; CPU is " +
	"user+system time from /proc, for the adapter alone and for its whole process tree; the streaming " +
	"turn's is the adapter's threads' time from schedstat, in nanoseconds where /proc counts 10 ms ticks.\n\n"

const documentTail = "\n" +
	"TS / Go is the reference's median over ours: above 1, the reference takes that many times more time, " +
	"memory or requests. A warm turn's overheads (first text, answer) are measured turn by turn: the adapter " +
	"and the bare CLI run side by side, each with its own fake API and idle while the other works, their " +
	"prompts alternate, and each iteration's figure is the median of the pairs' differences, so that the " +
	"machine's change of speed between runs falls on both alike. The first-text target takes the median of " +
	"all iterations' pairs together: a turn's first text varies by ±10 ms with the CLI's own preparation of " +
	"the model request, so one iteration's dozen pairs leave its median a few ms either way. The first text's " +
	"overhead is also split at the model request, as the fake API saw it arrive: before it, the prompt's way " +
	"to the CLI and the CLI's preparation; after it, the CLI's and the adapter's way out. The streaming turn's ratio to the bare " +
	"CLI is the median of the main runs' ratio and of two such pairs of streaming turns, and the adapter's CPU " +
	"for it the median of those three turns' (one turn's swings by a third between iterations). The other overheads are each adapter's " +
	"median minus the bare CLI's in the same iteration; " +
	"the per-chunk overhead is the streaming turn's extra time over the bare CLI divided by the deltas, and " +
	"the adapter's own CPU per chunk is what relaying costs it. A negative overhead means the adapter's " +
	"cost is below the CLI's own run-to-run spread (a few ms per turn on a shared 2-core machine); the " +
	"cold first text is mostly the CLI's own start-up, to which the adapter adds its own start and the " +
	"handshake, a few ms before the CLI is spawned. " +
	"The fake API answers every turn with a five-word text; the streaming turn is one answer of many small " +
	"text deltas; when our adapter falls behind the CLI (16 frames or more queued), or paces a block's reading (past its first 8 deltas, a read that finds nothing waits 1 ms), it sends consecutive " +
	"deltas of one block as one chunk, so its client may receive fewer chunks than the CLI streamed deltas, " +
	"and the per-chunk figures are per delta. Model API requests count every `POST /v1/messages` the fake received during the five user " +
	"turns, side requests (titles, suggestions, classifiers) included, once the API has been quiet for 0.7 s. " +
	"Ratios to the bare CLI are taken per iteration (the adapter's time over the bare CLI's in the same " +
	"iteration) and then the median. The cold first answer (the first chunk from process start) is, per " +
	"iteration, the median of the main run's and of more cold starts made back to back, alternating with " +
	"the bare CLI's (five pairs by default: one cold start swings by a fifth either way with how the CLI's " +
	"start-up lands on a shared machine), and its ratio the median of the pairs' ratios. A `session/load` replay ends at the last history update (user, agent " +
	"and thought chunks, tool calls and their updates, plans) the client receives; the answer is when the " +
	"thread is usable, section 6's headline: ours answers once the history is out and resumes the CLI in the background, " +
	"the reference once its CLI is up, so its time is mostly the CLI's start-up. Per message is the " +
	"replay's time over the messages on the active branch. Hibernation (section 8, ours alone: the reference keeps every CLI) opens the sessions in one agent and gives each one prompt in turn, once with `CLAUDE_AGENT_ACP_MAX_LIVE_SESSIONS=4` and once without a cap; the peak RSS of the whole tree is sampled after every turn (the current RSS of every process, summed), and the first session, the least recently used, is then prompted again: with the cap its CLI resumes with `--resume`. " +
	"Reopening a thread (section 9, issue 38): a `session/load` of a working session's transcript (the realistic shape cut to 400 messages, about what fits a model's context), then a prompt 1.5 s after the load was sent (the user typing; an adapter whose load answers later is prompted at its answer). Its yardstick is the bare CLI on the same work: spawned with `--resume` on the same transcript when the load would be sent, prompted 1.5 s later; a CLI's first turn after it starts is 2–5× slower than its later turns whatever drives it, so that first turn is the fair comparison. Two reopenings of each system per iteration alternate with the bare CLI's; the ratio is the median of the pairs'. " +
	"Restoring threads (section 10): 8 `session/load`s of such transcripts sent at once to one agent with `CLAUDE_AGENT_ACP_MAX_LIVE_SESSIONS=3` (the reference ignores it); the live CLIs and the tree's RSS are read 5 s after the last answer, its peak sampled every 100 ms until then. " +
	"The slow reader (section 11) is the streaming turn driven by a client that reads as an editor extension in Python might: 8 KiB blocking reads of the pipe on its thread, and each line decoded in full (encoding/json into maps) and worked on until it has cost 4.5 µs of the thread's CPU, what CPython's `json.loads` and a dispatch on the update took per chunk line on this VM (`internal/bench/slow.go`; `TestFocusSlowReader` with `ACPBENCH_FOCUS_PYTHON=1` runs a real Python client, `testdata/slowclient.py`, for comparison).\n"

// round5Account is the fifth round of profileAccount (see there).
const round5Account = "\n" +
	"### Fifth round: a stalled agent, not a slow replay\n" +
	"\n" +
	"A runtime trace of the agent during `session/load` (internal/tools/bench `TestFocusTwoLoads` with the fake CLI; a local build of the agent whose `main` starts `runtime/trace`, not kept in the tree) showed the whole agent idle for 14 ms right after each CLI spawn, with the replay goroutine runnable all along. The CLI's exit was awaited with a blocking `waitid`, and a goroutine in a blocking system call keeps its P until the runtime's monitor takes it back, two monitor ticks later; since the third round the monitor mostly sleeps (ticks of up to 10 ms), and the agent runs on one P. The editor's stdin was read the same way, so every message from the editor left the agent without its P for up to two ticks. `TestFocusTwoLoads` showed it as the gap between wall time and CPU time: the first history update came 10–48 ms after the request, and the replay's wall time per message exceeded its CPU time by 7–15 µs.\n" +
	"\n" +
	"**Changes.** A CLI's exit is awaited on a pidfd in the runtime's poller (`claude/wait_linux.go`; a blocking `waitid` only where pidfds are missing); the editor's stdin, a pipe or a socket, is read through the poller (`rawio.NewStdin`); a load lets the CLI's spawn run before the replay takes the P (`runtime.Gosched` in `reopen`). The trace of a streaming relay now has 0.5 ms of blocking system calls in 1.2 s, all short (close, readlink, fcntl at the start). `TestIdleAgentBlocksNoThread` checks from `/proc` that no thread of an idle agent with a live CLI waits in `read` or `waitid`.\n" +
	"\n" +
	"| Path (4 alternating pairs, realistic transcript, fake CLI) | before | after |\n" +
	"|---|--:|--:|\n" +
	"| `session/load` → answer | 58–106 ms | 49–79 ms |\n" +
	"| → last history update, per message | 21–39 µs | 18–29 µs |\n" +
	"| wall time over CPU time, per message (12 loads each) | 5–17 µs | 0.2–2.4 µs, one load 6 µs |\n" +
	"\n" +
	"In the full harness (two runs on this machine: one right after this change, then the table above, after the streaming change below) the realistic replay is 19 and 21.6 µs per message (13.4× and 12.3× the reference) and the synthetic one 14.7 and 12.6 µs (11.8× and 15.3×), against 26.1 and 17.2 µs in the fourth round's report, taken on another VM of the same kind; in-process the replay is 15–18 µs per message on this VM (realistic; 11.5 µs on the VM of the third round), so the machines differ by about half as much as what is left. What is left is CPU: a fresh process's first load takes about 1,450 page faults, and its CPU per message varies from 11 to 26 µs between runs of the same binary on this VM (`TestFocus`, 12 runs).\n" +
	"\n" +
	"Streaming: with the stalls gone, a perf profile of the agent relaying deltas one at a time (`TestFocusRelay`, the fake CLI pacing one delta per 60 µs) put `peekEnvelope` first among our functions: the envelope scan, byte by byte over the event, that decided whether a line was a control frame before the stream_event fast path decoded the same line. A line that fast path takes has one type only (it refuses duplicate keys), so it is now delivered without the scan, about 0.5 µs per line on this VM: five alternating pairs gave 6.4–6.7 µs CPU per delta before and 5.5–6.4 µs after (schedstat; median 6.51 → 5.87 µs). The two full runs gave 7.5 µs (6.5–8.5) before it and 9 µs (8–15) after, CPU per relayed chunk; the reference's own CPU per chunk went from 79 to 101 µs between the two, so the machine, not the change, made that difference, and the alternating pairs are the measure of the change.\n" +
	"\n" +
	"Tried and dropped: starting the CLI in a session of its own (`setsid`), so that Linux's autogroup scheduling gives the CLI's threads one share of the CPU instead of each competing with the agent's one thread: six alternating pairs beside the real CLI gave the realistic replay 22.5 against 24.4 µs per message and the synthetic one 16.3 against 12.7 µs, no clear gain for a change in how the CLI meets terminals and signals.\n"
