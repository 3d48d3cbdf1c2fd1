package bench

import (
	"math"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{{[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}, {[]float64{7}, 7}} {
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	if !math.IsNaN(median(nil)) {
		t.Error("median(nil) is not NaN")
	}
}

func TestUnitFormat(t *testing.T) {
	for _, c := range []struct {
		u    unit
		v    float64
		want string
	}{
		{ms, 0.0042, "4.2 ms"}, {ms, 0.375, "375 ms"}, {us, 19.7e-6, "19.7 µs"},
		{mib, 9 << 20, "9 MiB"}, {cpuSec, 0.561, "0.56 s"}, {count, 14, "14"}, {ms, -0.00001, "0 ms"},
	} {
		if got := c.u.format(c.v); got != c.want {
			t.Errorf("format(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

// TestMarkdownFromSamples renders a report from made-up samples: cells
// carry the median and the range, ratios are reference / ours, missing
// metrics are dashes, and the targets are judged.
func TestMarkdownFromSamples(t *testing.T) {
	r := &Report{
		Config: Config{Reference: []string{"ref"}, Iterations: 2, Turns: 1, Deltas: 100, Sessions: 8, ReplayMessages: 10},
		Samples: map[string][]sample{
			Ours:      {{kInit: 0.004, kRSS: 9 << 20}, {kInit: 0.006, kRSS: 9 << 20}},
			Reference: {{kInit: 0.4, kRSS: 110 << 20}, {kInit: 0.6, kRSS: 110 << 20}},
			Bare:      {{kRSS: 200 << 20}, {kRSS: 200 << 20}},
		},
	}
	md := r.Markdown()
	for _, want := range []string{
		"| → `initialize` answer | 5 ms (4–6 ms) | 500 ms (400–600 ms) |  | 100× |",
		"| adapter peak RSS, own process (bare CLI: the CLI) | 9 MiB | 110 MiB | 200 MiB | 12.2× |",
		"| start → `initialize` at least 20× faster than the reference | 100× | yes |",
		"| adapter peak RSS at most 15 MiB | 9 MiB | yes |",
		"| first text within 2 ms of the bare CLI (warm turn) | – | – |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

// TestIssue16Rows: the ratios to the bare CLI, the realistic replay and
// the issue 16 goals are rendered and judged.
func TestIssue16Rows(t *testing.T) {
	r := &Report{
		Config: Config{Reference: []string{"ref"}, Iterations: 1, Turns: 1, Deltas: 100, Sessions: 8, ReplayMessages: 5000},
		Samples: map[string][]sample{
			Ours: {{kRatioStart: 1.02, kRatioStream: 1.3, kRealLast: 0.05, kRealPerMsg: 12e-6, kReplayPerMsg: 15.03e-6,
				kStreamCPUPerChunk: 4e-6, kCodeLast: 0.07, kCodePerMsg: 17e-6}},
			Reference: {{kRealLast: 1.0, kCodeLast: 1.4}},
			Bare:      {{}},
		},
		BareArgs: []string{"--output-format", "stream-json"}, BareEnv: []string{"CLAUDE_CODE_ENTRYPOINT=sdk-ts"},
	}
	md := r.Markdown()
	for _, want := range []string{
		"|   cold first answer, ratio to the bare CLI (pairs of the same iteration) | 1.02× | – |  |  |",
		"| cold first answer at most 1.05× the bare CLI's | 1.02× | yes |",
		"| `session/load` replay at least 10× faster than the reference (realistic transcript) | 20× | yes |",
		"| `session/load` replay at most 15 µs per message (realistic transcript) | 12 µs | yes |",
		"| `session/load` replay at most 15 µs per message (synthetic transcript) | 15.03 µs | **no** |",
		"| streaming: adapter CPU at most 5 µs per relayed chunk | 4 µs | yes |",
		"| streaming turn at most 1.2× the bare CLI's | 1.3× | **no** |",
		"realistic transcript (2800 messages, Bash and Read results of ~13 KB)",
		"| the same with source code for text (escape-dense, as real files are): → last history update | 70 ms | 1400 ms |  | 20× |",
		"|   per message on the active branch | 17 µs | – |  |  |",
		"- bare CLI: `claude --output-format stream-json`, environment plus `CLAUDE_CODE_ENTRYPOINT=sdk-ts`",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

// TestInvocationArgv: each bare run gets its own session id in place of
// the probe's.
func TestInvocationArgv(t *testing.T) {
	inv := cliInvocation{args: []string{"--output-format", "stream-json", "--session-id=abc", "--resume", "def", "--verbose"}}
	got := inv.argv()
	if len(got) != 5 || got[0] != "--output-format" || got[4] != "--verbose" ||
		!strings.HasPrefix(got[2], "--session-id=") || got[2] == "--session-id=abc" || !strings.HasPrefix(got[3], "--session-id=") {
		t.Errorf("argv = %q", got)
	}
}

func TestScanUpdate(t *testing.T) {
	for _, c := range []struct{ in, sid, kind string }{
		{`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}`, "s1", "agent_message_chunk"},
		{`{"update":{"content":{"text":"\"sessionId\":\"no\""},"sessionUpdate":"tool_call"},"sessionId":"s2"}`, "s2", "tool_call"},
		{`{ "sessionId" : "s3", "update" : { "sessionUpdate" : "plan" } }`, "s3", "plan"},
	} {
		u, ok := scanUpdate([]byte(c.in))
		if !ok || u.SessionID != c.sid || u.Update.Kind != c.kind {
			t.Errorf("scanUpdate(%s) = %+v, %v", c.in, u, ok)
		}
	}
}

// TestPairMedians: the cold ratio is the median of per-round ratios, not
// the ratio of the medians.
func TestPairMedians(t *testing.T) {
	got := map[string]sample{Bare: {}, Ours: {}}
	pairMedians(map[string][]float64{
		Bare: {0.5, 0.4, 0.6},
		Ours: {0.55, 0.6, 0.57}, // ratios 1.1, 1.5, 0.95
	}, got)
	if r := got[Ours][kRatioStart]; r != 1.1 {
		t.Errorf("ratio %v, want the median pair ratio 1.1", r)
	}
	if f := got[Ours][kFirst]; f != 0.57 {
		t.Errorf("first %v, want the median 0.57", f)
	}
	if f := got[Bare][kFirst]; f != 0.5 {
		t.Errorf("bare first %v, want 0.5", f)
	}
	m := sample{kFirst: 0.6, kRatioStart: 1.1}
	overBare(m, sample{kFirst: 0.5}, 1)
	if m[kRatioStart] != 1.1 {
		t.Errorf("overBare replaced the paired ratio: %v", m[kRatioStart])
	}
	m = sample{kTurnFirst: 0.05, kTurnDone: 0.06, kOverFirst: 0.001, kOverDone: 0.002, kStreamDone: 1, kRatioStream: 1.05}
	overBare(m, sample{kTurnFirst: 0.04, kTurnDone: 0.05, kStreamDone: 0.5}, 1)
	if m[kOverFirst] != 0.001 || m[kOverDone] != 0.002 || m[kRatioStream] != 1.05 {
		t.Errorf("overBare replaced the paired figures: %v, %v, %v", m[kOverFirst], m[kOverDone], m[kRatioStream])
	}
}

// TestCPUBetween: the streaming turn's CPU is the threads' schedstat time,
// unless a thread ended meanwhile (the ticks then exceed it by more than
// sampling explains), and the ticks then.
func TestCPUBetween(t *testing.T) {
	at := func(ticks, ns time.Duration) treeUsage {
		return treeUsage{self: procStat{cpu: ticks}, selfNS: ns}
	}
	for _, c := range []struct {
		name          string
		before, after treeUsage
		want          time.Duration
	}{
		{"schedstat", at(0, time.Millisecond), at(140*time.Millisecond, 124*time.Millisecond), 123 * time.Millisecond},
		{"a thread ended", at(0, time.Millisecond), at(140*time.Millisecond, 51*time.Millisecond), 140 * time.Millisecond},
		{"no schedstat", at(10*time.Millisecond, 0), at(150*time.Millisecond, 0), 140 * time.Millisecond},
	} {
		if got := cpuBetween(c.before, c.after); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	if runtime.GOOS == "linux" {
		if ns, _ := schedNS(os.Getpid()); ns <= 0 {
			t.Errorf("schedNS of this process: %v", ns)
		}
	}
}

// TestWarmPairsPooled checks the warm pairs' medians per iteration and that
// the first-text target pools every iteration's pairs.
func TestWarmPairsPooled(t *testing.T) {
	m := warmMedians([]warmPair{
		{First: 0.004, ToRequest: 0.003, FromRequest: 0.001, Done: 0.005},
		{First: -0.010, ToRequest: -0.011, FromRequest: 0.001, Done: -0.009},
		{First: 0.001, ToRequest: 0.0005, FromRequest: 0.0005, Done: 0.002},
	})
	want := sample{kOverFirst: 0.001, kOverToRequest: 0.0005, kOverFromRequest: 0.001, kOverDone: 0.002}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %v, want %v", k, m[k], v)
		}
	}
	// Two iterations whose own medians are 3 and 1 ms: pooled, 1.75 ms.
	r := &Report{Pairs: map[string][]warmPair{Ours: {
		{First: 0.003}, {First: 0.004}, {First: -0.002},
		{First: 0.0025}, {First: 0.001}, {First: -0.003}, {First: 0.0026}, {First: -0.001},
	}}}
	if v, n := pooledFirst(r, Ours); n != 8 || math.Abs(v-0.00175) > 1e-9 {
		t.Errorf("pooled first %v over %d pairs, want 0.00175 over 8", v, n)
	}
	for _, tg := range targets {
		if strings.HasPrefix(tg.what, "first text within 2 ms") {
			if got, met := tg.met(r); !met || !strings.Contains(got, "8 pairs") {
				t.Errorf("target: %q met=%v, want met over 8 pairs", got, met)
			}
		}
	}
}
