//go:build windows

package claude

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/windows"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
)

// The Windows tests of the platform code: job objects, batch shims, the
// executable lookup. `make test-windows` runs them under Wine on Linux
// (see docs/platforms.md); they use the test binary itself as the fake CLI
// and as its descendants, so they need nothing else installed.

func init() {
	// win_grandchild starts a long-lived child (the test binary again) and
	// reports its pid, then serves echo turns.
	scenarios["win_grandchild"] = func(f *fake) int {
		if !f.handshake() {
			return 1
		}
		cmd, err := startTestBinary("win_sleep", nil, (*exec.Cmd).Start)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fake: starting grandchild:", err)
			return 1
		}
		f.send(map[string]any{"type": "fake_child", "pid": cmd.Process.Pid})
		return f.serve(echoTurn(f))
	}
	scenarios["win_sleep"] = func(f *fake) int {
		time.Sleep(5 * time.Minute)
		return 0
	}
	// win_agent plays an agent: it starts a CLI (win_grandchild), prints
	// "cliPID grandchildPID" and waits to be killed.
	scenarios["win_agent"] = func(f *fake) int {
		p, err := Start(context.Background(), fakeOptions("win_grandchild"))
		if wineFlake(err) {
			p, err = Start(context.Background(), fakeOptions("win_grandchild"))
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "fake agent:", err)
			return 1
		}
		for m := range p.Messages() {
			if m.Type == "fake_child" {
				var c struct{ PID int }
				_ = json.Unmarshal(m.Raw, &c)
				fmt.Printf("%d %d\n", p.PID(), c.PID)
				break
			}
		}
		time.Sleep(5 * time.Minute)
		return 0
	}
	// win_args prints its arguments as JSON; win_version is a CLI's --version.
	scenarios["win_args"] = func(f *fake) int {
		b, _ := json.Marshal(os.Args[1:])
		fmt.Printf("%s\n", b)
		return 0
	}
	scenarios["win_version"] = func(f *fake) int {
		fmt.Println("2.1.0 (Claude Code)")
		return 0
	}
}

// running reports whether pid is a process that has not exited.
func running(pid int) bool {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	ev, err := windows.WaitForSingleObject(h, 0)
	return err == nil && ev == uint32(windows.WAIT_TIMEOUT)
}

