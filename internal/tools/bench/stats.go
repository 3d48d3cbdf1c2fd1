package bench

import (
	"math"
	"slices"
)

// median of xs (NaN for none), the mean of the middle two for an even count.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// summary is a metric over the iterations of one system.
type summary struct {
	n             int
	med, min, max float64
}

// summarize collects key over samples; ok is false when no sample has it.
func summarize(samples []sample, key string) (s summary, ok bool) {
	var xs []float64
	for _, m := range samples {
		if v, has := m[key]; has && !math.IsNaN(v) {
			xs = append(xs, v)
		}
	}
	if len(xs) == 0 {
		return s, false
	}
	return summary{n: len(xs), med: median(xs), min: slices.Min(xs), max: slices.Max(xs)}, true
}
