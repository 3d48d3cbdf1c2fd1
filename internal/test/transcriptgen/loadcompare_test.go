//go:build loadcompare

package transcriptgen_test

// TestLoadCompare times session/load of generated transcripts in this
// adapter and in the TypeScript reference, in one run, alternating, each
// against the same pinned CLI and fake API. It is a stop-gap until the
// side-by-side harness (internal/tools/bench) has its replay section:
//
//	OURS=/path/to/claude-agent-acp go test -tags loadcompare -run LoadCompare -v ./internal/test/transcriptgen

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
	"sync/atomic"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/transcriptgen"
)

func TestLoadCompare(t *testing.T) {
	deps, err := clitest.DepsDir()
	if err != nil {
		t.Fatal(err)
	}
	cli := filepath.Join(deps, "node_modules/.bin/claude")
	systems := map[string]string{
		"ours":      os.Getenv("OURS"),
		"reference": filepath.Join(deps, "node_modules/.bin/claude-agent-acp"),
	}
	api, err := fakeapi.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer api.Close()
	sizes := []int{2, 5000, 20000}
	iters := 3
	type res struct{ ms, cpu, rss, updates []float64 }
	results := map[string]*res{}
	for i := 0; i < iters; i++ {
		for _, n := range sizes {
			for _, sys := range []string{"ours", "reference"} {
				if i%2 == 1 {
					sys = map[string]string{"ours": "reference", "reference": "ours"}[sys]
				}
				d, cpu, rss, ups := loadOnce(t, systems[sys], cli, api.URL(), n)
				k := fmt.Sprintf("%s/%d", sys, n)
				if results[k] == nil {
					results[k] = &res{}
				}
				r := results[k]
				r.ms, r.cpu, r.rss, r.updates = append(r.ms, d), append(r.cpu, cpu), append(r.rss, rss), append(r.updates, ups)
				t.Logf("%s msgs=%d: load %.0f ms, adapter cpu %.0f ms, adapter peak RSS %.1f MiB, %0.f updates", sys, n, d, cpu, rss, ups)
			}
		}
	}
	keys := make([]string, 0, len(results))
	for k := range results {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		r := results[k]
		t.Logf("MEDIAN %-16s load %6.0f ms  cpu %6.0f ms  peakRSS %6.1f MiB  updates %6.0f", k, med(r.ms), med(r.cpu), med(r.rss), med(r.updates))
	}
}

func med(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func loadOnce(t *testing.T, exe, cli, apiURL string, n int) (ms, cpuMS, rssMiB, updates float64) {
	home := t.TempDir()
	config, work := filepath.Join(home, ".claude"), filepath.Join(home, "work")
	os.MkdirAll(config, 0o700)
	os.MkdirAll(work, 0o700)
	_, st, err := transcriptgen.WriteSession(config, transcriptgen.Options{Cwd: work, Messages: n, RewindEvery: 25, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "CLAUDE_CONFIG_DIR=" + config, "ANTHROPIC_BASE_URL=" + apiURL,
		"CLAUDE_CODE_EXECUTABLE=" + cli, "ANTHROPIC_API_KEY=sk-fake", "CLAUDE_CODE_MAX_RETRIES=0",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1", "IS_SANDBOX=1", "TERM=dumb"}
	cmd := exec.Command(exe)
	cmd.Env, cmd.Dir = env, work
	clitest.SetGroup(cmd)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		clitest.KillGroup(cmd)
		cmd.Wait()
	}()
	var count atomic.Int64
	conn := acp.NewConn(stdout, stdin, acp.Options{Handler: acp.HandlerFunc(func(ctx context.Context, req *acp.Request) (any, error) {
		if req.Method == acp.MethodSessionUpdate {
			var u struct {
				Update struct {
					Kind string `json:"sessionUpdate"`
				} `json:"update"`
			}
			if json.Unmarshal(req.Params, &u) == nil && u.Update.Kind != "available_commands_update" {
				count.Add(1)
			}
		}
		return nil, nil
	})})
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := conn.Call(ctx, acp.MethodInitialize, &acp.InitializeRequest{ProtocolVersion: 1}, &acp.InitializeResponse{}); err != nil {
		t.Fatal(err)
	}
	cpu0 := cpuOf(cmd.Process.Pid)
	start := time.Now()
	var resp json.RawMessage
	if err := conn.Call(ctx, acp.MethodSessionLoad, &acp.LoadSessionRequest{SessionID: acp.SessionID(st.SessionID), Cwd: work, MCPServers: []acp.MCPServer{}}, &resp); err != nil {
		t.Fatalf("%s: load: %v", exe, err)
	}
	ms = float64(time.Since(start).Microseconds()) / 1000
	cpuMS = cpuOf(cmd.Process.Pid) - cpu0
	rssMiB = float64(statusKB(cmd.Process.Pid, "VmHWM")) / 1024
	return ms, cpuMS, rssMiB, float64(count.Load())
}

func cpuOf(pid int) float64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	u, _ := strconv.ParseFloat(f[11], 64)
	s, _ := strconv.ParseFloat(f[12], 64)
	return (u + s) * 10 // clock ticks of 10 ms
}

func statusKB(pid int, key string) int64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, key+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
