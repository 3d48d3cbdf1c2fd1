package agenttest

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// link is what Harness and HarnessV2 share: the agent (in this process)
// serving one end of two OS pipes, the client connection on the other
// end, and every line that crosses them, recorded.
type link struct {
	t       testing.TB
	Sandbox *clitest.Sandbox
	Client  *acp.Conn

	// mu guards wire and the records of the harness that embeds the link.
	mu      sync.Mutex
	wire    []WireLine
	changed chan struct{} // a value when something was recorded (poke)

	served chan error
	stop   func() // ends the agent (once); see Close
}

// WireLine is one JSON-RPC line as it crossed the pipe.
type WireLine struct {
	FromAgent bool
	Line      string
}

// start runs an agent configured from opts against its sandbox (a fresh
// one unless opts names one) and connects a client with handler to it. At
// cleanup the agent stops, then each of atEnd runs, and no CLI may
// outlive the test.
func (l *link) start(t testing.TB, opts []Options, handler acp.Handler, atEnd ...func()) {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	sb := o.Sandbox
	if sb == nil {
		sb = clitest.NewSandbox(t)
	}
	cfg := agent.Config{Executable: sb.CLI, Env: sb.With(o.Env...), Version: "test"}
	if o.Config != nil {
		o.Config(&cfg)
	}
	l.t, l.Sandbox = t, sb
	l.changed, l.served = make(chan struct{}, 1), make(chan error, 1)

	agentIn, clientOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	clientIn, agentOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	a := o.Agent
	if a == nil {
		a = agent.New(cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { l.served <- a.Serve(ctx, agentIn, agentOut) }()

	l.Client = acp.NewConn(&tap{r: clientIn, l: l, fromAgent: true}, &tap{w: clientOut, l: l}, acp.Options{Handler: handler})
	var stopOnce sync.Once
	l.stop = func() { stopOnce.Do(func() { l.shutdown(clientOut, agentIn, agentOut, clientIn, cancel) }) }
	// Cleanups run last-registered first: the agent stops, then atEnd.
	for _, f := range atEnd {
		t.Cleanup(f)
	}
	t.Cleanup(l.stop)
	if o.Agent == nil { // another connection's CLIs may run
		clitest.NoOrphans(t)
	}
}

// Close ends the agent as an editor closing its connection would: the
// agent stops its CLIs and Serve returns. Cleanup does it too; call it
// earlier to run a second agent on the same sandbox.
func (l *link) Close() { l.stop() }

func (l *link) shutdown(clientOut, agentIn, agentOut, clientIn *os.File, cancel context.CancelFunc) {
	_ = clientOut.Close() // EOF: the agent stops its CLIs and returns
	select {
	case err := <-l.served:
		if err != nil {
			l.t.Errorf("agent Serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		l.t.Errorf("agent did not stop within 30s of EOF")
		cancel()
	}
	cancel()
	l.Client.Close()
	l.Client.Wait()
	for _, f := range []*os.File{agentIn, agentOut, clientIn} {
		_ = f.Close()
	}
}

func (l *link) poke() {
	select {
	case l.changed <- struct{}{}:
	default:
	}
}

// API is the fake Messages API behind the CLI.
func (l *link) API() *fakeapi.Server { return l.Sandbox.API }

// Ctx is a context for one call, bounded so a broken agent fails the test
// instead of hanging it.
func (l *link) Ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	l.t.Cleanup(cancel)
	return ctx
}

// Wire returns every line that crossed the connection, in order.
func (l *link) Wire() []WireLine {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]WireLine(nil), l.wire...)
}

// WaitFor polls cond (under no lock) until it holds or the timeout passes.
func (l *link) WaitFor(what string, timeout time.Duration, cond func() bool) {
	l.t.Helper()
	deadline := time.After(timeout)
	for !cond() {
		select {
		case <-l.changed:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			l.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// DumpWire writes the wire to $DUMP_WIRE/<test>.jsonl when that variable
// is set ("> " before the client's lines, "< " before the agent's), to
// look at what an editor would receive.
func (l *link) DumpWire() {
	dir := os.Getenv("DUMP_WIRE")
	if dir == "" {
		return
	}
	var sb strings.Builder
	for _, w := range l.Wire() {
		if w.FromAgent {
			sb.WriteString("< ")
		} else {
			sb.WriteString("> ")
		}
		sb.WriteString(w.Line + "\n")
	}
	_ = os.WriteFile(filepath.Join(dir, strings.ReplaceAll(l.t.Name(), "/", "_")+".jsonl"), []byte(sb.String()), 0o644)
}

// tap records each line crossing a pipe.
type tap struct {
	r         io.Reader
	w         io.Writer
	l         *link
	fromAgent bool
	pending   []byte
}

func (t *tap) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		t.record(p[:n])
	}
	return n, err
}

func (t *tap) Write(p []byte) (int, error) {
	t.record(p)
	return t.w.Write(p)
}

func (t *tap) record(b []byte) {
	t.pending = append(t.pending, b...)
	for {
		i := bytes.IndexByte(t.pending, '\n')
		if i < 0 {
			return
		}
		line := string(t.pending[:i])
		t.pending = t.pending[i+1:]
		t.l.mu.Lock()
		t.l.wire = append(t.l.wire, WireLine{FromAgent: t.fromAgent, Line: line})
		t.l.mu.Unlock()
		t.l.poke()
	}
}
