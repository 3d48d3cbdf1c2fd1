package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
)

// The slow reader (issue 38): the streaming turn of section 4 driven by a
// client that reads as an editor extension written in Python might, one
// line at a time, parsing each before it reads the next:
//
//	for line in proc.stdout:          # a BufferedReader: 8 KiB reads
//	    msg = json.loads(line)
//	    if msg.get("method") == "session/update": ...
//
// The harness's own clients do the least a client can (a byte search per
// line), so the adapter finds them waiting on every write; this one is
// busy most of the time, as a client in an interpreted language is when
// 20,000 chunks come in a second. What an adapter's relaying costs then
// may differ: issue 38 measured 14–16 µs of our agent's CPU per delta
// with such a Python client against 2.5 with the fast one.
//
// It is written in Go, so that the bench needs no Python: it reads
// through a buffer of Python's size (slowReaderBuffer), decodes every line
// fully (encoding/json into interface values, as json.loads builds dicts)
// and then works on until the line has cost it slowReaderPace of its
// thread's CPU, the pace of the Python loop above (see there).

// slowReaderBuffer is the read size of a Python client's pipe:
// io.DEFAULT_BUFFER_SIZE, what subprocess.Popen(stdout=PIPE) and
// sys.stdin.buffer read with.
const slowReaderBuffer = 8 << 10

// slowReaderPace is the CPU a Python client spends on one chunk's line:
// json.loads and a dispatch on the method and the update's kind that
// keeps the text. Calibrated on the 2-core VM of issue 38 with CPython
// 3.11: the loop in the comment above, fed 20,000 agent_message_chunk
// lines of our agent's shape (about 300 bytes) through its stdin, took
// 4.1–7.1 µs of CPU per line in 11 runs (time.process_time; median 4.5
// µs) on a busy machine; a real client does more (an asyncio loop,
// validation of the update's model, its UI), so the pace is a floor.
const slowReaderPace = 4500 * time.Nanosecond

// startSlow starts argv as startLean does, with the slow reader's client:
// the adapter's stdout is a pipe read with blocking reads of up to
// slowReaderBuffer bytes on the reading thread (blockingPipe), as CPython
// reads it, and every line gets slowLine's work.
func startSlow(ctx context.Context, argv []string, sb *sandbox) (*leanClient, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = sb.env
	cmd.Dir = sb.work
	setGroup(cmd)
	stderr := &tail{max: 8 << 10}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	r, w, err := blockingPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = w
	err = cmd.Start()
	_ = w.Close()
	if err != nil {
		_ = r.Close()
		return nil, err
	}
	return &leanClient{cmd: cmd, stdin: stdin, out: bufio.NewReaderSize(r, slowReaderBuffer), stderr: stderr,
		unkill: context.AfterFunc(ctx, func() { killGroup(cmd.Process.Pid) }), perLine: slowLine, closeOut: r}, nil
}

// slowLine is the slow reader's work on one line: a full decode, then
// work until the line has cost slowReaderPace of the thread's CPU. The
// caller's goroutine is locked to its thread (slowCall).
func slowLine(line []byte) {
	start := ownThreadCPU()
	var msg any
	_ = json.Unmarshal(line, &msg)
	if m, ok := msg.(map[string]any); ok && m["method"] == acp.MethodSessionUpdate {
		if p, ok := m["params"].(map[string]any); ok {
			if u, ok := p["update"].(map[string]any); ok {
				_, _ = u["sessionUpdate"].(string)
			}
		}
	}
	for ownThreadCPU()-start < slowPace {
	}
}

// slowPace is slowReaderPace unless ACPBENCH_SLOW_PACE_NS says otherwise
// (for exploring how the pace matters; the bench uses the constant).
var slowPace = func() time.Duration {
	if v, err := strconv.Atoi(os.Getenv("ACPBENCH_SLOW_PACE_NS")); err == nil && v >= 0 {
		return time.Duration(v)
	}
	return slowReaderPace
}()

