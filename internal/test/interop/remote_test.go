package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// awaitTimeout bounds each wait for an event of the remote client.
var awaitTimeout = 90 * time.Second

// remoteToken is the bearer token the tests' servers require.
const remoteToken = "interop-test-token-0123456789abcdef"

// A served agent: `claude-agent-acp serve` on a free loopback port.
type served struct {
	URL    string
	cmd    *exec.Cmd
	exited chan struct{} // closed once cmd has exited
	mu     sync.Mutex
	stderr bytes.Buffer
}

func (s *served) log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

// startServe runs the agent binary's serve subcommand in sb and waits for
// the line that says where it listens.
func startServe(t *testing.T, sb *clitest.Sandbox, extraEnv ...string) *served {
	t.Helper()
	t.Cleanup(func() { clitest.NoOrphans(t) })
	cmd := exec.Command(agentBin, "serve", "--listen", "127.0.0.1:0")
	cmd.Env = sb.With(append([]string{"CLAUDE_CODE_EXECUTABLE=" + sb.CLI, "CLAUDE_AGENT_ACP_TOKEN=" + remoteToken, "CLAUDE_AGENT_ACP_LOG=info"}, extraEnv...)...)
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &served{cmd: cmd, exited: make(chan struct{})}
	go func() { cmd.Wait(); close(s.exited) }()
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		re := regexp.MustCompile(`serving ACP on (http://\S+/acp)`)
		for sc.Scan() {
			s.mu.Lock()
			s.stderr.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		<-s.exited
		pw.Close()
		if strings.Contains(s.log(), remoteToken) {
			t.Errorf("the server's log shows the token:\n%s", s.log())
		}
		if strings.Contains(s.log(), "DATA RACE") { // an agent built with -race (GOFLAGS=-race)
			t.Errorf("the server hit a data race")
		}
		if t.Failed() {
			t.Logf("server log:\n%s", s.log())
		}
	})
	select {
	case s.URL = <-addr:
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not say where it listens:\n%s", s.log())
	}
	return s
}

// A remoteDriver is remote_client.mjs: the SDK's client, driven line by line.
type remoteDriver struct {
	t      *testing.T
	in     io.WriteCloser
	events chan map[string]any
	seen   []map[string]any // events read and not yet taken
}

func startDriver(t *testing.T) *remoteDriver {
	t.Helper()
	sdk := requireNode(t, "@agentclientprotocol/sdk")
	ws := requireNode(t, "ws")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	cmd := exec.CommandContext(ctx, "node", "testdata/remote_client.mjs", filepath.Join(sdk, "dist"), ws)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &remoteDriver{t: t, in: in, events: make(chan map[string]any, 1024)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var ev map[string]any
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				d.events <- ev
			}
		}
		close(d.events)
	}()
	t.Cleanup(func() {
		in.Close()
		cancel()
		cmd.Wait()
		if t.Failed() {
			t.Logf("node stderr:\n%s", stderr.String())
		}
	})
	return d
}

func (d *remoteDriver) send(cmd map[string]any) {
	b, _ := json.Marshal(cmd)
	if _, err := d.in.Write(append(b, '\n')); err != nil {
		d.t.Fatalf("driver: %v", err)
	}
}

// await returns the first event (kept or new) that match accepts; the
// events before it that it did not accept are kept for later awaits.
func (d *remoteDriver) await(what string, match func(ev map[string]any) bool) map[string]any {
	d.t.Helper()
	for i, ev := range d.seen {
		if match(ev) {
			d.seen = append(d.seen[:i], d.seen[i+1:]...)
			return ev
		}
	}
	timeout := time.After(awaitTimeout)
	for {
		select {
		case ev, ok := <-d.events:
			if !ok {
				d.t.Fatalf("driver ended while waiting for %s", what)
			}
			if ev["ev"] == "error" {
				d.t.Fatalf("driver: %s failed: %v", ev["op"], ev["message"])
			}
			if match(ev) {
				return ev
			}
			d.seen = append(d.seen, ev)
		case <-timeout:
			d.t.Fatalf("timed out waiting for %s; saw %v", what, d.seen)
		}
	}
}

// do sends a command and waits for its answer.
func (d *remoteDriver) do(cmd map[string]any) map[string]any {
	d.t.Helper()
	d.send(cmd)
	return d.await(fmt.Sprint(cmd["op"], " ", cmd["name"]), func(ev map[string]any) bool {
		return ev["ev"] == "ok" && ev["op"] == cmd["op"] && ev["name"] == cmd["name"]
	})
}

