package claude

import (
	"context"
	"errors"
	"flag"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

var spawnCycles = flag.Int("spawn-cycles", 100, "how many times TestSpawnCloseCyclesLeakNothing starts and closes the fake CLI")

// TestSpawnCloseCyclesLeakNothing starts and closes the fake CLI 100 times
// (fifty with -short, -spawn-cycles=N for a longer run) — half of them
// after a turn, some killed — and then checks that no goroutine and no
// child process is left. A leak per cycle shows after one; 100 cycles of
// four workers also mix every kind of cycle with every other, concurrently.
// Each cycle starts two race-built processes (the fake and its reaper),
// about 0.18 s of CPU: a thousand took 100 s of make test and 200 took 36 s
// of CPU, for nothing more found (issue 36).
func TestSpawnCloseCyclesLeakNothing(t *testing.T) {
	// Not parallel: other tests' processes would count as children.
	cycles := *spawnCycles
	if testing.Short() {
		cycles = min(cycles, 50)
	}
	const workers = 4
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < cycles; i += workers {
				if err := spawnCycle(i); err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if kids := children(os.Getpid()); len(kids) > 0 {
		t.Errorf("child processes left: %v", kids)
	}
	goleak.VerifyNone(t, goleak.IgnoreCurrent())
}

func spawnCycle(i int) error {
	p, err := Start(context.Background(), fakeOptions("echo"))
	if err != nil {
		return err
	}
	switch i % 4 {
	case 1, 2:
		if err := p.Send(context.Background(), Text("hi")); err != nil {
			return err
		}
		for m := range p.Messages() {
			if m.Type == "result" {
				break
			}
		}
	}
	if i%4 == 3 {
		return p.Kill()
	}
	// On a loaded machine the fake may miss the shortened shutdown
	// deadlines and be killed; that is not a leak.
	if err := p.Close(); err != nil && !errors.Is(err, errKilled) {
		return err
	}
	return nil
}

// children lists the processes whose parent is pid, zombies included (an
// unreaped child is a leak too). It reads /proc; elsewhere it finds none.
func children(pid int) []string {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(s[i+1:])
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			out = append(out, e.Name()+" "+s[:i+1]+" "+fields[0])
		}
	}
	return out
}

// TestChildrenSeesLiveChild checks the /proc scan the leak test relies on.
func TestChildrenSeesLiveChild(t *testing.T) {
	p, err := Start(context.Background(), fakeOptions("echo"))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range children(os.Getpid()) {
		found = found || strings.HasPrefix(c, strconv.Itoa(p.PID())+" ")
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if !found {
		t.Error("running fake not listed")
	}
	deadline := time.Now().Add(hangGuard)
	for _, c := range children(os.Getpid()) {
		if strings.HasPrefix(c, strconv.Itoa(p.PID())+" ") && time.Now().Before(deadline) {
			t.Errorf("closed fake still listed: %s", c)
		}
	}
}
