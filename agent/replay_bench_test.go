package agent

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/claude"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/transcriptgen"
)

// BenchmarkReplay measures session/load's replay of generated transcripts
// (internal/test/transcriptgen: six-message turns with thinking, text, one of
// six tools with its stored result, an @-mention every third prompt, a
// rewound turn every 25) of 5,000 and 20,000 messages: reading the
// transcript, translating every record through the live code, and writing
// each session/update as JSON to the connection (an io.Discard client). No
// CLI runs. Besides ns/op it reports ns per message on the active branch
// (and the process's CPU time per message, the garbage collector's too),
// updates per replay, and the peak memory of one replay: the heap's peak
// above the level before it (sampled every 100 µs, garbage included) and
// the process's peak RSS growth (VmHWM after resetting it). The cost must
// grow linearly: compare ns/msg and updates of the two sizes; peak memory
// should barely grow at all, since records stream. The realistic case is
// the harness's transcript with ~13 KB tool results; realistic-code is the
// same with source code and test logs, as dense in JSON escapes as real
// files.
//
//	go test -run '^$' -bench Replay -benchmem ./agent
func BenchmarkReplay(b *testing.B) {
	cases := []struct {
		name string
		opts transcriptgen.Options
	}{
		{"msgs=5000", transcriptgen.Options{Messages: 5_000, RewindEvery: 25, Seed: 1}},
		{"msgs=20000", transcriptgen.Options{Messages: 20_000, RewindEvery: 25, Seed: 1}},
		// The realistic transcript of the side-by-side harness
		// (internal/tools/bench): Bash and Read results of about 13 KB, of
		// plain words (no JSON escapes) and of source code and test logs
		// (about 9% of their bytes escaped, as in real files).
		{"realistic", transcriptgen.Options{Messages: 2_800, RewindEvery: 25, Seed: 2, ToolOutput: 13_000}},
		{"realistic-code", transcriptgen.Options{Messages: 2_800, RewindEvery: 25, Seed: 2, ToolOutput: 13_000, Code: true}},
	}
	for _, c := range cases {
		path, st, err := transcriptgen.WriteSession(b.TempDir(), c.opts)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			a, written, stop := discardAgent(b)
			defer stop()
			setup := &sessionSetup{cwd: "/home/user/project", opts: claude.Options{}}
			replay := func() {
				if _, err := a.replay(context.Background(), st.SessionID, path, setup, &startOutcome{got: true}); err != nil {
					b.Fatal(err)
				}
			}
			heap, rss := peakOf(replay)
			lines, out := written.n.Load(), written.bytes.Load()
			b.SetBytes(st.Bytes)
			b.ReportAllocs()
			b.ResetTimer()
			cpu := processCPU()
			for b.Loop() {
				replay()
			}
			cpu = processCPU() - cpu
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(st.Active), "ns/msg")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(st.Active), "cpu-ns/msg")
			b.ReportMetric(float64(lines), "updates/op")
			b.ReportMetric(float64(out)/(1<<20), "out-MB/op")
			b.ReportMetric(float64(heap)/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(rss)/(1<<20), "peak-rss-MB")
		})
	}
}

// discardAgent serves an agent whose client reads nothing back: every
// notification is written in full and dropped. written counts the lines.
func discardAgent(b testing.TB) (a *connection, written *lineCounter, stop func()) {
	a = New(Config{Env: []string{"HOME=" + b.TempDir()}}).newConnection()
	in, inW := io.Pipe()
	lc := &lineCounter{}
	served := make(chan error, 1)
	go func() { served <- a.serve(context.Background(), in, lc) }()
	<-a.connReady
	return a, lc, func() {
		inW.Close()
		if err := <-served; err != nil {
			b.Errorf("Serve: %v", err)
		}
	}
}

// lineCounter counts the lines and bytes written to it.
type lineCounter struct{ n, bytes atomic.Int64 }

var newline = []byte{'\n'}

func (c *lineCounter) Write(p []byte) (int, error) {
	c.n.Add(int64(bytes.Count(p, newline)))
	c.bytes.Add(int64(len(p)))
	return len(p), nil
}

// peakOf runs f once and returns how far the heap (live and garbage) and
// the process's resident set rose above their levels before it.
func peakOf(f func()) (heap, rss uint64) {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	rssBase := procStatusKB("VmRSS")
	resetPeakRSS := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
	var peak atomic.Uint64
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(100 * time.Microsecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	f()
	close(done)
	<-stopped
	if p := peak.Load(); p > base {
		heap = p - base
	}
	if hwm := procStatusKB("VmHWM"); resetPeakRSS && hwm > rssBase {
		rss = (hwm - rssBase) << 10
	}
	return heap, rss
}

// procStatusKB reads a kB field of /proc/self/status; 0 if unavailable.
func procStatusKB(key string) uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	var v uint64
	for _, line := range strings.Split(string(b), "\n") {
		if n, _ := fmt.Sscanf(line, key+": %d kB", &v); n == 1 {
			return v
		}
	}
	return 0
}