func isEvent(kind, name string, more func(ev map[string]any) bool) func(ev map[string]any) bool {
	return func(ev map[string]any) bool {
		return ev["ev"] == kind && ev["name"] == name && (more == nil || more(ev))
	}
}

// TestRemoteTurnPermissionCancel: over each transport, the official SDK's
// client initializes, opens a session, runs a streamed turn whose tool
// needs a permission, then cancels a second turn while it runs.
func TestRemoteTurnPermissionCancel(t *testing.T) {
	t.Parallel()
	for _, transport := range []string{"ws", "http"} {
		t.Run(transport, func(t *testing.T) {
			sb := clitest.NewSandbox(t)
			notes := filepath.Join(sb.WorkDir, "notes.txt")
			sb.API.Script(
				fakeapi.ToolUse("toolu_remote_write", "Write", map[string]any{"file_path": notes, "content": "one\ntwo\n"}),
				fakeapi.Step{Kind: fakeapi.KindText, Text: "Notes written, over the network.", Chunks: 6},
				fakeapi.Step{Kind: fakeapi.KindHang, Text: "Thinking", HangS: 60},
			)
			srv := startServe(t, sb)
			d := startDriver(t)
			init := d.do(map[string]any{"op": "connect", "name": "a", "transport": transport, "url": srv.URL, "token": remoteToken})
			if init["agentName"] != "claude-agent-acp" || init["loadSession"] != true {
				t.Fatalf("initialize: %v", init)
			}
			sid := d.do(map[string]any{"op": "new", "name": "a", "cwd": sb.WorkDir})["sessionId"].(string)
			d.send(map[string]any{"op": "prompt", "name": "a", "sessionId": sid, "text": "write the notes", "tag": "first"})
			d.await("a permission request", isEvent("permission", "a", nil))
			stop := d.await("the first turn's end", isEvent("stop", "a", func(ev map[string]any) bool { return ev["tag"] == "first" }))
			if stop["stopReason"] != "end_turn" {
				t.Fatalf("first turn: %v", stop)
			}
			text := ""
			chunks := 0
			for _, ev := range d.seen {
				if ev["ev"] == "update" && ev["kind"] == "agent_message_chunk" {
					text += fmt.Sprint(ev["text"])
					chunks++
				}
			}
			if text != "Notes written, over the network." || chunks < 2 {
				t.Fatalf("streamed text %q in %d chunks", text, chunks)
			}
			d.seen = nil
			d.send(map[string]any{"op": "prompt", "name": "a", "sessionId": sid, "text": "think forever", "tag": "second"})
			d.await("the second turn's first chunk", isEvent("update", "a", func(ev map[string]any) bool { return ev["kind"] == "agent_message_chunk" }))
			d.do(map[string]any{"op": "cancel", "name": "a", "sessionId": sid})
			stop = d.await("the cancelled turn's end", isEvent("stop", "a", func(ev map[string]any) bool { return ev["tag"] == "second" }))
			if stop["stopReason"] != "cancelled" {
				t.Fatalf("cancelled turn: %v", stop)
			}
			d.do(map[string]any{"op": "exit"})
		})
	}
}

// TestRemoteReconnectLoads: a client that loses its connection reconnects
// and loads its session on the new one, then goes on with it.
func TestRemoteReconnectLoads(t *testing.T) {
	t.Parallel()
	for _, transport := range []string{"ws", "http"} {
		t.Run(transport, func(t *testing.T) {
			sb := clitest.NewSandbox(t)
			sb.API.Script(fakeapi.Text("Before the drop."), fakeapi.Text("After the reconnect."))
			srv := startServe(t, sb)
			d := startDriver(t)
			d.do(map[string]any{"op": "connect", "name": "a", "transport": transport, "url": srv.URL, "token": remoteToken})
			sid := d.do(map[string]any{"op": "new", "name": "a", "cwd": sb.WorkDir})["sessionId"].(string)
			d.send(map[string]any{"op": "prompt", "name": "a", "sessionId": sid, "text": "one", "tag": "one"})
			if stop := d.await("turn one", isEvent("stop", "a", nil)); stop["stopReason"] != "end_turn" {
				t.Fatalf("turn one: %v", stop)
			}
			d.do(map[string]any{"op": "drop", "name": "a"})
			d.seen = nil
			d.do(map[string]any{"op": "connect", "name": "b", "transport": transport, "url": srv.URL, "token": remoteToken})
			d.do(map[string]any{"op": "load", "name": "b", "sessionId": sid, "cwd": sb.WorkDir})
			replayed := ""
			for _, ev := range d.seen {
				if ev["ev"] == "update" && ev["name"] == "b" && ev["kind"] == "agent_message_chunk" {
					replayed += fmt.Sprint(ev["text"])
				}
			}
			if replayed != "Before the drop." {
				t.Fatalf("the load replayed %q", replayed)
			}
			d.seen = nil
			d.send(map[string]any{"op": "prompt", "name": "b", "sessionId": sid, "text": "two", "tag": "two"})
			if stop := d.await("turn two", isEvent("stop", "b", nil)); stop["stopReason"] != "end_turn" {
				t.Fatalf("turn two: %v", stop)
			}
			d.do(map[string]any{"op": "exit"})
		})
	}
}