func waitNotRunning(t *testing.T, what string, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for running(pid) {
		if time.Now().After(deadline) {
			_ = clitest.KillPID(pid)
			t.Fatalf("%s (pid %d) still running", what, pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func grandchild(t *testing.T, p *Process) int {
	t.Helper()
	pid := fakeChildPID(t, until(t, p, isType("fake_child"))[0])
	if !running(pid) {
		t.Fatal("grandchild not running")
	}
	return pid
}

func TestWindowsCloseStopsTheJob(t *testing.T) {
	t.Parallel()
	p := startFake(t, "win_grandchild", Options{})
	pid := grandchild(t, p)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	waitNotRunning(t, "grandchild", pid)
}

func TestWindowsKillStopsTheJob(t *testing.T) {
	t.Parallel()
	p := startFake(t, "win_grandchild", Options{})
	pid := grandchild(t, p)
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	waitNotRunning(t, "grandchild", pid)
}

// TestWindowsCLIExitStopsTheJob: when the CLI dies on its own, what it
// started goes with it.
func TestWindowsCLIExitStopsTheJob(t *testing.T) {
	t.Parallel()
	p := startFake(t, "win_grandchild", Options{})
	pid := grandchild(t, p)
	if err := clitest.KillPID(p.PID()); err != nil {
		t.Fatal(err)
	}
	drain(t, p)
	if err := p.Wait(); err == nil {
		t.Error("Wait = nil after the CLI was terminated")
	}
	waitNotRunning(t, "grandchild", pid)
}

// TestWindowsAgentDeathStopsTheJob: the agent is killed outright (no
// cleanup runs); the job's last handle closes with it and Windows ends the
// CLI and everything it started.
func TestWindowsAgentDeathStopsTheJob(t *testing.T) {
	t.Parallel()
	var out io.ReadCloser
	agent, err := startTestBinary("win_agent", nil, func(cmd *exec.Cmd) error {
		var err error
		if out, err = cmd.StdoutPipe(); err != nil {
			return err
		}
		cmd.Stderr = os.Stderr
		return cmd.Start()
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = agent.Process.Kill(); _ = agent.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("agent: %v", err)
	}
	var cli, gc int
	if _, err := fmt.Sscan(line, &cli, &gc); err != nil {
		t.Fatalf("agent said %q", line)
	}
	if !running(cli) || !running(gc) {
		t.Fatal("CLI or grandchild not running")
	}
	if err := agent.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	waitNotRunning(t, "CLI", cli)
	waitNotRunning(t, "grandchild", gc)
}

// copyTestBinary puts a copy of the test binary (the fake CLI) at path.
func copyTestBinary(t *testing.T, path string) string {
	t.Helper()
	src, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	dst, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// trickyArgs are what the agent passes the CLI (JSON for --mcp-config and
// --settings) plus everything cmd.exe would otherwise interpret. A "%"
// survives the npm shim (no cmd.exe involved) but not, under Wine's cmd.exe,
// a plain batch file, so only the first gets it.
func trickyArgs(percent bool) []string {
	pct := ""
	if percent {
		pct = `,"%PATH%"`
	}
	return []string{
		"--mcp-config", `{"mcpServers":{"a":{"command":"x & y","args":["a|b","<in>","^"` + pct + `]}}}`,
		"--settings", `{"k":"v \"quoted\" \\"}`,
		"with space", `back\slash\`, "", "!bang!", "(paren)",
	}
}

// TestWindowsBatchShims runs the fake through an npm cmd shim (resolved to
// its target, also when named without its extension) and through a plain
// batch file (run by cmd.exe with escaped
// arguments): either way the CLI gets exactly the arguments.
func TestWindowsBatchShims(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	bin := filepath.Join(dir, "npm")
	copyTestBinary(t, filepath.Join(bin, "node_modules", "@anthropic-ai", "claude-code", "bin", "claude.exe"))
	shim := writeFile(t, filepath.Join(bin, "claude.cmd"), shimNative)
	// npm's node_modules\.bin\claude: an sh script with claude.cmd beside it.
	noExt := writeFile(t, filepath.Join(bin, "claude"), "#!/bin/sh\n")
	plain := writeFile(t, filepath.Join(dir, "plain", "claude.bat"), "@\""+os.Args[0]+"\" %*\r\n")
	for _, path := range []string{shim, noExt, plain} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			args := trickyArgs(path != plain)
			cmd := exec.Command(path, args...)
			cmd.Env = append(os.Environ(), "CLAUDE_FAKE_SCENARIO=win_args")
			setProcessGroup(cmd)
			var stdout strings.Builder
			cmd.Stdout = &stdout
			cmd.Stderr = os.Stderr
			if err := runProcess(cmd); err != nil {
				t.Fatalf("run %s: %v", path, err)
			}
			var got []string
			if err := json.Unmarshal([]byte(strings.TrimSpace(stdout.String())), &got); err != nil {
				t.Fatalf("output %q: %v", stdout.String(), err)
			}
			if diff := cmp.Diff(args, got); diff != "" {
				t.Errorf("arguments (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWindowsFindExecutable: CLAUDE_CODE_EXECUTABLE may name a .cmd or .exe,
// PATH finds claude.cmd, and the test install's node_modules/.bin/claude
// (an sh script with claude.cmd beside it, as npm writes them) is found.
func TestWindowsFindExecutable(t *testing.T) {
	// Not parallel: it changes the environment.
	dir := tempDir(t)
	cmdShim := writeFile(t, filepath.Join(dir, "bin", "claude.cmd"), shimNative)
	txt := writeFile(t, filepath.Join(dir, "claude.txt"), "")
	deps := filepath.Join(dir, "deps")
	depsCLI := writeFile(t, filepath.Join(deps, "node_modules", ".bin", "claude"), "#!/bin/sh\n")
	writeFile(t, depsCLI+".cmd", shimNative)
	for _, tt := range []struct {
		name, exe, path, deps, want string
	}{
		{name: "env var .cmd", exe: cmdShim, want: cmdShim},
		{name: "env var not executable", exe: txt},
		{name: "PATH", path: filepath.Dir(cmdShim), want: strings.ToLower(cmdShim)},
		{name: "deps", deps: deps, want: depsCLI},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CLAUDE_CODE_EXECUTABLE", tt.exe)
			t.Setenv("PATH", tt.path)
			t.Setenv("CLAUDE_AGENT_ACP_DEPS", tt.deps)
			got, err := FindExecutable()
			if tt.want == "" {
				if err == nil {
					t.Errorf("found %s", got)
				}
				return
			}
			if err != nil || !strings.EqualFold(got, tt.want) {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestWindowsVersionThroughShim: `claude --version` through an npm shim.
func TestWindowsVersionThroughShim(t *testing.T) {
	t.Setenv("CLAUDE_FAKE_SCENARIO", "win_version")
	dir := tempDir(t)
	copyTestBinary(t, filepath.Join(dir, "node_modules", "@anthropic-ai", "claude-code", "bin", "claude.exe"))
	shim := writeFile(t, filepath.Join(dir, "claude.cmd"), shimNative)
	v, err := Version(context.Background(), shim)
	if err != nil || v != "2.1.0" {
		t.Errorf("Version = %q, %v", v, err)
	}
}

// TestWindowsExitCodeOfTerminatedCLI: a CLI stopped through its job reports
// 128+9, as a shell would for SIGKILL.
func TestWindowsExitCodeOfTerminatedCLI(t *testing.T) {
	t.Parallel()
	cmd, err := startTestBinary("win_sleep", setProcessGroup, startProcess)
	if err != nil {
		t.Fatal(err)
	}
	signalGroup(cmd.Process.Pid, syscall.SIGKILL)
	err = cmd.Wait()
	if got := cmd.ProcessState.ExitCode(); got != 137 {
		t.Errorf("exit code %d (%v), want 137", got, err)
	}
	jobs.Lock()
	_, left := jobs.m[cmd.Process.Pid]
	jobs.Unlock()
	if left {
		t.Error("job still registered after SIGKILL")
	}
}

// TestWindowsStartTestBinaryRetriesWineFlakes: the helper the tests above start
// processes with tries again after Wine's transient "Internal error" (seen
// once in CI starting the grandchild), and only after that error.
func TestWindowsStartTestBinaryRetriesWineFlakes(t *testing.T) {
	t.Parallel()
	flake := &os.PathError{Op: "fork/exec", Path: os.Args[0], Err: windows.ERROR_INTERNAL_ERROR}
	tries := 0
	cmd, err := startTestBinary("win_version", nil, func(cmd *exec.Cmd) error {
		if tries++; tries == 1 {
			return flake
		}
		return cmd.Start()
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	// The real start may itself meet Wine's flake and be tried again, so
	// more than two tries is fine; fewer means no retry happened.
	if tries < 2 {
		t.Errorf("%d tries, want at least 2", tries)
	}
	tries = 0
	if _, err := startTestBinary("win_version", nil, func(*exec.Cmd) error {
		tries++
		return os.ErrPermission
	}); !errors.Is(err, os.ErrPermission) || tries != 1 {
		t.Errorf("another error: %v after %d tries, want it after 1", err, tries)
	}
}
