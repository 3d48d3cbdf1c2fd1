package agent

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/claude"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/transcriptgen"
)

// The tests of this file are not parallel: they set the process's
// GOMAXPROCS, GOGC and replayBatchHook.

// oneThreadAgent runs the test as the agent runs, on one thread
// (cmd/claude-agent-acp), and puts the test's setting back after it.
func oneThreadAgent(t *testing.T) {
	t.Helper()
	if _, set := os.LookupEnv("GOMAXPROCS"); set {
		t.Skip("GOMAXPROCS is set in the environment: the agent keeps it")
	}
	if runtime.NumCPU() < 2 {
		t.Skip("one CPU: a replay has no second thread to use")
	}
	saved := runtime.GOMAXPROCS(1)
	t.Cleanup(func() { runtime.GOMAXPROCS(saved) })
}

// replayWatching replays a 400-message transcript, calling watch between
// its batches of updates.
func replayWatching(t *testing.T, watch func()) {
	t.Helper()
	path, st, err := transcriptgen.WriteSession(t.TempDir(), transcriptgen.Options{Messages: 400, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	a, _, stop := discardAgent(t)
	defer stop()
	replayBatchHook = func(int) { watch() }
	defer func() { replayBatchHook = nil }()
	setup := &sessionSetup{cwd: "/home/user/project", opts: claude.Options{}}
	if _, err := a.replay(context.Background(), st.SessionID, path, setup, &startOutcome{got: true}); err != nil {
		t.Fatal(err)
	}
}

// TestReplayRunsOnTwoThreads: an agent on one thread replays a load on
// two (its records decoded ahead on the second), then goes back to one.
func TestReplayRunsOnTwoThreads(t *testing.T) {
	oneThreadAgent(t)
	during := 0
	replayWatching(t, func() { during = max(during, runtime.GOMAXPROCS(0)) })
	if during != 2 {
		t.Errorf("the replay ran on %d threads, want 2", during)
	}
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Errorf("after the replay the agent runs on %d threads, want 1 again", n)
	}
}

// TestOverlappingLoadsShareTheSecondThread: of two overlapping loads only
// the first reads ahead, the agent goes back to one thread (and its GOGC)
// when the last ends, not when the first does, and a second call of a
// restore changes nothing.
func TestOverlappingLoadsShareTheSecondThread(t *testing.T) {
	oneThreadAgent(t)
	_, gogcSet := os.LookupEnv("GOGC")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	first, firstAhead := widenForLoad()
	raised := gcPercent()
	second, secondAhead := widenForLoad()
	if n := runtime.GOMAXPROCS(0); n != 2 {
		t.Fatalf("two loads run on %d threads, want 2", n)
	}
	if !firstAhead || secondAhead {
		t.Errorf("read ahead: first load %v, second %v; want only the first", firstAhead, secondAhead)
	}
	first()
	first()
	if n := runtime.GOMAXPROCS(0); n != 2 {
		t.Errorf("with one load left the agent runs on %d threads, want 2", n)
	}
	if got := gcPercent(); got != raised || !gogcSet && got <= 100 {
		t.Errorf("with one load left GOGC is %d, want the loads' %d (above 100)", got, raised)
	}
	second()
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Errorf("after both loads the agent runs on %d threads, want 1", n)
	}
	if got := gcPercent(); got != 100 {
		t.Errorf("after both loads GOGC is %d, want 100 again", got)
	}
	third, ahead := widenForLoad()
	defer third()
	if !ahead {
		t.Error("a load after the others ended does not read ahead")
	}
}

// TestLoadKeepsTheUsersThreads: GOMAXPROCS set in the environment, or an
// agent on more than one thread already, is left as it is.
func TestLoadKeepsTheUsersThreads(t *testing.T) {
	oneThreadAgent(t)
	runtime.GOMAXPROCS(3)
	restore, _ := widenForLoad()
	if n := runtime.GOMAXPROCS(0); n != 3 {
		t.Errorf("an agent on 3 threads runs a load on %d", n)
	}
	restore()
	if n := runtime.GOMAXPROCS(0); n != 3 {
		t.Errorf("after the load the agent runs on %d threads, want its 3", n)
	}
	runtime.GOMAXPROCS(1)
	t.Setenv("GOMAXPROCS", "1")
	restore, _ = widenForLoad()
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Errorf("with GOMAXPROCS=1 in the environment a load runs on %d threads", n)
	}
	restore()
}

// gcPercent reads the collector's GOGC.
func gcPercent() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}

// TestReplayRunsTheCollectorLessOften: during a replay the collector runs
// at loadGCPercent, and at the agent's GOGC again after it; less above a
// heap where much lives; a GOGC set in the environment is kept, and so is
// a setting above loadGCPercent.
func TestReplayRunsTheCollectorLessOften(t *testing.T) {
	if _, set := os.LookupEnv("GOGC"); set {
		t.Skip("GOGC is set in the environment: the agent keeps it")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	runtime.GC() // what lives now, not at the last collection
	// loadGCPercent, or less where earlier tests left much on the heap.
	want := loadGC()
	if want <= 100 {
		t.Skip("so much lives on the heap that a load would not raise GOGC")
	}
	during := 0
	replayWatching(t, func() { during = gcPercent() })
	if during != want {
		t.Errorf("GOGC during the replay = %d, want %d", during, want)
	}
	if got := gcPercent(); got != 100 {
		t.Errorf("GOGC after the replay = %d, want 100 again", got)
	}

	debug.SetGCPercent(2 * loadGCPercent)
	restore, _ := widenForLoad()
	if got := gcPercent(); got != 2*loadGCPercent {
		t.Errorf("a load lowered GOGC from %d to %d", 2*loadGCPercent, got)
	}
	restore()
	if got := gcPercent(); got != 2*loadGCPercent {
		t.Errorf("after the load GOGC = %d, want the %d it was", got, 2*loadGCPercent)
	}

	// On a heap where 48 MiB live (and the test's own), the load may
	// take 24 MiB more: GOGC 150 or a little less.
	debug.SetGCPercent(100)
	live := make([]byte, 2*loadGCHeadroom)
	runtime.GC()
	restore, _ = widenForLoad()
	if got := gcPercent(); got < 140 || got > 150 {
		t.Errorf("with 48 MiB live a load runs at GOGC %d, want 140-150", got)
	}
	restore()
	runtime.KeepAlive(live)
	live = nil
	runtime.GC()

	t.Setenv("GOGC", "100")
	restore, _ = widenForLoad()
	if got := gcPercent(); got != 100 {
		t.Errorf("with GOGC=100 in the environment a load runs at GOGC %d", got)
	}
	restore()
}