// TestRemoteTwoClients: two clients, one per transport, each with its own
// session, run turns at once on one server; each sees only its own.
func TestRemoteTwoClients(t *testing.T) {
	t.Parallel()
	sb := clitest.NewSandbox(t)
	sb.API.Script(
		fakeapi.Step{Kind: fakeapi.KindText, Text: "Answer for alpha.", Match: &fakeapi.Match{LastUserContains: "alpha"}, Chunks: 4},
		fakeapi.Step{Kind: fakeapi.KindText, Text: "Answer for beta.", Match: &fakeapi.Match{LastUserContains: "beta"}, Chunks: 4},
	)
	srv := startServe(t, sb)
	d := startDriver(t)
	d.do(map[string]any{"op": "connect", "name": "ws", "transport": "ws", "url": srv.URL, "token": remoteToken})
	d.do(map[string]any{"op": "connect", "name": "http", "transport": "http", "url": srv.URL, "token": remoteToken})
	s1 := d.do(map[string]any{"op": "new", "name": "ws", "cwd": sb.WorkDir})["sessionId"].(string)
	s2 := d.do(map[string]any{"op": "new", "name": "http", "cwd": sb.WorkDir})["sessionId"].(string)
	d.send(map[string]any{"op": "prompt", "name": "ws", "sessionId": s1, "text": "alpha", "tag": "alpha"})
	d.send(map[string]any{"op": "prompt", "name": "http", "sessionId": s2, "text": "beta", "tag": "beta"})
	for _, name := range []string{"ws", "http"} {
		if stop := d.await(name+"'s turn", isEvent("stop", name, nil)); stop["stopReason"] != "end_turn" {
			t.Fatalf("%s: %v", name, stop)
		}
	}
	texts := map[string]string{}
	for _, ev := range d.seen {
		if ev["ev"] == "update" && ev["kind"] == "agent_message_chunk" {
			name := ev["name"].(string)
			if want := map[string]string{"ws": s1, "http": s2}[name]; ev["sessionId"] != want {
				t.Errorf("%s got an update of session %v", name, ev["sessionId"])
			}
			texts[name] += fmt.Sprint(ev["text"])
		}
	}
	if texts["ws"] != "Answer for alpha." || texts["http"] != "Answer for beta." {
		t.Fatalf("texts: %v", texts)
	}
	d.do(map[string]any{"op": "exit"})
}

// TestRemoteTurnOutlivesTheConnection (issue 40, phase 2): a client whose
// connection drops in the middle of a streamed turn reconnects and loads
// its session: the turn was not stopped (the CLI kept going, no second
// model request), the rest of it streams to the new connection, and the
// session goes on there.
func TestRemoteTurnOutlivesTheConnection(t *testing.T) {
	t.Parallel()
	for _, transport := range []string{"ws", "http"} {
		t.Run(transport, func(t *testing.T) {
			sb := clitest.NewSandbox(t)
			sb.API.Script(
				fakeapi.Step{Kind: fakeapi.KindText, Text: strings.Repeat("tick ", 40) + "done.", Chunks: 41, ChunkDelayMS: 100},
				fakeapi.Text("And the next one."),
			)
			srv := startServe(t, sb)
			d := startDriver(t)
			d.do(map[string]any{"op": "connect", "name": "a", "transport": transport, "url": srv.URL, "token": remoteToken})
			sid := d.do(map[string]any{"op": "new", "name": "a", "cwd": sb.WorkDir})["sessionId"].(string)
			d.send(map[string]any{"op": "prompt", "name": "a", "sessionId": sid, "text": "count slowly", "tag": "long"})
			d.await("the turn's first chunk", isEvent("update", "a", func(ev map[string]any) bool { return ev["kind"] == "agent_message_chunk" }))
			d.do(map[string]any{"op": "drop", "name": "a"})
			d.seen = nil
			d.do(map[string]any{"op": "connect", "name": "b", "transport": transport, "url": srv.URL, "token": remoteToken})
			d.do(map[string]any{"op": "load", "name": "b", "sessionId": sid, "cwd": sb.WorkDir})
			// The rest of the turn streams to b, up to its last words.
			d.await("the rest of the turn on the new connection", isEvent("update", "b", func(ev map[string]any) bool {
				return ev["kind"] == "agent_message_chunk" && strings.HasSuffix(fmt.Sprint(ev["text"]), "done.")
			}))
			if n := len(sb.API.MainRequests()); n != 1 {
				t.Fatalf("model requests: %d, want 1 (the turn went on, it was not started again)", n)
			}
			d.send(map[string]any{"op": "prompt", "name": "b", "sessionId": sid, "text": "next", "tag": "next"})
			if stop := d.await("the next turn", isEvent("stop", "b", nil)); stop["stopReason"] != "end_turn" {
				t.Fatalf("next turn: %v", stop)
			}
			d.do(map[string]any{"op": "exit"})
		})
	}
}

