package bench

import (
	"math"
	"strings"
	"testing"
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