// slowCall is c.call on a goroutine locked to its thread, so that
// slowLine's CPU clock is the reader's own; it also returns the CPU the
// thread used for the call (reads, decoding and work: the client's cost).
func (c *leanClient) slowCall(method string, params any) (leanUpdates, time.Duration, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := ownThreadCPU()
	u, err := c.call(method, params)
	return u, ownThreadCPU() - start, err
}

// Metric keys of the slow reader's streaming turn.
const (
	kSlowDone        = "slow.answer"
	kSlowChunks      = "slow.chunks"
	kSlowCPU         = "slow.cpu.self"
	kSlowCPUPerChunk = "slow.cpu.per_chunk"
	kSlowRuns        = "slow.runs"
	kSlowWrites      = "slow.syscalls.write"
	kSlowReads       = "slow.syscalls.read"
	kSlowFirst       = "slow.first_chunk"
	kSlowClientLine  = "slow.client.per_line" // the slow reader's own CPU per line it read in the turn
	kSlowPreempted   = "slow.preempted"       // the adapter's involuntary context switches in the turn
)

// runSlowReader runs the streaming turn with the slow reader: a session,
// two warm-up turns (the CLI's first turn is slower than the others), then
// the turn of cfg.Deltas deltas, with the adapter's CPU from its threads'
// schedstat, its wake-ups and its write and read system calls.
func runSlowReader(ctx context.Context, cfg *Config, argv []string) (sample, error) {
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	api, sb, err := newWorld(cfg)
	if err != nil {
		return nil, err
	}
	defer api.Close()
	api.Script(streamStep(cfg.Deltas))
	c, err := startSlow(ctx, argv, sb)
	if err != nil {
		return nil, err
	}
	defer c.close(cfg.closeTimeout())
	if _, _, err := c.slowCall(acp.MethodInitialize, &acp.InitializeRequest{ProtocolVersion: 1}); err != nil {
		return nil, err
	}
	created, _, err := c.slowCall(acp.MethodSessionNew, &acp.NewSessionRequest{Cwd: sb.work, MCPServers: []acp.MCPServer{}})
	if err != nil {
		return nil, err
	}
	var ns struct {
		Result acp.NewSessionResponse `json:"result"`
	}
	if err := json.Unmarshal(created.answer, &ns); err != nil {
		return nil, fmt.Errorf("session/new answer: %w", err)
	}
	prompt := func(text string) (leanUpdates, time.Duration, error) {
		return c.slowCall(acp.MethodSessionPrompt, &acp.PromptRequest{SessionID: ns.Result.SessionID,
			Prompt: []acp.ContentBlock{{Text: &acp.TextContent{Text: text}}}})
	}
	pid := c.cmd.Process.Pid
	for i := range 2 {
		if _, _, err := prompt(fmt.Sprintf("warm up %d: say hello", i+1)); err != nil {
			return nil, err
		}
		settle(pid, 3*time.Second)
	}
	before, err := usageOf(pid)
	if err != nil {
		return nil, err
	}
	sent := time.Now()
	u, clientCPU, err := prompt(streamPrompt)
	if err != nil {
		return nil, err
	}
	done := time.Since(sent)
	after, err := usageOf(pid)
	if err != nil {
		return nil, err
	}
	if u.chunks == 0 {
		return nil, fmt.Errorf("slow reader: no agent_message_chunk in the streaming turn")
	}
	cpu := cpuBetween(before, after).Seconds()
	return sample{
		kSlowDone:        done.Seconds(),
		kSlowFirst:       u.firstChunk.Sub(sent).Seconds(),
		kSlowChunks:      float64(u.chunks),
		kSlowCPU:         cpu,
		kSlowCPUPerChunk: cpu / float64(cfg.Deltas),
		kSlowRuns:        float64(after.selfRuns - before.selfRuns),
		kSlowWrites:      float64(after.self.syscw - before.self.syscw),
		kSlowReads:       float64(after.self.syscr - before.self.syscr),
		kSlowClientLine:  clientCPU.Seconds() / float64(u.n+1),
		kSlowPreempted:   float64(after.selfPreempted - before.selfPreempted),
	}, nil
}