// TestRemotePermissionWaitsForTheNextConnection: a permission request
// open when the connection drops is not denied: it is asked again on the
// connection that loads the session, and the tool runs once allowed there.
func TestRemotePermissionWaitsForTheNextConnection(t *testing.T) {
	t.Parallel()
	for _, transport := range []string{"ws", "http"} {
		t.Run(transport, func(t *testing.T) {
			sb := clitest.NewSandbox(t)
			notes := filepath.Join(sb.WorkDir, "notes.txt")
			sb.API.Script(
				fakeapi.ToolUse("toolu_remote_held", "Write", map[string]any{"file_path": notes, "content": "written after a reconnect\n"}),
				fakeapi.Text("Written."),
			)
			srv := startServe(t, sb)
			d := startDriver(t)
			d.do(map[string]any{"op": "connect", "name": "a", "transport": transport, "url": srv.URL, "token": remoteToken, "hold": true})
			sid := d.do(map[string]any{"op": "new", "name": "a", "cwd": sb.WorkDir})["sessionId"].(string)
			d.send(map[string]any{"op": "prompt", "name": "a", "sessionId": sid, "text": "write the notes", "tag": "write"})
			d.await("the permission request on a", isEvent("permission", "a", nil))
			d.do(map[string]any{"op": "drop", "name": "a"})
			d.do(map[string]any{"op": "connect", "name": "b", "transport": transport, "url": srv.URL, "token": remoteToken, "hold": true})
			d.do(map[string]any{"op": "load", "name": "b", "sessionId": sid, "cwd": sb.WorkDir})
			ask := d.await("the permission request again on b", isEvent("permission", "b", nil))
			d.do(map[string]any{"op": "answer", "id": ask["id"], "allow": true})
			d.await("the turn's last words on b", isEvent("update", "b", func(ev map[string]any) bool {
				return ev["kind"] == "agent_message_chunk" && strings.Contains(fmt.Sprint(ev["text"]), "Written.")
			}))
			b, err := os.ReadFile(notes)
			if err != nil || string(b) != "written after a reconnect\n" {
				t.Fatalf("the tool did not run: %q %v", b, err)
			}
			d.do(map[string]any{"op": "exit"})
		})
	}
}

// TestRemoteSIGTERMEndsEverything: SIGTERM ends the server at once, with
// every CLI: a connected client's running turn and a session whose
// connection dropped mid-turn alike (startServe checks that no CLI is
// left).
func TestRemoteSIGTERMEndsEverything(t *testing.T) {
	t.Parallel()
	sb := clitest.NewSandbox(t)
	sb.API.Script(fakeapi.Step{Kind: fakeapi.KindHang, Text: "Thinking", HangS: 120, Repeat: 2})
	srv := startServe(t, sb)
	d := startDriver(t)
	for _, name := range []string{"gone", "here"} {
		d.do(map[string]any{"op": "connect", "name": name, "transport": "ws", "url": srv.URL, "token": remoteToken})
		sid := d.do(map[string]any{"op": "new", "name": name, "cwd": sb.WorkDir})["sessionId"].(string)
		d.send(map[string]any{"op": "prompt", "name": name, "sessionId": sid, "text": "think forever", "tag": name})
		d.await(name+"'s first chunk", isEvent("update", name, func(ev map[string]any) bool { return ev["kind"] == "agent_message_chunk" }))
	}
	d.do(map[string]any{"op": "drop", "name": "gone"})
	srv.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-srv.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not exit after SIGTERM")
	}
}
